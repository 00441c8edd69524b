"""Online actor-critic that collects per-step losses in a list and backwards their sum
every n steps, emptying the list each time (issue 13, mechanism 3: the path that empties
the list must not be merged with the one that keeps it).

Every loss in the list was built during the current window, so each backward reaches
only graphs no earlier backward has freed.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical

OBS, ACTIONS = 4, 2


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.pi = nn.Sequential(nn.Linear(OBS, 32), nn.Tanh(), nn.Linear(32, ACTIONS))
        self.v = nn.Sequential(nn.Linear(OBS, 32), nn.Tanh(), nn.Linear(32, 1))


def main(steps=24, n=5, gamma=0.9):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    model = ActorCritic()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    losses, updates = [], 0
    obs = torch.randn(OBS, generator=g)
    for t in range(steps):
        dist = Categorical(logits=model.pi(obs))
        action = dist.sample()
        reward = float(action.item() == int(obs[0] > 0))
        next_obs = torch.randn(OBS, generator=g)
        with torch.no_grad():
            target = reward + gamma * model.v(next_obs).squeeze()
        value = model.v(obs).squeeze()
        advantage = target - value
        losses.append(-dist.log_prob(action) * advantage.detach() + advantage.pow(2))
        if len(losses) == n:
            optimizer.zero_grad()
            torch.stack(losses).mean().backward()
            optimizer.step()
            losses.clear()
            updates += 1
        obs = next_obs
    assert updates == steps // n
    print("updates", updates, "pending", len(losses))


if __name__ == "__main__":
    main()

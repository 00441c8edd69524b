"""Alternating actor and critic updates chosen by an if/elif on the update index, with
no else branch (issue 13, mechanism 3: the two conditions cover every index, so no path
keeps the previous iteration's loss), and a warm-up loop `for _ in range(10)` that
always runs.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical

OBS, ACTIONS, BATCH = 4, 3, 32


def batch(g):
    obs = torch.randn(BATCH, OBS, generator=g)
    return obs, obs[:, :ACTIONS].argmax(-1)


def main(updates=6):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    actor = nn.Sequential(nn.Linear(OBS, 32), nn.Tanh(), nn.Linear(32, ACTIONS))
    critic = nn.Sequential(nn.Linear(OBS + ACTIONS, 32), nn.Tanh(), nn.Linear(32, 1))
    actor_opt = torch.optim.Adam(actor.parameters(), lr=3e-3)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=3e-3)
    for _ in range(10):
        obs, best = batch(g)
        taken = torch.randint(0, ACTIONS, (BATCH,), generator=g)
        reward = (taken == best).float()
        warm_loss = (critic(torch.cat([obs, nn.functional.one_hot(taken, ACTIONS).float()], -1)).squeeze(-1) - reward).pow(2).mean()
        critic_opt.zero_grad()
        warm_loss.backward()
        critic_opt.step()
    print("warm-up critic loss", round(warm_loss.item(), 4))
    for update in range(updates):
        obs, best = batch(g)
        if update % 2 == 0:
            probs = Categorical(logits=actor(obs)).probs
            q_all = torch.stack([critic(torch.cat([obs, nn.functional.one_hot(torch.full((BATCH,), a), ACTIONS).float()], -1)).squeeze(-1) for a in range(ACTIONS)], -1)
            loss, opt = -(probs * q_all.detach()).sum(-1).mean(), actor_opt
        elif update % 2 == 1:
            with torch.no_grad():
                taken = Categorical(logits=actor(obs)).sample()
            reward = (taken == best).float()
            loss, opt = (critic(torch.cat([obs, nn.functional.one_hot(taken, ACTIONS).float()], -1)).squeeze(-1) - reward).pow(2).mean(), critic_opt
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(update, round(loss.item(), 4))


if __name__ == "__main__":
    main()

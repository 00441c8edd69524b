"""A2C with a GRU policy whose hidden state is carried across rollouts through a helper
that cuts its history, `state = cut_history(state)`, and logs a statistic through a
`@torch.no_grad` helper that returns a float (issue 13, mechanism 2: calls whose
summary is "detached" or "a float" must not be assumed to pass the graph on).
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical

OBS, HIDDEN, ACTIONS, T = 3, 16, 2, 6


def cut_history(state):
    return state.detach()


@torch.no_grad()
def positive_share(scores):
    return (scores > 0).float().mean().item()


class RecurrentActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(OBS, HIDDEN)
        self.pi = nn.Linear(HIDDEN, ACTIONS)
        self.v = nn.Linear(HIDDEN, 1)


def main(rollouts=4, gamma=0.9):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    model = RecurrentActorCritic()
    optimizer = torch.optim.RMSprop(model.parameters(), lr=3e-3)
    state = torch.zeros(1, HIDDEN)
    for rollout in range(rollouts):
        log_probs, values, rewards = [], [], []
        for _ in range(T):
            obs = torch.randn(1, OBS, generator=g)
            state = model.cell(obs, state)
            dist = Categorical(logits=model.pi(state))
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            values.append(model.v(state).squeeze())
            rewards.append(float(action.item() == int(obs[0, 0] > 0)))
        ret, returns = 0.0, []
        for r in reversed(rewards):
            ret = r + gamma * ret
            returns.insert(0, ret)
        advantage = torch.tensor(returns) - torch.stack(values)
        loss = -(torch.cat(log_probs) * advantage.detach()).mean() + advantage.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        state = cut_history(state)
        print(rollout, round(loss.item(), 4), positive_share(advantage))


if __name__ == "__main__":
    main()

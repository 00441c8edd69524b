"""A tiny recurrent world model (deterministic GRU state + reward/observation heads)
trained on consecutive chunks of one long trajectory.

Report: https://github.com/danijar/dreamerv2/issues/44 -- the world model uses the last
posterior state of one training batch as the start state of the next. In a PyTorch
port that carries the state as-is, the next batch's loss reaches back into the previous
batch's graph, which that batch's backward already freed. (The answer: the state is
only carried for truncated backprop through time, i.e. without its history.)
"""

import torch
import torch.nn as nn

OBS, ACT, DETER = 3, 1, 16


class WorldModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(OBS + ACT, DETER)
        self.decode = nn.Linear(DETER, OBS)
        self.reward = nn.Linear(DETER, 1)

    def observe(self, state, obs, actions):
        preds, rewards = [], []
        for t in range(obs.shape[0]):
            state = self.cell(torch.cat([obs[t], actions[t]], -1), state)
            preds.append(self.decode(state))
            rewards.append(self.reward(state).squeeze(-1))
        return state, torch.stack(preds), torch.stack(rewards)


def trajectory(length=60, seed=0):
    g = torch.Generator().manual_seed(seed)
    actions = torch.rand(length, 1, ACT, generator=g) * 2 - 1
    obs = torch.zeros(length, 1, OBS)
    for t in range(1, length):
        obs[t] = 0.9 * obs[t - 1] + 0.1 * actions[t - 1].repeat(1, OBS) + 0.01 * torch.randn(1, OBS, generator=g)
    rewards = -obs.pow(2).sum(-1)
    return obs, actions, rewards


def main(chunk=10):
    torch.manual_seed(0)
    obs, actions, rewards = trajectory()
    model = WorldModel()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    state = torch.zeros(1, DETER)
    for start in range(0, obs.shape[0] - chunk, chunk):
        o = obs[start : start + chunk]
        a = actions[start : start + chunk]
        state, pred_obs, pred_rew = model.observe(state, o[:-1], a[:-1])
        loss = (pred_obs - o[1:]).pow(2).mean() + (pred_rew - rewards[start + 1 : start + chunk]).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()  # error: [carried-graph-backward]
        optimizer.step()
        print(start, round(loss.item(), 5))


if __name__ == "__main__":
    main()

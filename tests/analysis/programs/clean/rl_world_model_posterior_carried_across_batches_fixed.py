"""A tiny recurrent world model (deterministic GRU state + reward/observation heads)
trained on consecutive chunks of one long trajectory.

Twin of buggy/rl_world_model_posterior_carried_across_batches.py, fixed as the report's
answer describes: the last state of a chunk starts the next chunk for truncated
backprop through time, so it is carried detached -- its value, not its history.
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
    losses = []
    for start in range(0, obs.shape[0] - chunk, chunk):
        o = obs[start : start + chunk]
        a = actions[start : start + chunk]
        state, pred_obs, pred_rew = model.observe(state, o[:-1], a[:-1])
        loss = (pred_obs - o[1:]).pow(2).mean() + (pred_rew - rewards[start + 1 : start + chunk]).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        state = state.detach()
        losses.append(loss.item())
        print(start, round(loss.item(), 5))
    assert losses[-1] < losses[0], losses


if __name__ == "__main__":
    main()

"""Model-based control: a dynamics model is fitted on real transitions after every step,
and actions are chosen by the cross-entropy method, planning through the model under
torch.no_grad() (the negative for "world-model rollouts carrying state": the planner's
imagined states never carry a graph into the model's training step).
"""

import torch
import torch.nn as nn

STATE, ACT, HORIZON, CANDIDATES, ELITES = 2, 1, 5, 64, 8


def true_step(state, action):
    return torch.stack([state[0] + 0.1 * state[1], state[1] + 0.1 * action[0] - 0.05 * state[0]])


@torch.no_grad()
def plan(model, state, iters=3):
    mean, std = torch.zeros(HORIZON, ACT), torch.ones(HORIZON, ACT)
    for _ in range(iters):
        actions = (mean + std * torch.randn(CANDIDATES, HORIZON, ACT)).clamp(-1, 1)
        s = state.expand(CANDIDATES, STATE)
        cost = torch.zeros(CANDIDATES)
        for t in range(HORIZON):
            s = s + model(torch.cat([s, actions[:, t]], -1))
            cost += s.pow(2).sum(-1)
        elite = actions[cost.topk(ELITES, largest=False).indices]
        mean, std = elite.mean(0), elite.std(0) + 1e-3
    return mean[0]


def main(steps=12):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(STATE + ACT, 32), nn.Tanh(), nn.Linear(32, STATE))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    data, state = [], torch.tensor([1.0, 0.0])
    for t in range(steps):
        action = plan(model, state) if t >= 3 else torch.rand(ACT) * 2 - 1
        next_state = true_step(state, action)
        data.append((state, action, next_state))
        s, a, s2 = (torch.stack(x) for x in zip(*data))
        loss = (model(torch.cat([s, a], -1)) - (s2 - s)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        state = next_state
        if t % 3 == 0:
            print(t, round(loss.item(), 5), [round(v, 3) for v in state.tolist()])


if __name__ == "__main__":
    main()

"""MAPPO-style update for two agents with a centralised critic on a coordination game.

Report: https://github.com/hijkzzz/pymarl2/issues/46 -- the MAPPO learner crashed with
"Trying to backward through the graph a second time" as soon as mini_epochs > 1: the
advantages were computed once, outside the mini-epoch loop, from critic values that
still carried their graph, and the first epoch's backward freed it.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical

N_AGENTS, OBS, ACTIONS, T = 2, 4, 3, 16


def rollout(actors, g):
    obs = torch.randn(T, N_AGENTS, OBS, generator=g)
    with torch.no_grad():
        dists = [Categorical(logits=actors[i](obs[:, i])) for i in range(N_AGENTS)]
        actions = torch.stack([d.sample() for d in dists], dim=1)
        old_log_probs = torch.stack([d.log_prob(actions[:, i]) for i, d in enumerate(dists)], dim=1)
    reward = (actions[:, 0] == actions[:, 1]).float() + 0.1 * obs[:, :, 0].sum(-1)
    return obs, actions, old_log_probs, reward


def discounted(reward, gamma=0.9):
    out, running = torch.zeros_like(reward), torch.tensor(0.0)
    for t in reversed(range(len(reward))):
        running = reward[t] + gamma * running
        out[t] = running
    return out


def train(iterations=3, mini_epochs=4, clip=0.2):
    g = torch.Generator().manual_seed(0)
    actors = nn.ModuleList(nn.Sequential(nn.Linear(OBS, 32), nn.Tanh(), nn.Linear(32, ACTIONS)) for _ in range(N_AGENTS))
    critic = nn.Sequential(nn.Linear(N_AGENTS * OBS, 32), nn.Tanh(), nn.Linear(32, 1))
    optimizer = torch.optim.Adam([*actors.parameters(), *critic.parameters()], lr=3e-3)
    for it in range(iterations):
        obs, actions, old_log_probs, reward = rollout(actors, g)
        returns = discounted(reward)
        values = critic(obs.flatten(1)).squeeze(-1)
        advantages = (returns - values).unsqueeze(1).expand(T, N_AGENTS)
        for _ in range(mini_epochs):
            log_probs = torch.stack(
                [Categorical(logits=actors[i](obs[:, i])).log_prob(actions[:, i]) for i in range(N_AGENTS)], dim=1
            )
            ratio = (log_probs - old_log_probs).exp()
            surrogate = torch.min(ratio * advantages, ratio.clamp(1 - clip, 1 + clip) * advantages)
            value_loss = (critic(obs.flatten(1)).squeeze(-1) - returns).pow(2).mean()
            loss = -surrogate.mean() + 0.5 * value_loss
            optimizer.zero_grad()
            loss.backward()  # error: [pre-loop-graph-backward]
            optimizer.step()
        print(f"iteration {it}: value loss {value_loss.item():.3f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    train()

"""MADDPG policy update for three agents with centralised critics on a cooperative
reaching task.

Report: https://github.com/shariqiqbal2810/maddpg-pytorch/issues/11 -- in the actor
update every agent's critic is fed the actions of all policies, pi(ob), without
detaching the other agents' actions. Here the joint action is built once, before the
loop over agents: the first agent's backward frees the graph of every policy, and the
second agent's backward walks through them again.
"""

import torch
import torch.nn as nn

N, OBS, ACT, BATCH = 3, 4, 2, 32


def make_agents():
    actors = [nn.Sequential(nn.Linear(OBS, 32), nn.ReLU(), nn.Linear(32, ACT), nn.Tanh()) for _ in range(N)]
    critics = [nn.Sequential(nn.Linear(N * (OBS + ACT), 64), nn.ReLU(), nn.Linear(64, 1)) for _ in range(N)]
    return actors, critics


def joint_reward(obs, actions):
    centre = actions.mean(1, keepdim=True)
    return -(actions - obs[..., :ACT]).pow(2).sum(-1).mean(1) - 0.1 * (actions - centre).pow(2).sum(-1).mean(1)


def main(updates=3):
    torch.manual_seed(0)
    actors, critics = make_agents()
    actor_opts = [torch.optim.Adam(a.parameters(), lr=1e-3) for a in actors]
    critic_opts = [torch.optim.Adam(c.parameters(), lr=1e-3) for c in critics]
    for update in range(updates):
        obs = torch.randn(BATCH, N, OBS)
        buffer_actions = torch.rand(BATCH, N, ACT) * 2 - 1
        reward = joint_reward(obs, buffer_actions)
        for critic, opt in zip(critics, critic_opts):
            q = critic(torch.cat([obs, buffer_actions], -1).flatten(1)).squeeze(-1)
            opt.zero_grad()
            (q - reward).pow(2).mean().backward()
            opt.step()
        policy_actions = torch.stack([actor(obs[:, i]) for i, actor in enumerate(actors)], 1)
        for i in range(N):
            q = critics[i](torch.cat([obs, policy_actions], -1).flatten(1))
            actor_loss = -q.mean() + 1e-3 * policy_actions[:, i].pow(2).mean()
            actor_opts[i].zero_grad()
            actor_loss.backward()  # error: [pre-loop-graph-backward]
            actor_opts[i].step()
        print(update, round(reward.mean().item(), 4))


if __name__ == "__main__":
    main()

"""DDPG critic and actor updates whose TD target is computed without torch.no_grad() or
.detach(): the target networks are deep copies frozen with requires_grad_(False) and
refreshed by load_state_dict, so the target carries no graph at all (the negative for
"target computed without no_grad" -- only trainable inputs make a graph).
"""

import copy

import torch
import torch.nn as nn

OBS, ACT, BATCH = 3, 1, 32


def make_nets():
    actor = nn.Sequential(nn.Linear(OBS, 32), nn.ReLU(), nn.Linear(32, ACT), nn.Tanh())
    critic = nn.Sequential(nn.Linear(OBS + ACT, 32), nn.ReLU(), nn.Linear(32, 1))
    actor_target = copy.deepcopy(actor).requires_grad_(False)
    critic_target = copy.deepcopy(critic).requires_grad_(False)
    return actor, critic, actor_target, critic_target


def main(updates=6, gamma=0.99, sync_every=3):
    torch.manual_seed(0)
    actor, critic, actor_target, critic_target = make_nets()
    actor_opt = torch.optim.Adam(actor.parameters(), lr=1e-3)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
    for update in range(updates):
        s = torch.randn(BATCH, OBS)
        a = torch.rand(BATCH, ACT) * 2 - 1
        r = -(a - s[:, :ACT].tanh()).pow(2)
        s2 = s + 0.1 * torch.randn(BATCH, OBS)
        target = r + gamma * critic_target(torch.cat([s2, actor_target(s2)], -1))
        assert target.grad_fn is None
        critic_loss = (critic(torch.cat([s, a], -1)) - target).pow(2).mean()
        critic_opt.zero_grad()
        critic_loss.backward()
        critic_opt.step()
        actor_loss = -critic(torch.cat([s, actor(s)], -1)).mean()
        actor_opt.zero_grad()
        actor_loss.backward()
        actor_opt.step()
        if update % sync_every == sync_every - 1:
            actor_target.load_state_dict(actor.state_dict())
            critic_target.load_state_dict(critic.state_dict())
        print(update, round(critic_loss.item(), 4), round(actor_loss.item(), 4))


if __name__ == "__main__":
    main()

"""Advantage actor-critic with one shared body and two optimizers (actor: body + policy
head, critic: value head), stepped one after the other, on a contextual bandit.

Report: https://github.com/dchetelat/acer/issues/3 -- with a network whose heads share
most weights, the reporter asked whether "two subsequent optimizer steps, once for each
loss (actor and critic)" would do instead of summing the losses before the backward.
Backwarding the critic loss after the actor's backward goes through the shared body's
graph a second time.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical

OBS, ACTIONS, BATCH = 6, 4, 48


class SharedActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(OBS, 64), nn.ELU(), nn.Linear(64, 64), nn.ELU())
        self.policy = nn.Linear(64, ACTIONS)
        self.value = nn.Linear(64, 1)

    def forward(self, obs):
        h = self.body(obs)
        return Categorical(logits=self.policy(h)), self.value(h).squeeze(-1)


def bandit_batch(g):
    obs = torch.randn(BATCH, OBS, generator=g)
    best = obs[:, :ACTIONS].argmax(-1)
    return obs, best


def main(steps=4):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    model = SharedActorCritic()
    actor_opt = torch.optim.RMSprop([*model.body.parameters(), *model.policy.parameters()], lr=1e-3)
    critic_opt = torch.optim.RMSprop(model.value.parameters(), lr=1e-3)
    for step in range(steps):
        obs, best = bandit_batch(g)
        dist, value = model(obs)
        action = dist.sample()
        reward = (action == best).float()
        advantage = reward - value
        actor_loss = -(dist.log_prob(action) * advantage.detach()).mean() - 0.01 * dist.entropy().mean()
        critic_loss = advantage.pow(2).mean()
        actor_opt.zero_grad()
        actor_loss.backward()
        actor_opt.step()
        critic_opt.zero_grad()
        critic_loss.backward()  # error: [shared-graph-backward]
        critic_opt.step()
        print(step, round(reward.mean().item(), 3), round(critic_loss.item(), 3))


if __name__ == "__main__":
    main()

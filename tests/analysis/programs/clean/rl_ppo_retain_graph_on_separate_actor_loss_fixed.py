"""PPO with separate actor and critic networks on a contextual bandit.

Twin of buggy/rl_ppo_retain_graph_on_separate_actor_loss.py: the actor and the critic
losses come from different networks and different forward passes, so neither backward
needs the other's graph -- both free their graph as soon as they are done (no
retain_graph), and the critic still learns from its own loss.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical

OBS, ACTIONS, BATCH = 4, 3, 32


def collect(actor, g):
    obs = torch.randn(BATCH, OBS, generator=g)
    with torch.no_grad():
        dist = Categorical(logits=actor(obs))
        actions = dist.sample()
        old_log_probs = dist.log_prob(actions)
    rewards = (actions == obs[:, :ACTIONS].argmax(-1)).float()
    return obs, actions, old_log_probs, rewards


def main(iterations=3, epochs=3, clip=0.2):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    actor = nn.Sequential(nn.Linear(OBS, 32), nn.Tanh(), nn.Linear(32, ACTIONS))
    critic = nn.Sequential(nn.Linear(OBS, 32), nn.Tanh(), nn.Linear(32, 1))
    actor_opt = torch.optim.Adam(actor.parameters(), lr=3e-3)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=3e-3)
    for it in range(iterations):
        obs, actions, old_log_probs, rewards = collect(actor, g)
        with torch.no_grad():
            advantages = rewards - critic(obs).squeeze(-1)
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        for _ in range(epochs):
            ratio = (Categorical(logits=actor(obs)).log_prob(actions) - old_log_probs).exp()
            actor_loss = -torch.min(ratio * advantages, ratio.clamp(1 - clip, 1 + clip) * advantages).mean()
            actor_opt.zero_grad()
            actor_loss.backward()
            actor_opt.step()
            value_loss = (critic(obs).squeeze(-1) - rewards).pow(2).mean()
            critic_opt.zero_grad()
            value_loss.backward()
            assert all(p.grad is not None for p in critic.parameters())
            critic_opt.step()
        print(it, round(actor_loss.item(), 4), round(value_loss.item(), 4))


if __name__ == "__main__":
    main()

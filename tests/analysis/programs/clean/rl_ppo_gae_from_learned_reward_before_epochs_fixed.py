"""PPO whose rewards come from a learned reward network (a meta-RL / reward-shaping
setup), with GAE computed over the rollout for every PPO epoch.

Twin of buggy/rl_ppo_gae_from_learned_reward_before_epochs.py. The fix used here keeps
the learned reward differentiable, which the setup wants: the rewards and the GAE
advantages are recomputed from the reward net inside each epoch, so each epoch's
backward frees only the graph it built.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical

OBS, ACTIONS, T = 4, 2, 20


def gae(rewards, values, gamma=0.99, lam=0.95):
    advantages, last = torch.zeros_like(rewards), torch.tensor(0.0)
    for t in reversed(range(len(rewards))):
        next_value = values[t + 1] if t + 1 < len(rewards) else torch.tensor(0.0)
        delta = rewards[t] + gamma * next_value - values[t]
        last = delta + gamma * lam * last
        advantages[t] = last
    return advantages


def main(iterations=2, epochs=3, clip=0.2):
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(OBS, 32), nn.Tanh(), nn.Linear(32, ACTIONS))
    critic = nn.Sequential(nn.Linear(OBS, 32), nn.Tanh(), nn.Linear(32, 1))
    reward_net = nn.Sequential(nn.Linear(OBS + 1, 16), nn.Tanh(), nn.Linear(16, 1))
    optimizer = torch.optim.Adam([*policy.parameters(), *critic.parameters(), *reward_net.parameters()], lr=1e-3)
    for it in range(iterations):
        states = torch.randn(T, OBS)
        with torch.no_grad():
            dist = Categorical(logits=policy(states))
            actions = dist.sample()
            old_log_probs = dist.log_prob(actions)
            values = critic(states).squeeze(-1)
        for _ in range(epochs):
            rewards = reward_net(torch.cat([states, actions.unsqueeze(-1).float()], -1)).squeeze(-1)
            advantages = gae(rewards, values)
            returns = advantages + values
            ratio = (Categorical(logits=policy(states)).log_prob(actions) - old_log_probs).exp()
            policy_loss = -torch.min(ratio * advantages, ratio.clamp(1 - clip, 1 + clip) * advantages).mean()
            value_loss = (critic(states).squeeze(-1) - returns).pow(2).mean()
            optimizer.zero_grad()
            (policy_loss + 0.5 * value_loss).backward()
            assert reward_net[0].weight.grad.abs().sum() > 0
            optimizer.step()
        print(it, round(policy_loss.item(), 4), round(value_loss.item(), 4))


if __name__ == "__main__":
    main()

"""PPO-like agent that updates its value function at every time step and the policy once
per episode, on a noisy two-armed contextual bandit with short episodes.

Report: https://discuss.pytorch.org/t/pytorch-runtimeerror-trying-to-backward-through-the-graph-a-second-time/191396
-- the reporter fitted the value functions with their own backward at each time step,
kept the per-step clipped surrogate values, and got the error at the end-of-episode
policy update: each surrogate still hangs off a value prediction whose graph the
per-step critic update had freed.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self, n_obs=3, n_actions=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_obs, 16), nn.Tanh(), nn.Linear(16, n_actions))

    def forward(self, obs):
        return Categorical(logits=self.net(obs))


def run_episode(policy, old_policy, critic, policy_opt, critic_opt, g, horizon=6, clip=0.2):
    surrogates = []
    for _ in range(horizon):
        obs = torch.randn(3, generator=g)
        with torch.no_grad():
            old_dist = old_policy(obs)
            action = old_dist.sample()
        reward = float(action.item() == int(obs[0] > 0)) + 0.1 * torch.randn(1, generator=g).item()
        value = critic(obs).squeeze()
        advantage = reward - value
        critic_opt.zero_grad()
        advantage.pow(2).backward()
        critic_opt.step()
        ratio = (policy(obs).log_prob(action) - old_dist.log_prob(action)).exp()
        surrogates.append(torch.min(ratio * advantage, ratio.clamp(1 - clip, 1 + clip) * advantage))
    policy_loss = -torch.stack(surrogates).mean()
    policy_opt.zero_grad()
    policy_loss.backward()  # error: [shared-graph-backward]
    policy_opt.step()
    old_policy.load_state_dict(policy.state_dict())
    return policy_loss.item()


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    policy, old_policy = Policy(), Policy()
    old_policy.load_state_dict(policy.state_dict())
    critic = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
    policy_opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
    critic_opt = torch.optim.SGD(critic.parameters(), lr=1e-2)
    for episode in range(3):
        print(episode, run_episode(policy, old_policy, critic, policy_opt, critic_opt, g))


if __name__ == "__main__":
    main()

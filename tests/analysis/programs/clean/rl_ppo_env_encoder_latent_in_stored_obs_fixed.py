"""PPO for a locomotion-like task whose policy sees a latent of the recent observation
history, produced by a trainable history encoder.

Twin of buggy/rl_ppo_env_encoder_latent_in_stored_obs.py, fixed the way rsl_rl-style
policies with history encoders are built: the environment returns raw proprioception
and history (plain data, stored as is), and the encoder runs inside the policy's
forward pass, so every PPO epoch encodes the stored history afresh and the encoder is
trained by the PPO loss.
"""

import torch
import torch.nn as nn
from torch.distributions import Normal

N_ENVS, PROPRIO, HISTORY, LATENT, ACT, STEPS = 8, 6, 4, 3, 2, 12


class HistoryEnv:
    def __init__(self, seed=0):
        self.g = torch.Generator().manual_seed(seed)
        self.history = torch.zeros(N_ENVS, HISTORY, PROPRIO)

    def observe(self):
        proprio = torch.randn(N_ENVS, PROPRIO, generator=self.g)
        self.history = torch.cat([self.history[:, 1:], proprio.unsqueeze(1)], 1)
        return torch.cat([proprio, self.history.flatten(1)], -1)

    def reward(self, action):
        return -(action - self.history[:, -1, :ACT]).pow(2).sum(-1)


class HistoryPolicy(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(HISTORY * PROPRIO, 16), nn.ELU(), nn.Linear(16, LATENT))
        self.actor = nn.Sequential(nn.Linear(PROPRIO + LATENT, 32), nn.ELU(), nn.Linear(32, ACT))
        self.log_std = nn.Parameter(torch.zeros(ACT))

    def forward(self, obs):
        proprio, history = obs[:, :PROPRIO], obs[:, PROPRIO:]
        return Normal(self.actor(torch.cat([proprio, self.encoder(history)], -1)), self.log_std.exp())


def main(iterations=2, epochs=3, clip=0.2):
    torch.manual_seed(0)
    policy = HistoryPolicy()
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    env = HistoryEnv()
    for it in range(iterations):
        observations, actions, old_log_probs, rewards = [], [], [], []
        for _ in range(STEPS):
            obs = env.observe()
            with torch.no_grad():
                dist = policy(obs)
                action = dist.sample()
            observations.append(obs)
            actions.append(action)
            old_log_probs.append(dist.log_prob(action).sum(-1))
            rewards.append(env.reward(action))
        obs_b, act_b, old_lp = torch.cat(observations), torch.cat(actions), torch.cat(old_log_probs)
        adv = torch.cat(rewards)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        for _ in range(epochs):
            ratio = (policy(obs_b).log_prob(act_b).sum(-1) - old_lp).exp()
            loss = -torch.min(ratio * adv, ratio.clamp(1 - clip, 1 + clip) * adv).mean()
            optimizer.zero_grad()
            loss.backward()
            assert policy.encoder[0].weight.grad.abs().sum() > 0
            optimizer.step()
        print(it, round(loss.item(), 4))


if __name__ == "__main__":
    main()

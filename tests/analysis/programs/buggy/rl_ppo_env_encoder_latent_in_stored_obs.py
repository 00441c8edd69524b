"""PPO for a locomotion-like task whose observation includes a latent of the recent
observation history, produced by a trainable encoder inside the environment's
observation step.

Report: https://github.com/leggedrobotics/legged_gym/issues/41 -- the reporter added
`latent_obs = self.obs_encoder(self.obs_storage)` to `self.obs_buf`. The observations
stored for the PPO update then carry the encoder's graph from the rollout, and the
second optimisation epoch backwards through what the first one freed.
"""

import torch
import torch.nn as nn
from torch.distributions import Normal

N_ENVS, PROPRIO, HISTORY, LATENT, ACT, STEPS = 8, 6, 4, 3, 2, 12


class HistoryEnv:
    def __init__(self, encoder, seed=0):
        self.g = torch.Generator().manual_seed(seed)
        self.encoder = encoder
        self.history = torch.zeros(N_ENVS, HISTORY, PROPRIO)

    def observe(self):
        proprio = torch.randn(N_ENVS, PROPRIO, generator=self.g)
        self.history = torch.cat([self.history[:, 1:], proprio.unsqueeze(1)], 1)
        latent = self.encoder(self.history.flatten(1))
        return torch.cat([proprio, latent], -1)

    def reward(self, action):
        return -(action - self.history[:, -1, :ACT]).pow(2).sum(-1)


def main(iterations=2, epochs=3, clip=0.2):
    torch.manual_seed(0)
    encoder = nn.Sequential(nn.Linear(HISTORY * PROPRIO, 16), nn.ELU(), nn.Linear(16, LATENT))
    actor = nn.Sequential(nn.Linear(PROPRIO + LATENT, 32), nn.ELU(), nn.Linear(32, ACT))
    log_std = nn.Parameter(torch.zeros(ACT))
    optimizer = torch.optim.Adam([*encoder.parameters(), *actor.parameters(), log_std], lr=1e-3)
    env = HistoryEnv(encoder)
    for it in range(iterations):
        observations, actions, old_log_probs, rewards = [], [], [], []
        for _ in range(STEPS):
            obs = env.observe()
            with torch.no_grad():
                dist = Normal(actor(obs), log_std.exp())
                action = dist.sample()
            observations.append(obs)
            actions.append(action)
            old_log_probs.append(dist.log_prob(action).sum(-1))
            rewards.append(env.reward(action))
        obs_b, act_b, old_lp = torch.cat(observations), torch.cat(actions), torch.cat(old_log_probs)
        adv = torch.cat(rewards)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        for _ in range(epochs):
            ratio = (Normal(actor(obs_b), log_std.exp()).log_prob(act_b).sum(-1) - old_lp).exp()
            loss = -torch.min(ratio * adv, ratio.clamp(1 - clip, 1 + clip) * adv).mean()
            optimizer.zero_grad()
            loss.backward()  # error: [pre-loop-graph-backward]
            optimizer.step()
        print(it, round(loss.item(), 4))


if __name__ == "__main__":
    main()

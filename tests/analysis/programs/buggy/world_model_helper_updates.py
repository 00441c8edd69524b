"""Model-based RL: a world model learns dynamics and reward from a shared latent encoding.

A helper `update(optimizer, loss)` performs zero_grad/backward/clip/step; it is
called for the dynamics loss and then for the reward loss of the same forward pass.

Real report of this mechanism: https://github.com/pytorch/rl/issues/1187
TD3's actor loss and q-value loss come from one shared computation; backwarding the q-value
loss after the actor loss raises this error.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class WorldModel(nn.Module):
    def __init__(self, obs_dim=5, act_dim=2, latent=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(obs_dim, 16), nn.ELU(), nn.Linear(16, latent))
        self.dynamics = nn.Sequential(nn.Linear(latent + act_dim, 16), nn.ELU(), nn.Linear(16, latent))
        self.reward = nn.Sequential(nn.Linear(latent + act_dim, 16), nn.ELU(), nn.Linear(16, 1))

    def forward(self, obs, act):
        z = self.encoder(obs)
        za = torch.cat([z, act], -1)
        return self.dynamics(za), self.reward(za).squeeze(-1)


def update(optimizer, loss, params, max_norm=100.0):
    optimizer.zero_grad()
    loss.backward()  # error: [shared-graph-backward]
    torch.nn.utils.clip_grad_norm_(params, max_norm)
    optimizer.step()
    return loss.item()


class ReplayBuffer:
    def __init__(self, n=32, obs_dim=5, act_dim=2):
        self.obs = torch.randn(n, obs_dim)
        self.act = torch.randn(n, act_dim)
        self.next_obs = self.obs + 0.1 * torch.randn(n, obs_dim)
        self.rew = torch.randn(n)

    def sample(self, bs):
        idx = torch.randint(0, len(self.obs), (bs,))
        return self.obs[idx], self.act[idx], self.next_obs[idx], self.rew[idx]


def main():
    torch.manual_seed(0)
    wm = WorldModel()
    dyn_params = [*wm.encoder.parameters(), *wm.dynamics.parameters()]
    rew_params = [*wm.encoder.parameters(), *wm.reward.parameters()]
    dyn_opt = torch.optim.Adam(dyn_params, lr=6e-4)
    rew_opt = torch.optim.Adam(rew_params, lr=6e-4)
    buffer = ReplayBuffer()
    for it in range(3):
        obs, act, next_obs, rew = buffer.sample(8)
        pred_next_z, pred_rew = wm(obs, act)
        with torch.no_grad():
            target_z = wm.encoder(next_obs)
        dyn_loss = F.mse_loss(pred_next_z, target_z)
        rew_loss = F.mse_loss(pred_rew, rew)
        d = update(dyn_opt, dyn_loss, dyn_params)
        r = update(rew_opt, rew_loss, rew_params)
        print(f"it {it}: dynamics {d:.4f} reward {r:.4f}")


if __name__ == "__main__":
    main()

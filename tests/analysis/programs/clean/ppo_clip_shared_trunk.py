"""PPO-clip with a shared actor-critic trunk on a toy continuous-observation environment."""

import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical


class ToyEnv:
    def __init__(self, obs_dim=4, n_actions=2, horizon=8):
        self.obs_dim, self.n_actions, self.horizon = obs_dim, n_actions, horizon

    def reset(self):
        self.t = 0
        return np.random.randn(self.obs_dim).astype(np.float32)

    def step(self, a):
        self.t += 1
        obs = np.random.randn(self.obs_dim).astype(np.float32)
        return obs, float(a == 1), self.t >= self.horizon


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=32):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.trunk(obs)
        return Categorical(logits=self.pi(h)), self.v(h).squeeze(-1)


def collect(env, model, steps):
    obs_buf, act_buf, logp_buf, rew_buf, val_buf, done_buf = [], [], [], [], [], []
    obs = env.reset()
    for _ in range(steps):
        with torch.no_grad():
            dist, value = model(torch.as_tensor(obs))
            action = dist.sample()
        next_obs, reward, done = env.step(action.item())
        obs_buf.append(obs)
        act_buf.append(action)
        logp_buf.append(dist.log_prob(action))
        rew_buf.append(reward)
        val_buf.append(value)
        done_buf.append(done)
        obs = env.reset() if done else next_obs
    return (
        torch.as_tensor(np.array(obs_buf)),
        torch.stack(act_buf),
        torch.stack(logp_buf),
        torch.tensor(rew_buf),
        torch.stack(val_buf),
        torch.tensor(done_buf, dtype=torch.float32),
    )


def compute_gae(rewards, values, dones, gamma=0.99, lam=0.95):
    adv, last = torch.zeros_like(rewards), 0.0
    for t in reversed(range(len(rewards))):
        next_v = values[t + 1] if t + 1 < len(values) else 0.0
        delta = rewards[t] + gamma * next_v * (1 - dones[t]) - values[t]
        last = delta + gamma * lam * (1 - dones[t]) * last
        adv[t] = last
    return adv, adv + values


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    env, model = ToyEnv(), ActorCritic(4, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    for update in range(2):
        obs, acts, old_logp, rews, vals, dones = collect(env, model, 16)
        adv, returns = compute_gae(rews, vals, dones)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        for _ in range(2):
            for idx in torch.randperm(16).split(8):
                dist, value = model(obs[idx])
                ratio = torch.exp(dist.log_prob(acts[idx]) - old_logp[idx])
                surr = torch.min(ratio * adv[idx], torch.clamp(ratio, 0.8, 1.2) * adv[idx])
                loss = (
                    -surr.mean() + 0.5 * (returns[idx] - value).pow(2).mean() - 0.01 * dist.entropy().mean()
                )
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), 0.5)
                optimizer.step()
        print(f"update {update}: mean reward {rews.mean().item():.3f}")


if __name__ == "__main__":
    main()

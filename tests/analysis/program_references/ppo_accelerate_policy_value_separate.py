"""Reference for buggy/ppo_accelerate_policy_value_separate.py, written by hand: the policy and
value losses of each minibatch are summed and passed to accelerator.backward once, as PPO
implementations do (one loss, `pg_loss - ent_coef * entropy + vf_coef * v_loss`), then clipped
and stepped.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Accelerator:
    def __init__(self, mixed_precision="no"):
        self.mixed_precision = mixed_precision

    def prepare(self, *objs):
        return objs if len(objs) > 1 else objs[0]

    def backward(self, loss, **kwargs):
        loss.backward(**kwargs)

    def clip_grad_norm_(self, params, max_norm):
        return torch.nn.utils.clip_grad_norm_(params, max_norm)


class Agent(nn.Module):
    def __init__(self, obs_dim=6, n_actions=3):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh())
        self.policy = nn.Linear(32, n_actions)
        self.value = nn.Linear(32, 1)

    def forward(self, obs):
        h = self.trunk(obs)
        return self.policy(h), self.value(h).squeeze(-1)


def ppo_update(accelerator, agent, optimizer, rollout, epochs=2, minibatch=8, clip=0.2, vf_coef=0.5):
    obs, actions, old_logp, advantages, returns = rollout
    for _ in range(epochs):
        for idx in torch.randperm(len(obs)).split(minibatch):
            logits, values = agent(obs[idx])
            dist = torch.distributions.Categorical(logits=logits)
            ratio = (dist.log_prob(actions[idx]) - old_logp[idx]).exp()
            adv = advantages[idx]
            pg_loss = -torch.min(ratio * adv, ratio.clamp(1 - clip, 1 + clip) * adv).mean()
            entropy = dist.entropy().mean()
            v_loss = vf_coef * F.mse_loss(values, returns[idx])
            optimizer.zero_grad()
            accelerator.backward(pg_loss - 0.01 * entropy + v_loss)
            accelerator.clip_grad_norm_(agent.parameters(), 0.5)
            optimizer.step()


def main():
    torch.manual_seed(0)
    accelerator = Accelerator()
    agent = Agent()
    optimizer = torch.optim.Adam(agent.parameters(), lr=2.5e-4, eps=1e-5)
    agent, optimizer = accelerator.prepare(agent, optimizer)
    obs = torch.randn(16, 6)
    with torch.no_grad():
        logits, values = agent(obs)
        dist = torch.distributions.Categorical(logits=logits)
        actions = dist.sample()
        old_logp = dist.log_prob(actions)
    returns = torch.randn(16)
    advantages = returns - values
    ppo_update(accelerator, agent, optimizer, (obs, actions, old_logp, advantages, returns))
    print("update done")


if __name__ == "__main__":
    main()

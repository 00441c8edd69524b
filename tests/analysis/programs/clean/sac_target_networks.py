"""Soft Actor-Critic update step with twin Q networks, target networks and automatic entropy tuning."""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


def mlp(i, o, h=32):
    return nn.Sequential(nn.Linear(i, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, o))


class Actor(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.net = mlp(obs_dim, 2 * act_dim)

    def forward(self, obs):
        mu, log_std = self.net(obs).chunk(2, -1)
        std = log_std.clamp(-5, 2).exp()
        normal = torch.distributions.Normal(mu, std)
        u = normal.rsample()
        action = torch.tanh(u)
        log_prob = (normal.log_prob(u) - torch.log(1 - action.pow(2) + 1e-6)).sum(-1)
        return action, log_prob


class SAC:
    def __init__(self, obs_dim=3, act_dim=1, gamma=0.99, tau=0.005):
        self.actor = Actor(obs_dim, act_dim)
        self.q1, self.q2 = mlp(obs_dim + act_dim, 1), mlp(obs_dim + act_dim, 1)
        self.q1_targ, self.q2_targ = copy.deepcopy(self.q1), copy.deepcopy(self.q2)
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.target_entropy = -float(act_dim)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=3e-4)
        self.q_opt = torch.optim.Adam([*self.q1.parameters(), *self.q2.parameters()], lr=3e-4)
        self.alpha_opt = torch.optim.Adam([self.log_alpha], lr=3e-4)
        self.gamma, self.tau = gamma, tau

    def update(self, obs, act, rew, next_obs, done):
        alpha = self.log_alpha.exp().detach()
        with torch.no_grad():
            next_act, next_logp = self.actor(next_obs)
            sa2 = torch.cat([next_obs, next_act], -1)
            q_targ = torch.min(self.q1_targ(sa2), self.q2_targ(sa2)).squeeze(-1)
            backup = rew + self.gamma * (1 - done) * (q_targ - alpha * next_logp)
        sa = torch.cat([obs, act], -1)
        q_loss = F.mse_loss(self.q1(sa).squeeze(-1), backup) + F.mse_loss(self.q2(sa).squeeze(-1), backup)
        self.q_opt.zero_grad()
        q_loss.backward()
        self.q_opt.step()

        new_act, logp = self.actor(obs)
        sa_pi = torch.cat([obs, new_act], -1)
        q_pi = torch.min(self.q1(sa_pi), self.q2(sa_pi)).squeeze(-1)
        actor_loss = (alpha * logp - q_pi).mean()
        self.actor_opt.zero_grad()
        actor_loss.backward()
        self.actor_opt.step()

        alpha_loss = -(self.log_alpha * (logp.detach() + self.target_entropy)).mean()
        self.alpha_opt.zero_grad()
        alpha_loss.backward()
        self.alpha_opt.step()

        with torch.no_grad():
            for net, targ in ((self.q1, self.q1_targ), (self.q2, self.q2_targ)):
                for p, p_t in zip(net.parameters(), targ.parameters()):
                    p_t.mul_(1 - self.tau).add_(self.tau * p)
        return q_loss.item(), actor_loss.item(), alpha_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    agent = SAC()
    for step in range(3):
        batch = (
            torch.randn(8, 3),
            torch.rand(8, 1) * 2 - 1,
            torch.randn(8),
            torch.randn(8, 3),
            torch.zeros(8),
        )
        print(step, agent.update(*batch))

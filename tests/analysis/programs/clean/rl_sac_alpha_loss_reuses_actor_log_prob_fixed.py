"""Soft actor-critic with automatic entropy tuning on a one-step continuous bandit.

Twin of buggy/rl_sac_alpha_loss_reuses_actor_log_prob.py, fixed as stable-baselines3's
SAC does (the code the report points to): the temperature loss uses log_pi.detach(), so
it only trains log_alpha and never walks back into the actor's freed graph.
"""

import torch
import torch.nn as nn

OBS, ACT, BATCH = 4, 2, 64


class GaussianActor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(OBS, 64), nn.ReLU(), nn.Linear(64, 2 * ACT))

    def forward(self, obs):
        mean, log_std = self.net(obs).chunk(2, -1)
        dist = torch.distributions.Normal(mean, log_std.clamp(-5, 1).exp())
        raw = dist.rsample()
        action = torch.tanh(raw)
        log_prob = (dist.log_prob(raw) - torch.log(1 - action.pow(2) + 1e-6)).sum(-1)
        return action, log_prob


def reward_of(obs, action):
    return -(action - obs[:, :ACT].tanh()).pow(2).sum(-1)


def main():
    torch.manual_seed(0)
    actor = GaussianActor()
    q = nn.Sequential(nn.Linear(OBS + ACT, 64), nn.ReLU(), nn.Linear(64, 1))
    log_alpha = torch.zeros(1, requires_grad=True)
    target_entropy = -float(ACT)
    actor_opt = torch.optim.Adam(actor.parameters(), lr=3e-4)
    q_opt = torch.optim.Adam(q.parameters(), lr=3e-4)
    alpha_opt = torch.optim.Adam([log_alpha], lr=3e-4)
    for step in range(5):
        obs = torch.randn(BATCH, OBS)
        with torch.no_grad():
            taken = torch.rand(BATCH, ACT) * 2 - 1
            r = reward_of(obs, taken)
        q_loss = (q(torch.cat([obs, taken], -1)).squeeze(-1) - r).pow(2).mean()
        q_opt.zero_grad()
        q_loss.backward()
        q_opt.step()

        action, log_pi = actor(obs)
        alpha = log_alpha.exp().detach()
        actor_loss = (alpha * log_pi - q(torch.cat([obs, action], -1)).squeeze(-1)).mean()
        actor_opt.zero_grad()
        actor_loss.backward()
        actor_opt.step()

        alpha_loss = -(log_alpha * (log_pi.detach() + target_entropy)).mean()
        alpha_opt.zero_grad()
        alpha_loss.backward()
        assert log_alpha.grad is not None and log_alpha.grad.abs().item() > 0
        alpha_opt.step()
        print(step, round(q_loss.item(), 3), round(log_alpha.exp().item(), 4))


if __name__ == "__main__":
    main()

"""Conservative Q-learning (COMBO/CQL style) with two critics updated one after the other.

Report: https://github.com/yihaosun1124/OfflineRL-Kit/issues/15 -- the reporter removed
the retain_graph=True from critic1's update in combo.py and got "Trying to backward
through the graph a second time" at critic2's; the two critic losses share the actions
and log-probabilities sampled from the policy for the conservative term.
"""

import torch
import torch.nn as nn

OBS, ACT, BATCH = 5, 2, 64


class TanhGaussianPolicy(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(OBS, 32), nn.ReLU(), nn.Linear(32, 2 * ACT))

    def sample(self, obs):
        mean, log_std = self.net(obs).chunk(2, -1)
        dist = torch.distributions.Normal(mean, log_std.clamp(-5, 2).exp())
        raw = dist.rsample()
        action = torch.tanh(raw)
        log_prob = (dist.log_prob(raw) - torch.log(1 - action.pow(2) + 1e-6)).sum(-1, keepdim=True)
        return action, log_prob


def critic():
    return nn.Sequential(nn.Linear(OBS + ACT, 32), nn.ReLU(), nn.Linear(32, 1))


def offline_batch(g):
    obs = torch.randn(BATCH, OBS, generator=g)
    action = torch.tanh(obs[:, :ACT] + 0.3 * torch.randn(BATCH, ACT, generator=g))
    reward = -(obs[:, :ACT] - action).pow(2).sum(-1, keepdim=True)
    return obs, action, reward


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    policy, critic1, critic2 = TanhGaussianPolicy(), critic(), critic()
    opt1 = torch.optim.Adam(critic1.parameters(), lr=3e-4)
    opt2 = torch.optim.Adam(critic2.parameters(), lr=3e-4)
    for step in range(3):
        obs, action, reward = offline_batch(g)
        pi_action, pi_log_prob = policy.sample(obs)
        losses = []
        for q, opt in ((critic1, opt1), (critic2, opt2)):
            td = (q(torch.cat([obs, action], -1)) - reward).pow(2).mean()
            q_pi = q(torch.cat([obs, pi_action], -1)) - pi_log_prob
            conservative = torch.logsumexp(torch.cat([q_pi, q(torch.cat([obs, action], -1))], 1), 1).mean()
            loss = td + 0.5 * (conservative - q(torch.cat([obs, action], -1)).mean())
            opt.zero_grad()
            loss.backward()  # error: [pre-loop-graph-backward]
            opt.step()
            losses.append(round(loss.item(), 3))
        print(step, losses)


if __name__ == "__main__":
    main()

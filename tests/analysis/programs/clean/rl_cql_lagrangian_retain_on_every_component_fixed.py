"""CQL with a Lagrangian conservative weight on an offline contextual bandit: the learner
keeps one optimizer per component (critic, policy, alpha, cql_alpha) and backwards each
component's loss in turn.

Twin of buggy/rl_cql_lagrangian_retain_on_every_component.py, as the report's review
asks: every component builds its own graph when its turn comes and the Lagrangian loss
flows only through log_cql_alpha, so each backward frees its graph (no retain_graph).
"""

import torch
import torch.nn as nn

OBS, ACT, BATCH = 4, 2, 64


def main(steps=4, target_gap=1.0):
    torch.manual_seed(0)
    critic = nn.Sequential(nn.Linear(OBS + ACT, 32), nn.ReLU(), nn.Linear(32, 1))
    policy = nn.Sequential(nn.Linear(OBS, 32), nn.ReLU(), nn.Linear(32, ACT), nn.Tanh())
    log_alpha, log_cql_alpha = torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)
    optimizers = {
        "critic": torch.optim.Adam(critic.parameters(), lr=3e-4),
        "policy": torch.optim.Adam(policy.parameters(), lr=3e-4),
        "alpha": torch.optim.Adam([log_alpha], lr=3e-4),
        "cql_alpha": torch.optim.Adam([log_cql_alpha], lr=3e-4),
    }
    for step in range(steps):
        obs = torch.randn(BATCH, OBS)
        data_act = torch.tanh(obs[:, :ACT] + 0.3 * torch.randn(BATCH, ACT))
        reward = -(data_act - obs[:, :ACT].tanh()).pow(2).sum(-1, keepdim=True)
        gap = {}

        def critic_loss():
            q_data = critic(torch.cat([obs, data_act], -1))
            random_act = torch.rand(BATCH, 8, ACT) * 2 - 1
            q_rand = critic(torch.cat([obs.unsqueeze(1).expand(-1, 8, -1), random_act], -1)).squeeze(-1)
            gap["cql"] = torch.logsumexp(q_rand, 1).mean() - q_data.mean()
            return (q_data - reward).pow(2).mean() + log_cql_alpha.exp().detach() * gap["cql"]

        components = {
            "critic": critic_loss,
            "policy": lambda: -critic(torch.cat([obs, policy(obs)], -1)).mean(),
            "alpha": lambda: -(log_alpha * (torch.randn(BATCH) - ACT)).mean(),
            "cql_alpha": lambda: -(log_cql_alpha.exp() * (gap["cql"].detach() - target_gap)).sum(),
        }
        report = {}
        for name, make_loss in components.items():
            loss = make_loss()
            optimizers[name].zero_grad()
            loss.backward()
            optimizers[name].step()
            report[name] = round(loss.item(), 3)
        assert log_cql_alpha.grad is not None and critic[0].weight.grad is not None
        print(step, report)

if __name__ == "__main__":
    main()

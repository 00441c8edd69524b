"""Neural combinatorial optimisation: a pointer-style policy builds tours for random
2-D TSP instances, trained with REINFORCE against a learned critic baseline; actor and
critic have their own optimizers and are updated one after the other.

Twin of buggy/rl_tsp_reinforce_critic_baseline_backwarded_apart.py, fixed as the
report's pull request does: the baseline enters the policy loss detached, so the policy
loss trains only the policy and never reaches the critic's freed graph.
"""

import torch
import torch.nn as nn

N_CITIES, BATCH, HIDDEN = 6, 16, 32


class PointerPolicy(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(2, HIDDEN)
        self.query = nn.GRUCell(HIDDEN, HIDDEN)

    def forward(self, cities):
        keys = self.embed(cities)
        visited = torch.zeros(BATCH, N_CITIES, dtype=torch.bool)
        h, inp, log_prob, tour = keys.mean(1), keys.mean(1), torch.zeros(BATCH), []
        for _ in range(N_CITIES):
            h = self.query(inp, h)
            scores = (keys @ h.unsqueeze(-1)).squeeze(-1).masked_fill(visited, float("-inf"))
            dist = torch.distributions.Categorical(logits=scores)
            idx = dist.sample()
            log_prob = log_prob + dist.log_prob(idx)
            visited = visited | nn.functional.one_hot(idx, N_CITIES).bool()
            inp = keys[torch.arange(BATCH), idx]
            tour.append(idx)
        return torch.stack(tour, 1), log_prob


def tour_length(cities, tour):
    ordered = cities[torch.arange(BATCH).unsqueeze(1), tour]
    return (ordered - ordered.roll(-1, 1)).norm(dim=-1).sum(-1)


def main(steps=4):
    torch.manual_seed(0)
    policy = PointerPolicy()
    critic = nn.Sequential(nn.Flatten(), nn.Linear(2 * N_CITIES, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, 1))
    actor_opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
    for step in range(steps):
        cities = torch.rand(BATCH, N_CITIES, 2)
        tour, log_prob = policy(cities)
        length = tour_length(cities, tour)
        baseline = critic(cities).squeeze(-1)
        critic_loss = (baseline - length).pow(2).mean()
        critic_opt.zero_grad()
        critic_loss.backward()
        critic_opt.step()
        actor_loss = ((length - baseline.detach()) * log_prob).mean()
        actor_opt.zero_grad()
        actor_loss.backward()
        assert policy.embed.weight.grad.abs().sum() > 0
        actor_opt.step()
        print(step, round(length.mean().item(), 3))


if __name__ == "__main__":
    main()

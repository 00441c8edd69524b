"""Soft actor-critic whose agent is built as ``Agent(**configs)`` from a dict literal: with
``"entropy_tuning": True`` the temperature is built once in ``__init__`` and rebuilt after every
policy update, so each policy backward goes through a fresh temperature. The same flag is tested in
``__init__`` (a parameter) and in ``learn`` (stored on ``self``); a path where the first test is
true and the second false cannot happen (negative for issue 13, mechanism 3). Written from the
structure of https://github.com/toshikwa/soft-actor-critic.pytorch (``code/main.py`` builds
``SacAgent(env=env, log_dir=log_dir, **configs)``; ``code/agent.py`` tests ``entropy_tuning``),
whose ``main.py`` the checker flagged before a ``**`` of a dict with known keys passed each key by
name.
"""

import torch
import torch.nn as nn


class Agent:
    def __init__(self, entropy_tuning=False, ent_coef=0.2, lr=0.1):
        self.log_alpha = torch.zeros(1, requires_grad=True)
        if entropy_tuning:
            self.alpha = self.log_alpha.exp()
        else:
            self.alpha = torch.tensor(ent_coef)
        self.entropy_tuning = entropy_tuning
        self.policy = nn.Linear(3, 1)
        self.policy_optim = torch.optim.SGD(self.policy.parameters(), lr=lr)
        self.alpha_optim = torch.optim.SGD([self.log_alpha], lr=lr)

    def learn(self, states):
        entropy = -torch.tanh(self.policy(states)).pow(2).mean()
        policy_loss = -(self.alpha * entropy)
        self.policy_optim.zero_grad()
        policy_loss.backward()
        self.policy_optim.step()
        if self.entropy_tuning:
            alpha_loss = -(self.log_alpha * (entropy.detach() + 1.0)).mean()
            self.alpha_optim.zero_grad()
            alpha_loss.backward()
            self.alpha_optim.step()
            self.alpha = self.log_alpha.exp()
        return policy_loss.item()


def main():
    torch.manual_seed(0)
    configs = {"entropy_tuning": True, "ent_coef": 0.2, "lr": 0.05}
    agent = Agent(**configs)
    for _ in range(4):
        agent.learn(torch.randn(8, 3))
    assert agent.log_alpha.grad is not None and agent.policy.weight.grad is not None


if __name__ == "__main__":
    main()

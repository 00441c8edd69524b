"""Soft actor-critic whose temperature is tuned or not as the command line says: ``update`` rebuilds
``self.alpha = self.log_alpha.exp()`` after each policy backward when ``self.tuning`` holds, and the
next policy loss goes through that fresh temperature. ``self.tuning`` is set only in ``__init__``
from a value the checker cannot know (argparse), so it is the same on every call: a path that takes
the ``if`` on one call and not on the next, leaving a freed temperature for the next policy
backward, cannot happen (negative for issue 13, mechanism 3: the same flag tested on every call of a
method the loop calls). Written from the structure of
https://github.com/pranz24/pytorch-soft-actor-critic (``main.py`` calls ``agent.update_parameters``
in its loop; ``sac.py`` tests ``self.automatic_entropy_tuning``), whose ``main.py`` the checker
flagged before such flags were kept the same across the calls of one loop.
"""

import argparse

import torch
import torch.nn as nn


class Agent:
    def __init__(self, tuning, lr=0.05):
        self.tuning = tuning
        self.alpha = 0.2
        self.policy = nn.Linear(3, 1)
        self.policy_optim = torch.optim.SGD(self.policy.parameters(), lr=lr)
        if self.tuning:
            self.log_alpha = torch.zeros(1, requires_grad=True)
            self.alpha_optim = torch.optim.SGD([self.log_alpha], lr=lr)

    def update(self, states):
        log_pi = -torch.tanh(self.policy(states)).pow(2)
        policy_loss = (self.alpha * log_pi).mean()
        self.policy_optim.zero_grad()
        policy_loss.backward()
        self.policy_optim.step()
        if self.tuning:
            alpha_loss = -(self.log_alpha * (log_pi.detach() + 1.0)).mean()
            self.alpha_optim.zero_grad()
            alpha_loss.backward()
            self.alpha_optim.step()
            self.alpha = self.log_alpha.exp()
        else:
            alpha_loss = torch.tensor(0.0)
        return policy_loss.item(), alpha_loss.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tuning", type=int, default=1)
    args = parser.parse_args([])
    torch.manual_seed(0)
    agent = Agent(bool(args.tuning))
    for _episode in range(3):
        for _step in range(2):
            agent.update(torch.randn(8, 3))
    assert agent.policy.weight.grad is not None and agent.log_alpha.grad is not None


if __name__ == "__main__":
    main()

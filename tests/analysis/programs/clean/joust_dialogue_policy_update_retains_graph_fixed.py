"""Two dialogue agents (a user simulator and a system policy) trained jointly with
policy gradient on a toy slot-filling task: the system asks for slots, the user answers,
and both share the dialogue's success reward.

Twin of buggy/joust_dialogue_policy_update_retains_graph.py without the
retain_graph=True, as the report suggests: each dialogue's loss is backwarded once.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical

N_SLOTS = 4


class Agent(nn.Module):
    def __init__(self, n_in, n_out, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_in, hidden), nn.Tanh(), nn.Linear(hidden, n_out))

    def act(self, state):
        dist = Categorical(logits=self.net(state))
        action = dist.sample()
        return action.item(), dist.log_prob(action)


def rollout(system, user, max_turns=6):
    filled = torch.zeros(N_SLOTS)
    log_probs = []
    for turn in range(max_turns):
        ask, lp_sys = system.act(filled)
        query = torch.nn.functional.one_hot(torch.tensor(ask), N_SLOTS).float()
        answer, lp_usr = user.act(torch.cat([filled, query]))
        log_probs += [lp_sys, lp_usr]
        if answer == 1:
            filled = filled.clone()
            filled[ask] = 1.0
        if filled.all():
            return log_probs, 1.0 - 0.05 * turn
    return log_probs, -0.5


def update(optimizer, log_probs, reward, baseline):
    update_loss = -(torch.stack(log_probs).sum() * (reward - baseline))
    optimizer.zero_grad()
    update_loss.backward()
    assert any(p.grad is not None for p in optimizer.param_groups[0]["params"])
    optimizer.step()
    return update_loss.item()


def main(dialogues=20):
    torch.manual_seed(0)
    system, user = Agent(N_SLOTS, N_SLOTS), Agent(2 * N_SLOTS, 2)
    optimizer = torch.optim.Adam([*system.parameters(), *user.parameters()], lr=1e-2)
    baseline = 0.0
    for i in range(dialogues):
        log_probs, reward = rollout(system, user)
        update(optimizer, log_probs, reward, baseline)
        baseline = 0.9 * baseline + 0.1 * reward
        if i % 5 == 0:
            print(f"dialogue {i}: reward {reward:.2f}, baseline {baseline:.2f}")


if __name__ == "__main__":
    main()

"""GFlowNet on a toy bit-string environment trained with a detailed-balance loss: every
transition's error combines the previous state's forward log-probabilities with the
current state's backward log-probabilities and rewards.

Twin of buggy/gflownet_per_step_update_reuses_previous_logprobs.py in the form the
report shows working: the transitions' losses are accumulated over the whole trajectory
and backwarded once, after the loop, followed by one optimizer step.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

LENGTH, TERM = 4, 2


def log_reward(states):
    return -(states.sum(1) - 2.5).abs()


def main(batches=2, batch_size=8):
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(2 * LENGTH, 32), nn.ReLU(), nn.Linear(32, 3 + 2))
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    for batch in range(batches):
        states = torch.zeros(batch_size, 2 * LENGTH)
        prev_forward_logprob, actions, prev_log_rewards = None, None, None
        loss = torch.zeros(())
        for t in range(LENGTH):
            out = policy(states)
            forward_logprob = F.log_softmax(out[:, :3], dim=1)
            back_logprob = F.log_softmax(out[:, 3:], dim=1)
            log_rewards = log_reward(states[:, ::2])
            if actions is not None:
                error = log_rewards - prev_log_rewards
                error = error + back_logprob.gather(1, actions[:, None]).squeeze(1)
                error = error + prev_forward_logprob[:, TERM] - forward_logprob[:, TERM].detach()
                error = error - prev_forward_logprob.gather(1, actions[:, None]).squeeze(1)
                loss = loss + F.huber_loss(error, torch.zeros_like(error), delta=1.0)
            actions = torch.distributions.Categorical(logits=forward_logprob[:, :2].detach()).sample()
            states = states.clone()
            states[torch.arange(batch_size), 2 * t + actions] = 1.0
            prev_forward_logprob, prev_log_rewards = forward_logprob, log_rewards
        optimizer.zero_grad()
        loss.backward()
        assert all(p.grad is not None for p in policy.parameters())
        optimizer.step()
        print(f"batch {batch}: mean reward {log_reward(states[:, ::2]).mean().item():.3f}")


if __name__ == "__main__":
    main()

"""Deep Mutual Learning with two peer classifiers: each peer is trained with its own
cross-entropy plus a KL term towards the other peer's predictions, the peers updated one
after the other from one forward pass of each.

Twin of buggy/deep_mutual_learning_peer_outputs_not_detached.py with the thread's fix:
the other peer's output is detached where it serves as the KL target, so each peer's
backward stays within its own graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def kl(student_logits, teacher_logits):
    return F.kl_div(F.log_softmax(student_logits, 1), F.softmax(teacher_logits, 1), reduction="batchmean")


def main(steps=3, classes=4):
    torch.manual_seed(0)
    peers = [nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, classes)) for _ in range(2)]
    optimizers = [torch.optim.SGD(p.parameters(), lr=0.1, momentum=0.9) for p in peers]
    for step in range(steps):
        x = torch.randn(32, 10)
        y = (x[:, 0] > 0).long() + 2 * (x[:, 1] > 0).long()
        outputs = [peer(x) for peer in peers]
        losses = []
        for i in range(2):
            other = outputs[1 - i].detach()
            loss = F.cross_entropy(outputs[i], y) + kl(outputs[i], other)
            optimizers[i].zero_grad()
            loss.backward()
            assert all(p.grad is not None for p in peers[i].parameters())
            optimizers[i].step()
            losses.append(loss.item())
        print(f"step {step}: peer losses {losses[0]:.3f} {losses[1]:.3f}")


if __name__ == "__main__":
    main()

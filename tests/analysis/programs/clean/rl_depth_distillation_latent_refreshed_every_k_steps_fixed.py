"""Teacher-student distillation for a parkour-style policy: a student with a depth-image
encoder imitates a privileged teacher's actions online, one update per environment step.

Twin of buggy/rl_depth_distillation_latent_refreshed_every_k_steps.py, fixed as the
report's working runner does: the depth image is encoded at every step, so each update
backwards a latent built in that step and the encoder keeps learning from every update.
"""

import torch
import torch.nn as nn

N_ENVS, PROPRIO, LATENT, ACT = 4, 5, 8, 3


class DepthEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2), nn.ReLU(), nn.Flatten(), nn.LazyLinear(LATENT))

    def forward(self, depth):
        return self.net(depth)


def main(steps=8):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    teacher = nn.Sequential(nn.Linear(PROPRIO + 4, 32), nn.ELU(), nn.Linear(32, ACT)).requires_grad_(False)
    encoder = DepthEncoder()
    student = nn.Sequential(nn.Linear(PROPRIO + LATENT, 32), nn.ELU(), nn.Linear(32, ACT))
    encoder(torch.zeros(1, 1, 8, 8))
    optimizer = torch.optim.Adam([*encoder.parameters(), *student.parameters()], lr=1e-3)
    for step in range(steps):
        proprio = torch.randn(N_ENVS, PROPRIO, generator=g)
        privileged = torch.randn(N_ENVS, 4, generator=g)
        depth = privileged[:, :1, None, None].expand(N_ENVS, 1, 8, 8) + 0.1 * torch.randn(N_ENVS, 1, 8, 8, generator=g)
        depth_latent = encoder(depth)
        with torch.no_grad():
            teacher_action = teacher(torch.cat([proprio, privileged], -1))
        student_action = student(torch.cat([proprio, depth_latent], -1))
        loss = (student_action - teacher_action).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        assert encoder.net[0].weight.grad.abs().sum() > 0
        optimizer.step()
        print(step, round(loss.item(), 4))


if __name__ == "__main__":
    main()

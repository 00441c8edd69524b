"""Teacher-student distillation for a parkour-style policy: a student with a depth-image
encoder imitates a privileged teacher's actions online, one update per environment step.

Report: https://github.com/CAI23sbP/Isaaclab_Parkour/issues/3 -- training the
DistillationWithExtractor agent raised "Trying to backward through the graph a second
time" in update_depth_actor once the runner refreshed the depth latent only every 5th
step (`if common_step_counter % 5 == 0:`); the reporter's older runner, which encoded the
depth image at every step, trained normally. Between refreshes every update backwards
through the cached latent's graph, freed by the first of them.
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


def main(steps=8, refresh_every=5):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    teacher = nn.Sequential(nn.Linear(PROPRIO + 4, 32), nn.ELU(), nn.Linear(32, ACT)).requires_grad_(False)
    encoder = DepthEncoder()
    student = nn.Sequential(nn.Linear(PROPRIO + LATENT, 32), nn.ELU(), nn.Linear(32, ACT))
    encoder(torch.zeros(1, 1, 8, 8))
    optimizer = torch.optim.Adam([*encoder.parameters(), *student.parameters()], lr=1e-3)
    depth_latent = None
    for step in range(steps):
        proprio = torch.randn(N_ENVS, PROPRIO, generator=g)
        privileged = torch.randn(N_ENVS, 4, generator=g)
        depth = privileged[:, :1, None, None].expand(N_ENVS, 1, 8, 8) + 0.1 * torch.randn(N_ENVS, 1, 8, 8, generator=g)
        if step % refresh_every == 0:
            depth_latent = encoder(depth)
        with torch.no_grad():
            teacher_action = teacher(torch.cat([proprio, privileged], -1))
        student_action = student(torch.cat([proprio, depth_latent], -1))
        loss = (student_action - teacher_action).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()  # error: [carried-graph-backward]
        optimizer.step()
        print(step, round(loss.item(), 4))


if __name__ == "__main__":
    main()

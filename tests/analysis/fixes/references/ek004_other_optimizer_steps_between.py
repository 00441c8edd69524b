"""Reference for ek004_other_optimizer_steps_between: the actor's loss reads the encoder's features
detached (the critic's optimizer clears what the actor's loss left in the critic's gradients)."""

import torch
from torch import nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(5, 16), nn.ReLU())
actor = nn.Linear(16, 2)
critic = nn.Linear(16 + 2, 1)
actor_opt = torch.optim.Adam(actor.parameters(), lr=1e-2)
critic_opt = torch.optim.Adam([*encoder.parameters(), *critic.parameters()], lr=1e-2)


def losses(obs, action, reward):
    features = encoder(obs)
    kept = features.detach()
    actor_loss = -critic(torch.cat([kept, torch.tanh(actor(kept))], -1)).mean()
    critic_loss = (critic(torch.cat([features, action], -1)) - reward).pow(2).mean()
    return {"actor": actor_loss, "critic": critic_loss}


for step in range(3):
    loss = losses(torch.randn(8, 5), torch.randn(8, 2), torch.randn(8, 1))
    actor_opt.zero_grad()
    loss["actor"].backward()
    actor_opt.step()
    critic_opt.zero_grad()
    loss["critic"].backward()
    critic_opt.step()
    print(f"step {step}: critic loss {loss['critic'].item():.4f}")

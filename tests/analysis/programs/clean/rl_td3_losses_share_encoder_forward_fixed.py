"""TD3-style update with an observation encoder shared by the actor and the twin critics.

Twin of buggy/rl_td3_losses_share_encoder_forward.py, fixed by making the two losses
independent: the critic loss trains the encoder, and the actor loss is computed on
detached features (the shared-extractor convention of SAC/TD3 libraries), so each
backward owns its own graph.
"""

import torch
import torch.nn as nn

OBS, ACT, BATCH = 6, 2, 32


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(OBS, 32), nn.ReLU())
        self.actor = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, ACT), nn.Tanh())
        self.q1 = nn.Sequential(nn.Linear(32 + ACT, 32), nn.ReLU(), nn.Linear(32, 1))
        self.q2 = nn.Sequential(nn.Linear(32 + ACT, 32), nn.ReLU(), nn.Linear(32, 1))


def td3_losses(agent, batch, gamma=0.99):
    obs, action, reward, next_obs = batch
    z = agent.encoder(obs)
    with torch.no_grad():
        next_z = agent.encoder(next_obs)
        next_a = (agent.actor(next_z) + 0.1 * torch.randn(BATCH, ACT)).clamp(-1, 1)
        next_in = torch.cat([next_z, next_a], -1)
        target = reward + gamma * torch.min(agent.q1(next_in), agent.q2(next_in))
    za = torch.cat([z, action], -1)
    q_loss = (agent.q1(za) - target).pow(2).mean() + (agent.q2(za) - target).pow(2).mean()
    z_actor = z.detach()
    actor_loss = -agent.q1(torch.cat([z_actor, agent.actor(z_actor)], -1)).mean()
    return {"loss_actor": actor_loss, "loss_qvalue": q_loss}


def sample(g):
    obs = torch.randn(BATCH, OBS, generator=g)
    action = torch.rand(BATCH, ACT, generator=g) * 2 - 1
    reward = -(obs[:, :ACT] - action).pow(2).sum(-1, keepdim=True)
    return obs, action, reward, obs + 0.1 * torch.randn(BATCH, OBS, generator=g)


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    agent = Agent()
    actor_opt = torch.optim.Adam(agent.actor.parameters(), lr=1e-3)
    critic_opt = torch.optim.Adam([*agent.encoder.parameters(), *agent.q1.parameters(), *agent.q2.parameters()], lr=1e-3)
    for step in range(4):
        loss = td3_losses(agent, sample(g))
        actor_opt.zero_grad()
        loss["loss_actor"].backward()
        actor_opt.step()
        critic_opt.zero_grad()
        loss["loss_qvalue"].backward()
        assert agent.encoder[0].weight.grad.abs().sum() > 0
        critic_opt.step()
        print(step, round(loss["loss_qvalue"].item(), 3))


if __name__ == "__main__":
    main()

"""Dreamer-flavoured model-based RL step: the world model is trained on replayed data; the actor and
critic are trained in imagination starting from *detached* posterior latents, with separate optimizers.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def mlp(i, o, h=16):
    return nn.Sequential(nn.Linear(i, h), nn.ELU(), nn.Linear(h, o))


class WorldModel(nn.Module):
    def __init__(self, obs=6, act=2, z=4):
        super().__init__()
        self.encoder = mlp(obs, z)
        self.decoder = mlp(z, obs)
        self.transition = mlp(z + act, z)
        self.reward = mlp(z, 1)


def main(iterations=2, horizon=3, batch=8):
    torch.manual_seed(0)
    wm, actor, critic = WorldModel(), mlp(4, 2), mlp(4, 1)
    wm_opt = torch.optim.Adam(wm.parameters(), lr=6e-4)
    actor_opt = torch.optim.Adam(actor.parameters(), lr=8e-5)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=8e-5)

    for it in range(iterations):
        obs, act, next_obs, rew = torch.randn(batch, 6), torch.randn(batch, 2), torch.randn(batch, 6), torch.randn(batch)
        z = wm.encoder(obs)
        z_next_pred = wm.transition(torch.cat([z, act], -1))
        with torch.no_grad():
            z_next = wm.encoder(next_obs)
        wm_loss = (F.mse_loss(wm.decoder(z), obs) + F.mse_loss(z_next_pred, z_next)
                   + F.mse_loss(wm.reward(z).squeeze(-1), rew))
        wm_opt.zero_grad()
        wm_loss.backward()
        wm_opt.step()

        # imagination: start from detached latents, world model frozen for the actor update
        wm.requires_grad_(False)
        state = z.detach()
        imagined_states, imagined_rewards = [], []
        for _ in range(horizon):
            action = torch.tanh(actor(state))
            state = wm.transition(torch.cat([state, action], -1))
            imagined_states.append(state)
            imagined_rewards.append(wm.reward(state).squeeze(-1))
        wm.requires_grad_(True)
        returns = torch.stack(imagined_rewards).sum(0) + critic(state).squeeze(-1)
        actor_loss = -returns.mean()
        actor_opt.zero_grad()
        actor_loss.backward()
        actor_opt.step()

        values = critic(torch.stack(imagined_states).detach()).squeeze(-1)
        critic_loss = F.mse_loss(values, returns.detach().expand_as(values))
        critic_opt.zero_grad()
        critic_loss.backward()
        critic_opt.step()
        print(f"it {it}: wm {wm_loss.item():.3f} actor {actor_loss.item():.3f} critic {critic_loss.item():.3f}")


if __name__ == "__main__":
    main()

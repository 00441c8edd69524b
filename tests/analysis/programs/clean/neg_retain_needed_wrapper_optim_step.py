"""Actor-critic with a small optimizer wrapper of the kind RL frameworks ship:
``Optim.step(loss, retain_graph=False)`` zeroes, backwards and steps. The actor update
passes ``retain_graph=True`` because the critic update, through the same wrapper,
backwards through the shared encoder graph next (negative for issue 13, mechanism 5).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Optim:
    def __init__(self, params, lr):
        self.params = list(params)
        self.optimizer = torch.optim.Adam(self.params, lr=lr)

    def step(self, loss, retain_graph=False):
        self.optimizer.zero_grad()
        loss.backward(retain_graph=retain_graph)
        nn.utils.clip_grad_norm_(self.params, 1.0)
        self.optimizer.step()


def main(updates=4):
    torch.manual_seed(0)
    encoder = nn.Sequential(nn.Linear(4, 32), nn.ReLU())
    actor, critic = nn.Linear(32, 2), nn.Linear(32, 1)
    actor_optim = Optim(actor.parameters(), lr=1e-3)
    critic_optim = Optim([*encoder.parameters(), *critic.parameters()], lr=1e-3)
    for update in range(updates):
        obs = torch.randn(16, 4)
        returns = obs.sum(1)
        h = encoder(obs)
        dist = torch.distributions.Categorical(logits=actor(h))
        actions = dist.sample()
        value = critic(h).squeeze(-1)
        actor_loss = -(dist.log_prob(actions) * (returns - value).detach()).mean()
        critic_loss = F.mse_loss(value, returns)
        actor_optim.step(actor_loss, retain_graph=True)
        critic_optim.step(critic_loss)
        print(f"update {update} actor {actor_loss.item():.4f} critic {critic_loss.item():.4f}")


if __name__ == "__main__":
    main()

"""One-step actor-critic with a shared feature trunk (CartPole-like toy env).

Actor and critic have their own optimizers over their heads plus the trunk, and
their losses are backpropagated separately.

Real report of this mechanism: https://github.com/pytorch/rl/issues/1187
TD3's actor loss and q-value loss come from one shared computation; backwarding the q-value
loss after the actor loss raises this error.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Env:
    def reset(self):
        self.t = 0
        return torch.randn(4)

    def step(self, action):
        self.t += 1
        return torch.randn(4), 1.0, self.t >= 3


class ActorCritic(nn.Module):
    def __init__(self, obs=4, hidden=16, actions=2):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs, hidden), nn.ReLU())
        self.actor = nn.Linear(hidden, actions)
        self.critic = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.trunk(x)
        return F.log_softmax(self.actor(h), -1), self.critic(h).squeeze(-1)


def run_episode(env, model, actor_opt, critic_opt, gamma=0.99):
    state, done, total = env.reset(), False, 0.0
    while not done:
        log_probs, value = model(state)
        action = torch.multinomial(log_probs.exp(), 1).item()
        next_state, reward, done = env.step(action)
        with torch.no_grad():
            _, next_value = model(next_state)
        target = reward + gamma * next_value * (1 - float(done))
        td_error = target - value

        actor_loss = -log_probs[action] * td_error.detach()
        critic_loss = td_error.pow(2)

        actor_opt.zero_grad()
        actor_loss.backward()
        actor_opt.step()
        critic_opt.zero_grad()
        critic_loss.backward()  # error: [shared-graph-backward]
        critic_opt.step()

        state, total = next_state, total + reward
    return total


def main():
    torch.manual_seed(0)
    model = ActorCritic()
    actor_opt = torch.optim.Adam([*model.trunk.parameters(), *model.actor.parameters()], lr=1e-3)
    critic_opt = torch.optim.Adam([*model.trunk.parameters(), *model.critic.parameters()], lr=5e-3)
    env = Env()
    for episode in range(2):
        print("episode", episode, "return", run_episode(env, model, actor_opt, critic_opt))


if __name__ == "__main__":
    main()

"""DDPG update (Lillicrap et al.): critic regressed on targets from target networks under no_grad;
the actor loss is recomputed through the updated critic with a fresh forward pass; soft updates.
"""

import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Actor(nn.Module):
    def __init__(self, s, a, max_action=1.0):
        super().__init__()
        self.l1, self.l2, self.l3 = nn.Linear(s, 32), nn.Linear(32, 32), nn.Linear(32, a)
        self.max_action = max_action

    def forward(self, state):
        return self.max_action * torch.tanh(self.l3(F.relu(self.l2(F.relu(self.l1(state))))))


class Critic(nn.Module):
    def __init__(self, s, a):
        super().__init__()
        self.l1, self.l2, self.l3 = nn.Linear(s + a, 32), nn.Linear(32, 32), nn.Linear(32, 1)

    def forward(self, state, action):
        return self.l3(F.relu(self.l2(F.relu(self.l1(torch.cat([state, action], 1))))))


class DDPG:
    def __init__(self, s=3, a=1, discount=0.99, tau=0.005):
        self.actor, self.critic = Actor(s, a), Critic(s, a)
        self.actor_target, self.critic_target = copy.deepcopy(self.actor), copy.deepcopy(self.critic)
        self.actor_optimizer = torch.optim.Adam(self.actor.parameters(), lr=1e-4)
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), weight_decay=1e-2)
        self.discount, self.tau = discount, tau

    def select_action(self, state):
        with torch.no_grad():
            return self.actor(torch.as_tensor(state, dtype=torch.float32).unsqueeze(0)).numpy().flatten()

    def train(self, state, action, next_state, reward, not_done):
        with torch.no_grad():
            target_q = self.critic_target(next_state, self.actor_target(next_state))
            target_q = reward + not_done * self.discount * target_q
        current_q = self.critic(state, action)
        critic_loss = F.mse_loss(current_q, target_q)
        self.critic_optimizer.zero_grad()
        critic_loss.backward()
        self.critic_optimizer.step()

        actor_loss = -self.critic(state, self.actor(state)).mean()
        self.actor_optimizer.zero_grad()
        actor_loss.backward()
        self.actor_optimizer.step()

        for net, target in ((self.critic, self.critic_target), (self.actor, self.actor_target)):
            for param, target_param in zip(net.parameters(), target.parameters()):
                target_param.data.copy_(self.tau * param.data + (1 - self.tau) * target_param.data)
        return critic_loss.item(), actor_loss.item()


if __name__ == "__main__":
    np.random.seed(0)
    torch.manual_seed(0)
    agent = DDPG()
    print("action", agent.select_action(np.zeros(3)))
    for it in range(3):
        s, a = torch.randn(8, 3), torch.rand(8, 1) * 2 - 1
        print(it, agent.train(s, a, torch.randn(8, 3), torch.randn(8, 1), torch.ones(8, 1)))

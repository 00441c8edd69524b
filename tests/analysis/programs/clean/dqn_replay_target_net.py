"""DQN with experience replay, epsilon-greedy exploration and a periodically synced target network."""

import random
from collections import deque, namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F

Transition = namedtuple("Transition", ("state", "action", "next_state", "reward", "done"))


class ReplayMemory:
    def __init__(self, capacity):
        self.memory = deque([], maxlen=capacity)

    def push(self, *args):
        self.memory.append(Transition(*args))

    def sample(self, batch_size):
        return random.sample(self.memory, batch_size)

    def __len__(self):
        return len(self.memory)


class DQN(nn.Module):
    def __init__(self, n_obs, n_actions):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(n_obs, 32), nn.ReLU(), nn.Linear(32, n_actions))

    def forward(self, x):
        return self.layers(x)


def select_action(policy_net, state, eps, n_actions):
    if random.random() < eps:
        return torch.tensor([[random.randrange(n_actions)]])
    with torch.no_grad():
        return policy_net(state).max(1).indices.view(1, 1)


def optimize_model(policy_net, target_net, memory, optimizer, batch_size=4, gamma=0.99):
    if len(memory) < batch_size:
        return None
    batch = Transition(*zip(*memory.sample(batch_size)))
    state_batch = torch.cat(batch.state)
    action_batch = torch.cat(batch.action)
    reward_batch = torch.cat(batch.reward)
    done_batch = torch.cat(batch.done)
    state_action_values = policy_net(state_batch).gather(1, action_batch)
    with torch.no_grad():
        next_values = target_net(torch.cat(batch.next_state)).max(1).values * (1 - done_batch)
    expected = reward_batch + gamma * next_values
    loss = F.smooth_l1_loss(state_action_values, expected.unsqueeze(1))
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
    optimizer.step()
    return loss.item()


def main(steps=8, n_obs=4, n_actions=2, target_update=4):
    random.seed(0)
    torch.manual_seed(0)
    policy_net, target_net = DQN(n_obs, n_actions), DQN(n_obs, n_actions)
    target_net.load_state_dict(policy_net.state_dict())
    optimizer = torch.optim.AdamW(policy_net.parameters(), lr=1e-3, amsgrad=True)
    memory = ReplayMemory(100)
    state = torch.randn(1, n_obs)
    for t in range(steps):
        action = select_action(policy_net, state, eps=0.5, n_actions=n_actions)
        next_state, reward = torch.randn(1, n_obs), torch.tensor([1.0])
        done = torch.tensor([float(t % 5 == 4)])
        memory.push(state, action, next_state, reward, done)
        state = next_state
        loss = optimize_model(policy_net, target_net, memory, optimizer)
        if t % target_update == 0:
            target_net.load_state_dict(policy_net.state_dict())
        if loss is not None:
            print(f"step {t}: loss {loss:.4f}")


if __name__ == "__main__":
    main()

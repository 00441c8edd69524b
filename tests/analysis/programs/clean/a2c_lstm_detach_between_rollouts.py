"""A2C with a recurrent actor-critic: the LSTM state is detached at every rollout boundary,
and the policy, value and entropy terms are combined into one loss.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class ToyEnv:
    def reset(self):
        return torch.randn(1, 4)

    def step(self, action):
        return torch.randn(1, 4), 1.0 if action == 1 else 0.0, False


class RecurrentAC(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.fc = nn.Linear(4, hidden)
        self.lstm = nn.LSTMCell(hidden, hidden)
        self.pi = nn.Linear(hidden, 2)
        self.v = nn.Linear(hidden, 1)
        self.hidden = hidden

    def forward(self, obs, state):
        hx, cx = self.lstm(F.relu(self.fc(obs)), state)
        return self.pi(hx), self.v(hx), (hx, cx)

    def initial_state(self):
        return torch.zeros(1, self.hidden), torch.zeros(1, self.hidden)


def main(n_updates=3, n_steps=4, gamma=0.99):
    torch.manual_seed(0)
    env, model = ToyEnv(), RecurrentAC()
    optimizer = torch.optim.Adam(model.parameters(), lr=7e-4)
    obs, state = env.reset(), model.initial_state()
    for update in range(n_updates):
        state = (state[0].detach(), state[1].detach())
        log_probs, values, rewards, entropy = [], [], [], 0.0
        for _ in range(n_steps):
            logits, value, state = model(obs, state)
            dist = torch.distributions.Categorical(logits=logits)
            action = dist.sample()
            obs, reward, _ = env.step(action.item())
            log_probs.append(dist.log_prob(action))
            values.append(value.view(()))
            rewards.append(reward)
            entropy = entropy + dist.entropy().sum()
        with torch.no_grad():
            _, bootstrap, _ = model(obs, state)
        R = bootstrap.view(())
        returns = []
        for r in reversed(rewards):
            R = r + gamma * R
            returns.insert(0, R)
        advantages = torch.stack(returns) - torch.stack(values)
        actor_loss = -(torch.cat(log_probs) * advantages.detach()).mean()
        critic_loss = advantages.pow(2).mean()
        loss = actor_loss + 0.5 * critic_loss - 0.01 * entropy
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        print(f"update {update}: actor {actor_loss.item():.4f} critic {critic_loss.item():.4f}")


if __name__ == "__main__":
    main()

"""A2C with a recurrent (LSTM) actor-critic on a toy environment.

Rollouts of n steps; the LSTM state (hx, cx) continues from one rollout to the
next without being detached at the rollout boundary.

Real report of this mechanism: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57
The tutorial's RNN raises this error once `h_state = h_state.data` is removed, i.e. when the
hidden state returned for one batch is fed into the next batch with its graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class ToyEnv:
    def __init__(self, obs_dim=4):
        self.obs_dim = obs_dim

    def reset(self):
        return torch.randn(1, self.obs_dim)

    def step(self, action):
        return torch.randn(1, self.obs_dim), float(action == 0), False


class RecurrentActorCritic(nn.Module):
    def __init__(self, obs_dim=4, hidden=16, n_actions=2):
        super().__init__()
        self.fc = nn.Linear(obs_dim, hidden)
        self.lstm = nn.LSTMCell(hidden, hidden)
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)

    def forward(self, obs, state):
        hx, cx = self.lstm(F.relu(self.fc(obs)), state)
        return self.pi(hx), self.v(hx), (hx, cx)


def main(n_updates=2, n_steps=3, gamma=0.99):
    torch.manual_seed(0)
    env, model = ToyEnv(), RecurrentActorCritic()
    optimizer = torch.optim.RMSprop(model.parameters(), lr=7e-4, alpha=0.99, eps=1e-5)
    obs = env.reset()
    state = (torch.zeros(1, 16), torch.zeros(1, 16))
    for update in range(n_updates):
        log_probs, values, rewards, entropies = [], [], [], []
        for _ in range(n_steps):
            logits, value, state = model(obs, state)
            dist = torch.distributions.Categorical(logits=logits)
            action = dist.sample()
            obs, reward, _ = env.step(action.item())
            log_probs.append(dist.log_prob(action))
            entropies.append(dist.entropy())
            values.append(value.squeeze())
            rewards.append(reward)
        with torch.no_grad():
            _, R, _ = model(obs, state)
        R = R.squeeze()
        returns = []
        for r in reversed(rewards):
            R = r + gamma * R
            returns.insert(0, R)
        returns, values = torch.stack(returns), torch.stack(values)
        advantages = returns - values
        policy_loss = -(torch.cat(log_probs) * advantages.detach()).mean()
        value_loss = advantages.pow(2).mean()
        loss = policy_loss + 0.5 * value_loss - 0.01 * torch.cat(entropies).mean()
        optimizer.zero_grad()
        loss.backward()  # error: [carried-graph-backward]
        nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        print(f"update {update}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()

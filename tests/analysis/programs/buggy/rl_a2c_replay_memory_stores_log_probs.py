"""Advantage actor-critic trained from an experience-replay memory on a short chain MDP.

Report: https://github.com/philtabor/Youtube-Code-Repository/issues/19 -- "A2C with
experience replay": the agent put each step's log-probability into the replay memory
and learned from sampled batches of it. The reporter pointed out that the stored
log_probs hang on graphs that the first update clears, and that they have to be
recomputed in the learning function, the same way as the critic's values.

The first update backwards through the log-probabilities it sampled and frees their
graphs; the next sample holds some of the same transitions, and its backward reaches a
part of the graph that is already freed.
"""

import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

N_STATES, N_ACTIONS = 5, 2


def env_step(state, action):
    nxt = min(N_STATES - 1, state + 1) if action == 1 else max(0, state - 1)
    return nxt, (1.0 if nxt == N_STATES - 1 else -0.1), nxt == N_STATES - 1


def encode(state):
    return F.one_hot(torch.tensor(state), N_STATES).float()


class ActorCritic(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(N_STATES, hidden), nn.Tanh(), nn.Linear(hidden, N_ACTIONS))
        self.critic = nn.Sequential(nn.Linear(N_STATES, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, obs):
        return Categorical(logits=self.actor(obs)), self.critic(obs).squeeze(-1)


def learn(agent, optimizer, batch, gamma=0.95):
    log_probs = torch.stack([t[0] for t in batch])
    states = torch.stack([encode(t[1]) for t in batch])
    rewards = torch.tensor([t[2] for t in batch])
    next_states = torch.stack([encode(t[3]) for t in batch])
    dones = torch.tensor([float(t[4]) for t in batch])
    _, values = agent(states)
    with torch.no_grad():
        _, next_values = agent(next_states)
    delta = rewards + gamma * next_values * (1 - dones) - values
    actor_loss = -(log_probs * delta.detach()).mean()
    critic_loss = delta.pow(2).mean()
    optimizer.zero_grad()
    (actor_loss + critic_loss).backward()  # error: [carried-graph-backward]
    optimizer.step()
    return critic_loss.item()


def main(steps=12, batch_size=8):
    random.seed(0)
    torch.manual_seed(0)
    agent = ActorCritic()
    optimizer = torch.optim.Adam(agent.parameters(), lr=1e-3)
    memory, state = [], 0
    for t in range(steps):
        dist, _ = agent(encode(state))
        action = dist.sample()
        nxt, reward, done = env_step(state, action.item())
        memory.append((dist.log_prob(action), state, reward, nxt, done))
        loss = learn(agent, optimizer, random.sample(memory, min(len(memory), batch_size)))
        state = 0 if done else nxt
        if t % 4 == 0:
            print(f"step {t}: critic loss {loss:.4f}")


if __name__ == "__main__":
    main()

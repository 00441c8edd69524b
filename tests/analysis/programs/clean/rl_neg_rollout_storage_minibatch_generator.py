"""PPO with a rollout storage whose `feed_forward_generator` yields minibatches (the
pytorch-a2c-ppo-acktr layout; issue 13, mechanism 1: a method named *_generator is a
data iterator, not a GAN generator). The storage holds plain tensors filled under
no_grad; every minibatch builds its own graph.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical

OBS, ACTIONS, STEPS = 4, 2, 32


class RolloutStorage:
    def __init__(self):
        self.obs = torch.zeros(STEPS, OBS)
        self.actions = torch.zeros(STEPS, dtype=torch.long)
        self.log_probs = torch.zeros(STEPS)
        self.returns = torch.zeros(STEPS)

    def insert(self, t, obs, action, log_prob, reward):
        self.obs[t], self.actions[t], self.log_probs[t], self.returns[t] = obs, action, log_prob, reward

    def feed_forward_generator(self, advantages, num_mini_batch):
        perm = torch.randperm(STEPS)
        for idx in perm.chunk(num_mini_batch):
            yield self.obs[idx], self.actions[idx], self.log_probs[idx], self.returns[idx], advantages[idx]


def main(updates=3, ppo_epoch=2, num_mini_batch=4, clip=0.2):
    torch.manual_seed(0)
    actor = nn.Sequential(nn.Linear(OBS, 32), nn.Tanh(), nn.Linear(32, ACTIONS))
    critic = nn.Sequential(nn.Linear(OBS, 32), nn.Tanh(), nn.Linear(32, 1))
    optimizer = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=3e-3)
    storage = RolloutStorage()
    for update in range(updates):
        with torch.no_grad():
            for t in range(STEPS):
                obs = torch.randn(OBS)
                dist = Categorical(logits=actor(obs))
                action = dist.sample()
                storage.insert(t, obs, action, dist.log_prob(action), float(action.item() == int(obs[1] > 0)))
            advantages = storage.returns - critic(storage.obs).squeeze(-1)
        for _ in range(ppo_epoch):
            for obs_b, act_b, old_lp_b, ret_b, adv_b in storage.feed_forward_generator(advantages, num_mini_batch):
                ratio = (Categorical(logits=actor(obs_b)).log_prob(act_b) - old_lp_b).exp()
                action_loss = -torch.min(ratio * adv_b, ratio.clamp(1 - clip, 1 + clip) * adv_b).mean()
                value_loss = (critic(obs_b).squeeze(-1) - ret_b).pow(2).mean()
                optimizer.zero_grad()
                (action_loss + 0.5 * value_loss).backward()
                optimizer.step()
        print(update, round(storage.returns.mean().item(), 3), round(value_loss.item(), 4))


if __name__ == "__main__":
    main()

"""Option-critic on a small contextual task: shared features feed option values,
intra-option policies and termination probabilities; the termination loss and the
intra-option policy loss are backwarded separately at each step.

Report: https://github.com/ShangtongZhang/DeepRL/issues/86 -- the maintainer explains
the option-critic agent updates the policies and the termination functions in one
synchronized step, which "can avoid retain_graph=True". Backwarding them one after the
other without it goes through the shared features' graph a second time.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical

OBS, OPTIONS, ACTIONS, BATCH = 5, 2, 3, 32


class OptionCriticNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(OBS, 32), nn.ReLU())
        self.q_option = nn.Linear(32, OPTIONS)
        self.beta = nn.Linear(32, OPTIONS)
        self.pi = nn.Linear(32, OPTIONS * ACTIONS)

    def forward(self, obs):
        phi = self.features(obs)
        return self.q_option(phi), torch.sigmoid(self.beta(phi)), self.pi(phi).view(-1, OPTIONS, ACTIONS)


def main(steps=4, xi=0.01):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    net = OptionCriticNet()
    optimizer = torch.optim.RMSprop(net.parameters(), lr=1e-3)
    option = torch.zeros(BATCH, dtype=torch.long)
    for step in range(steps):
        obs = torch.randn(BATCH, OBS, generator=g)
        q, beta, logits = net(obs)
        dist = Categorical(logits=logits[torch.arange(BATCH), option])
        action = dist.sample()
        reward = (action == obs[:, :ACTIONS].argmax(-1)).float()
        q_o = q.gather(1, option.unsqueeze(1)).squeeze(1)
        advantage = (q_o - q.max(1).values + xi).detach()
        beta_o = beta.gather(1, option.unsqueeze(1)).squeeze(1)
        termination_loss = (beta_o * advantage).mean()
        policy_loss = -(dist.log_prob(action) * (reward - q_o.detach())).mean() + (q_o - reward).pow(2).mean()
        optimizer.zero_grad()
        termination_loss.backward()
        policy_loss.backward()  # error: [shared-graph-backward]
        optimizer.step()
        with torch.no_grad():
            option = torch.where(torch.rand(BATCH, generator=g) < beta_o, q.argmax(1), option)
        print(step, round(reward.mean().item(), 3))


if __name__ == "__main__":
    main()

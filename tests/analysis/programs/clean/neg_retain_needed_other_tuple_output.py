"""Actor and critic heads on one encoder, returned together and tuple-unpacked
(``policy_logits, value = model(obs)``): the policy loss is backwarded with
``retain_graph=True`` because the value loss, backwarded next through the other output,
goes through the same encoder graph (negative for issue 13, mechanism 5).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoHeaded(nn.Module):
    def __init__(self, obs_dim=5, n_actions=3):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh())
        self.policy = nn.Linear(32, n_actions)
        self.value = nn.Linear(32, 1)

    def forward(self, obs):
        h = self.encoder(obs)
        return self.policy(h), self.value(h).squeeze(-1)


def main(updates=4):
    torch.manual_seed(0)
    model = TwoHeaded()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for update in range(updates):
        obs = torch.randn(32, 5)
        returns = obs[:, 0] - obs[:, 1]
        policy_logits, value = model(obs)
        dist = torch.distributions.Categorical(logits=policy_logits)
        actions = dist.sample()
        advantage = (returns - value).detach()
        policy_loss = -(dist.log_prob(actions) * advantage).mean()
        value_loss = F.mse_loss(value, returns)
        optimizer.zero_grad()
        policy_loss.backward(retain_graph=True)
        value_loss.backward()
        optimizer.step()
        print(f"update {update} policy {policy_loss.item():.4f} value {value_loss.item():.4f}")


if __name__ == "__main__":
    main()

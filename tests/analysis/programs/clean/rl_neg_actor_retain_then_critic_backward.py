"""TD3-style update with a shared sequence encoder where the actor loss is backwarded
first with retain_graph=True, the critics' gradients from it are zeroed, and the
critic loss is backwarded through the same graph, then one optimizer step.

After https://github.com/UT-Austin-RPL/amago/pull/27 ("Alternate Backward"): the actor
objective must not train the critics, so its gradient on the critic parameters is
dropped before the critic loss adds its own. The retain_graph=True is required -- the
critic backward goes through the shared encoder's graph again (issue 13, mechanism 5:
the negative for the dead-end rule).
"""

import torch
import torch.nn as nn

OBS, ACT, HID, BATCH, T = 3, 2, 16, 8, 5


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.GRU(OBS, HID, batch_first=True)
        self.actor = nn.Sequential(nn.Linear(HID, ACT), nn.Tanh())
        self.critic = nn.Sequential(nn.Linear(HID + ACT, 32), nn.ReLU(), nn.Linear(32, 1))


def main(updates=4):
    torch.manual_seed(0)
    agent = Agent()
    optimizer = torch.optim.Adam(agent.parameters(), lr=1e-3)
    for update in range(updates):
        seq = torch.randn(BATCH, T, OBS)
        taken = torch.rand(BATCH, ACT) * 2 - 1
        reward = -(taken - seq[:, -1, :ACT].tanh()).pow(2).sum(-1, keepdim=True)
        h = agent.encoder(seq)[0][:, -1]
        actor_loss = -agent.critic(torch.cat([h, agent.actor(h)], -1)).mean()
        critic_loss = (agent.critic(torch.cat([h, taken], -1)) - reward).pow(2).mean()
        optimizer.zero_grad()
        actor_loss.backward(retain_graph=True)
        for p in agent.critic.parameters():
            p.grad = None
        critic_loss.backward()
        assert all(p.grad is not None for p in agent.encoder.parameters())
        optimizer.step()
        print(update, round(actor_loss.item(), 4), round(critic_loss.item(), 4))


if __name__ == "__main__":
    main()

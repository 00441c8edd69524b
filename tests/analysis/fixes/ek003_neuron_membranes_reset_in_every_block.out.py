"""A spiking classifier of event streams: leaky integrate-and-fire neurons keep their membrane
potential on themselves between calls, a stem neuron on its own and one inside each residual block;
nothing starts them again from rest when the next batch of sequences comes."""

import torch
from torch import nn


class LeakyNeuron(nn.Module):
    def __init__(self, decay=0.6):
        super().__init__()
        self.decay = decay
        self.mem = 0.0

    def forward(self, currents):
        spikes = []
        for current in currents:
            self.mem = self.decay * self.mem + current
            spike = torch.sigmoid(5.0 * (self.mem - 1.0))
            self.mem = self.mem * (1.0 - spike)
            spikes.append(spike)
        return torch.stack(spikes)


class SpikingBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.linear = nn.Linear(width, width)
        self.neuron = LeakyNeuron()

    def forward(self, spikes):
        return spikes + self.neuron(self.linear(spikes))


torch.manual_seed(0)
encoder, encoder_neuron = nn.Linear(6, 12), LeakyNeuron()
body = nn.Sequential(SpikingBlock(12), SpikingBlock(12))
readout = nn.Linear(12, 3)
optimizer = torch.optim.Adam([*encoder.parameters(), *body.parameters(), *readout.parameters()], lr=1e-2)
for batch in range(3):
    body[0].neuron.mem = 0.0
    body[1].neuron.mem = 0.0
    encoder_neuron.mem = 0.0
    targets = torch.randint(3, (4,))
    events = torch.rand(5, 4, 6) + 0.3 * targets[None, :, None]
    logits = readout(body(encoder_neuron(encoder(events))).mean(0))
    loss = nn.functional.cross_entropy(logits, targets)
    optimizer.zero_grad()
    loss.backward()  # error: [carried-graph-backward]
    optimizer.step()
    print(f"batch {batch}: loss {loss.item():.4f}")

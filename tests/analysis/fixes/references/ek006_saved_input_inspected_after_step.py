"""A training step that logs what the last layer's product saved, after the backward freed it
(the read PyTorch's own tests make of ``grad_fn._saved_self``)."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
scale = torch.ones(1, requires_grad=True)
optimizer = torch.optim.SGD([*model.parameters(), scale], lr=0.1)
x = torch.randn(8, 4)

optimizer.zero_grad()
scaled = model(x) * scale
loss = scaled.pow(2).mean()
print(scaled.grad_fn._saved_self.shape)  # read while the graph is whole
loss.backward()
optimizer.step()

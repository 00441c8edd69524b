"""A shared encoder with a classification head and a reconstruction head."""

import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(10, 6), nn.ReLU())
classifier = nn.Linear(6, 3)
decoder = nn.Linear(6, 10)
params = [*encoder.parameters(), *classifier.parameters(), *decoder.parameters()]
optimizer = torch.optim.Adam(params, lr=1e-3)
x = torch.randn(16, 10)
labels = torch.randint(0, 3, (16,))

for step in range(3):
    optimizer.zero_grad()
    features = encoder(x)
    loss_cls = nn.functional.cross_entropy(classifier(features), labels)
    loss_rec = nn.functional.mse_loss(decoder(features), x)
    loss_cls.backward(retain_graph=True)
    loss_rec.backward()
    optimizer.step()

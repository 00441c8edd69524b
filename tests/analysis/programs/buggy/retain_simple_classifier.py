"""Iris-like classifier; someone hit the "backward a second time" error once and added
retain_graph=True to every backward "to be safe".

Real report of this mechanism: https://github.com/Eurus-Holmes/MNMT/issues/7
The fix recorded for this error is to replace loss.backward() with
loss.backward(retain_graph=True).
"""

import torch
from torch import nn

torch.manual_seed(0)
features = torch.randn(30, 4)
labels = torch.randint(0, 3, (30,))

model = nn.Sequential(nn.Linear(4, 10), nn.ReLU(), nn.Linear(10, 3))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

train_losses = []
for epoch in range(3):
    model.train()
    for start in range(0, 30, 10):
        xb = features[start : start + 10]
        yb = labels[start : start + 10]
        optimizer.zero_grad()
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward(retain_graph=True)  # error: [retain-graph-in-loop]
        optimizer.step()
    train_losses.append(loss.item())

    model.eval()
    with torch.no_grad():
        acc = (model(features).argmax(1) == labels).float().mean().item()
    print(f"Epoch {epoch + 1}: loss={train_losses[-1]:.4f} acc={acc:.2%}")

print("done; losses:", [round(l, 3) for l in train_losses])

# confusion matrix on the training data
with torch.no_grad():
    preds = model(features).argmax(1)
confusion = torch.zeros(3, 3, dtype=torch.long)
for t, p in zip(labels.tolist(), preds.tolist()):
    confusion[t, p] += 1
print(confusion)

# ---
# Kaggle notebook "house-prices-pytorch-baseline", exported to a script.
# ---
#
# Real report of this mechanism: https://github.com/karpathy/nn-zero-to-hero/issues/31
# The reporter's notebook computes the loss in a forward-pass cell and backwards it in a
# separate backward-pass cell, which raises this error.

# %% [code]
import numpy as np
import torch
import torch.nn as nn

SEED = 42
np.random.seed(SEED)
torch.manual_seed(SEED)

# %% [code]
# fake "train.csv": 6 numeric features, log-price target
X_np = np.random.randn(100, 6).astype("float32")
y_np = (X_np @ np.linspace(0.5, -0.5, 6) + 12.0).astype("float32")
X_train = torch.from_numpy(X_np)
y_train = torch.from_numpy(y_np).unsqueeze(1)
mean, std = X_train.mean(0), X_train.std(0)
X_train = (X_train - mean) / std

# %% [code]
model = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 1))
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

# %% [code]
# sanity check: one batch forward/backward, look at the gradient magnitudes
xb, yb = X_train[:16], y_train[:16]
loss = torch.sqrt(criterion(model(xb), yb))
loss.backward()
for name, p in model.named_parameters():
    print(name, p.grad.abs().mean().item())

# %% [code]
# take one step with the sanity-check batch before the real loop
optimizer.zero_grad()
loss.backward()  # error: [double-backward]
optimizer.step()

# %% [code]
for epoch in range(2):
    perm = torch.randperm(len(X_train))
    for i in range(0, len(X_train), 50):
        idx = perm[i : i + 50]
        optimizer.zero_grad()
        rmse = torch.sqrt(criterion(model(X_train[idx]), y_train[idx]))
        rmse.backward()
        optimizer.step()
    print(epoch, rmse.item())

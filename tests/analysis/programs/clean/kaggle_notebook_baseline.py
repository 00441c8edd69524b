# ---
# Kaggle notebook "tabular-playground-pytorch-baseline", exported to a script.
# ---

# %% [code]
import numpy as np
import torch
import torch.nn as nn

SEED = 2024
np.random.seed(SEED)
torch.manual_seed(SEED)

# %% [code]
X_np = np.random.randn(120, 8).astype("float32")
y_np = (X_np[:, :3].sum(1) > 0).astype("float32")
X = torch.from_numpy(X_np)
y = torch.from_numpy(y_np).unsqueeze(1)
X = (X - X.mean(0)) / X.std(0)
X_tr, X_va, y_tr, y_va = X[:90], X[90:], y[:90], y[90:]

# %% [code]
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 1))
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

# %% [code]
# sanity check on one batch: look at the gradient magnitudes, then throw them away
xb, yb = X_tr[:16], y_tr[:16]
loss = criterion(model(xb), yb)
loss.backward()
for name, p in model.named_parameters():
    print(name, f"{p.grad.abs().mean().item():.2e}")
optimizer.zero_grad()

# %% [code]
EPOCHS, BS = 3, 30
history = []
for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(len(X_tr))
    for i in range(0, len(X_tr), BS):
        idx = perm[i:i + BS]
        optimizer.zero_grad()
        loss = criterion(model(X_tr[idx]), y_tr[idx])
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        va_loss = criterion(model(X_va), y_va).item()
        va_acc = ((model(X_va) > 0).float() == y_va).float().mean().item()
    history.append((loss.item(), va_loss, va_acc))
    print(f"epoch {epoch}: train {loss.item():.4f} valid {va_loss:.4f} acc {va_acc:.3f}")

# %% [code]
with torch.no_grad():
    submission = torch.sigmoid(model(X_va)).squeeze(1).numpy()
print(submission[:5])

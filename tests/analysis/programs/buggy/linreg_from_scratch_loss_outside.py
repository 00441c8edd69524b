# Linear regression from scratch with autograd (tutorial exercise).
#
# Part 2 of the "PyTorch basics" notebook: no nn.Module, no optimizer, just
# tensors with requires_grad and a hand-written gradient-descent update.
#
# Real report of this mechanism: https://github.com/karpathy/nn-zero-to-hero/issues/31
# The reporter's notebook computes the loss in a forward-pass cell and backwards it in a
# separate backward-pass cell, which raises this error.
import torch

torch.manual_seed(0)

# data: y = 3x - 2 + noise
X = torch.linspace(-1, 1, 50).unsqueeze(1)
y = 3 * X - 2 + 0.1 * torch.randn_like(X)

w = torch.randn(1, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)

learning_rate = 0.1
n_epochs = 5

y_hat = X @ w + b
loss = ((y_hat - y) ** 2).mean()

losses = []
for epoch in range(n_epochs):
    loss.backward()  # error: [pre-loop-graph-backward]
    with torch.no_grad():
        w -= learning_rate * w.grad
        b -= learning_rate * b.grad
        w.grad.zero_()
        b.grad.zero_()
    losses.append(loss.item())
    if epoch % 1 == 0:
        print(f"epoch {epoch}: loss={loss.item():.4f} w={w.item():.3f} b={b.item():.3f}")

print("final", w.item(), b.item())

# evaluate on held-out points
X_test = torch.linspace(-1.5, 1.5, 20).unsqueeze(1)
y_test = 3 * X_test - 2
with torch.no_grad():
    test_mse = ((X_test @ w + b - y_test) ** 2).mean().item()
print(f"test mse: {test_mse:.4f}")
print("loss curve:", [round(l, 3) for l in losses])

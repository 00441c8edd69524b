# Linear regression from scratch with autograd (tutorial exercise, correct version).
#
# No nn.Module and no optimizer: tensors with requires_grad, the forward pass and loss
# recomputed every epoch, a manual update under no_grad, gradients zeroed by hand.
import torch

torch.manual_seed(0)

X = torch.linspace(-1, 1, 50).unsqueeze(1)
y = 3 * X - 2 + 0.1 * torch.randn_like(X)

w = torch.randn(1, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
learning_rate = 0.1
losses = []

for epoch in range(5):
    y_hat = X @ w + b
    loss = ((y_hat - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= learning_rate * w.grad
        b -= learning_rate * b.grad
    w.grad.zero_()
    b.grad.zero_()
    losses.append(loss.item())
    print(f"epoch {epoch}: loss={loss.item():.4f} w={w.item():.3f} b={b.item():.3f}")

X_test = torch.linspace(-1.5, 1.5, 20).unsqueeze(1)
with torch.no_grad():
    test_mse = ((X_test @ w + b - (3 * X_test - 2)) ** 2).mean().item()
print(f"test mse: {test_mse:.4f}")
print("loss curve:", [round(l, 3) for l in losses])

# the same model with nn.Linear and torch.optim, for comparison
torch.manual_seed(0)
layer = torch.nn.Linear(1, 1)
sgd = torch.optim.SGD(layer.parameters(), lr=learning_rate)
for epoch in range(5):
    sgd.zero_grad()
    mse = torch.nn.functional.mse_loss(layer(X), y)
    mse.backward()
    sgd.step()
print("nn.Linear:", layer.weight.item(), layer.bias.item(), mse.item())

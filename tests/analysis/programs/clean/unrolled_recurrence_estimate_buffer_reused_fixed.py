"""Fitting a damped recurrence by unrolling it into an estimate vector that is allocated
afresh at the start of every iteration, so no iteration writes into a tensor that
still carries the previous iteration's graph (the advice in
https://discuss.pytorch.org/t/runtimeerror-trying-to-backward-through-the-graph-a-second-time-but-the-buffers-have-already-been-freed-specify-retain-graph-true-when-calling-backward-the-first-time/6795 ).
"""

import torch


def simulate(a, b, u, x0=1.0):
    xs = [torch.tensor(x0)]
    for t in range(1, u.numel()):
        xs.append(a * xs[-1] + b * u[t])
    return torch.stack(xs)


def main(iters=4, horizon=12):
    torch.manual_seed(0)
    u = torch.sin(torch.arange(horizon).float() / 2)
    observed = simulate(torch.tensor(0.8), torch.tensor(0.5), u) + 0.01 * torch.randn(horizon)
    a = torch.tensor(0.3, requires_grad=True)
    b = torch.tensor(0.1, requires_grad=True)
    optimizer = torch.optim.Adam([a, b], lr=0.05)
    history = []
    for it in range(iters):
        estimate = torch.zeros(horizon)
        state = observed[0]
        estimate[0] = state
        for t in range(1, horizon):
            state = a * state + b * u[t]
            estimate[t] = state
        loss = (estimate - observed).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss.item())
        print(f"iter {it} loss {loss.item():.5f} a={a.item():.3f} b={b.item():.3f}")

    assert history[-1] < history[0]


if __name__ == "__main__":
    main()

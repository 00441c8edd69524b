"""pytorch/backward-through-freed-graph: a backward through a graph an earlier backward freed.

Fixes (see FIXES): each variant checks that its training did what it meant to (gradients of the
current weights, counted once; a graph that does not grow), so a fix that only silences the error
still counts as failing.
"""

import torch
from torch import nn

FIXES = {
    "dead_ends.0": "retain_every_backward",
    "dead_ends.1": "retain_first_backward",
    "workarounds.0": "retain_all_but_last",
    "workarounds.1": "one_backward_per_forward",
    "workarounds.2": "recompute_in_loop",
    "workarounds.3": "detach_carried_state",
}
APPLIES = {
    "one_backward_per_forward": ["variant_backward_twice"],
    "recompute_in_loop": ["variant_loss_before_loop"],
    "detach_carried_state": [
        "variant_rnn_hidden_carried",
        "variant_gan_without_detach",
        "variant_gan_reused_output",
    ],
}
"""The variants each specific fix is meant for; the retain_graph fixes are meant for every one."""
RETAINING = {"retain_every_backward", "retain_first_backward", "retain_all_but_last"}


def _retain(fix, index, count):
    if fix == "retain_every_backward":
        return True
    if fix == "retain_first_backward":
        return index == 0
    if fix == "retain_all_but_last":
        return index < count - 1
    return False


def variant_backward_twice(fix=None):
    """A training step that calls backward on the same loss twice (say, once in a logging hook)."""
    model = nn.Linear(3, 1)
    x = torch.randn(4, 3)
    loss = model(x).pow(2).mean()
    loss.backward(retain_graph=_retain(fix, 0, 2))
    if fix != "one_backward_per_forward":
        loss.backward(retain_graph=_retain(fix, 1, 2))
    expected = torch.autograd.grad(model(x).pow(2).mean(), model.weight)[0]
    assert torch.allclose(model.weight.grad, expected), "the gradient was accumulated twice"


def variant_loss_before_loop(fix=None):
    """The loss is computed once, before the loop, and backwarded every iteration."""
    model = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(8, 3)
    loss = model(x).pow(2).mean()
    steps = 3
    for step in range(steps):
        if fix == "recompute_in_loop":
            loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward(retain_graph=_retain(fix, step, steps))
        current = torch.autograd.grad(model(x).pow(2).mean(), model[0].weight)[0]
        assert torch.allclose(model[0].weight.grad, current), "a stale gradient from old weights"
        opt.step()


def _graph_size(tensor):
    seen, stack = set(), [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


def variant_rnn_hidden_carried(fix=None):
    """An RNN's hidden state carried from one batch to the next without detach."""
    rnn = nn.RNN(2, 4, batch_first=True)
    opt = torch.optim.SGD(rnn.parameters(), lr=0.01)
    hidden = torch.zeros(1, 1, 4)
    sizes = []
    steps = 4
    for step in range(steps):
        if fix == "detach_carried_state":
            hidden = hidden.detach()
        out, hidden = rnn(torch.randn(1, 5, 2), hidden)
        loss = out.pow(2).mean()
        sizes.append(_graph_size(loss))
        opt.zero_grad()
        loss.backward(retain_graph=_retain(fix, step, steps))
        opt.step()
    assert sizes[-1] == sizes[0], f"the graph grows every batch: {sizes} nodes"


def _gan():
    generator = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 3))
    discriminator = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    return (
        generator,
        discriminator,
        torch.optim.SGD(generator.parameters(), lr=0.1),
        torch.optim.SGD(discriminator.parameters(), lr=0.1),
    )


def variant_gan_without_detach(fix=None):
    """The discriminator's loss backwards through the generator's graph, which then is freed."""
    bce = nn.BCEWithLogitsLoss()
    generator, discriminator, opt_g, opt_d = _gan()
    real, z = torch.randn(4, 3), torch.randn(4, 2)
    fake = generator(z)
    d_input = fake.detach() if fix == "detach_carried_state" else fake
    d_loss = bce(discriminator(real), torch.ones(4, 1)) + bce(discriminator(d_input), torch.zeros(4, 1))
    opt_d.zero_grad()
    d_loss.backward(retain_graph=_retain(fix, 0, 2))
    opt_d.step()
    g_loss = bce(discriminator(fake), torch.ones(4, 1))
    opt_g.zero_grad()
    g_loss.backward(retain_graph=_retain(fix, 1, 2))
    opt_g.step()


def variant_gan_reused_output(fix=None):
    """As above, and the generator's loss reuses the discriminator's output from before its step."""
    bce = nn.BCEWithLogitsLoss()
    generator, discriminator, opt_g, opt_d = _gan()
    real, z = torch.randn(4, 3), torch.randn(4, 2)
    fake = generator(z)
    if fix == "detach_carried_state":
        d_fake = discriminator(fake.detach())
    else:
        d_fake = discriminator(fake)
    d_loss = bce(discriminator(real), torch.ones(4, 1)) + bce(d_fake, torch.zeros(4, 1))
    opt_d.zero_grad()
    d_loss.backward(retain_graph=_retain(fix, 0, 2))
    opt_d.step()
    g_out = discriminator(fake) if fix == "detach_carried_state" else d_fake
    g_loss = bce(g_out, torch.ones(4, 1))
    opt_g.zero_grad()
    g_loss.backward(retain_graph=_retain(fix, 1, 2))
    opt_g.step()


if __name__ == "__main__":
    variant_loss_before_loop()

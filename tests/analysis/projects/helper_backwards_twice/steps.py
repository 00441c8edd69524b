"""A training-step helper that backwards the loss for two optimizers, without keeping the graph."""


def backward_for_both(loss, first, second):
    first.zero_grad()
    second.zero_grad()
    loss.backward()
    first.step()
    loss.backward()
    second.step()

"""The project's training step, shared by its scripts."""


def step(loss, optimizer):
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

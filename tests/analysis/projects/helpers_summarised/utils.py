"""Helpers that two scripts of the project import: three that only compute their result from what
they are handed (summarised once per text of this module), one that backwards (run at each call)."""

import torch


def cut(x):
    return x.detach()


@torch.no_grad()
def share(s):
    return s.mean().item()


def same(x):
    return x * 2


def step(loss, optimizer):
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

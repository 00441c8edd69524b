"""Helpers of the kind issue 13 saw taken as passing a graph on: each cuts it."""

import torch


def cut_history(state):
    return state.detach()


@torch.no_grad()
def positive_share(scores):
    return (scores > 0).float().mean().item()

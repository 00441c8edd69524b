# Peer label: https://github.com/pytorch/pytorch/blob/0025348e03d0307b815c0043b702e2a64c2ef752/test/test_utils.py
# TestCheckpoint.test_checkpoint_non_tensor_inputs_outputs: the outputs of a reentrant checkpoint
# share one CheckpointFunctionBackward node; two backwards retain it, the third frees it, and the
# fourth through the same output raises.
import torch
from torch.utils.checkpoint import checkpoint


def segment(first, second, factor, constant):
    left = (first + second * constant) * factor
    right = (first * second + constant) * factor
    return factor, left, None, True, right, "tag", first


def checkpoint_outputs_backwarded_again() -> None:
    first = torch.rand(10, requires_grad=True)
    second = torch.rand(10, requires_grad=True)
    constant = torch.rand(10)
    outputs = checkpoint(segment, first, second, 3, constant, use_reentrant=True)
    outputs[1].sum().backward(retain_graph=True)
    outputs[4].sum().backward(retain_graph=True)
    outputs[6].sum().backward()
    outputs[6].sum().backward()  # error: [double-backward]


if __name__ == "__main__":
    checkpoint_outputs_backwarded_again()

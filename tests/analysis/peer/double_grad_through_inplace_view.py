# Peer label: https://github.com/pytorch/pytorch/blob/5c322af10e52e4d236104ceefd542f34e6dcf20a/test/test_autograd.py
# TestAutograd.test_inplace_on_view_backward: autograd.grad with create_graph=True through a
# network with an in-place ReLU, then a second autograd.grad of the first gradient; runs.
import torch
from torch import nn


def double_grad_through_inplace_relu() -> None:
    network = nn.Sequential(nn.InstanceNorm2d(2), nn.ReLU(True))
    inputs = torch.tensor([[[[1.0, 1.0]]]], requires_grad=True)
    (first,) = torch.autograd.grad(
        network(inputs).pow(2), [inputs], grad_outputs=inputs.new_ones(inputs.shape), create_graph=True
    )
    torch.autograd.grad(first.sum(), [inputs])


if __name__ == "__main__":
    double_grad_through_inplace_relu()

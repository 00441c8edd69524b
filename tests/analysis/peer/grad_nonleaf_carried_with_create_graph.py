# Peer label: https://github.com/pytorch/pytorch/blob/5c322af10e52e4d236104ceefd542f34e6dcf20a/test/test_autograd.py
# TestAutograd.test_grad_nonleaf: a non-leaf is carried across iterations, each autograd.grad
# through the growing graph uses create_graph=True (which retains it), and a final backward from
# the carried tensor runs through every iteration's graph.
import torch


def carried_point_with_create_graph() -> None:
    start = torch.randn(2, 2, requires_grad=True)
    other = torch.randn(2, 2, requires_grad=True)
    point = start
    ones = torch.ones(2, 2)
    for _ in range(4):
        value = point**2 + other * point + other**2
        (slope,) = torch.autograd.grad(value, point, grad_outputs=ones, create_graph=True)
        point = point + 0.05 * slope
    point.backward(ones)
    assert start.grad is not None and other.grad is not None


if __name__ == "__main__":
    carried_point_with_create_graph()

# Peer label: https://github.com/pytorch/pytorch/blob/5c322af10e52e4d236104ceefd542f34e6dcf20a/test/test_autograd.py
# TestAutograd.test_detach (in-place part): the first backward retains the graph, a scaled copy is
# then detached in place, and the second backward (a new sum) no longer reaches the first graph.
import torch


def detach_between_backwards() -> None:
    base = torch.randn(4, 4, requires_grad=True)
    bias = torch.randn(4, 4, requires_grad=True)
    scaled = base * 2
    (bias + scaled).sum().backward(retain_graph=True)
    scaled.detach_()
    (bias + scaled).sum().backward()
    assert torch.equal(base.grad, torch.full((4, 4), 2.0))


if __name__ == "__main__":
    detach_between_backwards()

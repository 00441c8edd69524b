# Peer label: https://github.com/pytorch/pytorch/blob/5c322af10e52e4d236104ceefd542f34e6dcf20a/test/test_autograd.py
# TestAutograd.test_accumulate_grad: a retained backward, then a second backward (with and
# without create_graph) through the same graph; both run.
import torch


def retained_then_second_backward() -> None:
    for create_graph in (False, True):
        leaf = torch.randn(5, 5, requires_grad=True)
        shifted = leaf + 2
        upstream = torch.ones(5, 5)
        shifted.backward(upstream, retain_graph=True)
        shifted.backward(upstream, create_graph=create_graph)
        assert torch.equal(leaf.grad, 2 * upstream)


if __name__ == "__main__":
    retained_then_second_backward()

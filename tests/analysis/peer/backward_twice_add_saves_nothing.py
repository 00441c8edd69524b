# Peer label: https://github.com/pytorch/pytorch/blob/5c322af10e52e4d236104ceefd542f34e6dcf20a/test/test_autograd.py
# TestAutograd.test_backward_twice_without_saved_values: adding a constant saves no tensor for
# backward, so backwarding the same result twice without retain_graph runs (nothing to free).
import torch


def add_backward_twice() -> None:
    base = torch.randn(3, dtype=torch.float64, requires_grad=True)
    shifted = base + 1
    ones = torch.ones(3, dtype=torch.float64)
    shifted.backward(ones)
    shifted.backward(ones)
    assert torch.equal(base.grad, 2 * ones)


if __name__ == "__main__":
    add_backward_twice()

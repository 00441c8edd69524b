# Peer label: https://github.com/pytorch/pytorch/blob/5c322af10e52e4d236104ceefd542f34e6dcf20a/test/test_autograd.py
# TestAutograd.test_backward_twice_with_saved_values (asserts "Specify retain_graph=True").
# A buffer that does not require grad gets a graph by index assignment from a leaf's gather; the
# index backward saved the indices, so the second backward through the same buffer raises.
import torch


def index_put_then_backward_twice() -> None:
    weights = torch.randn(3, dtype=torch.float64, requires_grad=True)
    buffer = torch.zeros(3, dtype=torch.float64)
    buffer[[1, 2]] = weights[[1, 1]]
    seed = torch.ones(3, dtype=torch.float64)
    buffer.backward(seed)
    buffer.backward(seed)  # error: [double-backward]


if __name__ == "__main__":
    index_put_then_backward_twice()

# Peer label: https://github.com/pytorch/pytorch/blob/5c322af10e52e4d236104ceefd542f34e6dcf20a/test/test_autograd.py
# TestAutograd.test_backward_twice_retained_graph_with_saved_values (and the identical body of
# test_backward_twice_retained_graph_without_saved_values): the first backward retains the graph,
# so the second one through the index-assigned buffer runs.
import torch


def retained_index_put_backward_twice() -> None:
    leaf = torch.randn(3, dtype=torch.float64, requires_grad=True)
    holder = torch.zeros(3, dtype=torch.float64)
    holder[[1, 2]] = leaf[[0, 0]]
    upstream = torch.ones(3, dtype=torch.float64)
    holder.backward(upstream, retain_graph=True)
    holder.backward(upstream)
    assert torch.equal(leaf.grad, torch.tensor([4.0, 0.0, 0.0], dtype=torch.float64))


if __name__ == "__main__":
    retained_index_put_backward_twice()

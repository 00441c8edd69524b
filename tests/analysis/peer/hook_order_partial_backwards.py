# Peer label: https://github.com/pytorch/pytorch/blob/5c322af10e52e4d236104ceefd542f34e6dcf20a/test/test_autograd.py
# TestAutograd.test_prehook_ordering: a retained backward, an autograd.grad limited to the leaf
# with retain_graph=True, then a backward limited to inputs=(the clone,) without retain_graph;
# each call builds a new sum over a clone (which saves nothing), and all of them run.
import torch


def partial_backwards_over_a_clone() -> None:
    leaf = torch.tensor(1.0, requires_grad=True)
    copy = leaf.clone()
    copy.sum().backward(retain_graph=True)
    torch.autograd.grad(copy.sum(), inputs=(leaf,), retain_graph=True)
    copy.retain_grad()
    copy.sum().backward(inputs=(copy,))
    assert copy.grad.item() == 1.0


if __name__ == "__main__":
    partial_backwards_over_a_clone()

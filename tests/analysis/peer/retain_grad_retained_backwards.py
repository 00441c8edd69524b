# Peer label: https://github.com/pytorch/pytorch/blob/5c322af10e52e4d236104ceefd542f34e6dcf20a/test/test_autograd.py
# TestAutograd.test_retain_grad: two backwards with retain_graph=True, then a last one without,
# through a graph whose multiplication saved its inputs; all three run.
import torch


def three_backwards_last_one_frees() -> None:
    source = torch.rand(1, 3, requires_grad=True)
    hidden = source * 3
    total = (hidden * hidden).sum()
    hidden.retain_grad()
    total.backward(retain_graph=True)
    total.backward(retain_graph=True)
    with torch.no_grad():
        source.grad.zero_()
    total.backward()
    assert torch.allclose(source.grad, source * 18)


if __name__ == "__main__":
    three_backwards_last_one_frees()

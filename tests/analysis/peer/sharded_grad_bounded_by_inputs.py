# Peer label: https://github.com/pytorch/pytorch/blob/5c322af10e52e4d236104ceefd542f34e6dcf20a/test/test_autograd.py
# TestAutograd.test_sharded_grad: autograd.grad of one loss is taken again and again, each time
# stopping at a few intermediates (inputs bound the traversal, and the part above them saved no
# tensor); then backward from the intermediates runs through the part no call has freed yet.
import torch


def grads_in_shards_then_backward() -> None:
    leaves = [torch.zeros(5, 5, requires_grad=True) for _ in range(6)]
    middles = [leaf * index + leaf * leaf for index, leaf in enumerate(leaves)]
    loss = sum(middle * index for index, middle in enumerate(middles)).sum()
    partial = []
    for start in range(0, len(middles), 2):
        partial.extend(torch.autograd.grad(loss, middles[start : start + 2]))
    torch.autograd.backward(middles, partial)
    for index, leaf in enumerate(leaves):
        assert torch.equal(leaf.grad, index * index * (1 + leaf))


if __name__ == "__main__":
    grads_in_shards_then_backward()

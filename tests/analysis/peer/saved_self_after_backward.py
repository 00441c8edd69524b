# Peer label: https://github.com/pytorch/pytorch/blob/5c322af10e52e4d236104ceefd542f34e6dcf20a/test/test_autograd.py
# TestAutograd.test_no_unnecessary_unwrapping (and test_grad_fn_attr_bindings): after a backward
# without retain_graph, reading a saved input from the node (grad_fn._saved_self) raises.
import torch


def read_saved_input_after_backward() -> None:
    leaf = torch.randn(5, requires_grad=True)
    square = leaf * leaf
    cube = leaf * square
    assert cube.grad_fn._saved_other is square
    cube.sum().backward()
    print(cube.grad_fn._saved_self)  # error: [saved-tensor-after-free]


if __name__ == "__main__":
    read_saved_input_after_backward()

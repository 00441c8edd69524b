# Peer label: https://github.com/pytorch/pytorch/blob/5c322af10e52e4d236104ceefd542f34e6dcf20a/test/test_autograd.py
# TestAutograd.test_custom_function_saved_tensors: a custom Function's node exposes saved_tensors
# until its backward runs; afterwards reading them raises.
import torch


class Keep(torch.autograd.Function):
    @staticmethod
    def forward(ctx, value):
        ctx.save_for_backward(value, None)
        return value

    @staticmethod
    def backward(ctx, grad_value):
        return grad_value


def node_saved_tensors_after_backward() -> None:
    leaf = torch.randn(5, requires_grad=True)
    out = Keep.apply(leaf)
    assert out.grad_fn.saved_tensors[1] is None
    out.sum().backward()
    print(out.grad_fn.saved_tensors)  # error: [saved-tensor-after-free]


if __name__ == "__main__":
    node_saved_tensors_after_backward()

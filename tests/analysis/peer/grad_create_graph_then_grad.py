# Peer label: https://github.com/pytorch/pytorch/blob/5c322af10e52e4d236104ceefd542f34e6dcf20a/test/test_autograd.py
# TestAutograd.test_custom_autograd_no_early_free: create_graph=True keeps the graph, so a second
# autograd.grad through the same custom Function's output (which saved its input and output) runs.
import torch


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, value):
        result = value**2
        ctx.save_for_backward(value, result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        value, result = ctx.saved_tensors
        return grad_output * 2 * result / value


def grad_twice_after_create_graph() -> None:
    point = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    squared = Square.apply(point)
    torch.autograd.grad(squared, point, create_graph=True)
    (slope,) = torch.autograd.grad(squared, point)
    assert slope.item() == 4.0


if __name__ == "__main__":
    grad_twice_after_create_graph()

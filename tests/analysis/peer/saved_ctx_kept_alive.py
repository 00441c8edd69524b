# Peer label: https://github.com/pytorch/pytorch/blob/5c322af10e52e4d236104ceefd542f34e6dcf20a/test/test_autograd.py
# TestAutograd.test_naughty_autograd_function_stashing_ctx: a custom Function's ctx kept past its
# backward. The test asserts that reading ctx.saved_tensors raises once the output is deleted; under
# torch 2.13 it does not (the kept ctx is the node, and keeps its saved tensors alive after a
# retain_graph backward), so this peer label is recorded as running clean.
import torch

kept = []


class Passthrough(torch.autograd.Function):
    @staticmethod
    def forward(ctx, value):
        ctx.save_for_backward(value)
        return value

    @staticmethod
    def backward(ctx, grad_value):
        kept.append(ctx)
        return ctx.saved_tensors


def read_saved_tensors_after_the_graph_is_gone() -> None:
    weight = torch.zeros(1, requires_grad=True)
    output = Passthrough.apply(weight)
    output.backward(retain_graph=True)
    del output
    assert kept[0].saved_tensors[0] is not None


if __name__ == "__main__":
    read_saved_tensors_after_the_graph_is_gone()

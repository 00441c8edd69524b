# Peer label: https://github.com/pytorch/pytorch/blob/5c322af10e52e4d236104ceefd542f34e6dcf20a/test/test_autograd.py
# TestAutograd.test_full_backward_hook_double_backward: a loss module with a full backward hook,
# autograd.grad with create_graph=True, then autograd.grad of that gradient; runs.
import torch


def hooked_loss_double_grad() -> None:
    guess = torch.rand(1, requires_grad=True)
    target = torch.rand_like(guess)
    criterion = torch.nn.MSELoss()
    calls = []
    criterion.register_full_backward_hook(lambda module, grad_in, grad_out: calls.append(1))
    loss = criterion(guess, target)
    (slope,) = torch.autograd.grad(loss, guess, create_graph=True)
    torch.autograd.grad(slope, guess)
    assert len(calls) == 1


if __name__ == "__main__":
    hooked_loss_double_grad()

# Peer label: https://github.com/pytorch/pytorch/blob/5c322af10e52e4d236104ceefd542f34e6dcf20a/test/test_autograd.py
# TestAutograd.test_backward_twice_with_saved_values: the test runs its second backward inside a
# lambda handed to assertRaisesRegex. Here the lambda is kept and called, so the raising call is
# the backward in the lambda's body (the innermost frame in this file).
import torch


def second_backward_in_a_lambda() -> None:
    source = torch.randn(4, dtype=torch.float64, requires_grad=True)
    grid = torch.zeros(2, 3, dtype=torch.float64)
    grid[1, [0, 2]] = source[[3, 3]]
    total = grid.sum()
    total.backward()
    again = lambda: total.backward()  # error: [double-backward]
    again()


if __name__ == "__main__":
    second_backward_in_a_lambda()

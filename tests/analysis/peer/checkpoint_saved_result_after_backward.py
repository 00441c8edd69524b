# Peer label: https://github.com/pytorch/pytorch/blob/5c322af10e52e4d236104ceefd542f34e6dcf20a/test/test_autograd.py
# TestAutograd.test_access_saved_tensor_twice_without_recomputation_works: a non-reentrant
# checkpoint recomputes on every read of a saved tensor before backward; after backward that read
# fails with the record's error.
import torch
from torch.utils.checkpoint import checkpoint


def exp_of_products(value):
    square = value * value
    value * square
    return torch.exp(value)


def read_checkpointed_result_after_backward() -> None:
    leaf = torch.randn(5, requires_grad=True)
    result = checkpoint(exp_of_products, leaf, use_reentrant=False)
    result.grad_fn._saved_result
    result.grad_fn._saved_result
    result.sum().backward()
    print(result.grad_fn._saved_result)  # error: [saved-tensor-after-free]


if __name__ == "__main__":
    read_checkpointed_result_after_backward()

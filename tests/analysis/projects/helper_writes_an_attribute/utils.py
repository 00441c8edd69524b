"""A helper that keeps what it is handed on an object it is handed: no summary can say that, so
each call runs its body."""


def keep(box, x):
    box.last = x
    return x.detach()

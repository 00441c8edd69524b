"""errknow-ls: a language server that knows the PyTorch errors you are about to hit."""

__version__ = "0.1.0"

"""The pygls language server; the only layer that imports pygls and lsprotocol."""

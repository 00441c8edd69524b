"""Ground truth by execution: the fixture corpus run under torch."""

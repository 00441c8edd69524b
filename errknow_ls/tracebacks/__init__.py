"""Text of logs, terminals and notebooks -> parsed tracebacks -> record matches (core, kb)."""

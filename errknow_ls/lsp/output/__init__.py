"""Findings from program output: tracebacks in logs (open documents and files on disk, read as they
grow), in terminal output the editor streams and in notebook outputs, each mapped to the user's own
source line (``paths``), kept with where it came from (``store``), and shown as diagnostics and
hover (``diagnostics``)."""

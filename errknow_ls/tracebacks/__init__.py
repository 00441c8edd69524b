"""Text of logs, terminals and notebooks -> parsed tracebacks -> record matches (core, kb).

``read_tracebacks(text)`` reads a whole capture; ``TracebackScanner`` reads one that grows, fed
by ``Capture`` from a file or stream;
``read_notebook(text)`` reads a notebook's saved error outputs; ``bare_messages(kb, text)`` reads
error messages quoted without a traceback; ``match_tracebacks`` pairs each
traceback with the knowledge-base record that explains it, if any.
"""

from errknow_ls.tracebacks.bare import bare_messages
from errknow_ls.tracebacks.captures import Capture, Shrink
from errknow_ls.tracebacks.matching import TracebackMatch, match_traceback, match_tracebacks
from errknow_ls.tracebacks.model import Chain, Frame, Style, Traceback
from errknow_ls.tracebacks.notebook import NotebookError, read_notebook
from errknow_ls.tracebacks.scanner import TracebackScanner, read_tracebacks
from errknow_ls.tracebacks.userframe import is_user_file, user_frame

__all__ = [
    "Capture",
    "Chain",
    "Frame",
    "NotebookError",
    "Shrink",
    "Style",
    "Traceback",
    "TracebackMatch",
    "TracebackScanner",
    "bare_messages",
    "is_user_file",
    "match_traceback",
    "match_tracebacks",
    "read_notebook",
    "read_tracebacks",
    "user_frame",
]

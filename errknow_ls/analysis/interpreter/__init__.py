"""An abstract interpreter over Python's AST that follows autograd graphs through a program.

Tensors are sets of graph nodes (one per creating site and loop iteration). A backward frees the
nodes it reaches unless it retains the graph; a later backward that reaches a freed node that
saved tensors is what torch rejects with "Trying to backward through the graph a second time".
Loop bodies run twice, so a node made in one iteration and reached in the next is seen; branches
run separately and join; calls into functions and methods of the same module are followed.

One part a module: ``statements`` and ``loops`` run statements, ``expressions`` evaluates them,
``calls`` resolves what a call reaches and runs the checked code's functions, ``autograd`` is what
torch's ops and modules do to the graph, ``backward`` what a backward frees and what a second pass
goes through, ``imports`` reads the project's own modules. ``base`` holds the state they share and
the methods they give one another; ``core`` joins them into the ``Interpreter``.
"""

from errknow_ls.analysis.interpreter.base import UNIT_BUDGET
from errknow_ls.analysis.interpreter.core import Interpreter

__all__ = ["UNIT_BUDGET", "Interpreter"]

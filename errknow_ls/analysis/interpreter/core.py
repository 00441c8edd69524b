"""The interpreter whole: its parts joined into one class, and the entry points the checker runs."""

from __future__ import annotations

import ast

from errknow_ls.analysis import torch_api as api
from errknow_ls.analysis.events import Loop
from errknow_ls.analysis.interpreter.autograd import Autograd
from errknow_ls.analysis.interpreter.backward import Backward
from errknow_ls.analysis.interpreter.base import STEP_BUDGET, BudgetExceeded, Frame, FunctionNode, LoopContext
from errknow_ls.analysis.interpreter.calls import Calls
from errknow_ls.analysis.interpreter.expressions import Expressions
from errknow_ls.analysis.interpreter.flags import Flags
from errknow_ls.analysis.interpreter.imports import Imports
from errknow_ls.analysis.interpreter.loops import Loops
from errknow_ls.analysis.interpreter.memo import CallMemo
from errknow_ls.analysis.interpreter.retests import Retests
from errknow_ls.analysis.interpreter.statements import Statements
from errknow_ls.analysis.interpreter.summarize import Summarize
from errknow_ls.analysis.names import constant_assignments
from errknow_ls.analysis.state import State
from errknow_ls.analysis.values import ClassInfo, Func, Opaque, maybe_of, nodes_of


class Interpreter(
    Statements, Loops, Flags, Retests, Expressions, Calls, Autograd, Backward, Imports, Summarize
):
    """Runs entry points (the module body, functions, methods) and collects events."""

    def run_module(self, relevant: bool) -> None:
        """Run the module body as a script (only definitions when nothing in it can backward)."""
        self.state = State()
        frame = Frame(next(self._serial), None, None, self.tick)
        with self._frame(frame):
            if relevant:
                self._module_running = True
                try:
                    self._run_guarded(lambda: self.exec_block(self.module.body))
                finally:
                    self._module_running = False
            else:
                # The stage every unit of the module starts from: a unit's own budget (a share of
                # the file's) is for its own run, not for reading the project's modules it imports.
                budget, self.budget = self.budget, max(self.budget, STEP_BUDGET)
                try:
                    self._run_guarded(self._run_definitions)
                finally:
                    self.budget = budget
        self.globals = dict(self.state.env)

    def _run_definitions(self) -> None:
        """The module's imports, definitions and constants (the project modules it imports read
        too, which count against the budget: ``stopped`` says where one ran out)."""
        constants = {id(stmt) for stmt in constant_assignments(self.module)}
        for stmt in self.module.body:
            definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
            if isinstance(stmt, ast.Import | ast.ImportFrom | definition) or id(stmt) in constants:
                self.exec_stmt(stmt)

    def forget_module_graphs(self) -> None:
        """Before running functions on their own: a module-level name that holds a graph holds it
        at some point of the module's run, and when an unknown caller calls the function is not
        known; such names are unknown (reached through the module's own calls, they are known)."""
        self.globals = {
            name: Opaque(maybe_of(value)) if nodes_of(value) else value
            for name, value in self.globals.items()
        }

    def run_function(self, func: FunctionNode) -> None:
        """Run a module-level function with unknown arguments."""
        self.state = State()

        def body() -> None:
            given = self.call_function(Func(func), [], {}, None, unknown_args=True)
            self.note_escape([given])  # what its unknown caller does with it is not seen

        self._run_guarded(body)

    def run_method(self, info: ClassInfo, method: FunctionNode) -> None:
        """Build an instance with unknown arguments, then call ``method`` once: what one call does
        (two backwards in one step) is proven whoever calls it. Only a framework known to call a
        method step after step (Lightning's ``training_step``) has it run as its steps."""
        if info.lightning and method.name == api.LIGHTNING_STEP:
            self._run_steps(info, method)
            return
        self.state = State()

        def body() -> None:
            obj = self.instantiate(info, [], {}, None, unknown_args=True)
            self.note_escape([obj])  # its unknown caller may build an optimizer over its modules
            home = info.homes.get(method.name)
            given = self.call_function(Func(method, obj, module=home), [], {}, None, unknown_args=True)
            self.note_escape([given])

        self._run_guarded(body)

    def _run_steps(self, info: ClassInfo, method: FunctionNode) -> None:
        """Build an instance, then call ``method`` as the framework does, step after step."""
        self.state = State()

        def body() -> None:
            obj = self.instantiate(info, [], {}, None, unknown_args=True)
            self.note_escape([obj])  # the framework builds the optimizers over its modules
            loop = Loop(self._new_key(), None, method=method)
            context = LoopContext(loop, first_node=len(self.nodes))
            start_tick = self.tick
            context.entry = dict(self.state.heap.items())
            context.entry["self"] = obj
            self.loops[loop.key] = context
            self.stepping.add(loop.key)  # the framework steps the optimizers after each call
            iteration, first_tick = 0, None
            while iteration < self._iterations(iteration, 2, start_tick, first_tick, loop.key):
                context.iteration = iteration
                if iteration:
                    context.carried = self._carried(loop.key, iteration, include_env=False)
                self.loop_stack.append((loop.key, iteration))
                try:
                    home = info.homes.get(method.name)
                    self.call_function(Func(method, obj, module=home), [], {}, None, unknown_args=True)
                finally:
                    self.loop_stack.pop()
                first_tick = self.tick if iteration == 0 else first_tick
                iteration += 1

        self._run_guarded(body)

    def _run_guarded(self, body: object) -> None:
        self.steps = 0
        self.call_memo = CallMemo()
        self.forward_hooks = []
        self.hook_registrations = []
        self.stopped = None
        try:
            body()  # type: ignore[operator]
        except BudgetExceeded as exc:
            self.stopped = str(exc)
        except RecursionError:
            self.stopped = "calls nested deeper than Python's stack allows"
        finally:
            self.loop_stack.clear()
            self.no_grad = False

"""Which IR ops each backend implements, read from its real dispatch code, and which it lacks.

Issue #10: a new primitive op needs one implementation per backend, and nothing used to report a
forgotten one. Here each backend's op set is *derived*, never listed by hand:
- the handler tables: the CPU engine's per-lane ops (the op table's reference definitions,
  ``cumetal.ir.ops.ELEMENTWISE_OPS``), AIR's ``lower_function.HANDLERS``, MSL's ``emit._EXPR``/``_STMT``;
- the ops the backends' dispatch functions test by name (``if op == "br"``, ``elif op in (…)``),
  found by reading those functions' syntax trees; a branch whose body starts with ``raise`` is a
  refusal (e.g. the device heap on AIR/MSL) and does not count.
The ops a backend may *receive* are every op of the table, minus what the legalizer
(``cumetal.passes.legalize``, when present) expands for that backend, plus the primitives it emits.
``missing_ops(backend)`` is the difference; ``tests/ir/test_backend_coverage.py`` fails on it.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Iterable
from functools import cache
from types import ModuleType

from cumetal.ir.ops import ELEMENTWISE_OPS, OPS, TERMINATORS

BACKENDS = ("cpu", "air", "msl")

# (module, function names) whose ``op`` comparisons dispatch instructions, per backend
_DISPATCH: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "cpu": (("cumetal.backends.cpu.insts", ("compile_inst", "_body")),
            ("cumetal.backends.cpu.engine", ("_compile", "_terminator"))),
    "air": (("cumetal.backends.air.lower_function", ("_lower",)),),
    "msl": (("cumetal.backends.msl.emit", ("inst", "term")),
            ("cumetal.backends.msl.structurize", ("*",))),
}


def _is_op_name(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "op") or (isinstance(node, ast.Attribute) and node.attr == "op")


def _strings(node: ast.expr) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


def _tested_ops(test: ast.expr) -> set[str]:
    """Op names an ``if`` condition selects (``op == "x"``, ``op in ("x", "y")``, ``x.op == …``)."""
    found: set[str] = set()
    for node in ast.walk(test):
        if isinstance(node, ast.Compare) and _is_op_name(node.left):
            for cmp, right in zip(node.ops, node.comparators, strict=False):
                if isinstance(cmp, (ast.Eq, ast.In)):
                    found |= _strings(right)
    return found


def dispatched_ops(source: str, functions: Iterable[str]) -> set[str]:
    """Ops that the named functions of ``source`` (``"*"``: all of them) handle by name."""
    wanted = set(functions)
    found: set[str] = set()
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or ("*" not in wanted and fn.name not in wanted):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.If) and not (node.body and isinstance(node.body[0], ast.Raise)):
                found |= _tested_ops(node.test)
    return found


def _module(name: str) -> ModuleType:
    return importlib.import_module(name)


@cache
def implemented_ops(backend: str) -> frozenset[str]:
    """The IR ops ``backend`` ('cpu', 'air', 'msl') has an implementation for."""
    ops: set[str] = set()
    if backend == "cpu":
        ops |= ELEMENTWISE_OPS  # run by their reference definitions
    elif backend == "air":
        ops |= set(_module("cumetal.backends.air.lower_function").HANDLERS)
    elif backend == "msl":
        emit = _module("cumetal.backends.msl.emit")
        ops |= set(emit._EXPR) | set(emit._STMT)
        # FnEmitter.term ends every block whose terminator is not a branch (its default: return)
        ops |= set(TERMINATORS)
    else:
        raise ValueError(f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")
    for mod_name, functions in _DISPATCH[backend]:
        ops |= dispatched_ops(inspect.getsource(_module(mod_name)), functions)
    return frozenset(ops & set(OPS) | (ops - set(OPS)))


def _capabilities(backend: str):
    """The backend's legalization capabilities, or None where there is no legalizer (yet)."""
    try:
        legalize = importlib.import_module("cumetal.passes.legalize")
    except ImportError:
        return None
    if backend == "cpu":
        return getattr(legalize, "REFERENCE", None)
    try:
        return importlib.import_module(f"cumetal.backends.{backend}.capabilities").CAPABILITIES
    except (ImportError, AttributeError):
        return None


def received_ops(backend: str) -> frozenset[str]:
    """The IR ops ``backend`` may be handed: every op of the table, after the legalizer's
    expansions for that backend when it has any."""
    caps = _capabilities(backend)
    if caps is not None:
        legalize = importlib.import_module("cumetal.passes.legalize")
        if hasattr(legalize, "received_ops"):
            return frozenset(legalize.received_ops(caps, OPS))
    return frozenset(OPS)


def missing_ops(backend: str) -> frozenset[str]:
    """Ops ``backend`` may receive but does not implement."""
    return received_ops(backend) - implemented_ops(backend)


def unknown_ops(backend: str) -> frozenset[str]:
    """Op names ``backend`` dispatches on that the table does not declare (a stale handler or a typo)."""
    return implemented_ops(backend) - set(OPS)

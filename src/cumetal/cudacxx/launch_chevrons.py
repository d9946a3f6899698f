"""Kernel launches spelled with spaces inside the chevrons, ``kernel << < grid, block >> > (args)``:
nvcc accepts them (Rodinia's particlefilter has them), clang wants ``<<<`` and ``>>>`` as single
tokens. ``normalize`` joins them before the compile; the host pass then compiles the same text
(``CompileResult.source``). ``operator<< <T>`` (a template specialization of ``operator<<``) and
``>> >`` closing nested templates are left alone: only a ``>> >`` after a joined ``<<<`` is joined."""

from __future__ import annotations

import re

# a comment, a string or character literal (skipped), or a spaced launch opener / closer
_TOKEN = re.compile(r"""//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|"""
                    r"""(?P<open><<[ \t]+<(?![<=]))|(?P<close>>>[ \t]+>(?![>=]))|(?P<joined>>>>)""", re.S)
_OPERATOR_BEFORE = re.compile(r"\boperator\s*$")


def normalize(source: str) -> str:
    """``source`` with each spaced ``<< <`` launch opener and its ``>> >`` closer joined."""
    if "<< " not in source and "<<\t" not in source:
        return source
    out: list[str] = []
    last = 0
    pending = False  # a joined opener waits for its closer
    for m in _TOKEN.finditer(source):
        if m.group("open") and not _OPERATOR_BEFORE.search(source, 0, m.start()):
            out += [source[last:m.start()], "<<<"]
            last, pending = m.end(), True
        elif pending and m.group("close"):
            out += [source[last:m.start()], ">>>"]
            last, pending = m.end(), False
        elif m.group("joined"):
            pending = False
    out.append(source[last:])
    return "".join(out)

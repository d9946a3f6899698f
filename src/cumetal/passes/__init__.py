"""cumetal.passes: PTX syntax tree -> kernel IR (lowering per the intrinsic map), diagnostics."""

from __future__ import annotations

from cumetal.diagnostics import Diagnostic
from cumetal.ir.nodes import Module


class CompileError(Exception):
    """The input cannot be used at all (syntax errors, or no kernel could be lowered)."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = diagnostics
        super().__init__("\n".join(d.format() for d in diagnostics))


def lower_parsed(result, text: str | bytes, filename: str) -> Module:
    """Lower an already-parsed PTX module (``cumetal.ptx.parse`` result without errors); lowering
    diagnostics get their source lines. Kernels that cannot be lowered are in ``Module.failed``."""
    from cumetal.passes.lower import lower_module

    module = lower_module(result.module, filename)
    _attach_source_lines(module.diagnostics, text, filename)
    return module


def compile_ptx(text: str | bytes, filename: str = "<ptx>", *, strict: bool = False) -> Module:
    """Parse and lower a PTX module. Kernels that cannot be lowered are listed in ``Module.failed``
    (with diagnostics); a file with syntax errors, or in which no kernel lowered, raises CompileError."""
    from cumetal.ptx import parse

    if "__cudaCDP2" in (text if isinstance(text, str) else text.decode("utf-8", "replace")):
        # nvcc -rdc=true PTX calling the device runtime (.extern __cudaCDP2*): CuMetal's bodies
        from cumetal.cudacxx.devrt_link import link_device_runtime  # noqa: PLC0415

        text = link_device_runtime(text if isinstance(text, str) else text.decode("utf-8", "replace"))
    result = parse(text, filename, strict=strict)
    errors = [d for d in result.diagnostics if d.severity == "error"]
    if errors:
        raise CompileError(result.diagnostics)
    module = lower_parsed(result, text, filename)
    module.diagnostics[:0] = result.diagnostics
    if any(d.severity == "error" for d in module.diagnostics if d.message.startswith("constant memory")):
        raise CompileError(module.diagnostics)
    if not module.kernels and module.failed:
        raise CompileError(module.diagnostics)
    return module


def _attach_source_lines(diagnostics: list[Diagnostic], text: str | bytes, filename: str) -> None:
    """Give lowering diagnostics their source line, so they print with a caret like parse errors."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    lines = None
    for d in diagnostics:
        if d.source_line is None and d.loc.file == filename and d.loc.line > 0:
            lines = lines or text.splitlines()
            if d.loc.line <= len(lines):
                d.source_line = lines[d.loc.line - 1]


__all__ = ["CompileError", "compile_ptx", "lower_parsed"]

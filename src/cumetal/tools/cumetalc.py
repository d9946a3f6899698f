"""``cumetalc``: the nvcc-like CuMetal compiler driver.

    cumetalc --parse-only kernel.ptx …       syntax check (exit 0 clean, 1 errors, 2 usage)
    cumetalc --coverage kernel.ptx           which opcodes the file uses and whether CuMetal runs them
    cumetalc kernel.ptx -o kernel.metallib   compile to Apple AIR in a .metallib (the default output)
    cumetalc kernel.ptx --emit=msl -o k.metal  Metal Shading Language
    cumetalc kernel.ptx --emit=ir            the kernel IR the CPU backend runs

Output modes are entries of ``MODES``: a later stage adds ``--emit=ir|msl|metallib`` by registering
a handler there; the argument parsing and diagnostics plumbing stay as they are.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from cumetal import __version__
from cumetal.ptx import ast as A
from cumetal.ptx import parse
from cumetal.ptx.parser import ParseResult
from cumetal.ptx.printer import instruction_text
from cumetal.ptx.table import TABLE

PROG = "cumetalc"


class _UsageError(Exception):
    pass


class _ArgParser(argparse.ArgumentParser):
    """argparse, but usage errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(message)


def build_arg_parser() -> argparse.ArgumentParser:
    p = _ArgParser(
        prog=PROG,
        description="CuMetal compiler driver: PTX in; parse, check coverage, or compile.",
        epilog="Exit status: 0 success, 1 errors in the input, 2 usage errors.",
    )
    p.add_argument("inputs", nargs="*", metavar="INPUT", help="PTX files (.ptx)")
    p.add_argument("-o", dest="output", metavar="OUT", help="output file (default: stdout for reports)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--parse-only", action="store_true", help="only check the syntax of the inputs")
    mode.add_argument("--coverage", action="store_true",
                      help="list the opcodes the inputs use with counts and CuMetal support status")
    p.add_argument("--emit", choices=("metallib", "msl", "ir"), default="metallib",
                   help="what to compile to: Apple AIR in a .metallib (default), Metal Shading Language, "
                        "or the kernel IR")
    p.add_argument("--air-versions", metavar="AIR,MSL,CONTAINER,MACOS", default=None,
                   help="versions written into a .metallib, e.g. 2.6,3.1,2.7,14.0 (the default, Apple's own "
                        "mlx-metal pairing) or 2.7,3.2,2.7,15.0")
    p.add_argument("--fp64", choices=("native", "emulate", "warn"), default="native",
                   help="double precision in MSL output: native double, float-float emulation, or warn")
    p.add_argument("--ptx-strict", action="store_true",
                   help="unrecognised PTX instructions are errors instead of warnings")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    return p


@dataclass
class Job:
    """What a mode handler gets: parsed inputs (diagnostics already printed) and options."""

    args: argparse.Namespace
    results: list[tuple[str, ParseResult]]
    out: TextIO
    err: TextIO


def _mode_parse_only(job: Job) -> int:
    return 0


def _mode_coverage(job: Job) -> int:
    from cumetal.passes.support import opcode_support  # the lowering layer owns the answer

    counts: Counter[str] = Counter()
    first: dict[str, A.Instruction | A.UnknownInstruction] = {}
    for _, res in job.results:
        for ins in iter_instructions(res.module):
            key = instruction_text(ins).split(" ", 1)[0] if isinstance(ins, A.Instruction) else ins.opcode
            counts[key] += 1
            first.setdefault(key, ins)
    rows = []
    by_status: Counter[str] = Counter()
    for key, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        ins = first[key]
        if isinstance(ins, A.UnknownInstruction):
            status, reason = "unknown", ins.reason
        else:
            status, reason = opcode_support(ins)
        by_status[status] += n
        rows.append((key, n, status, reason))
    w = max([len("opcode")] + [len(r[0]) for r in rows])
    lines = [f"{'opcode':<{w}}  {'count':>7}  {'status':<12} reason"]
    for key, n, status, reason in rows:
        lines.append(f"{key:<{w}}  {n:>7}  {status:<12} {reason}".rstrip())
    total = sum(counts.values())
    summary = ", ".join(f"{c} {s}" for s, c in sorted(by_status.items()))
    lines.append(f"{total} instructions, {len(counts)} distinct opcodes: {summary or 'none'}")
    blocking = by_status["unsupported"] + by_status["unknown"] + by_status["not yet"]
    lines.append("verdict: " + ("every instruction is supported" if total and not blocking else
                                f"{blocking} instruction(s) cannot run on CuMetal yet" if blocking else
                                "no instructions"))
    _write(job, "\n".join(lines) + "\n")
    return 0


def _mode_compile(job: Job) -> int:
    """Lower every input to the kernel IR, then emit what --emit asks for. A kernel that cannot be
    compiled is reported (FILE:LINE:COL) and left out; the others are still written."""
    from cumetal.passes import lower_parsed

    status = 0
    outputs: list[tuple[str, str | bytes]] = []
    for name, res in job.results:
        module = lower_parsed(res, Path(name).read_bytes(), name)
        for d in module.diagnostics:
            job.err.write(d.format() + "\n")
        if module.failed:
            status = 1
        if not module.kernels:
            job.err.write(f"{PROG}: error: {name}: no kernel could be compiled\n")
            status = 1
            continue
        data, failures = _emit_per_kernel(module, job.args)
        for message in failures:
            job.err.write(f"{PROG}: error: {name}: {message}\n")
            status = 1
        if data is not None:
            outputs.append((name, data))
    if not outputs:
        return 1
    if len(outputs) > 1 and job.args.output:
        job.err.write(f"{PROG}: error: -o with {len(outputs)} inputs: compile one input per output file\n")
        return 2
    for name, data in outputs:
        target = job.args.output or (None if isinstance(data, str) else str(Path(name).with_suffix(".metallib")))
        if target is None:
            job.out.write(data)
        elif isinstance(data, bytes):
            Path(target).write_bytes(data)
        else:
            Path(target).write_text(data)
    return status


class _EmitFailure(Exception):
    pass


def _emit_per_kernel(module, args) -> tuple[str | bytes | None, list[str]]:
    """Emit the module; when the back end refuses it, find the kernels it refuses (each alone),
    report them, and emit the others — a bad kernel never costs the rest of the file."""
    emit = _EMITTERS[args.emit]
    try:
        return emit(module, args), []
    except _EmitFailure as whole:
        failures, good = [], {}
        for kname, kernel in module.kernels.items():
            try:
                emit(dataclasses.replace(module, kernels={kname: kernel}), args)
                good[kname] = kernel
            except _EmitFailure as e:
                failures.append(str(e))
        if not good:
            return None, failures or [str(whole)]
        try:
            return emit(dataclasses.replace(module, kernels=good), args), failures
        except _EmitFailure as e:
            return None, [*failures, str(e)]


def _emit_ir(module, args) -> str:
    from cumetal.ir import dump_module

    return dump_module(module)


def _emit_msl(module, args) -> str:
    from cumetal.backends.msl import EmitError, emit_msl

    try:
        return emit_msl(module, fp64=args.fp64)
    except EmitError as e:
        raise _EmitFailure(f"MSL generation failed: {e}") from e


def _emit_metallib(module, args) -> bytes:
    from cumetal.backends.air.lower import AirLoweringError, compile_metallib

    try:
        return compile_metallib(module, _air_versions(args.air_versions))
    except AirLoweringError as e:
        raise _EmitFailure(f"AIR generation failed: {e}") from e


def _air_versions(spec: str | None):
    from cumetal.backends.air.metallib import AirVersions

    if spec is None:
        return AirVersions()
    try:
        air, msl, container, macos = (tuple(int(x) for x in part.split(".")) for part in spec.split(","))
        if not all(len(v) == 2 for v in (air, msl, container, macos)):
            raise ValueError
    except ValueError:
        raise _EmitFailure(f"--air-versions expects four MAJOR.MINOR versions separated by commas, got {spec!r}") \
            from None
    return AirVersions(air=air, msl=msl, container=container, macos=macos)


_EMITTERS = {"ir": _emit_ir, "msl": _emit_msl, "metallib": _emit_metallib}


# name -> (handler, selected?) ; later stages add e.g. "emit" for --emit=ir|msl|metallib
MODES: dict[str, Callable[[Job], int]] = {
    "parse-only": _mode_parse_only,
    "coverage": _mode_coverage,
    "compile": _mode_compile,
}


def _select_mode(args: argparse.Namespace) -> str:
    if args.parse_only:
        return "parse-only"
    if args.coverage:
        return "coverage"
    return "compile"


def iter_instructions(module: A.Module):
    """Every Instruction / UnknownInstruction of the module's function bodies, in order."""
    for fn in module.functions:
        if fn.body is None:
            continue
        stack = [iter(fn.body.statements)]
        while stack:
            for s in stack[-1]:
                if isinstance(s, A.Instruction | A.UnknownInstruction):
                    yield s
                elif isinstance(s, A.Block):
                    stack.append(iter(s.statements))
                    break
            else:
                stack.pop()


def _write(job: Job, text: str) -> None:
    if job.args.output:
        Path(job.args.output).write_text(text)
    else:
        job.out.write(text)


def main(argv: list[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    parser = build_arg_parser()
    try:
        args = parser.parse_args(argv)
    except _UsageError as e:
        err.write(f"{PROG}: error: {e} (see '{PROG} --help')\n")
        return 2
    except SystemExit as e:  # --help
        return int(e.code or 0)
    if args.version:
        out.write(f"{PROG} (CuMetal) {__version__}; PTX ISA up to 9.x, {len(TABLE)} instruction roots\n")
        return 0
    if not args.inputs:
        err.write(f"{PROG}: error: no input files (see '{PROG} --help')\n")
        return 2
    mode = _select_mode(args)
    results: list[tuple[str, ParseResult]] = []
    failed = False
    for name in args.inputs:
        if name.endswith((".cu", ".cuh")):
            err.write(f"{PROG}: error: {name}: CUDA C++ input is not supported yet (give PTX)\n")
            failed = True
            continue
        try:
            data = Path(name).read_bytes()
        except OSError as e:
            err.write(f"{PROG}: error: cannot read '{name}': {e.strerror or e}\n")
            failed = True
            continue
        res = parse(data, name, strict=args.ptx_strict)
        for d in res.diagnostics:
            err.write(d.format() + "\n")
        n_err = sum(1 for d in res.diagnostics if d.severity == "error")
        n_warn = sum(1 for d in res.diagnostics if d.severity == "warning")
        if n_err or n_warn:
            err.write(f"{name}: {n_err} error(s), {n_warn} warning(s)\n")
        failed |= n_err > 0
        results.append((name, res))
    if failed:
        return 1
    try:
        return MODES[mode](Job(args, results, out, err))
    except OSError as e:
        err.write(f"{PROG}: error: cannot write '{args.output}': {e.strerror or e}\n")
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

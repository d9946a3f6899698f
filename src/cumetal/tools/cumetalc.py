"""``cumetalc``: CuMetal's compiler driver; speaks nvcc for CUDA C++ and keeps its PTX modes.

    cumetalc foo.cu -ptx [-o foo.ptx]        CUDA C++ -> PTX (clang 22 from the ziglang wheel)
    cumetalc foo.cu --emit=ir|msl|metallib   CUDA C++ -> PTX -> CuMetal's pipeline
    cumetalc foo.cu [-o app]                 an executable (host compile + link: cumetal.capi.build)
    cumetalc --parse-only kernel.ptx …       syntax check (exit 0 clean, 1 errors, 2 usage)
    cumetalc --coverage kernel.ptx           which opcodes the file uses and whether CuMetal runs them
    cumetalc kernel.ptx -o kernel.metallib   compile to Apple AIR in a .metallib (the default for PTX)
    cumetalc kernel.ptx --emit=msl -o k.metal  Metal Shading Language
    cumetalc kernel.ptx --emit=ir            the kernel IR the CPU backend runs

The command line is parsed by ``cumetalc_args`` (nvcc's spellings); CUDA C++ is compiled by
``cumetal.cudacxx``; every input becomes PTX text and then goes through the PTX modes in ``MODES``.
Outputs are written to a temporary file and renamed into place, so a failed run leaves no
half-written file; ``-o -`` writes to stdout.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from cumetal import __version__
from cumetal.tools.cumetalc_args import Settings, UsageError, parse_args
from cumetal.tools.cumetalc_cuda import FROM_CU as _FROM_CU
from cumetal.tools.cumetalc_cuda import InputError as _InputError

if TYPE_CHECKING:  # the PTX reader is imported where it is used: `cumetalc x.cu -ptx` never needs it
    from cumetal.ptx import ast as A
    from cumetal.ptx.parser import ParseResult

PROG = "cumetalc"


@dataclass
class Job:
    """What a mode handler gets: parsed PTX inputs (diagnostics already printed) and options.
    ``results`` holds (name, parse result, PTX bytes); ``args`` is the parsed command line."""

    args: Settings
    results: list[tuple[str, ParseResult, bytes]]
    out: TextIO
    err: TextIO


HELP = f"""usage: {PROG} [options] INPUT...

CuMetal's compiler driver. Speaks nvcc for CUDA C++ (.cu, compiled by clang 22 to PTX) and
compiles PTX (.ptx) and NVVM IR (.ll/.bc) for Apple GPUs.

What to produce:
  -ptx                      CUDA C++ -> PTX (one .ptx per input, or -o FILE; '-o -' is stdout)
  --emit=metallib|msl|ir    compile to Apple AIR in a .metallib (default for .ptx), Metal Shading
                            Language, or CuMetal's kernel IR
  -c, -dc                   object files (host compile; -dc adds -rdc=true)
  (none, .cu input)         an executable, a.out unless -o (nvcc's default)
  -E                        preprocess the device side
  -M, -MM                   print the make dependencies; -MD/-MMD/-MF/-MT/-MP with a compile
  --parse-only, --coverage  PTX syntax check / opcode support table (.cu inputs go through PTX)
nvcc options understood:
  -I DIR  -D NAME[=V]  -U NAME  -include FILE  -std=c++NN  -x cu|c++|c|ptx
  -arch=sm_XX|compute_XX  --gpu-architecture  -gencode arch=compute_XX,code=sm_XX  (sm_50..sm_90a;
                            the highest one sets __CUDA_ARCH__ and the PTX target; default sm_80)
  -O0..3 (host code)  -g  -G (device debug, no optimisation)  -lineinfo
  --use_fast_math  -ftz=B  -prec-div=B  -prec-sqrt=B  -fmad=B  -rdc=B
  --expt-relaxed-constexpr  --extended-lambda  -Xcompiler A,B  -Xlinker A  -l LIB  -L DIR
  -w  -v  --version  --list-gpu-arch
CuMetal options:
  --print-include-dir   the directory of CuMetal's clean-room CUDA headers (cuda_runtime.h, cooperative_groups.h…)
  --print-cuda-path     a directory to use as CUDA_PATH / CUDA_HOME: its include/ is that directory (for
                        programs that pass -I$CUDA_PATH/include to NVRTC, e.g. cuda-samples' matrixMul_nvrtc)
  --air-versions AIR,MSL,CONTAINER,MACOS   versions written into a .metallib (default 2.6,3.1,2.7,14.0)
  --fp64 emulate|native|warn               f64 in MSL/.metallib output (default emulate: float-float)
  --ptx-strict                             unknown PTX instructions are errors
nvcc options that do not apply to CuMetal (-Xptxas, -maxrregcount, -keep, …) are accepted with a
warning; unknown options are errors. Exit status: 0 success, 1 errors in the input, 2 usage errors.
"""


def _mode_parse_only(job: Job) -> int:
    return 0


def _mode_coverage(job: Job) -> int:
    from cumetal.passes.support import opcode_support  # the lowering layer owns the answer
    from cumetal.ptx import ast as A
    from cumetal.ptx.printer import instruction_text

    # (opcode, status, reason) -> count: the table says whether an opcode has semantics; lowering the
    # file says whether each instruction's form runs (an instruction it refuses is a row of its own)
    counts: Counter[tuple[str, str, str]] = Counter()
    static: dict[str, tuple[str, str]] = {}
    opcodes: set[str] = set()
    for name, res, data in job.results:
        refused = _refused_by_lowering(name, res, data)
        for ins in iter_instructions(res.module):
            if isinstance(ins, A.UnknownInstruction):
                key, status, reason = ins.opcode, "unknown", ins.reason
            else:
                key = instruction_text(ins).split(" ", 1)[0]
                if key not in static:
                    static[key] = opcode_support(ins)
                status, reason = static[key]
                why = refused.get((ins.loc.line, ins.loc.col)) if ins.loc is not None else None
                if status == "supported" and why is not None:  # a form the lowering refuses (brx.idx, …)
                    status, reason = "unsupported", why
            counts[(key, status, reason)] += 1
            opcodes.add(key)
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    by_status: Counter[str] = Counter()
    for (_, status, _), n in rows:
        by_status[status] += n
    w = max([len("opcode")] + [len(r[0][0]) for r in rows])
    lines = [f"{'opcode':<{w}}  {'count':>7}  {'status':<12} reason"]
    for (key, status, reason), n in rows:
        lines.append(f"{key:<{w}}  {n:>7}  {status:<12} {reason}".rstrip())
    total = sum(counts.values())
    summary = ", ".join(f"{c} {s}" for s, c in sorted(by_status.items()))
    lines.append(f"{total} instructions, {len(opcodes)} distinct opcodes: {summary or 'none'}")
    blocking = by_status["unsupported"] + by_status["unknown"] + by_status["not yet"]
    lines.append("verdict: " + ("every instruction is supported" if total and not blocking else
                                f"{blocking} instruction(s) cannot run on CuMetal yet" if blocking else
                                "no instructions"))
    _write(job, "\n".join(lines) + "\n")
    return 0


_CANNOT = re.compile(r"^(?:kernel|function) '[^']*' cannot be compiled: ")


def _refused_by_lowering(name: str, res, data: bytes) -> dict[tuple[int, int], str]:
    """(line, column) -> reason of each instruction at which lowering the file stops a kernel or
    function (nothing when the file has syntax errors: it does not lower at all)."""
    from cumetal.passes import lower_parsed

    if any(d.severity == "error" for d in res.diagnostics):
        return {}
    out: dict[tuple[int, int], str] = {}
    for diags in lower_parsed(res, data, name).failed.values():
        for d in diags:
            if d.severity == "error" and d.loc.file == name:
                out.setdefault((d.loc.line, d.loc.col), _CANNOT.sub("", d.message))
    return out


def _mode_compile(job: Job) -> int:
    """Lower every input to the kernel IR, then emit what --emit asks for. A kernel that cannot be
    compiled is reported (FILE:LINE:COL) and left out; the others are still written."""
    from cumetal.passes import lower_parsed

    status = 0
    outputs: list[tuple[str, str | bytes]] = []
    for name, res, data in job.results:
        module = lower_parsed(res, data, name)
        for d in module.diagnostics:
            if d.loc.line <= 0 and d.loc.file == "<none>":  # a module-wide problem: name the file
                d = dataclasses.replace(d, loc=dataclasses.replace(d.loc, file=name))
            job.err.write(d.format() + "\n")
        in_kernels = {id(d) for ds in module.failed.values() for d in ds}
        if any(d.severity == "error" and id(d) not in in_kernels for d in module.diagnostics):
            status = 1  # a module-wide error (e.g. more than 64 KiB of .const): nothing is written
            continue
        if module.failed:
            status = 1
            if name.endswith(_FROM_CU):  # the user has the .cu, not the PTX those positions refer to
                source = name.removesuffix(_FROM_CU).split(" + ")[0]
                job.err.write(f"{PROG}: note: the positions above are in the PTX that clang made from "
                              f"{source} ('{PROG} {source} -ptx -o -' shows it)\n")
        if not module.kernels:
            job.err.write(f"{PROG}: error: {name}: no kernel could be compiled\n")
            status = 1
            continue
        data_out, failures = _emit_per_kernel(module, job.args)
        for message in failures:
            job.err.write(f"{PROG}: error: {name}: {message}\n")
            status = 1
        if data_out is not None:
            outputs.append((name, data_out))
    if not outputs:
        return 1
    if len(outputs) > 1 and job.args.output:
        job.err.write(f"{PROG}: error: -o with {len(outputs)} inputs: compile one input per output file\n")
        return 2
    for name, data_out in outputs:
        source = name.removesuffix(_FROM_CU).split(" + ")[0]  # -rdc: named after the first input
        target = job.args.output or (None if isinstance(data_out, str)
                                     else str(Path(source).with_suffix(".metallib")))
        publish(target, data_out, job.out)
    return status


class _EmitFailure(Exception):
    pass


def _emit_per_kernel(module, args) -> tuple[str | bytes | None, list[str]]:
    """Emit the module; when the back end refuses it, find the kernels it refuses (each alone),
    report them, and emit the others — a bad kernel never costs the rest of the file."""
    emit = _EMITTERS[args.emit or "metallib"]
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
    from cumetal.backends.apple.heap import link_module
    from cumetal.backends.msl import EmitError, emit_msl

    try:  # device-side malloc/free: the allocator as device code (backends/apple/heap.ptx)
        return emit_msl(link_module(module), fp64=args.fp64)
    except EmitError as e:
        raise _EmitFailure(f"MSL generation failed: {e}") from e


def _emit_metallib(module, args) -> bytes:
    from cumetal.backends.air.lower import AirLoweringError, compile_metallib

    try:
        return compile_metallib(module, _air_versions(args.air_versions), fp64=args.fp64)
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


# name -> handler of PTX inputs
MODES: dict[str, Callable[[Job], int]] = {
    "parse-only": _mode_parse_only,
    "coverage": _mode_coverage,
    "compile": _mode_compile,
}


def _select_mode(args: Settings) -> str:
    if args.parse_only:
        return "parse-only"
    if args.coverage:
        return "coverage"
    return "compile"


def iter_instructions(module: A.Module):
    """Every Instruction / UnknownInstruction of the module's function bodies, in order."""
    from cumetal.ptx import ast as A

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


def publish(target: str | None, data: str | bytes, out: TextIO) -> None:
    """Write ``data`` to ``target`` atomically (temp file in the same directory, then rename), or to
    ``out`` when ``target`` is None or '-'. A target that exists and is not a regular file (a
    device such as /dev/null, a FIFO) is written into directly."""
    if target is None or target == "-":
        if isinstance(data, bytes):
            buf = getattr(out, "buffer", None)
            if buf is None:
                raise OSError("binary output cannot go to this stream")
            out.flush()
            buf.write(data)
            buf.flush()
        else:
            out.write(data)
        return
    dest = Path(target)
    if dest.exists() and not dest.is_file():  # /dev/null, a FIFO, /dev/stdout: write into it, never replace it
        with open(dest, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent if str(dest.parent) else ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _write(job: Job, text: str) -> None:
    publish(job.args.output, text, job.out)


def _binary_input_problem(data: bytes) -> str | None:
    """Why ``data`` cannot be PTX text (ELF/cubin, fatbin, metallib, other binary), else None."""
    head = data[:4096]
    if head.startswith(b"\x7fELF"):
        return "an ELF file (NVIDIA cubin or object?), not PTX text"
    if head.startswith(b"\x50\xed\x55\xba") or head.startswith(b"\xb1\x43\x62\x46"):
        return "an NVIDIA fatbin, not PTX text"
    if head.startswith(b"MTLB"):
        return "a .metallib, not PTX text"
    if b"\0" in head:
        return "binary data, not PTX text"
    return None


def main(argv: list[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        s = parse_args(list(sys.argv[1:] if argv is None else argv))
        if s.parse_only and s.coverage:
            raise UsageError("--parse-only and --coverage cannot be combined")
    except UsageError as e:
        err.write(f"{PROG}: error: {e} (see '{PROG} --help')\n")
        return 2
    for w in s.warnings:
        err.write(f"{PROG}: warning: {w}\n")
    if s.help:
        out.write(HELP)
        return 0
    if s.version:
        return _version(out)
    if s.print_dir:  # where CuMetal's CUDA headers are, for build systems and NVRTC users
        from cumetal.cudacxx import include_dir

        inc = include_dir()
        out.write(f"{inc if s.print_dir == 'print-include-dir' else inc.parent}\n")
        return 0
    if s.list_arch:  # nvcc --list-gpu-arch: the architectures -arch accepts
        from cumetal.cudacxx.options import supported_archs

        out.write("".join(a.replace("sm_", "compute_") + "\n" for a in supported_archs()))
        return 0
    if not s.inputs:
        err.write(f"{PROG}: error: no input files (see '{PROG} --help')\n")
        return 2
    try:
        return _run(s, out, err)
    except _InputError as e:
        err.write(f"{e}\n")
        return 1
    except UsageError as e:
        err.write(f"{PROG}: error: {e}\n")
        return 2
    except OSError as e:
        err.write(f"{PROG}: error: cannot write '{s.output}': {e.strerror or e}\n")
        return 1
    except KeyboardInterrupt:
        err.write(f"{PROG}: interrupted\n")
        return 130
    except Exception as e:  # never a Python traceback for the user (the driver answers CUDA_ERROR_UNKNOWN)
        from cumetal.diagnostics import Diagnostic
        from cumetal.passes.context import LoweringError

        if isinstance(e, LoweringError) and e.loc is not None:  # a module-level declaration lowering refused
            err.write(Diagnostic("error", str(e), e.loc).format() + "\n")
            return 1
        if os.environ.get("CUMETAL_DEBUG"):
            raise
        err.write(f"{PROG}: internal error: {type(e).__name__}: {e} (please report it; CUMETAL_DEBUG=1 shows the "
                  "traceback)\n")
        return 1


def _version(out: TextIO) -> int:
    from cumetal.ptx.table import TABLE

    out.write(f"{PROG} (CuMetal) {__version__}; PTX ISA up to 9.x, {len(TABLE)} instruction roots\n")
    try:
        from cumetal.cudacxx.toolchain import find_clang

        out.write(f"CUDA C++: {find_clang().version} (ziglang); nvcc-compatible options, CUDA 12/13 dialect\n")
    except Exception as e:  # noqa: BLE001 - the version line must not fail on a missing clang
        out.write(f"CUDA C++: unavailable ({e})\n")
    return 0


def _run(s: Settings, out: TextIO, err: TextIO) -> int:
    from cumetal.tools import cumetalc_cuda as cu

    langs = {lang for _, lang in s.inputs}
    device_output = s.ptx or s.emit or s.parse_only or s.coverage or s.preprocess or s.deps_only
    if s.compile_only or "host" in langs or ("cu" in langs and not device_output):
        return cu.build(s, out, err)
    if s.preprocess or s.deps_only:
        return cu.preprocess_or_deps(s, out, err)
    if s.ptx:
        return cu.write_ptx(s, out, err)
    # every input as PTX text, then a PTX mode
    from cumetal.ptx import parse

    ptx_inputs, failed = cu.inputs_as_ptx(s, err)
    results: list[tuple[str, ParseResult, bytes]] = []
    for name, data in ptx_inputs:
        problem = _binary_input_problem(data)
        if problem:
            err.write(f"{PROG}: error: {name}: {problem}\n")
            failed = True
            continue
        if s.emit and b"__cudaCDP2" in data:  # nvcc -rdc PTX calling the device runtime: CuMetal's bodies
            from cumetal.cudacxx.devrt_link import link_device_runtime

            data = link_device_runtime(data.decode("utf-8", "replace")).encode()
        res = parse(data, name, strict=s.ptx_strict)
        for d in res.diagnostics:
            err.write(d.format() + "\n")
        n_err = sum(1 for d in res.diagnostics if d.severity == "error")
        n_warn = sum(1 for d in res.diagnostics if d.severity == "warning")
        if n_err or n_warn:
            err.write(f"{name}: {n_err} error(s), {n_warn} warning(s)\n")
        failed |= n_err > 0
        results.append((name, res, data))
    if failed:
        return 1
    return MODES[_select_mode(s)](Job(s, results, out, err))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

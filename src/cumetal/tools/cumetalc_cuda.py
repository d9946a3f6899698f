"""cumetalc's CUDA C++ / NVVM IR side: turning ``.cu``/``.ll``/``.bc`` inputs into PTX (per file, or
linked with ``-rdc=true``), ``-ptx``/``-E``/``-M`` outputs, make dependency files, and handing
executable / object builds to ``cumetal.capi.build``."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TextIO

from cumetal.cudacxx import include_dir
from cumetal.cudacxx.compile import (
    CompileResult,
    CudaCompileError,
    compile_to_bitcode,
    compile_to_ptx,
    preprocess,
)
from cumetal.cudacxx.options import CudaOptions
from cumetal.tools.cumetalc_args import Settings, UsageError

PROG = "cumetalc"
FROM_CU = " (PTX from clang)"  # suffix of the diagnostic name of PTX made from a .cu input


class InputError(Exception):
    """An input that cannot be compiled; the message is printed as it is (exit status 1)."""


def read_source(name: str) -> str:
    try:
        if name == "-":  # -x cu - : the source on stdin, as nvcc accepts
            import sys

            return sys.stdin.buffer.read().decode("utf-8", errors="replace")
        return Path(name).read_bytes().decode("utf-8", errors="replace")
    except OSError as e:
        raise InputError(f"{PROG}: error: cannot read '{name}': {e.strerror or e}") from None


def _compile_cu(name: str, options: CudaOptions, err: TextIO, *, bitcode: bool = False,
                verbose: bool = False) -> CompileResult:
    src = read_source(name)
    if verbose:  # nvcc -v style: the command each step runs
        import shlex

        from cumetal.cudacxx.compile import describe_command

        err.write(f"#$ {shlex.join(describe_command(options, name, bitcode=bitcode))}\n")
    try:
        res = (compile_to_bitcode if bitcode else compile_to_ptx)(src, name, options)
    except CudaCompileError as e:
        raise InputError(e.log.rstrip() if e.log.strip() else f"{PROG}: error: {e}") from None
    if res.log:
        err.write(res.log if res.log.endswith("\n") else res.log + "\n")
    return res


def nvvm_options(options: CudaOptions) -> list[str]:
    """The libNVVM option strings that mean what these nvcc options mean."""
    o = options
    arch = o.arch.removeprefix("sm_")
    args = [f"-arch=compute_{arch}", f"-opt={0 if o.debug else 3}", f"-ftz={int(o.effective_ftz)}",
            f"-prec-div={int(o.effective_prec_div)}", f"-prec-sqrt={int(o.effective_prec_sqrt)}",
            f"-fma={int(o.effective_fmad)}"]
    if o.debug:
        args.append("-g")
    elif o.lineinfo:
        args.append("-generate-line-info")
    return args


def _nvvm_to_ptx(name: str, options: CudaOptions) -> str:
    """NVVM IR text or bitcode (``.ll``/``.bc``) -> PTX by CuMetal's NVVM front end (``cumetal.nvvmir``)."""
    data = _read(name)
    try:
        from cumetal.nvvmir import NvvmError, compile_nvvm_to_ptx
    except ImportError:
        raise InputError(f"{PROG}: error: {name}: NVVM IR input (.ll/.bc) is not available in this "
                         "CuMetal build") from None
    try:
        return compile_nvvm_to_ptx([data], nvvm_options(options), names=[name])
    except NvvmError as e:
        log = (getattr(e, "log", "") or "").rstrip()
        raise InputError(log or f"{PROG}: error: {name}: {e}") from None
    except Exception as e:  # noqa: BLE001 - the NVVM front end's own error: a diagnostic, not a traceback
        raise InputError(f"{PROG}: error: {name}: {e}") from None


def write_deps(s: Settings, source: str, output: str | None, deps: list[str], dest: TextIO | None = None) -> None:
    """A make rule ``target: source headers…`` (-M/-MD; -MM/-MMD leave out system headers, here
    CuMetal's own CUDA headers and clang's resource headers)."""
    from cumetal.tools.cumetalc import publish

    if s.dep_nonsystem:
        deps = [d for d in deps if not _is_system(d)]
    target = s.dep_target or output or (Path(source).stem + (".ptx" if s.ptx else ".o"))
    items = [source, *deps]
    lines = f"{_esc(target)}: " + " \\\n  ".join(_esc(d) for d in items) + "\n"
    if s.dep_phony:
        lines += "".join(f"\n{_esc(d)}:\n" for d in deps)
    if dest is not None:
        dest.write(lines)
        return
    name = s.dep_file_name or str(Path(output or Path(source).name).with_suffix(".d"))
    publish(name, lines, None)  # type: ignore[arg-type]


def _esc(path: str) -> str:
    return path.replace(" ", "\\ ")


def _is_system(path: str) -> bool:
    p = Path(path)
    roots = [include_dir()]
    try:
        from cumetal.cudacxx.toolchain import find_clang

        rd = find_clang().resource_dir
        if rd is not None:
            roots.append(rd)
    except Exception:  # noqa: BLE001
        pass
    return any(p.is_relative_to(r) for r in roots)


def _cu_inputs(s: Settings) -> list[str]:
    return [name for name, lang in s.inputs if lang == "cu"]


def _linked_ptx(s: Settings, names: list[str], err: TextIO) -> str:
    from cumetal.cudacxx.link import LinkError, link_bitcode_to_ptx

    modules = []
    for name in names:
        res = _compile_cu(name, s.options, err, bitcode=True, verbose=s.verbose)
        if s.dep_file:
            write_deps(s, name, None, res.dependencies)
        modules.append((name, res.bitcode))
    try:
        return link_bitcode_to_ptx(modules, s.options)
    except LinkError as e:
        raise InputError(f"{PROG}: error: {e}") from None


def inputs_as_ptx(s: Settings, err: TextIO) -> tuple[list[tuple[str, bytes]], bool]:
    """Every input as (diagnostic name, PTX bytes); errors are printed and reported as ``failed``."""
    out: list[tuple[str, bytes]] = []
    failed = False
    cu = _cu_inputs(s)
    if s.options.rdc and len(cu) > 1:
        try:
            out.append((" + ".join(cu) + FROM_CU, _linked_ptx(s, cu, err).encode()))
        except InputError as e:
            err.write(f"{e}\n")
            failed = True
    for name, lang in s.inputs:
        try:
            if lang == "ptx":
                out.append((name, _read(name)))
            elif lang == "cu" and not (s.options.rdc and len(cu) > 1):
                res = _compile_cu(name, s.options, err, verbose=s.verbose)
                if s.dep_file:
                    write_deps(s, name, s.output, res.dependencies)
                out.append((name + FROM_CU, res.ptx.encode()))
            elif lang == "ll":
                out.append((name + " (PTX from NVVM IR)", _nvvm_to_ptx(name, s.options).encode()))
        except InputError as e:
            err.write(f"{e}\n")
            failed = True
    return out, failed


def _read(name: str) -> bytes:
    import sys

    try:
        return sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
    except OSError as e:
        raise InputError(f"{PROG}: error: cannot read '{name}': {e.strerror or e}") from None


def write_ptx(s: Settings, out: TextIO, err: TextIO) -> int:
    """``-ptx``: one PTX file per CUDA C++ / NVVM IR input (``<stem>.ptx`` in the current directory,
    as nvcc does), or one linked PTX with ``-rdc=true`` and several ``.cu`` inputs."""
    from cumetal.tools.cumetalc import publish

    for name, lang in s.inputs:
        if lang in ("ptx", "host"):
            raise UsageError(f"-ptx: '{name}' is not CUDA C++ or NVVM IR")
    cu = _cu_inputs(s)
    linked = s.options.rdc and len(cu) > 1
    n_outputs = len(s.inputs) - (len(cu) - 1 if linked else 0)
    if s.output and n_outputs > 1:
        raise UsageError(f"-o with {n_outputs} inputs: compile one input per output file (or use -rdc=true)")
    status = 0
    if linked:
        try:
            publish(s.output or Path(cu[0]).stem + ".ptx", _linked_ptx(s, cu, err), out)
        except InputError as e:
            err.write(f"{e}\n")
            status = 1
    for name, lang in s.inputs:
        if lang == "cu" and linked:
            continue
        target = s.output or Path(name).stem + ".ptx"
        try:
            if lang == "cu":
                res = _compile_cu(name, s.options, err, verbose=s.verbose)
                ptx = res.ptx
                if s.dep_file:
                    write_deps(s, name, target if target != "-" else None, res.dependencies)
            else:
                ptx = _nvvm_to_ptx(name, s.options)
            publish(target, ptx, out)
        except InputError as e:
            err.write(f"{e}\n")
            status = 1
    return status


def preprocess_or_deps(s: Settings, out: TextIO, err: TextIO) -> int:
    """``-E`` (device-side preprocessed source) or ``-M``/``-MM`` (make rule of the headers)."""
    from cumetal.tools.cumetalc import publish

    cu = _cu_inputs(s)
    if len(cu) != len(s.inputs):
        raise UsageError("-E and -M apply to CUDA C++ inputs only")
    if s.output and s.output != "-" and len(cu) > 1:
        raise UsageError(f"-o with {len(cu)} inputs: one input per output file")
    status = 0
    for name in cu:
        try:
            if s.preprocess:
                try:
                    res = preprocess(read_source(name), name, s.options)
                except CudaCompileError as e:
                    raise InputError(e.log.rstrip() if e.log.strip() else f"{PROG}: error: {e}") from None
                publish(s.output, res.ptx, out)
            else:
                res = _compile_cu(name, s.options, err, verbose=s.verbose)
                dest = s.dep_file_name or s.output
                if dest and dest != "-":
                    s2 = Settings(**{**s.__dict__, "dep_file_name": dest})
                    write_deps(s2, name, None, res.dependencies)
                else:
                    write_deps(s, name, None, res.dependencies, dest=out)
        except InputError as e:
            err.write(f"{e}\n")
            status = 1
    return status


def build(s: Settings, out: TextIO, err: TextIO) -> int:
    """Executables and ``-c`` objects: host compile + link by ``cumetal.capi.build.build_program``."""
    try:
        from cumetal.capi.build import build_program
    except ImportError:
        err.write(f"{PROG}: error: building executables and objects is not available yet in this CuMetal "
                  "build; use -ptx or --emit=metallib|msl|ir for device code\n")
        return 1
    what = "object files" if s.compile_only else "an executable"
    # Executables keep .loc line tables in their PTX (clang -gline-tables-only: same code), so a
    # kernel CuMetal cannot run is reported at its CUDA source line when it is loaded.
    options = s.options if s.options.debug else dataclasses.replace(s.options, lineinfo=True)
    try:
        result = build_program(
            options=options, inputs=[(name, lang) for name, lang in s.inputs],
            output=s.output, compile_only=s.compile_only, libraries=s.libraries,
            library_dirs=s.library_dirs, linker_args=s.linker_args, verbose=s.verbose)
    except TypeError as e:
        err.write(f"{PROG}: error: cannot build {what}: cumetal.capi.build.build_program does not take "
                  f"cumetalc's arguments ({e})\n")
        return 1
    except Exception as e:  # noqa: BLE001 - the builder's own error: print it, never a traceback
        log = getattr(e, "log", "")
        err.write((log.rstrip() + "\n" if log else "") + f"{PROG}: error: building {what} failed: {e}\n")
        return 1
    return int(result or 0) if isinstance(result, int) else 0

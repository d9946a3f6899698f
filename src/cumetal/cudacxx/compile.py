"""CUDA C++ → PTX (or NVPTX LLVM bitcode) with the pinned clang; the one path of the front end.

``compile_to_ptx(source, filename, options)`` writes the source to a private temporary directory
(prefixed with ``#line 1 "<filename>"`` so diagnostics, ``__FILE__`` and ``assert`` name the user's
file), runs clang once in device-only mode, and returns the PTX with clang's warnings and the list of
headers the source included (from clang's ``-MD`` output). Results are kept in the compile cache
(``cumetal.cudacxx.cache``), so a repeated compile does not start clang.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from cumetal.cudacxx import cache as _cache
from cumetal.cudacxx import fallback_include_dir, include_dir, launch_chevrons, missing_headers, shared_init
from cumetal.cudacxx.cluster_dims import MARKER as CLUSTER_MARKER
from cumetal.cudacxx.cluster_dims import add_cluster_directives, cluster_dims_from_ir, uses_cluster_dims
from cumetal.cudacxx.include_order import ours_before_toolkit_dirs
from cumetal.cudacxx.inline_asm import escape_special_registers
from cumetal.cudacxx.options import CudaOptions, OptionError
from cumetal.cudacxx.toolchain import ToolchainError, bundled_stdlib_args, find_clang

# Always passed: CUDA mode without clang's CUDA headers/libdevice (CuMetal ships its own), the
# modern launch ABI, device code only.
BASE_FLAGS = ("-x", "cuda", "-nocudainc", "-nocudalib", "-Xclang", "-target-sdk-version=12.0",
              "--cuda-device-only", "-Wno-unknown-cuda-version", "-fno-color-diagnostics",
              # dense switches become brx.idx jump tables, which the PTX front end does not run
              "-fno-jump-tables",
              # `#pragma unroll` the optimiser cannot honour is silent, as with nvcc (CUB has many)
              "-Wno-pass-failed",
              # CUDA code type-puns freely (CUB's shuffles write a T through unsigned int words, then
              # read its members) and nvcc's optimiser does not break that: with type-based alias
              # analysis clang forwarded a tuple member's default value past those stores
              "-fno-strict-aliasing")


class CudaCompileError(Exception):
    """The CUDA C++ source did not compile. ``log`` holds clang's ``file:line:col`` diagnostics."""

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message)
        self.log = log

    def __str__(self) -> str:
        return f"{self.args[0]}\n{self.log}".rstrip() if self.log else self.args[0]


@dataclass
class CompileResult:
    """PTX text (``ptx``) or bitcode (``bitcode``), clang's warnings, the headers read."""

    ptx: str = ""
    log: str = ""
    dependencies: list[str] = field(default_factory=list)
    bitcode: bytes = b""
    cached: bool = False
    # the source as compiled when the front end rewrote it (shared_init.py, launch_chevrons.py), for the
    # host pass; else ""
    source: str = ""


def libdevice_sources() -> list[Path]:
    """The math library's sources (part of the cache key), or [] where it is not installed."""
    try:
        from cumetal.libdevice.build import source_files
    except ImportError:
        return []
    return source_files()


def _libdevice_args() -> tuple[list[str], str]:
    """``-mlink-builtin-bitcode`` for CuMetal's ``__nv_*`` bitcode, and a note for the log when it
    cannot be had (kernels that call no math function still compile)."""
    try:
        from cumetal.libdevice import bitcode_path
    except ImportError:
        return [], ""
    try:
        bc = _without_ftz_flag(bitcode_path())
    except Exception as e:  # noqa: BLE001 - the math library's own error; report, don't crash
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return [], f"warning: CuMetal's device math library is unavailable ({first}); math calls stay unresolved\n"
    return ["-Xclang", "-mlink-builtin-bitcode", "-Xclang", str(bc)], ""


_FTZ_FLAG = re.compile(r'^(![0-9]+) = !\{i32 \d+, !"nvvm-reflect-ftz", i32 \d+\}$', re.M)


@functools.cache
def _without_ftz_flag(bc: Path) -> Path:
    """The math library as linkable into any kernel: clang marks every CUDA module with an
    'nvvm-reflect-ftz' flag of the Override kind, so bitcode built without -ftz cannot be linked into
    a -ftz=true kernel ("conflicting override values"). Without the flag, the library's
    ``__nvvm_reflect("__CUDA_FTZ")`` takes the kernel's setting, as NVIDIA's libdevice does. The
    stripped copy is made once per library build, next to it (same cache directory, same key)."""
    out = bc.with_name(bc.stem + ".any-ftz.bc")
    if out.is_file() and out.stat().st_mtime_ns >= bc.stat().st_mtime_ns:
        return out
    import llvmlite.binding as llvm

    text = str(llvm.parse_bitcode(bc.read_bytes()))
    m = _FTZ_FLAG.search(text)
    if m is None:
        return bc
    node = m.group(1)
    text = re.sub(r"^(!llvm\.module\.flags = !\{)(.*)\}$",
                  lambda f: f.group(1) + ", ".join(x for x in f.group(2).split(", ") if x != node) + "}",
                  text, count=1, flags=re.M)
    _cache.publish_bytes(out, llvm.parse_assembly(text).as_bitcode())
    return out


def _write_headers(root: Path, headers: dict[str, str]) -> None:
    for name, text in headers.items():
        rel = Path(name)
        if rel.is_absolute() or ".." in rel.parts:
            raise CudaCompileError(f"header name '{name}' must be a relative path inside the include tree")
        dest = root / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text)


_DEP_SPLIT = re.compile(r"(?<!\\)\s+")


def parse_depfile(text: str) -> list[str]:
    """The prerequisites of a make-style ``-MD`` file (backslash continuations, escaped spaces)."""
    _, _, deps = text.replace("\\\n", " ").partition(": ")
    return [d.replace("\\ ", " ") for d in _DEP_SPLIT.split(deps.strip()) if d]


def clang_command(options: CudaOptions, src: Path, output: Path, *, bitcode: bool | str,
                  header_root: Path | None, depfile: Path | None,
                  libdevice: list[str] | None = None) -> list[str]:
    """The full clang command line for one device compile (also printed by ``cumetalc -v``)."""
    try:
        opts = options.clang_args()
    except OptionError as e:
        raise CudaCompileError(str(e)) from None
    args = [*BASE_FLAGS, *ours_before_toolkit_dirs(opts)]
    if options.stdlib == "bundled":
        args += bundled_stdlib_args(find_clang())
    if header_root is not None:
        args += ["-I", str(header_root)]
    args += ["-I", str(include_dir()), "-idirafter", str(fallback_include_dir())]
    if options.force_cuda_runtime and (include_dir() / "cuda_runtime.h").is_file():
        args += ["-include", str(include_dir() / "cuda_runtime.h")]  # never a -I directory's copy
    for inc in options.pre_includes:
        args += ["-include", inc]
    args += _libdevice_args()[0] if libdevice is None else libdevice
    args += {"E": ["-E"], True: ["-emit-llvm", "-c"], False: ["-S"], "ll": ["-S", "-emit-llvm"]}[bitcode]
    if depfile is not None:
        args += ["-MD", "-MF", str(depfile)]
    args += ["-o", str(output), str(src)]
    return find_clang().command(args)


def _run_clang(source: str, filename: str, options: CudaOptions, headers: dict[str, str] | None,
               bitcode: bool | str) -> CompileResult:
    normalized = launch_chevrons.normalize(source)  # `k << < g, b >> > ()`, which nvcc accepts
    result = _run_clang_rewriting(normalized, filename, options, headers, bitcode)
    if normalized != source and not result.source:
        result.source = normalized  # the host pass compiles the same text
    return result


def _run_clang_rewriting(source: str, filename: str, options: CudaOptions, headers: dict[str, str] | None,
                         bitcode: bool | str) -> CompileResult:
    try:
        return _run_clang_once(source, filename, options, headers, bitcode)
    except CudaCompileError as e:
        if shared_init.ERROR not in e.log:
            raise
        positions = shared_init.error_positions(e.log, filename)
        new, warning = shared_init.rewrite(source, positions, filename)
        if new == source:
            raise
    result = _run_clang_once(new, filename, options, headers, bitcode)
    result.log = warning + result.log
    result.source = new
    return result


def _run_clang_once(source: str, filename: str, options: CudaOptions, headers: dict[str, str] | None,
                    bitcode: bool | str) -> CompileResult:
    with tempfile.TemporaryDirectory(prefix="cumetal-cu-") as tmp:
        t = Path(tmp)
        header_root = None
        if headers:
            header_root = t / "headers"
            header_root.mkdir()
            _write_headers(header_root, headers)
        src = t / ("input" + (Path(filename).suffix if Path(filename).suffix in (".cu", ".cuh") else ".cu"))
        quoted = filename.replace("\\", "\\\\").replace('"', '\\"')
        src.write_text(f'#line 1 "{quoted}"\n{escape_special_registers(source)}')
        out = t / {True: "out.bc", False: "out.ptx", "E": "out.ii"}[bitcode]
        dep = t / "out.d"
        # quoted #includes resolve next to the user's file, as they would without the temp copy
        opts = _with_quote_dir(options, Path(filename).parent)
        link, note = _libdevice_args()
        try:
            cmd = clang_command(opts, src, out, bitcode=bitcode, header_root=header_root, depfile=dep,
                                libdevice=link)
        except ToolchainError as e:
            raise CudaCompileError(str(e)) from None
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", check=False)
        except OSError as e:
            raise CudaCompileError(f"cannot run clang: {e}") from None
        log = note + _clean_log(proc.stderr, src, filename)
        if proc.returncode != 0 or not out.is_file():
            m = re.search(r"(\d+) errors? generated", log)
            raise CudaCompileError(f"{filename}: compilation failed ({m.group(1) if m else 1} error(s))",
                                   log + missing_headers.note_for(log))
        deps = []
        if dep.is_file():
            # the temp copy and in-memory headers (part of the cache key); /tmp may be a symlink
            skip = (str(t) + os.sep, os.path.realpath(t) + os.sep)
            for d in parse_depfile(dep.read_text(errors="replace")):
                d = os.path.abspath(d)
                if not d.startswith(skip):
                    deps.append(d)
        if bitcode == "E":
            return CompileResult(ptx=_clean_log(out.read_text(errors="replace"), src, filename), log=log,
                                 dependencies=deps)
        if bitcode:
            return CompileResult(log=log, dependencies=deps, bitcode=out.read_bytes())
        ptx = out.read_text()
        if _uses_cluster_dims(source, deps) and _expands_cluster_dims(opts, src, t, header_root, link):
            ptx, warning = _add_cluster_dims(ptx, opts, src, t, header_root, link)
            log += warning
        return CompileResult(ptx=ptx, log=log, dependencies=deps)


def _uses_cluster_dims(source: str, deps: list[str]) -> bool:
    """Whether the source or one of its own (not CuMetal's) headers writes __cluster_dims__."""
    if uses_cluster_dims(source):
        return True
    ours = str(include_dir()) + os.sep
    for d in deps:
        if not d.startswith(ours):
            try:
                if uses_cluster_dims(Path(d).read_text(errors="replace")):
                    return True
            except OSError:
                continue
    return False


def _expands_cluster_dims(opts: CudaOptions, src: Path, tmp: Path, header_root: Path | None,
                          link: list[str]) -> bool:
    """Whether CuMetal's ``__cluster_dims__`` macro is expanded anywhere in the device compile (its
    ``annotate`` marker is in the preprocessed source). The text test above also fires on headers
    that only mention the name: CCCL 3's ``cuda/std/__cccl/cuda_capabilities.h`` defines a macro
    using it for nvcc alone, so every Thrust/CUB program paid a second full compile to LLVM IR
    (~11 s of a CUB program's 26); the preprocessor costs under a second."""
    ii = tmp / "out.ii"
    cmd = clang_command(opts, src, ii, bitcode="E", header_root=header_root, depfile=None, libdevice=link)
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", check=False)
    if proc.returncode != 0 or not ii.is_file():
        return True  # undecided: take the IR compile, which reports its own trouble
    return f'"{CLUSTER_MARKER}"' in ii.read_text(errors="replace")


def _add_cluster_dims(ptx: str, opts: CudaOptions, src: Path, tmp: Path, header_root: Path | None,
                      link: list[str]) -> tuple[str, str]:
    """The PTX with each ``__cluster_dims__`` kernel's cluster directives (read from the same
    compile's LLVM IR: see cluster_dims.py), and a warning for targets below sm_90."""
    ir_out = tmp / "out.ll"
    cmd = clang_command(opts, src, ir_out, bitcode="ll", header_root=header_root, depfile=None, libdevice=link)
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", check=False)
    if proc.returncode != 0 or not ir_out.is_file():
        return ptx, "cumetal: warning: could not read the __cluster_dims__ annotations; cluster shapes ignored\n"
    dims = cluster_dims_from_ir(ir_out.read_text(errors="replace"))
    if not dims:
        return ptx, ""
    arch = int(re.sub(r"\D", "", opts.arch) or 0)
    if arch < 90:
        return ptx, (f"cumetal: warning: __cluster_dims__ needs sm_90 or later (compiling for {opts.arch}); "
                     "the cluster shape is ignored\n")
    return add_cluster_directives(ptx, dims), ""


def describe_command(options: CudaOptions, filename: str, *, bitcode: bool = False) -> list[str]:
    """The clang command a compile of ``filename`` runs (temporary paths shown as ``$TMP``), for
    ``cumetalc -v``."""
    tmp = Path("$TMP")
    return clang_command(_with_quote_dir(options, Path(filename).parent), tmp / "input.cu",
                         tmp / ("out.bc" if bitcode else "out.ptx"), bitcode=bitcode, header_root=None,
                         depfile=tmp / "out.d")


def _with_quote_dir(options: CudaOptions, d: Path) -> CudaOptions:
    import dataclasses

    return dataclasses.replace(options, extra_clang_args=["-iquote", str(d.resolve()),
                                                          *options.extra_clang_args])


def _clean_log(stderr: str, src: Path, filename: str) -> str:
    """clang names the temp copy only where the #line marker does not reach (e.g. 'In file included
    from'); show the user's name there too. clang's advice for a kernel launched from device code
    names its own -fgpu-rdc flag; with -rdc=true CuMetal still cannot run it, so say why instead."""
    return stderr.replace(str(src), filename).replace(_CLANG_DEVICE_LAUNCH, _CUMETAL_DEVICE_LAUNCH)


_CLANG_DEVICE_LAUNCH = "requires relocatable device code (i.e. requires -fgpu-rdc)"
_CUMETAL_DEVICE_LAUNCH = ("is CUDA dynamic parallelism, which CuMetal does not support (no device-side kernel "
                          "launches)")


def _compile(source: str, filename: str, options: CudaOptions, headers: dict[str, str] | None,
             bitcode: bool, use_cache: bool) -> CompileResult:
    kind = "bc" if bitcode else "ptx"
    key = None
    if use_cache and _cache.enabled():
        try:
            key = _cache.make_key(kind, source, filename, options, headers)
        except ToolchainError as e:  # no clang: the same clear error as a compile would give
            raise CudaCompileError(str(e)) from None
        hit = _cache.lookup(key)
        if hit is not None:
            return hit
    result = _run_clang(source, filename, options, headers, bitcode)
    if key is not None:
        _cache.store(key, result, extra_deps=[str(p) for p in libdevice_sources()])
    return result


def compile_to_ptx(source: str, filename: str = "input.cu", options: CudaOptions | None = None, *,
                   headers: dict[str, str] | None = None, use_cache: bool = True) -> CompileResult:
    """Compile CUDA C++ ``source`` (named ``filename`` in diagnostics) to PTX.

    ``headers`` maps include names to contents (NVRTC's in-memory headers). Raises
    ``CudaCompileError`` (``.log`` = clang's diagnostics) when the source does not compile."""
    return _compile(source, filename, options or CudaOptions(), headers, False, use_cache)


def compile_to_bitcode(source: str, filename: str = "input.cu", options: CudaOptions | None = None, *,
                       headers: dict[str, str] | None = None, use_cache: bool = True) -> CompileResult:
    """Like ``compile_to_ptx`` but returns NVPTX LLVM bitcode in ``.bitcode`` (for ``-rdc`` linking
    and NVRTC's ``-dlto``)."""
    return _compile(source, filename, options or CudaOptions(), headers, True, use_cache)


def preprocess(source: str, filename: str = "input.cu", options: CudaOptions | None = None, *,
               headers: dict[str, str] | None = None) -> CompileResult:
    """The device-side preprocessed source (``nvcc -E``) in ``.ptx`` (no cache: it is for reading)."""
    return _run_clang(source, filename, options or CudaOptions(), headers, "E")


def compile_file_to_ptx(path: str | os.PathLike[str], options: CudaOptions | None = None) -> CompileResult:
    """Read ``path`` and compile it (the file's directory is searched for quoted includes)."""
    p = Path(path)
    try:
        text = p.read_text(errors="replace")
    except OSError as e:
        raise CudaCompileError(f"cannot read '{p}': {e.strerror or e}") from None
    return compile_to_ptx(text, str(p), options)

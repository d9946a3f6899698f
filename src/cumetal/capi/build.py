"""Building CUDA programs: ``cumetalc a.cu b.cpp -o app`` and ``cumetalc -c a.cu`` land here.

``build_program(inputs, output, options, *, compile_only, libraries, library_dirs, linker_args)``

* ``inputs``: paths, or ``(path, language)`` pairs as cumetalc passes them (language ``"cu"`` for
  CUDA C++ whatever the suffix; anything else is decided by suffix): ``.cu`` → device code (PTX from
  :func:`cumetal.cudacxx.compile.compile_to_ptx`, packed into CuMetal's container,
  :mod:`cumetal.capi.blob`) plus a host object from clang in CUDA host mode with the container
  embedded (``-fcuda-include-gpubinary``; registration code calls libcumetal at program start);
  ``.cpp``/``.cc``/``.cxx``/``.C`` → C++ objects, ``.c`` → C objects (same clang, CuMetal's headers
  on the include path); ``.o``/``.a``/``.so``/``.dylib`` → passed to the linker.
* ``output``: the executable, or with ``compile_only`` the object (one input) — without it objects
  are named ``<stem>.o`` in the current directory, as nvcc does.
* ``options``: a :class:`cumetal.cudacxx.options.CudaOptions` (include dirs, macros, std, arch,
  device and host optimisation, ``host_args`` = nvcc's ``-Xcompiler``). With ``rdc=True`` (nvcc's
  ``-rdc=true``/``-dc``) each ``.cu`` embeds NVPTX bitcode instead of PTX; the final link gathers the
  bitcode of every such object (found by scanning the objects and archives for CuMetal's container),
  links it into one PTX module (:func:`cumetal.cudacxx.link.link_bitcode_to_ptx`) and adds a small
  object that hands it to libcumetal at start-up, where all relocatable parts share that module.
* ``libraries`` (``-l``) and ``library_dirs`` (``-L``) go to the linker, except ``cudart``,
  ``cudart_static``, ``cuda``, ``cudadevrt``, ``nvrtc`` and ``nvvm``, which libcumetal provides; ``linker_args`` are
  passed as they are (nvcc's ``-Xlinker``).

The link uses the system C++ compiler (``$CXX``, else ``c++``/``g++``/``clang++``) against
libcumetal (built on first use, :mod:`cumetal.capi.library`) with an rpath to it, so ``./app``
runs from any shell. Returns the list of files written; raises :class:`BuildError` (``.log``
holds the compiler's output) on failure.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from cumetal.capi import blob
from cumetal.capi.library import LibraryBuildError, host_compiler_from_env, library_path
from cumetal.cudacxx import fallback_include_dir, include_dir
from cumetal.cudacxx.include_order import ours_before_toolkit_dirs
from cumetal.cudacxx.options import CudaOptions, OptionError, normalize_arch

CXX_SUFFIXES = {".cpp", ".cc", ".cxx", ".C", ".c++"}
C_SUFFIXES = {".c"}
LINK_SUFFIXES = {".o", ".obj", ".a", ".so", ".dylib"}
PROVIDED_LIBS = {"cudart", "cudart_static", "cuda", "cudadevrt", "cumetal", "nvrtc", "nvrtc_static", "nvrtc-builtins",
                 "nvvm"}


class BuildError(RuntimeError):
    """A step of the build failed; ``log`` holds the tool's diagnostics."""

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message)
        self.log = log


def host_triple() -> str:
    machine = platform.machine().lower()
    arch = {"arm64": "aarch64", "amd64": "x86_64"}.get(machine, machine)
    if sys.platform == "darwin":
        return f"{'arm64' if arch == 'aarch64' else arch}-apple-macos{platform.mac_ver()[0] or '14.0'}"
    return f"{arch}-linux-gnu"


def _sysroot_args() -> list[str]:
    if sys.platform != "darwin":
        return []
    try:
        sdk = subprocess.run(["xcrun", "--show-sdk-path"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        sdk = ""
    return ["-isysroot", sdk] if sdk else []


def _clang_prefix() -> list[str]:
    from cumetal.cudacxx.toolchain import ToolchainError, find_clang  # noqa: PLC0415

    try:
        clang = find_clang()
    except ToolchainError as e:
        raise BuildError(str(e)) from None
    return clang.command([])


def linker() -> list[str]:
    cxx = host_compiler_from_env("CXX")
    if cxx:
        return cxx
    for name in ("c++", "g++", "clang++"):
        found = shutil.which(name)
        if found:
            return [found]
    raise BuildError("linking a CUDA program needs a system C++ compiler/linker (c++, g++ or clang++; "
                     "on macOS the Xcode command line tools); none found (set $CXX to name one)")


def _common_args(options: CudaOptions) -> list[str]:
    """Host-side flags shared by .cu/.cpp/.c compiles: target, macros, include paths."""
    args = ["-target", host_triple(), *_sysroot_args(), "-fPIC", "-fno-color-diagnostics",
            f"-O{options.host_opt_level}"]
    if options.host_debug:
        args.append("-g")
    args += ["-D" + d for d in options.defines]
    args += ["-U" + u for u in options.undefines]
    for inc in options.include_dirs:
        args += ["-I", inc]
    args += ["-I", str(include_dir()), "-idirafter", str(fallback_include_dir())]
    return ours_before_toolkit_dirs(args)


def _run(cmd: list[str], what: str) -> str:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", check=False)
    except OSError as e:
        raise BuildError(f"{what}: cannot run {cmd[0]}: {e}") from None
    if proc.returncode != 0:
        log = (proc.stderr + proc.stdout).strip()
        n = log.count(" error:") or 1
        raise BuildError(f"{what}: failed ({n} error(s))", log)
    return proc.stderr


def _compile_cu(src: Path, obj: Path, options: CudaOptions, tmp: Path) -> str:
    from cumetal.cudacxx.compile import CudaCompileError, compile_to_ptx  # noqa: PLC0415

    try:
        text = src.read_text(errors="replace")
    except OSError as e:
        raise BuildError(f"cannot read '{src}': {e.strerror or e}") from None
    try:
        res = compile_to_ptx(text, str(src), options) if not options.rdc else None
    except CudaCompileError as e:
        raise BuildError(f"{src}: device compilation failed", e.log) from None
    if options.rdc:
        from cumetal.cudacxx.compile import compile_to_bitcode  # noqa: PLC0415

        try:
            bc = compile_to_bitcode(text, str(src), options)
        except CudaCompileError as e:
            raise BuildError(f"{src}: device compilation failed", e.log) from None
        entry = blob.BlobEntry(blob.KIND_BITCODE, src.name, bc.bitcode)
        rewritten = bc.source
    else:
        entry = blob.BlobEntry(blob.KIND_PTX, src.name, res.ptx.encode())
        rewritten = res.source
    host_src = src
    if rewritten:
        # the front end rewrote __shared__ objects with constructors (cudacxx/shared_init.py): the
        # host pass compiles the same text, named as the user's file, its quoted includes found there
        host_src = tmp / f"host_{src.name}"
        quoted = str(src).replace("\\", "\\\\").replace('"', '\\"')
        host_src.write_text(f'#line 1 "{quoted}"\n{rewritten}')
    container = tmp / (src.name + ".cumetal-blob")
    container.write_bytes(blob.pack([entry]))
    try:
        arch = normalize_arch(options.arch)
    except OptionError as e:
        raise BuildError(str(e)) from None
    cmd = [*_clang_prefix(), "-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib",
           "-Xclang", "-target-sdk-version=12.0", "-Wno-unknown-cuda-version", f"--cuda-gpu-arch={arch}",
           f"-std={options.std}", *options.macro_args(), *_common_args(options)]
    if options.force_cuda_runtime:
        cmd += ["-include", "cuda_runtime.h"]
    for inc in options.pre_includes:
        cmd += ["-include", inc]
    cmd += ["-Xclang", "-fcuda-include-gpubinary", "-Xclang", str(container), *options.host_args]
    if rewritten:
        cmd += ["-iquote", str(src.resolve().parent)]
    cmd += ["-c", "-o", str(obj), str(host_src)]
    log = (res.log if res else "") + _run(cmd, f"{src}: host compilation")
    if options.rdc and blob.MAGIC not in obj.read_bytes():
        # clang embeds the device code only when the TU registers something (a kernel, a device
        # variable): a TU of __device__ functions alone would lose its relocatable code, which the
        # device link finds by scanning objects for the container. Put it in a section of its own.
        holder = tmp / (src.name + ".cumetal-rdc.h")
        section = "__DATA,__cumetal_rdc" if sys.platform == "darwin" else '.cumetal_rdc,\\"a\\"'
        path = str(container).replace("\\", "\\\\").replace('"', '\\"')
        holder.write_text(f'__asm__(".section {section}\\n.p2align 3\\n.incbin \\"{path}\\"\\n.text");\n')
        log += _run([*cmd[:-4], "-include", str(holder), *cmd[-4:]], f"{src}: host compilation")
    return log


# constructs C99 removed that clang 16+ makes errors and GCC before 14 only warns about
C_LEGACY_WARNINGS = ("implicit-function-declaration", "implicit-int", "int-conversion",
                     "incompatible-function-pointer-types")


def _compile_host(src: Path, obj: Path, options: CudaOptions, lang: str) -> str:
    # CuMetal's headers mark host+device functions __host__ __device__, which mean nothing here
    cmd = [*_clang_prefix(), "-x", lang, "-Wno-ignored-attributes"]
    if lang == "c++":
        cmd.append(f"-std={options.std}")
    else:  # pre-C99 code (Rodinia, textbooks) that GCC, nvcc's host compiler, builds with warnings
        cmd += [f"-Wno-error={w}" for w in C_LEGACY_WARNINGS]
    try:
        arch = normalize_arch(options.arch)
    except OptionError as e:
        raise BuildError(str(e)) from None
    # nvcc defines __CUDA_ARCH_LIST__ for .c/.cpp inputs too, as clang does for the .cu's host half:
    # Thrust's ABI namespace spells it, so both halves of a program must agree (sm_90a -> 900)
    cmd.append(f"-D__CUDA_ARCH_LIST__={int(arch[3:5]) * 10}")
    cmd += [*_common_args(options), *options.host_args, "-c", "-o", str(obj), str(src)]
    return _run(cmd, f"{src}: compilation")


def _classify(item: str | os.PathLike[str] | tuple[str, str]) -> tuple[Path, str]:
    if isinstance(item, tuple):
        path, lang = Path(item[0]), item[1]
    else:
        path, lang = Path(item), ""
    suffix = path.suffix
    if lang == "cu" or suffix == ".cu":
        return path, "cu"
    if suffix in CXX_SUFFIXES:
        return path, "c++"
    if suffix in C_SUFFIXES:
        return path, "c"
    if suffix in LINK_SUFFIXES or ".so." in path.name:
        return path, "link"
    raise BuildError(f"'{path}': cannot build a program from this kind of file ({lang or suffix or 'no suffix'}); "
                     "inputs are .cu, .cpp/.cc/.cxx, .c, .o, .a and .so")


def relocatable_device_code(paths: Sequence[str]) -> list[tuple[str, bytes]]:
    """``(name, bitcode)`` of every relocatable (``-rdc``) part embedded in these objects/archives:
    CuMetal's containers are found by their magic, whatever the object format."""
    found: list[tuple[str, bytes]] = []
    for path in paths:
        try:
            data = Path(path).read_bytes()
        except OSError:
            continue
        at = data.find(blob.MAGIC)
        while at >= 0:
            try:
                total = int.from_bytes(data[at + 16: at + 24], "little")
                entries = blob.unpack(data[at: at + total])
            except (blob.BlobError, ValueError):
                entries = []
                total = len(blob.MAGIC)
            found += [(f"{path}:{e.name}", e.payload) for e in entries if e.kind == blob.KIND_BITCODE]
            at = data.find(blob.MAGIC, at + max(total, 1))
    return found


def _device_link(objects: list[str], options: CudaOptions, tmp: Path) -> Path | None:
    """Link the relocatable device code of ``objects`` into one PTX module and compile a C object
    that registers it with libcumetal at start-up (None when there is none)."""
    parts = relocatable_device_code(objects)
    if not parts:
        return None
    from cumetal.cudacxx.link import LinkError, link_bitcode_to_ptx  # noqa: PLC0415

    try:
        ptx = link_bitcode_to_ptx(parts, options)
    except LinkError as e:
        raise BuildError(f"device link of {len(parts)} relocatable part(s) failed", str(e)) from None
    image = blob.pack([blob.BlobEntry(blob.KIND_PTX, "<device-linked>", ptx.encode())])
    src = tmp / "cumetal_device_link.c"
    body = ",".join(str(b) for b in image)
    src.write_text("/* generated by cumetal.capi.build: the program's device-linked code */\n"
                   "void __cumetalRegisterLinkedImage(const void *image);\n"
                   f"static const unsigned char image[{len(image)}] __attribute__((aligned(8))) = {{{body}}};\n"
                   "static void __attribute__((constructor)) register_linked(void) "
                   "{ __cumetalRegisterLinkedImage(image); }\n")
    obj = tmp / "cumetal_device_link.o"
    _run([*_clang_prefix(), "-x", "c", "-target", host_triple(), *_sysroot_args(), "-fPIC", "-c", "-o", str(obj),
          str(src)], "device link")
    return obj


def link_command(objects: list[str], output: Path, libraries: Sequence[str], library_dirs: Sequence[str],
                 linker_args: Sequence[str]) -> list[str]:
    """The final link: objects, libcumetal with an rpath to it, then the user's libraries."""
    try:
        lib = library_path()
    except LibraryBuildError as e:
        raise BuildError(str(e)) from None
    libdir = str(lib.parent)
    cmd = [*linker(), "-o", str(output), *objects, "-L" + libdir, "-lcumetal", f"-Wl,-rpath,{libdir}"]
    cmd += ["-L" + d for d in library_dirs]
    from cumetal.libs import build as libs_build  # noqa: PLC0415 - CuMetal's cuBLAS/cuBLASLt/cuRAND

    try:
        cmd += libs_build.link_args(list(libraries))
    except LibraryBuildError as e:
        raise BuildError(str(e)) from None
    cmd += ["-l" + name for name in libraries if name not in PROVIDED_LIBS and name not in libs_build.LINK_NAMES]
    cmd += [a if a.startswith("-Wl,") or a.startswith("-") else "-Wl," + a for a in linker_args]
    if sys.platform != "darwin":
        cmd += ["-lpthread", "-ldl", "-lm"]
    return cmd


def build_program(inputs: Sequence[str | os.PathLike[str] | tuple[str, str]], output: str | os.PathLike[str] | None = None,
                  options: CudaOptions | None = None, *, compile_only: bool = False,
                  libraries: Sequence[str] = (), library_dirs: Sequence[str] = (),
                  linker_args: Sequence[str] = (), verbose: bool = False) -> list[Path]:
    """Compile and (unless ``compile_only``) link; see the module docstring. Warnings from the
    compilers are printed on stderr; the list of files written is returned."""
    options = options or CudaOptions()
    items = [_classify(i) for i in inputs]
    if not items:
        raise BuildError("no input files")
    sources = [(p, lang) for p, lang in items if lang != "link"]
    if compile_only and output is not None and len(sources) > 1:
        raise BuildError("-c with -o names one object, but several source files were given")
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="cumetal-build-") as tmpdir:
        tmp = Path(tmpdir)
        link_inputs: list[str] = []
        for i, (path, lang) in enumerate(items):
            if lang == "link":
                if not path.exists():
                    raise BuildError(f"'{path}': no such file")
                link_inputs.append(str(path))
                continue
            if not path.is_file():
                raise BuildError(f"'{path}': no such file")
            if compile_only:
                obj = Path(output) if output is not None else Path.cwd() / (path.stem + ".o")
            else:
                obj = tmp / f"{i}_{path.stem}.o"
            log = _compile_cu(path, obj, options, tmp) if lang == "cu" else _compile_host(path, obj, options, lang)
            if log.strip():
                print(log.rstrip(), file=sys.stderr)
            link_inputs.append(str(obj))
            if compile_only:
                written.append(obj)
        if compile_only:
            return written
        out = Path(output) if output is not None else Path("a.out")
        # as nvlink does, static libraries named by -l (found in the -L directories) take part too
        archives = [next((str(a) for d in library_dirs if (a := Path(d) / f"lib{name}.a").is_file()), "")
                    for name in libraries]
        linked = _device_link(link_inputs + [a for a in archives if a], options, tmp)
        if linked is not None:
            link_inputs.append(str(linked))
        cmd = link_command(link_inputs, out, libraries, library_dirs, linker_args)
        if verbose:
            print(" ".join(cmd), file=sys.stderr)
        log = _run(cmd, f"linking {out}")
        if log.strip():
            print(log.rstrip(), file=sys.stderr)
        written.append(out)
    return written

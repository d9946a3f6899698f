"""Build CuMetal's libdevice: the ``__nv_*`` device math functions, compiled from the CUDA C++
sources in ``src/`` into one NVPTX LLVM bitcode file with the pinned clang (``ziglang``).

The file is cached under ``$CUMETAL_CACHE_DIR`` (or ``$CUMETAL_CACHE``, default
``~/.cache/cumetal``) in ``libdevice/``, named by a SHA-256 of the sources, the flags and the
clang executable's identity, and published with an atomic rename, so concurrent processes never see a partial
file and a corrupt entry (wrong magic) is rebuilt.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import tempfile
from pathlib import Path

SOURCE_DIR = Path(__file__).resolve().parent / "src"
ENTRY = "libdevice.cu"
BITCODE_MAGIC = b"BC\xc0\xde"

# sm_50 / PTX 6.0 is the lowest target the math code needs (fma, cvt.rni, copysign, testp): the
# bitcode then links into modules built for any newer target without feature conflicts.
CLANG_FLAGS: tuple[str, ...] = (
    "-x", "cuda", "-nocudainc", "-nocudalib", "-Xclang", "-target-sdk-version=12.0",
    "--cuda-device-only", "--cuda-gpu-arch=sm_50", "--cuda-feature=+ptx60",
    "-std=c++17", "-O2", "-ffp-contract=off", "-fno-fast-math",
    # keep __nvvm_reflect("__CUDA_FTZ") for the user's compile to resolve (its -ftz setting)
    "-mllvm", "-nvvm-reflect-enable=false",
    "-emit-llvm", "-S",
)

# Function attributes that would tie the library to the sm_50 it is compiled for: removed so that
# llvmlite-linked NVVM modules (any sm_XX) can inline the functions; clang's
# -mlink-builtin-bitcode sets the caller's values anyway.
_TARGET_ATTRS = re.compile(r'\s*"target-(cpu|features)"="[^"]*"')


class LibdeviceBuildError(RuntimeError):
    """The math library's sources did not compile; ``log`` holds clang's diagnostics."""

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(f"{message}\n{log}" if log else message)
        self.log = log


def clang_command() -> list[str]:
    """The clang driver invocation, resource directory included: the same compiler
    ``cumetal.cudacxx.toolchain`` finds for CUDA C++ (the ``zig`` executable of the pinned ziglang
    wheel, run directly, or ``$CUMETAL_CLANG``), so the library and the kernels it links into are
    built by one clang."""
    from cumetal.cudacxx.toolchain import ToolchainError, find_clang  # noqa: PLC0415

    try:
        return find_clang().command([])
    except ToolchainError as exc:
        raise LibdeviceBuildError(f"cumetal.libdevice: {exc}") from None


def clang_identity() -> str:
    """Names the exact clang without running it (path, size, mtime of the executable): part of the
    cache key. Running ``clang --version`` here cost every cold compile a process start."""
    from cumetal.cudacxx.toolchain import ToolchainError, find_clang  # noqa: PLC0415

    try:
        return find_clang().identity
    except ToolchainError as exc:
        raise LibdeviceBuildError(f"cumetal.libdevice: {exc}") from None


# The clean-room headers fp16_builtins.cu compiles into the library (the half/bfloat16 ones and what
# every CUDA translation unit includes first)
HEADER_DIR = SOURCE_DIR.parent.parent / "cudacxx" / "include"
FP16_HEADERS = ("cuda_runtime.h", "cuda_fp16.h", "cuda_bf16.h", "vector_types.h", "vector_functions.h")


def source_files() -> list[Path]:
    """The inputs of the build: the sources, the half/bfloat16 headers and this module (its flags).
    Compile caches that link the library key on these files."""
    sources = sorted(p for p in SOURCE_DIR.rglob("*") if p.suffix in {".cu", ".h", ".cuh"})
    headers = [HEADER_DIR / h for h in FP16_HEADERS] + sorted((HEADER_DIR / "cumetal").glob("*.h"))
    return sources + [h for h in dict.fromkeys(headers) if h.is_file()] + [Path(__file__).resolve()]


def source_hash() -> str:
    h = hashlib.sha256()
    for path in source_files():
        h.update(path.name.encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    h.update("\0".join(CLANG_FLAGS).encode())
    h.update(clang_identity().encode())
    return h.hexdigest()[:24]


def cache_dir() -> Path:
    root = os.environ.get("CUMETAL_CACHE_DIR") or os.environ.get("CUMETAL_CACHE") \
        or os.path.join(os.path.expanduser("~"), ".cache", "cumetal")
    return Path(root) / "libdevice"


def _valid(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(4) == BITCODE_MAGIC
    except OSError:
        return False


def build(output: Path, *, extra_flags: tuple[str, ...] = ()) -> Path:
    """Compile the sources into ``output`` (written atomically). Raises LibdeviceBuildError."""
    output.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=output.name + ".", suffix=".tmp", dir=output.parent)
    os.close(fd)
    try:
        cmd = [*clang_command(), *CLANG_FLAGS, *extra_flags, "-I", str(SOURCE_DIR), "-I", str(HEADER_DIR),
               "-o", tmp, str(SOURCE_DIR / ENTRY)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise LibdeviceBuildError("cumetal.libdevice: building the math library failed", proc.stderr)
        Path(tmp).write_bytes(_to_bitcode(Path(tmp).read_text()))
        if not _valid(Path(tmp)):
            raise LibdeviceBuildError("cumetal.libdevice: the math library's bitcode is not valid")
        os.replace(tmp, output)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return output


def _drop_reflect_flags(ir_text: str) -> str:
    """Remove the "nvvm-reflect-*" module flags: they are the user's compile's to set (a linked
    module with a different Override value would be refused by the IR linker)."""
    ids = set(re.findall(r'^(![0-9]+) = !\{i32 [0-9]+, !"nvvm-reflect-[^"]*"', ir_text, flags=re.M))
    if not ids:
        return ir_text

    def keep(m: re.Match) -> str:
        items = [i.strip() for i in m.group(1).split(",") if i.strip() not in ids]
        return "!llvm.module.flags = !{" + ", ".join(items) + "}"

    return re.sub(r"^!llvm\.module\.flags = !\{([^}]*)\}", keep, ir_text, flags=re.M)


_USED = re.compile(r"^@llvm\.(?:compiler\.)?used = .*$", re.M)


def _to_bitcode(ir_text: str) -> bytes:
    """clang's textual IR without the target attributes, as bitcode (llvmlite, LLVM 22).

    The ``llvm.compiler.used`` list is dropped too: it only made clang emit the fp16/bf16 header
    members (``__CM_FP_MEMBER``) in this translation unit; kept, it would pull all of them into every
    user compile that links the library (52 unused .func in the PTX of a one-line kernel)."""
    import llvmlite.binding as llvm  # noqa: PLC0415

    mod = llvm.parse_assembly(_drop_reflect_flags(_USED.sub("", _TARGET_ATTRS.sub("", ir_text))))
    mod.verify()
    return mod.as_bitcode()


def bitcode_path() -> Path:
    """Path of the cached libdevice bitcode, built on first use."""
    target = cache_dir() / f"libdevice-{source_hash()}.bc"
    if _valid(target):
        return target
    return build(target)


def source_dir() -> Path:
    """Directory of the ``.cu`` sources (``libdevice.cu`` includes the rest)."""
    return SOURCE_DIR

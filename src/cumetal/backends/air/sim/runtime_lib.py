"""Build (once, cached by source hash) and load the air-sim C runtime.

The runtime is compiled with the system C compiler (``$CC`` or ``gcc``) into
``$CUMETAL_CACHE_DIR/air-sim/runtime-<hash>.so`` (default ``~/.cache/cumetal``); its exported
functions are registered with LLVM under their ``air.*`` names so that the JIT resolves the
AIR module's declarations to them.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from cumetal.backends.common import codes

SOURCE = Path(__file__).with_name("runtime.c")
INCLUDED = Path(__file__).with_name("workitem.c")  # #included by runtime.c
MAX_ARGS = 32
MAX_AS3 = 8
MAX_WORKERS = 64
FAULT_NAMES = codes.FAULT_NAMES  # the one table (backends/common/codes.py; runtime.c includes its header)


class SimBuildError(RuntimeError):
    """The C runtime could not be compiled (no compiler, or a compiler error)."""


class SimEngine(ctypes.Structure):
    """One worker's JIT copy of a kernel (runtime.c ``sim_engine``)."""

    _fields_ = [
        ("entry", ctypes.c_void_p),
        ("wg", ctypes.c_void_p),
        ("cstart", ctypes.c_void_p),
        ("cresume", ctypes.c_void_p),
        ("sites", ctypes.c_void_p),
        ("nsites", ctypes.c_int64),
        ("as3_lo", ctypes.c_uint64 * MAX_AS3),
        ("as3_hi", ctypes.c_uint64 * MAX_AS3),
        ("susp", ctypes.c_void_p),
        ("order", ctypes.c_void_p),
        ("wgv", ctypes.c_void_p),
        ("wr", ctypes.c_void_p),  # work-item mode (workitem.py, workitem.c)
        ("wrs", ctypes.c_void_p),
        ("wnres", ctypes.c_int64),
        ("wctx", ctypes.c_uint64),
        ("wsteps", ctypes.c_int32),
        ("wgvn", ctypes.c_void_p),  # a range of threadgroups per call (vectorize.RANGE)
        ("wxop", ctypes.c_void_p),  # work-item exchanges (workitem.py EXCHANGE_OPS, EXCHANGE_OFFSET)
        ("wxoff", ctypes.c_int64),
    ]


class SimLaunch(ctypes.Structure):
    _fields_ = [
        ("engines", ctypes.POINTER(SimEngine)),
        ("nworkers", ctypes.c_int32),
        ("nargs", ctypes.c_int32),
        ("kinds", ctypes.c_int32 * MAX_ARGS),
        ("values", ctypes.c_uint64 * MAX_ARGS),
        ("grid", ctypes.c_uint32 * 3),
        ("block", ctypes.c_uint32 * 3),
        ("alloc_base", ctypes.c_void_p),
        ("alloc_size", ctypes.c_void_p),
        ("nalloc", ctypes.c_int64),
        ("shared", ctypes.c_void_p),
        ("shared_size", ctypes.c_uint64),
        ("nas3", ctypes.c_int32),
        ("timeout_s", ctypes.c_double),
        ("stack_size", ctypes.c_uint64),
        ("direct", ctypes.c_int32),
        ("extra_base", ctypes.c_uint64),
        ("extra_size", ctypes.c_uint64),
        ("fault", ctypes.c_int32),
        ("fault_addr", ctypes.c_uint64),
        ("blocks_run", ctypes.c_uint64),
        ("message", ctypes.c_char * 256),
        ("first_block", ctypes.c_uint64),  # the first threadgroup to run (cpu_jit_device tiering)
        ("coop", ctypes.c_int32),  # a cooperative launch: one worker, grid barriers (workitem.c run_grid)
    ]


_lock = threading.Lock()
_lib: ctypes.CDLL | None = None


def cache_dir() -> Path:
    # CUMETAL_CACHE_DIR, as every other CuMetal cache (CUMETAL_CACHE: the older spelling, still read)
    root = (os.environ.get("CUMETAL_CACHE_DIR") or os.environ.get("CUMETAL_CACHE")
            or os.path.join(os.path.expanduser("~"), ".cache", "cumetal"))
    return Path(root) / "air-sim"


def _compile(out: Path) -> None:
    cc = os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        raise SimBuildError("air-sim needs a C compiler (gcc) to build its runtime; none found on PATH")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=out.parent, suffix=".so", delete=False) as tmp:
        tmp_path = Path(tmp.name)
    # -U_FORTIFY_SOURCE: the fiber switch longjmps between stacks, which fortified longjmp rejects
    cmd = [cc, "-O2", "-shared", "-fPIC", "-fno-strict-aliasing", "-U_FORTIFY_SOURCE", "-I", str(codes.HEADER.parent), "-o", str(tmp_path), str(SOURCE),
           "-lm", "-lpthread"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tmp_path.unlink(missing_ok=True)
        raise SimBuildError(f"building the air-sim runtime failed ({' '.join(cmd)}):\n{done.stderr.strip()}")
    os.replace(tmp_path, out)  # atomic: concurrent builders never see a partial file


def runtime() -> ctypes.CDLL:
    """The loaded runtime library (built on first use)."""
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        digest = hashlib.sha256(SOURCE.read_bytes() + INCLUDED.read_bytes() + codes.HEADER.read_bytes()).hexdigest()[:16]
        path = cache_dir() / f"runtime-{digest}.so"
        if not path.exists():
            _compile(path)
        lib = ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
        lib.sim_run.argtypes = [ctypes.POINTER(SimLaunch)]
        lib.sim_run.restype = ctypes.c_int
        _lib = lib
        return lib


def loaded() -> ctypes.CDLL | None:
    """The runtime library when it is already loaded (no lock: the launch path's fast check)."""
    return _lib


def blocks_vector() -> int:
    """Threadgroups this process ran on the vectorized path (runtime.c ``sim_blocks_vector``)."""
    return ctypes.c_uint64.in_dll(runtime(), "sim_blocks_vector").value


def symbol_address(name: str) -> int | None:
    """Address of the runtime's implementation of ``name`` (an air.* or helper symbol), or None."""
    lib = runtime()
    if name.startswith("__sim_ld."):  # vectorize.py: a probe's loads, all the one trap
        name = "sim_probe_load"
    try:
        fn = getattr(lib, name.replace(".", "_"))
    except AttributeError:
        return None
    return ctypes.cast(fn, ctypes.c_void_p).value

"""Compile emitted MSL with g++ (cached by source hash), load it with ctypes, launch grids.

Device pointers are host addresses (unified memory, as on Apple GPUs), so kernels dereference
them directly; every global access is checked against the allocation table given to the launch,
so a bad access ends the launch with a fault instead of a crash. msl-sim cannot catch: an access
through a pointer into the middle of a *different* live allocation, races, or code in the host
process corrupting memory. Threadgroup and local accesses are checked against their sizes.
"""

from __future__ import annotations

import ctypes
import dataclasses
import hashlib
import mmap
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cumetal.backends.apple import abi
from cumetal.backends.apple.printf_ring import decode_ring
from cumetal.backends.common import codes
from cumetal.backends.msl.emit import BUILTINS, EmitResult, emit_module
from cumetal.ir import nodes as N

SIM_DIR = Path(__file__).resolve().parent
CODES_HEADER = codes.HEADER  # included by cumetal_msl_sim.h
# -fstack-clash-protection: a large frame touches each of its pages in turn, so a kernel that overflows
# its fiber's stack stops at the guard below it (cumetal_msl_sim.h on_segv) instead of writing past it
CXXFLAGS = ["-std=c++14", "-O1", "-fPIC", "-shared", "-pthread", "-Wno-attributes", "-ffp-contract=off",
            "-fno-fast-math", "-fstack-clash-protection", "-w"]
DEFAULT_STACK_KB = 128  # each thread's fiber stack beyond the kernel's local memory


def fiber_stack_kb() -> int:
    """``CUMETAL_MSL_SIM_STACK_KB``: each thread's fiber stack (KiB) beyond the kernel's declared
    local memory (default 128); a kernel that needs more stops with a stack-overflow fault."""
    raw = os.environ.get("CUMETAL_MSL_SIM_STACK_KB", "").strip()
    if not raw:
        return DEFAULT_STACK_KB
    try:
        kb = int(raw)
        if kb >= 4:
            return kb
    except ValueError:
        pass
    print(f"cumetal: CUMETAL_MSL_SIM_STACK_KB={raw!r} is not a size of at least 4 (KiB); using {DEFAULT_STACK_KB}",
          file=sys.stderr, flush=True)
    return DEFAULT_STACK_KB


class SimCompileError(Exception):
    """g++ rejected the emitted MSL (a back-end bug or an MSL construct msl-sim lacks)."""


class _Alloc(ctypes.Structure):
    _fields_ = [("base", ctypes.c_uint64), ("end", ctypes.c_uint64)]


class _Launch(ctypes.Structure):  # keep in sync with cm_sim::Launch
    _fields_ = [("grid", ctypes.c_uint32 * 3), ("block", ctypes.c_uint32 * 3), ("shared_bytes", ctypes.c_uint64),
                ("local_bytes", ctypes.c_uint64), ("allocs", ctypes.POINTER(_Alloc)), ("nallocs", ctypes.c_uint64),
                ("stack_bytes", ctypes.c_uint64), ("timeout_s", ctypes.c_double), ("workers", ctypes.c_int),
                ("fault_code", ctypes.c_int), ("fault_addr", ctypes.c_uint64), ("fault_msg", ctypes.c_char * 256),
                ("stacks", ctypes.c_void_p), ("stack_stride", ctypes.c_uint64), ("stack_guard", ctypes.c_uint64)]


# ---- the fibers' stacks: one mapping per launch in flight, reused (mapping fresh stacks per launch
# cost 75% more time on a launch of 8 blocks of 1024 threads: every fiber's first page faulted in again)
_PAGE = mmap.PAGESIZE
STACK_GUARD = 16 * _PAGE  # no-access bytes below each fiber's stack (cumetal_msl_sim.h on_segv)
_PROT_NONE, _PROT_RW = 0, 3
_MAP_PRIVATE_ANON_NORESERVE = 0x02 | 0x20 | 0x4000
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


class _StackArena:
    """``slots`` fiber stacks of ``stride`` bytes each, the first ``STACK_GUARD`` of each no-access."""

    def __init__(self) -> None:
        self.addr, self.size, self.stride, self.slots = 0, 0, 0, 0

    def fit(self, slots: int, stride: int) -> None:
        if stride == self.stride and slots <= self.slots:
            return
        need = slots * stride
        if need > self.size:
            self.release()
            addr = _libc.mmap(None, need, _PROT_RW, _MAP_PRIVATE_ANON_NORESERVE, -1, 0)
            if addr in (None, ctypes.c_void_p(-1).value):
                raise MemoryError(f"msl-sim: no address space for {slots} fiber stacks of {stride} bytes")
            self.addr, self.size = addr, need
        else:  # a new layout in the old mapping
            _libc.mprotect(self.addr, self.size, _PROT_RW)
        for i in range(slots):
            _libc.mprotect(self.addr + i * stride, STACK_GUARD, _PROT_NONE)
        self.stride, self.slots = stride, slots

    def release(self) -> None:
        if self.addr:
            _libc.munmap(self.addr, self.size)
        self.addr, self.size, self.stride, self.slots = 0, 0, 0, 0


_ARENAS: list[_StackArena] = []  # free ones
_ARENAS_LOCK = threading.Lock()
_MAX_FREE_ARENAS = 2


def _take_arena(slots: int, stack_bytes: int) -> _StackArena:
    with _ARENAS_LOCK:
        arena = _ARENAS.pop() if _ARENAS else _StackArena()
    arena.fit(slots, STACK_GUARD + (stack_bytes + _PAGE - 1) // _PAGE * _PAGE)
    return arena


def _give_back(arena: _StackArena) -> None:
    with _ARENAS_LOCK:
        if len(_ARENAS) < _MAX_FREE_ARENAS:
            _ARENAS.append(arena)
            return
    arena.release()


@dataclass
class SimResult:
    fault: str | None  # codes.fault_name of the recorded code, or None
    fault_address: int
    printf: str
    printf_dropped: int
    message: str = ""  # the simulator's own description of the fault (a deadlock's), "@KERNEL@" for the kernel


def cache_dir() -> Path:
    # CUMETAL_CACHE_DIR, as every other CuMetal cache (CUMETAL_CACHE: the older spelling, still read)
    root = (os.environ.get("CUMETAL_CACHE_DIR") or os.environ.get("CUMETAL_CACHE")
            or os.path.join(os.path.expanduser("~"), ".cache", "cumetal"))
    return Path(root) / "msl-sim"


def _trampoline(k: N.Function, module: N.Module, msl_name: str, prefix: str = "") -> str:
    bindings = [b for b in abi.argument_abi(k, module) if b.kind == "buffer"]
    args = [f"({b.msl_type.replace('device ', '').replace('constant ', 'const ')})bufs[{i}]"
            for i, b in enumerate(bindings)]
    args.append("(uchar*)b.shared")
    args += [f"b.{n[3:]}" for _t, n, _a in BUILTINS]
    scope = f"{prefix}::" if prefix else ""
    return (f'extern "C" int cm_sim_entry_{prefix}{msl_name}(cm_sim::Launch* L, void** bufs) {{\n'
            f"  return cm_sim::run(L, [=](const cm_sim::Builtins& b) {{ {scope}{msl_name}({', '.join(args)}); }});\n}}\n")


def _sim_text(source: str) -> str:
    # The one textual change msl-sim makes: ``threadgroup`` is an (empty) macro in C++, which
    # would also rewrite the attribute [[threadgroup(0)]].
    return source.replace("[[threadgroup(", "[[cm_threadgroup(")


# g++'s own time limit (a huge module is slow to compile, but never this slow; the error says so).
# Huge modules are NOT compiled at -O0 to save time: -O0 gives every temporary its own stack slot,
# and a kernel of a module over 4 MB then needed an 896 KB frame, overflowing the 128 KiB fiber stack
# (heap corruption: tests/cudacxx math_edges aborted with "free(): invalid pointer").
GXX_TIMEOUT_S = 3600.0


def _run_gxx(cmd: list[str]) -> subprocess.CompletedProcess:
    """g++ in a process group of its own, killed as a group if the wait ends early (time limit, a
    test's timeout, Ctrl-C): killing only the driver left cc1plus compiling for minutes."""
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as proc:
        try:
            out, err = proc.communicate(timeout=GXX_TIMEOUT_S)
        except BaseException:
            try:
                os.killpg(proc.pid, 9)
            except ProcessLookupError:
                pass
            proc.wait(timeout=60)
            raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _compile(tu: str) -> Path:
    header = (SIM_DIR / "cumetal_msl_sim.h").read_bytes() + CODES_HEADER.read_bytes()
    key = hashlib.sha256(tu.encode() + header + " ".join(CXXFLAGS).encode()).hexdigest()[:24]
    out = cache_dir() / f"{key}.so"
    if out.exists():
        return out
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if not cxx:
        raise SimCompileError("msl-sim needs a C++ compiler (g++); none found on PATH")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "kernel.cpp"
        src.write_text(tu)
        # <metal_stdlib> resolves to our header, so the emitted source compiles unchanged
        (Path(tmp) / "metal_stdlib").write_text(f'#include "{SIM_DIR / "cumetal_msl_sim.h"}"\n')
        # written next to its final name, then renamed: a rename within one directory is atomic, so
        # another process never loads a half-written library
        tmp_so = out.parent / f".{key}.{os.getpid()}.{threading.get_ident()}.so"
        try:
            proc = _run_gxx([cxx, *CXXFLAGS, "-I", tmp, "-I", str(CODES_HEADER.parent), "-x", "c++", str(src),
                             "-o", str(tmp_so)])
        except subprocess.TimeoutExpired:
            tmp_so.unlink(missing_ok=True)
            raise SimCompileError(f"g++ did not finish compiling {len(tu) >> 20} MB of emitted MSL within "
                                  f"{GXX_TIMEOUT_S:.0f} s") from None
        if proc.returncode != 0:
            tmp_so.unlink(missing_ok=True)
            raise SimCompileError("g++ rejected the emitted MSL:\n" + "\n".join(proc.stderr.splitlines()[:40]))
        os.replace(tmp_so, out)
    return out


def allocate_globals(module: N.Module) -> tuple[dict[str, int], list[np.ndarray]]:
    """Host storage for the module's globals (initializers and relocations applied)."""
    keep: list[np.ndarray] = []
    addrs: dict[str, int] = {}
    for g in module.globals.values():
        buf = np.zeros(max(g.size, 1) + 256, dtype=np.uint8)
        base = buf.ctypes.data
        pad = (-base) % 256
        view = buf[pad:pad + max(g.size, 1)]
        if g.init:
            view[:len(g.init[:g.size])] = np.frombuffer(bytes(g.init[:g.size]), dtype=np.uint8)
        keep.append(view)
        addrs[g.name] = view.ctypes.data
    for g, view in zip(module.globals.values(), keep, strict=True):
        for off, target, addend in g.relocs:
            value = addrs[target] if target in addrs else module.function_address(target)
            view[off:off + 8] = np.frombuffer(struct.pack("<Q", (value + addend) % 2**64), dtype=np.uint8)
    return addrs, keep


class MslProgram:
    """A module emitted as MSL and compiled for msl-sim."""

    def __init__(self, module: N.Module, emitted: EmitResult, library: ctypes.CDLL | None = None,
                 prefix: str = "") -> None:
        self.module = module
        self.emitted = emitted
        self.prefix = prefix
        if library is None:
            tu = _sim_text(emitted.source) + "\n// ---- msl-sim entry points\n" + "".join(
                _trampoline(k, module, emitted.kernel_names[k.name]) for k in module.kernels.values())
            library = ctypes.CDLL(str(_compile(tu)))
        self.library = library
        self._globals_keep: list[np.ndarray] = []
        self._own_globals: dict[str, int] | None = None

    @property
    def source(self) -> str:
        return self.emitted.source

    def own_globals(self) -> dict[str, int]:
        if self._own_globals is None:
            self._own_globals, self._globals_keep = allocate_globals(self.module)
        return self._own_globals

    def run(self, kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int], params: bytes,
            dynamic_shared: int = 0, *, allocations: Iterable[tuple[int, int]] = (),
            global_addrs: dict[str, int] | None = None, printf_capacity: int = 1 << 20,
            timeout_s: float = 60.0, workers: int | None = None) -> SimResult:
        k = self.module.kernels.get(kernel)
        if k is None:
            raise KeyError(f"no kernel '{kernel}' in module {self.module.filename}")
        grid = tuple(int(x) for x in grid)  # type: ignore[assignment]
        block = tuple(int(x) for x in block)  # type: ignore[assignment]
        if len(grid) != 3 or len(block) != 3 or min(grid + block) < 1:
            raise ValueError(f"grid {grid} and block {block} must be three positive sizes")
        if block[0] * block[1] * block[2] > 1024:
            raise ValueError(f"block {block} has more than 1024 threads")
        if len(params) < k.param_size:
            raise ValueError(f"kernel '{kernel}' takes {k.param_size} parameter bytes, got {len(params)}")
        gaddrs = dict(self.own_globals()) if global_addrs is None else dict(global_addrs)
        param_buf = (ctypes.c_uint8 * max(len(params), 16)).from_buffer_copy(bytes(params).ljust(16, b"\0"))
        total_shared = abi.shared_bytes(k, dynamic_shared)
        info = bytearray(abi.pack_launch_info(self.module, params_addr=ctypes.addressof(param_buf),
                                              global_addrs=gaddrs, dynamic_shared=dynamic_shared,
                                              total_shared=total_shared - abi.REDUCTION_SCRATCH))
        info_buf = (ctypes.c_uint8 * len(info)).from_buffer(info)
        ring = bytearray(abi.PRINTF_HEADER_BYTES + printf_capacity)
        struct.pack_into("<I", ring, 4, printf_capacity)
        ring_buf = (ctypes.c_uint8 * len(ring)).from_buffer(ring)
        ranges = [(int(b), int(b) + int(n)) for b, n in allocations]
        ranges.append((ctypes.addressof(param_buf), ctypes.addressof(param_buf) + len(params)))
        if global_addrs is None:
            ranges += [(v.ctypes.data, v.ctypes.data + v.size) for v in self._globals_keep]
        ranges.sort()
        allocs = (_Alloc * max(len(ranges), 1))(*[_Alloc(b, e) for b, e in ranges])
        local = self.emitted.local_bytes[kernel]
        nworkers = max(1, int(workers or os.environ.get("CUMETAL_MSL_SIM_WORKERS", 0) or os.cpu_count() or 1))
        nworkers = min(nworkers, grid[0] * grid[1] * grid[2])  # (as the header's run() does)
        stack_bytes = fiber_stack_kb() * 1024 + local
        arena = _take_arena(nworkers * block[0] * block[1] * block[2], stack_bytes)
        launch = _Launch((ctypes.c_uint32 * 3)(*grid), (ctypes.c_uint32 * 3)(*block), total_shared, local,
                         allocs, len(ranges), stack_bytes, float(timeout_s), nworkers, 0, 0, b"",
                         arena.addr, arena.stride, STACK_GUARD)
        bindings = [b for b in abi.argument_abi(k, self.module) if b.kind == "buffer"]
        by_role = {"params": param_buf, "launch_info": info_buf, "printf": ring_buf, "constant": info_buf}
        bufs = (ctypes.c_void_p * len(bindings))(*[ctypes.addressof(by_role[b.role]) for b in bindings])
        entry = getattr(self.library, f"cm_sim_entry_{self.prefix}{self.emitted.kernel_names[kernel]}")
        entry.restype = ctypes.c_int
        try:
            entry(ctypes.byref(launch), bufs)
        finally:
            _give_back(arena)
        code = launch.fault_code
        fault = codes.fault_name(code) if code else None
        text, dropped = decode_ring(bytes(ring), self.emitted.printf_formats,
                                    lambda a: _read_cstring(a, ranges))
        return SimResult(fault, int(launch.fault_addr), text, dropped,
                         launch.fault_msg.decode(errors="replace") if code else "")


def _read_cstring(addr: int, ranges: list[tuple[int, int]]) -> bytes:
    for b, e in ranges:
        if b <= addr < e:
            raw = ctypes.string_at(addr, min(e - addr, 4096))
            return raw.split(b"\0", 1)[0]
    return b"(bad address)"


def build_program(module: N.Module, fp64: str = "native") -> MslProgram:
    """Emit ``module`` as MSL and compile it for msl-sim (or reuse a batch library that already
    holds the same code: see ``prebuild``)."""
    emitted = emit_module(module, fp64=fp64)
    found = _index_lookup(_index_key(module, emitted))
    if found is not None:
        return MslProgram(module, emitted, ctypes.CDLL(str(found[0])), found[1])
    return MslProgram(module, emitted)


# ---- batch libraries and their index
# Compiling is what msl-sim spends its time on (one g++ run per module), so test sweeps compile
# many modules into one library, each in its own C++ namespace after one shared prelude. The index
# (cache_dir()/index/<key>) maps a module's emitted kernel code to the library and namespace that
# hold it, so a later ``build_program`` of an equal module — in another process, e.g. behind the
# driver API — loads the batch library instead of running g++ again. The MSL for Metal is always
# one source per module (``emit_module``).

def _body(emitted: EmitResult) -> str:
    return emitted.source[emitted.source.index("// ---- kernels"):]


def _index_key(module: N.Module, emitted: EmitResult) -> str:
    """Hash of everything a batch library's namespace depends on: the prelude variant, the kernel
    code, the prelude, the entry points (argument ABI), the simulator header and the compiler flags."""
    h = hashlib.sha256()
    h.update(b"emulate" if emitted.fp64 == "emulate" else b"native")
    # the prelude too: an edited prelude rule must not find the library built with the old one;
    # not its first line, which names the source file ("<cuModuleLoadData>" behind the driver, the
    # file name in a prebuild: with it, no prebuilt library was ever found and every module was
    # compiled twice)
    prelude_text = emitted.source[: emitted.source.index("// ---- kernels")]
    h.update(prelude_text.split("\n", 1)[1].encode() if prelude_text.startswith("// Generated") else prelude_text.encode())
    h.update(_body(emitted).encode())
    for k in module.kernels.values():
        h.update(_trampoline(k, module, emitted.kernel_names[k.name], "@").encode())
    h.update((SIM_DIR / "cumetal_msl_sim.h").read_bytes())
    h.update(CODES_HEADER.read_bytes())
    h.update(" ".join(CXXFLAGS).encode())
    return h.hexdigest()[:32]


def _index_lookup(key: str) -> tuple[Path, str] | None:
    entry = cache_dir() / "index" / key
    try:
        so_name, prefix = entry.read_text().split()
    except (OSError, ValueError):
        return None
    so = cache_dir() / so_name
    return (so, prefix) if so.exists() else None


def _index_store(key: str, so: Path, prefix: str) -> None:
    d = cache_dir() / "index"
    d.mkdir(parents=True, exist_ok=True)
    tmp = d / f".{key}.{os.getpid()}.{threading.get_ident()}"
    tmp.write_text(f"{so.name} {prefix}\n")
    os.replace(tmp, d / key)  # atomic: concurrent writers store the same content


def _batch_library(modules: list[N.Module], emitted: list[EmitResult], fp64: str) -> Path:
    from cumetal.backends.msl.prelude import prelude

    parts = [prelude("emulate" if fp64 == "emulate" else "native")]
    entries = []
    for i, (m, e) in enumerate(zip(modules, emitted, strict=True)):
        parts.append(f"namespace cmb{i} {{\n{_body(e)}\n}}  // namespace cmb{i}\n")
        entries += [_trampoline(k, m, e.kernel_names[k.name], f"cmb{i}") for k in m.kernels.values()]
    tu = _sim_text("\n".join(parts)) + "\n// ---- msl-sim entry points\n" + "".join(entries)
    so = _compile(tu)
    for i, (m, e) in enumerate(zip(modules, emitted, strict=True)):
        _index_store(_index_key(m, e), so, f"cmb{i}")
    return so


def build_batch(modules: list[N.Module], fp64: str = "native") -> list[MslProgram]:
    """Compile many modules into one library (one g++ run) and index it; the programs in order."""
    emitted = [emit_module(m, fp64=fp64) for m in modules]
    library = ctypes.CDLL(str(_batch_library(modules, emitted, fp64)))
    return [MslProgram(m, e, library, f"cmb{i}") for i, (m, e) in enumerate(zip(modules, emitted, strict=True))]


def prebuild(modules: Iterable[N.Module], fp64: str = "native", *, batch: int = 40,
             batch_bytes: int = 1 << 20, jobs: int | None = None) -> int:
    """Compile the modules not yet in the index into batch libraries of at most ``batch`` modules
    and about ``batch_bytes`` of source (g++ time grows with the source, and one huge module must
    not hold up a batch of small ones), ``jobs`` g++ runs at a time (default: the CPU count), the
    largest batches first; returns how many modules were compiled. Modules the back end cannot
    emit are skipped (``build_program`` reports them), and a batch that g++ rejects is left out of
    the index, so each of its modules is compiled (and its error reported) on its own later."""
    from concurrent.futures import ThreadPoolExecutor

    from cumetal.backends.msl.values import EmitError

    todo: list[tuple[N.Module, EmitResult]] = []
    seen: set[str] = set()
    def emitted(m: N.Module) -> list[tuple[N.Module, EmitResult]]:
        try:
            return [(m, emit_module(m, fp64=fp64))]
        except EmitError:  # the kernels that can be emitted alone (as msl-sim's device launches them)
            if len(m.kernels) < 2:
                return []
            return [x for k in m.kernels for x in emitted(dataclasses.replace(m, kernels={k: m.kernels[k]}))]

    for m in modules:
        for mm, e in emitted(m):
            key = _index_key(mm, e)
            if key not in seen and _index_lookup(key) is None:
                seen.add(key)
                todo.append((mm, e))
    todo.sort(key=lambda me: len(me[1].source), reverse=True)
    groups: list[list[tuple[N.Module, EmitResult]]] = []
    size = 0
    for me in todo:
        n = len(_body(me[1]))
        if not groups or len(groups[-1]) >= batch or size + n > batch_bytes:
            groups.append([])
            size = 0
        groups[-1].append(me)
        size += n

    def one(group: list[tuple[N.Module, EmitResult]]) -> int:
        try:
            _batch_library([m for m, _e in group], [e for _m, e in group], fp64)
        except SimCompileError:
            return 0
        return len(group)

    # g++ runs in subprocesses, so threads give real parallelism here
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        return sum(pool.map(one, groups))


def run_msl(program: MslProgram, kernel_name: str, grid: tuple[int, int, int], block: tuple[int, int, int],
            param_buffer: bytes, dynamic_shared: int = 0, **kw) -> SimResult:
    """Launch ``kernel_name`` of a compiled program; see :meth:`MslProgram.run` for the options."""
    return program.run(kernel_name, grid, block, param_buffer, dynamic_shared, **kw)

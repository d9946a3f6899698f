"""A process that used the Runtime API (CUDA IPC included) and then forks must keep a sound heap.

CUDA IPC makes an exported allocation's pages shared memory (a memfd mapped over them). Pages that
also held malloc'd host data, or that went back to malloc after cudaFree while still shared, made
a forked child's heap writes (CPython frees every other thread's state in the child) land in the
parent's heap: the parent aborted at exit ("double free or corruption") in half the runs of
``tests/runtime/test_runtime_[a-m]*.py`` followed by a fork test. These tests check the cause
directly (which pages are shared, and whether a child's writes reach the parent) in a subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "memfd_create") or not hasattr(os, "fork"),
                                reason="CUDA IPC on CuMetal needs Linux")

SCRIPT = textwrap.dedent("""
    import ctypes, mmap, os, threading
    from cumetal import runtime as rt

    PAGE = mmap.PAGESIZE

    def ok(r):
        assert r[0] == 0, rt.cudaError_t(r[0]).name
        return r[1] if len(r) == 2 else None

    def shared_ranges():
        out = []
        with open("/proc/self/maps") as f:
            for line in f:
                if "cumetal-ipc" in line and "cumetal-ipc-event" not in line:
                    lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
                    out.append((lo, hi))
        return out

    # 1. an exported allocation shares exactly its own pages, small or not
    for size in (64, 4000, 3 * PAGE + 5):
        d = ok(rt.cudaMalloc(size))
        ok(rt.cudaIpcGetMemHandle(d))
        want = (d, d + -(-size // PAGE) * PAGE)
        assert shared_ranges() == [want], (size, hex(d), shared_ranges())
        # 2. cudaFree makes them private again before malloc may reuse them
        ok(rt.cudaFree(d))
        assert shared_ranges() == [], (size, shared_ranges())

    # 3. what a forked child writes on its heap stays in the child. The freed pages are the likeliest
    #    place for new host buffers; fill them with a pattern the child overwrites.
    d = ok(rt.cudaMalloc(4000))
    ok(rt.cudaIpcGetMemHandle(d))
    lo, hi = d, d + PAGE
    ok(rt.cudaFree(d))
    # (over 512 bytes: from malloc, not from CPython's small-object arenas)
    bufs = [ctypes.create_string_buffer(b"P" * 1000, 1000) for _ in range(64)]
    inside = [b for b in bufs if lo <= ctypes.addressof(b) < hi] or bufs
    workers = [threading.Thread(target=lambda: None) for _ in range(8)]  # thread states the child frees
    for t in workers:
        t.start()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        for b in inside:
            ctypes.memset(b, ord("C"), 1000)
        os.write(write, b"done")
        os._exit(0)
    os.close(write)
    assert os.read(read, 4) == b"done"
    assert os.waitpid(pid, 0)[1] == 0
    for t in workers:
        t.join()
    assert all(b.raw == b"P" * 1000 for b in bufs), "a forked child's writes reached the parent's heap"
    # 4. a live exported allocation stays shared with its importers after the fork, and usable here
    d = ok(rt.cudaMalloc(256))
    ok(rt.cudaMemset(d, 7, 256))
    ok(rt.cudaIpcGetMemHandle(d))
    out = (ctypes.c_uint8 * 256)()
    ok(rt.cudaMemcpy(out, d, 256, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    assert bytes(out) == bytes([7]) * 256
    print("fork ok", len(inside))
""")


def test_forking_after_ipc_keeps_the_parents_heap(tmp_path) -> None:
    script = tmp_path / "fork_after_ipc.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, CUMETAL_QUIET="1", PYTHONFAULTHANDLER="1")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                          timeout=240, cwd=os.getcwd())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "fork ok" in proc.stdout
    assert "double free" not in proc.stderr and "Fatal Python error" not in proc.stderr, proc.stderr


def test_a_module_global_cannot_be_exported() -> None:
    """Only whole-page allocations (cudaMalloc) may be shared: a module's globals share pages with
    other data, so CUDA IPC refuses them with cudaErrorInvalidValue, as CUDA does for memory that
    cudaMalloc did not return."""
    from tests.runtime.conftest import KERNELS_PTX

    from cumetal import driver as cu
    from cumetal import runtime as rt

    assert rt.cudaFree(0)[0] == 0  # the primary context
    err, mod = cu.cuModuleLoadData(KERNELS_PTX.read_bytes() + b"\0")
    assert err == 0
    err, ptr, _size = cu.cuModuleGetGlobal(mod, b"counter")
    assert err == 0
    assert rt.cudaIpcGetMemHandle(int(ptr))[0] == rt.cudaError_t.cudaErrorInvalidValue
    assert cu.cuModuleUnload(mod)[0] == 0

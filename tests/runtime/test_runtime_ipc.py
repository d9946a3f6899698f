"""CUDA IPC between processes: memory handles (a kernel in another process writes the exporter's
allocation) and interprocess events (the exporter waits for a record made in the other process)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from tests.runtime.conftest import D2H, H2D, KERNELS_PTX, check

from cumetal import runtime as rt

E = rt.cudaError_t
pytestmark = pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="CUDA IPC on CuMetal needs Linux")

CHILD = textwrap.dedent("""
    import ctypes, sys, pathlib
    import numpy as np
    from cumetal import runtime as rt
    mem, evh, n = bytes.fromhex(sys.argv[1]), bytes.fromhex(sys.argv[2]), int(sys.argv[3])
    def ok(r):
        assert r[0] == 0, rt.cudaError_t(r[0]).name
        return r[1] if len(r) == 2 else None
    d = ok(rt.cudaIpcOpenMemHandle(rt.cudaIpcMemHandle_t(mem), 1))
    assert ok(rt.cudaIpcOpenMemHandle(rt.cudaIpcMemHandle_t(mem), 1)) == d  # reference counted
    ev = ok(rt.cudaIpcOpenEventHandle(rt.cudaIpcEventHandle_t(evh)))
    s = ok(rt.cudaStreamCreate())
    ok(rt.cudaStreamWaitEvent(s, ev, 0))   # the parent's record (already complete)
    lib = ok(rt.cudaLibraryLoadData(pathlib.Path(sys.argv[4]).read_text()))
    k = ok(rt.cudaLibraryGetKernel(lib, b"vector_add"))
    P = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)
    ok(rt.cudaLaunchKernel(k, ((n + 255) // 256, 1, 1), (256, 1, 1), ((d, d, d, n), P), 0, s))  # x = 2x
    ok(rt.cudaEventRecord(ev, s))
    ok(rt.cudaStreamSynchronize(s))
    ok(rt.cudaIpcCloseMemHandle(d))
    ok(rt.cudaIpcCloseMemHandle(d))
    assert rt.cudaIpcCloseMemHandle(d)[0] == rt.cudaError_t.cudaErrorInvalidValue
    print("child done")
""")


def test_memory_and_event_handles_cross_processes(tmp_path):
    n = 1000
    x = np.arange(n, dtype=np.float32)
    d = check(rt.cudaMalloc(n * 4))
    check(rt.cudaMemcpy(d, x, n * 4, H2D))
    mem = check(rt.cudaIpcGetMemHandle(d))
    flags = rt.cudaEventInterprocess | rt.cudaEventDisableTiming
    ev = check(rt.cudaEventCreateWithFlags(flags))
    evh = check(rt.cudaIpcGetEventHandle(ev))
    check(rt.cudaEventRecord(ev, 0))
    # the exporter's data survived the move into shared pages; the same process cannot open it
    np.testing.assert_array_equal(_download(d, n), x)
    assert rt.cudaIpcOpenMemHandle(mem, 1)[0] == E.cudaErrorDeviceUninitialized
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = {k: v for k, v in os.environ.items()} | {"CUMETAL_QUIET": "1"}
    proc = subprocess.Popen([sys.executable, str(script), mem.reserved.hex(), evh.reserved.hex(), str(n),
                             str(KERNELS_PTX)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=os.getcwd())
    try:
        out, err = proc.communicate(timeout=240)
    finally:
        proc.kill()
    assert proc.returncode == 0 and "child done" in out, out + err
    # the child synchronised before it exited, so its record is complete already: no waiting here
    assert rt.cudaEventQuery(ev)[0] == E.cudaSuccess
    check(rt.cudaEventSynchronize(ev))
    check(rt.cudaEventQuery(ev))
    np.testing.assert_array_equal(_download(d, n), 2 * x)
    check(rt.cudaEventDestroy(ev))
    check(rt.cudaFree(d))


def _download(d, n):
    out = np.zeros(n, np.float32)
    check(rt.cudaMemcpy(out, d, n * 4, D2H))
    return out


def test_device_reports_ipc_events():
    attr = rt.cudaDeviceAttr.cudaDevAttrIpcEventSupport
    assert check(rt.cudaDeviceGetAttribute(attr, 0)) == 1
    assert check(rt.cudaGetDeviceProperties(0)).ipcEventSupported == 1


def test_bad_ipc_arguments_get_cuda_codes():
    assert rt.cudaIpcOpenMemHandle(rt.cudaIpcMemHandle_t(b"garbage"), 1)[0] == E.cudaErrorInvalidValue
    assert rt.cudaIpcOpenEventHandle(rt.cudaIpcEventHandle_t(b"\0" * 64))[0] == E.cudaErrorInvalidValue
    assert rt.cudaIpcGetMemHandle(12345)[0] == E.cudaErrorInvalidValue
    assert rt.cudaIpcCloseMemHandle(12345)[0] == E.cudaErrorInvalidValue
    plain = check(rt.cudaEventCreate())
    assert rt.cudaIpcGetEventHandle(plain)[0] == E.cudaErrorInvalidResourceHandle  # not cudaEventInterprocess
    assert rt.cudaIpcGetEventHandle(777)[0] == E.cudaErrorInvalidResourceHandle
    d = check(rt.cudaMalloc(64))
    mem = check(rt.cudaIpcGetMemHandle(d))
    assert rt.cudaIpcOpenMemHandle(mem, 8)[0] == E.cudaErrorInvalidValue  # unknown flags
    # a handle naming a process that is gone
    data = bytearray(mem.reserved)
    data[12:16] = (2**31 - 5).to_bytes(4, "little")
    assert rt.cudaIpcOpenMemHandle(rt.cudaIpcMemHandle_t(bytes(data)), 1)[0] == E.cudaErrorMapBufferObjectFailed
    check(rt.cudaFree(d))

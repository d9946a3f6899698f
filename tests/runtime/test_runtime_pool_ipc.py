"""Memory pools shared between processes: a pool made with cudaMemHandleTypePosixFileDescriptor, its
descriptor handed to a child process (as a UNIX socket would), an allocation exported by
cudaMemPoolExportPointer and imported there; a kernel in the child doubles the parent's data."""

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
pytestmark = pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="shareable pools on CuMetal need Linux")
POSIX_FD = rt.cudaMemAllocationHandleType.cudaMemHandleTypePosixFileDescriptor

CHILD = textwrap.dedent("""
    import ctypes, sys, pathlib
    from cumetal import runtime as rt
    E = rt.cudaError_t
    fd, data, n = int(sys.argv[1]), bytes.fromhex(sys.argv[2]), int(sys.argv[3])
    def ok(r):
        assert r[0] == 0, rt.cudaError_t(r[0]).name
        return r[1] if len(r) == 2 else None
    H = rt.cudaMemAllocationHandleType.cudaMemHandleTypePosixFileDescriptor
    pool = ok(rt.cudaMemPoolImportFromShareableHandle(fd, H, 0))
    s = ok(rt.cudaStreamCreate())
    assert rt.cudaMallocFromPoolAsync(64, pool, s)[0] == E.cudaErrorInvalidValue   # imported: no allocations
    assert rt.cudaDeviceSetMemPool(0, pool)[0] == E.cudaErrorInvalidValue
    d = ok(rt.cudaMemPoolImportPointer(pool, rt.cudaMemPoolPtrExportData(data)))
    props = rt.cudaMemPoolProps()
    props.allocType, props.handleTypes, props.location.type, props.location.id = 1, 1, 1, 0
    other = ok(rt.cudaMemPoolCreate(props))
    assert rt.cudaMemPoolImportPointer(other, rt.cudaMemPoolPtrExportData(data))[0] == E.cudaErrorInvalidValue
    lib = ok(rt.cudaLibraryLoadData(pathlib.Path(sys.argv[4]).read_text()))
    k = ok(rt.cudaLibraryGetKernel(lib, b"vector_add"))
    P = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)
    ok(rt.cudaLaunchKernel(k, ((n + 255) // 256, 1, 1), (256, 1, 1), ((d, d, d, n), P), 0, s))  # x = 2x
    ok(rt.cudaFreeAsync(d, s))
    ok(rt.cudaStreamSynchronize(s))
    assert rt.cudaFree(d)[0] == E.cudaErrorInvalidValue   # already freed
    ok(rt.cudaMemPoolDestroy(pool))
    print("child done")
""")


def _props(handle_types):
    props = rt.cudaMemPoolProps()
    props.allocType = rt.cudaMemAllocationType.cudaMemAllocationTypePinned
    props.handleTypes = handle_types
    props.location.type = rt.cudaMemLocationType.cudaMemLocationTypeDevice
    props.location.id = 0
    return props


def test_pool_allocation_shared_with_a_child_process(tmp_path):
    assert check(rt.cudaDeviceGetAttribute(rt.cudaDeviceAttr.cudaDevAttrMemoryPoolSupportedHandleTypes, 0)) == POSIX_FD
    n = 3000
    x = np.arange(n, dtype=np.float32) - 7.5
    pool = check(rt.cudaMemPoolCreate(_props(POSIX_FD)))
    s = check(rt.cudaStreamCreate())
    d = check(rt.cudaMallocFromPoolAsync(n * 4, pool, s))
    check(rt.cudaMemcpyAsync(d, x, n * 4, H2D, s))
    check(rt.cudaStreamSynchronize(s))
    fd = check(rt.cudaMemPoolExportToShareableHandle(pool, POSIX_FD, 0))
    data = check(rt.cudaMemPoolExportPointer(d))
    assert rt.sizeof(rt.cudaMemPoolPtrExportData) == 64
    # the same process cannot import into its own (non-imported) pool
    assert rt.cudaMemPoolImportPointer(pool, data)[0] == E.cudaErrorInvalidValue
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ, CUMETAL_QUIET="1")
    proc = subprocess.Popen([sys.executable, str(script), str(fd), data.reserved.hex(), str(n), str(KERNELS_PTX)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, pass_fds=(fd,))
    try:
        out, err = proc.communicate(timeout=240)
    finally:
        proc.kill()
        os.close(fd)
    assert proc.returncode == 0 and "child done" in out, out + err
    got = np.zeros(n, np.float32)
    check(rt.cudaMemcpy(got, d, n * 4, D2H))
    np.testing.assert_array_equal(got, 2 * x)
    used = rt.cudaMemPoolAttr.cudaMemPoolAttrUsedMemCurrent
    assert int(check(rt.cudaMemPoolGetAttribute(pool, used))) == n * 4
    check(rt.cudaFreeAsync(d, s))
    assert int(check(rt.cudaMemPoolGetAttribute(pool, used))) == 0
    check(rt.cudaStreamSynchronize(s))
    check(rt.cudaMemPoolDestroy(pool))


def test_shareable_pool_bad_input():
    plain = check(rt.cudaMemPoolCreate(_props(0)))
    assert rt.cudaMemPoolExportToShareableHandle(plain, POSIX_FD, 0)[0] == E.cudaErrorInvalidValue
    win32 = rt.cudaMemAllocationHandleType.cudaMemHandleTypeWin32
    assert rt.cudaMemPoolCreate(_props(win32))[0] == E.cudaErrorNotSupported
    pool = check(rt.cudaMemPoolCreate(_props(POSIX_FD)))
    assert rt.cudaMemPoolExportToShareableHandle(pool, win32, 0)[0] == E.cudaErrorNotSupported
    assert rt.cudaMemPoolExportToShareableHandle(pool, POSIX_FD, 1)[0] == E.cudaErrorInvalidValue
    d = check(rt.cudaMalloc(256))
    assert rt.cudaMemPoolExportPointer(d)[0] == E.cudaErrorInvalidValue  # not from a shareable pool
    check(rt.cudaFree(d))
    r, w = os.pipe()
    try:
        for handle in (r, -1, 2**40, "fd"):
            assert rt.cudaMemPoolImportFromShareableHandle(handle, POSIX_FD, 0)[0] == E.cudaErrorInvalidValue
    finally:
        os.close(r), os.close(w)
    fd = check(rt.cudaMemPoolExportToShareableHandle(pool, POSIX_FD, 0))
    imported = check(rt.cudaMemPoolImportFromShareableHandle(fd, POSIX_FD, 0))
    os.close(fd)
    for junk in (b"\0" * 64, rt.cudaMemPoolPtrExportData(b"x" * 64), None, 3.5):
        assert rt.cudaMemPoolImportPointer(imported, junk)[0] == E.cudaErrorInvalidValue
    # memory of a shareable pool is ordinary device memory to cudaFree
    p = check(rt.cudaMallocFromPoolAsync(5000, pool, 0))
    check(rt.cudaMemset(p, 0x5A, 5000))
    got = np.zeros(5000, np.uint8)
    check(rt.cudaMemcpy(got, p, 5000, D2H))
    assert (got == 0x5A).all()
    check(rt.cudaFree(p))
    for h in (imported, pool, plain):
        check(rt.cudaMemPoolDestroy(h))

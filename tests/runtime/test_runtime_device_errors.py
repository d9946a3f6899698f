"""Device management, versions, limits, flags and the error functions of the Runtime API."""

from __future__ import annotations

import os
import threading

import pytest
from tests.runtime.conftest import check

from cumetal import driver as cu
from cumetal import runtime as rt

E = rt.cudaError_t
A = rt.cudaDeviceAttr


def _on_cpu() -> bool:
    """Whether the default device is the CPU engine (CUMETAL_BACKEND unset, cpu or cpu-jit)."""
    return (os.environ.get("CUMETAL_BACKEND", "").strip().lower() or "cpu") in ("cpu", "cpu-jit")


def test_device_count_set_get():
    assert rt.cudaGetDeviceCount() == (E.cudaSuccess, 1)
    assert rt.cudaSetDevice(0) == (E.cudaSuccess,)
    assert rt.cudaGetDevice() == (E.cudaSuccess, 0)
    assert rt.cudaSetDevice(1) == (E.cudaErrorInvalidDevice,)
    assert rt.cudaSetDevice(-1) == (E.cudaErrorInvalidDevice,)
    assert rt.cudaGetLastError() == (E.cudaErrorInvalidDevice,)
    assert rt.cudaGetLastError() == (E.cudaSuccess,)


def test_properties_agree_with_the_driver_attributes():
    p = check(rt.cudaGetDeviceProperties(0))
    check(cu.cuInit(0))

    def drv(attr):
        return check(cu.cuDeviceGetAttribute(attr, 0))

    D = cu.CUdevice_attribute
    assert p.name.decode() == check(cu.cuDeviceGetName(256, 0)).split(b"\0")[0].decode()
    assert p.totalGlobalMem == check(cu.cuDeviceTotalMem(0))
    assert p.warpSize == 32 == drv(D.CU_DEVICE_ATTRIBUTE_WARP_SIZE)
    assert p.maxThreadsPerBlock == drv(D.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
    assert p.maxThreadsDim == [drv(D.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X), drv(D.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                               drv(D.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)]
    assert p.maxGridSize == [2**31 - 1, 65535, 65535]
    assert (p.major, p.minor) == check(cu.cuDeviceComputeCapability(0))
    assert p.sharedMemPerBlock == drv(D.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)
    assert p.multiProcessorCount == drv(D.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
    assert p.unifiedAddressing == p.managedMemory == p.canMapHostMemory == 1
    # the cpu device co-schedules blocks (cooperative grids); air-sim/msl-sim do not (docs/known-gaps.md)
    assert p.cooperativeLaunch == drv(D.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH) == int(_on_cpu())
    assert p.concurrentKernels == 0
    assert len(p.uuid.bytes) == 16 and p.uuid.bytes != bytes(16)
    # the C struct is CUDA 13's (sizeof 1008 on LP64) and getPtr() points at it
    assert rt.sizeof(rt.cudaDeviceProp) == 1008
    import ctypes

    assert ctypes.string_at(p.getPtr(), 5) == p.name[:5]


def test_properties_have_every_cuda_bindings_field():
    real = pytest.importorskip("cuda.bindings.runtime")
    fields = [a for a in dir(real.cudaDeviceProp()) if not a.startswith("_") and a != "getPtr"]
    ours = check(rt.cudaGetDeviceProperties(0))
    missing = [f for f in fields if not hasattr(ours, f)]
    assert not missing


def test_device_attribute_matches_properties():
    p = check(rt.cudaGetDeviceProperties(0))
    assert rt.cudaDeviceGetAttribute(A.cudaDevAttrMaxThreadsPerBlock, 0) == (E.cudaSuccess, p.maxThreadsPerBlock)
    assert check(rt.cudaDeviceGetAttribute(A.cudaDevAttrComputeCapabilityMajor, 0)) == p.major
    assert check(rt.cudaDeviceGetAttribute(A.cudaDevAttrMultiProcessorCount, 0)) == p.multiProcessorCount
    # the cpu device co-schedules blocks: cooperative grids (grid.sync) and clusters run on it; the
    # Apple targets' simulators do not (docs/known-gaps.md), and say so
    assert check(rt.cudaDeviceGetAttribute(A.cudaDevAttrCooperativeLaunch, 0)) == p.cooperativeLaunch == int(_on_cpu())
    assert check(rt.cudaDeviceGetAttribute(A.cudaDevAttrClusterLaunch, 0)) == p.clusterLaunch == int(_on_cpu())
    assert rt.cudaDeviceGetAttribute(A.cudaDevAttrWarpSize, 3) == (E.cudaErrorInvalidDevice, None)
    assert rt.cudaDeviceGetAttribute(99999, 0) == (E.cudaErrorInvalidValue, None)


def test_versions():
    assert rt.cudaRuntimeGetVersion() == (E.cudaSuccess, 13000)
    drv = check(rt.cudaDriverGetVersion())
    assert drv >= check(rt.cudaRuntimeGetVersion())


def test_limits():
    L = rt.cudaLimit
    assert check(rt.cudaDeviceGetLimit(L.cudaLimitPrintfFifoSize)) == 1 << 20
    assert check(rt.cudaDeviceGetLimit(L.cudaLimitStackSize)) == 1024
    check(rt.cudaDeviceSetLimit(L.cudaLimitMallocHeapSize, 64 << 20))
    assert check(rt.cudaDeviceGetLimit(L.cudaLimitMallocHeapSize)) == 64 << 20
    check(rt.cudaDeviceSetLimit(L.cudaLimitStackSize, 4096))
    assert check(rt.cudaDeviceGetLimit(L.cudaLimitStackSize)) == 4096
    assert rt.cudaDeviceSetLimit(L.cudaLimitDevRuntimeSyncDepth, 4) == (E.cudaErrorUnsupportedLimit,)
    assert rt.cudaDeviceGetLimit(1234) == (E.cudaErrorUnsupportedLimit, None)


def test_flags_cache_config_and_peers():
    check(rt.cudaSetDeviceFlags(rt.cudaDeviceScheduleBlockingSync | rt.cudaDeviceMapHost))
    assert check(rt.cudaGetDeviceFlags()) & rt.cudaDeviceScheduleBlockingSync
    assert rt.cudaSetDeviceFlags(0x10000) == (E.cudaErrorInvalidValue,)
    check(rt.cudaDeviceSetCacheConfig(rt.cudaFuncCache.cudaFuncCachePreferShared))
    assert check(rt.cudaDeviceGetCacheConfig()) == rt.cudaFuncCache.cudaFuncCachePreferShared
    assert rt.cudaDeviceCanAccessPeer(0, 0) == (E.cudaSuccess, 0)
    assert rt.cudaDeviceCanAccessPeer(0, 1) == (E.cudaErrorInvalidDevice, None)
    assert rt.cudaDeviceEnablePeerAccess(0, 0) == (E.cudaErrorInvalidDevice,)
    assert check(rt.cudaDeviceGetStreamPriorityRange()) == (0, 0)
    check(rt.cudaProfilerStart())
    check(rt.cudaProfilerStop())


def test_error_names_and_strings():
    assert rt.cudaGetErrorName(E.cudaErrorMemoryAllocation) == (E.cudaSuccess, b"cudaErrorMemoryAllocation")
    assert rt.cudaGetErrorString(E.cudaErrorIllegalAddress) == (E.cudaSuccess,
                                                                  b"an illegal memory access was encountered")
    assert rt.cudaGetErrorString(E.cudaSuccess)[1] == b"no error"
    assert rt.cudaGetErrorString(E.cudaErrorAssert)[1] == b"device-side assert triggered"
    assert rt.cudaGetErrorString(123456)[1] == b"unrecognized error code"


def test_last_error_is_per_thread_and_peek_does_not_clear():
    assert rt.cudaMalloc(-5)[0] == E.cudaErrorInvalidValue
    seen = {}

    def other():
        seen["other"] = rt.cudaPeekAtLastError()[0]

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert seen["other"] == E.cudaSuccess
    assert rt.cudaPeekAtLastError() == (E.cudaErrorInvalidValue,)
    assert rt.cudaPeekAtLastError() == (E.cudaErrorInvalidValue,)
    assert rt.cudaGetLastError() == (E.cudaErrorInvalidValue,)
    assert rt.cudaGetLastError() == (E.cudaSuccess,)
    check(rt.cudaDeviceSynchronize())  # a success does not touch the last error ...
    assert rt.cudaMalloc("x")[0] == E.cudaErrorInvalidValue
    check(rt.cudaDeviceSynchronize())
    assert rt.cudaGetLastError() == (E.cudaErrorInvalidValue,)  # ... a later success keeps it


def test_device_reset_frees_memory():
    before = check(rt.cudaMemGetInfo())[0]
    check(rt.cudaMalloc(1 << 20))
    assert check(rt.cudaMemGetInfo())[0] == before - (1 << 20)
    check(rt.cudaDeviceReset())
    assert check(rt.cudaMemGetInfo())[0] == before


def test_error_logs_keep_every_explained_failure(tmp_path):
    start = check(rt.cudaLogsCurrent(0))
    seen = []
    handle = check(rt.cudaLogsRegisterCallback(lambda data, level, msg, n: seen.append((data, level, msg)), "tag"))
    assert rt.cudaFree(12345) == (E.cudaErrorInvalidValue,)
    assert rt.cudaSetDevice(7) == (E.cudaErrorInvalidDevice,)
    buf = bytearray(4096)
    it, n = check(rt.cudaLogsDumpToMemory(start, buf, len(buf), 0))
    text = bytes(buf[:n]).decode()
    assert text.splitlines()[0].startswith("[cudaFree] cudaErrorInvalidValue: 0x3039 was not returned")
    assert "[cudaSetDevice] cudaErrorInvalidDevice" in text and buf[n] == 0
    assert check(rt.cudaLogsDumpToMemory(it, buf, len(buf), 0))[1] == 0  # the iterator advanced
    assert [(d, lvl) for d, lvl, _m in seen] == [("tag", rt.cudaLogLevel.cudaLogLevelError)] * 2
    check(rt.cudaLogsUnregisterCallback(handle))
    rt.cudaFree(1)
    assert len(seen) == 2
    path = tmp_path / "log.txt"
    check(rt.cudaLogsDumpToFile(it, str(path), 0))
    assert path.read_text().startswith("[cudaFree]")
    assert rt.cudaLogsUnregisterCallback(handle) == (E.cudaErrorInvalidValue,)


def test_driver_entry_points_are_looked_up_in_the_process(tmp_path):
    import ctypes
    import subprocess
    import sys

    Q = rt.cudaDriverEntryPointQueryResult
    assert rt.cudaGetDriverEntryPoint(b"malloc", 0) == (E.cudaSuccess, 0, Q.cudaDriverEntryPointSymbolNotFound)
    assert rt.cudaGetDriverEntryPointByVersion(b"cuInit", 99000, 0)[2] == Q.cudaDriverEntryPointVersionNotSufficent
    src = tmp_path / "drv.c"
    src.write_text("int cuCumetalTestEntry(void) { return 42; }\n")
    lib = tmp_path / "libdrv.so"
    import shutil

    cc = [shutil.which("cc") or shutil.which("gcc")] if (shutil.which("cc") or shutil.which("gcc")) else \
        [sys.executable, "-m", "ziglang", "cc"]  # zig's first build of its libc takes minutes: a fallback
    r = subprocess.run([*cc, "-shared", "-fPIC", "-o", str(lib), str(src)], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        pytest.skip(f"no C compiler: {r.stderr[-200:]}")
    ctypes.CDLL(str(lib), mode=ctypes.RTLD_GLOBAL)  # as libcumetal is, in a program built by cumetalc
    err, ptr, status = rt.cudaGetDriverEntryPoint(b"cuCumetalTestEntry", 0)
    assert err == E.cudaSuccess and status == Q.cudaDriverEntryPointSuccess
    assert ctypes.CFUNCTYPE(ctypes.c_int)(ptr)() == 42


def test_batch_prefetch_and_discard():
    m = check(rt.cudaMallocManaged(8192, rt.cudaMemAttachGlobal))
    dev = rt.cudaMemLocation()
    dev.type, dev.id = rt.cudaMemLocationType.cudaMemLocationTypeDevice, 0
    s = check(rt.cudaStreamCreate())
    check(rt.cudaMemPrefetchBatchAsync([m, m + 4096], [4096, 4096], 2, [dev], [0], 1, 0, s))
    RA = rt.cudaMemRangeAttribute
    assert check(rt.cudaMemRangeGetAttribute(4, RA.cudaMemRangeAttributeLastPrefetchLocation, m, 16)) == 0
    check(rt.cudaMemDiscardBatchAsync([m], [8192], 1, 0, s))
    check(rt.cudaMemDiscardAndPrefetchBatchAsync([m], [8192], 1, [dev], [0], 1, 0, s))
    assert rt.cudaMemPrefetchBatchAsync([m], [16384], 1, [dev], [0], 1, 0, s) == (E.cudaErrorInvalidValue,)
    assert rt.cudaMemPrefetchBatchAsync([m], [16], 1, [dev], [1], 1, 0, s) == (E.cudaErrorInvalidValue,)

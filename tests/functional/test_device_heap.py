"""CUDA's device heap (malloc/free, new/delete, virtual destructors): the cpu backend's own heap, and
on air-sim, msl-sim and Metal (this suite also runs there: tests/air, tests/msl, tests/metal) the
allocator written as device code (backends/apple/heap.ptx). Another engine would refuse such a
kernel at launch, naming the device heap."""

from __future__ import annotations

import ctypes
import os
import pathlib

import numpy as np
import pytest
from functional_harness import ok

from cumetal import driver as cu
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions

SOURCE = pathlib.Path(__file__).with_name("kernels") / "device_heap.cu"
# the backends with a device heap (cpu-jit: on the numpy engine)
HEAP = os.environ.get("CUMETAL_BACKEND", "cpu") in ("cpu", "cpu-jit", "air-sim", "msl-sim", "metal")
U64 = ctypes.c_ulonglong


@pytest.fixture(scope="module")
def ptx() -> str:
    return compile_to_ptx(SOURCE.read_text(), SOURCE.name, CudaOptions()).ptx


def _kernel(ptx: str, name: str):
    return ok(cu.cuModuleGetFunction(ok(cu.cuModuleLoadData(ptx.encode())), name.encode()))


def _refused(gpu, fn, grid, block, args) -> None:
    err = gpu.launch(fn, grid, block, args)
    sync, = cu.cuCtxSynchronize()
    assert cu.CUresult.CUDA_SUCCESS != (sync if err == cu.CUresult.CUDA_SUCCESS else err)
    assert "device heap" in cu.last_error_message()


def test_malloc_and_free_per_thread(gpu, ptx):
    d = gpu.zeros(64, np.int32)
    fn, args = _kernel(ptx, "per_thread_buffers"), [(d, None), (10, ctypes.c_int)]
    if not HEAP:
        return _refused(gpu, fn, (2,), (32,), args)
    gpu.run(fn, (2,), (32,), args)
    assert gpu.from_device(d, 64, np.int32).tolist() == [10 * t + 45 for t in range(64)]


def test_new_and_delete_through_a_virtual_destructor(gpu, ptx):
    objs, d = gpu.zeros(32, np.uint64), gpu.zeros(32, np.int32)
    if not HEAP:
        return _refused(gpu, _kernel(ptx, "make_objects"), (1,), (32,), [(objs, None)])
    gpu.run(_kernel(ptx, "make_objects"), (1,), (32,), [(objs, None)])
    assert len(set(gpu.from_device(objs, 32, np.uint64).tolist())) == 32
    gpu.run(_kernel(ptx, "use_objects"), (1,), (32,), [(objs, None), (d, None)])
    assert gpu.from_device(d, 32, np.int32).tolist() == [t * (t + 1) for t in range(32)]


def test_malloc_returns_null_when_the_heap_is_full(gpu, ptx):
    heap = ok(cu.cuCtxGetLimit(cu.CUlimit.CU_LIMIT_MALLOC_HEAP_SIZE))
    assert heap == 8 << 20  # CUDA's default
    ptrs = gpu.zeros(8, np.uint64)
    if not HEAP:
        return _refused(gpu, _kernel(ptx, "leak"), (1,), (8,), [(heap // 4, U64), (ptrs, None)])
    gpu.run(_kernel(ptx, "leak"), (1,), (8,), [(heap // 4, U64), (ptrs, None)])
    got = gpu.from_device(ptrs, 8, np.uint64)
    assert np.count_nonzero(got) == 4  # four quarters fit, the other four get NULL
    live = sorted(int(p) for p in got if p)
    assert all(b - a >= heap // 4 for a, b in zip(live, live[1:], strict=False))  # no overlap
    gpu.run(_kernel(ptx, "release"), (1,), (8,), [(ptrs, None)])  # free(NULL) is fine too
    gpu.run(_kernel(ptx, "leak"), (1,), (1,), [(heap, U64), (ptrs, None)])  # all freed and merged again
    assert gpu.from_device(ptrs, 1, np.uint64)[0] != 0
    gpu.run(_kernel(ptx, "release"), (1,), (1,), [(ptrs, None)])

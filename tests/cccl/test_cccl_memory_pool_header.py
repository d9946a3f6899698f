"""CCCL 3.5's ``<cuda/memory_pool>`` and ``<cuda/buffer>`` (which CUB's own examples reach through
``cub/test/test_util.h``) name CUDA 13's managed-pool enumerators ``CU_MEM_LOCATION_TYPE_NONE`` and
``CU_MEM_ALLOCATION_TYPE_MANAGED`` and CUDA 13.3's pool attributes ``CU_MEMPOOL_ATTR_LOCATION_TYPE``/
``_ID``; CuMetal's ``cuda.h`` lacked them and the device compile failed. The values asserted are those
of CUDA 13.0's ``cuda.h`` on the H100 (``CU_MEM_LOCATION_TYPE_NONE = 0x0``,
``CU_MEM_ALLOCATION_TYPE_MANAGED = 0x2``), read there by ``grep`` in the run that made the reference
outputs of ``scripts/run_cccl_examples.py``."""

from __future__ import annotations

import pytest
from tests.cccl.cccl_install import SKIP_REASON, cccl_include

from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions

SOURCE = r"""
#include <cuda/memory_pool>
#include <cuda/buffer>
#include <cuda.h>
static_assert(CU_MEM_LOCATION_TYPE_NONE == 0 && CU_MEM_LOCATION_TYPE_DEVICE == 1, "as CUDA 13.0's cuda.h");
static_assert(CU_MEM_ALLOCATION_TYPE_PINNED == 1 && CU_MEM_ALLOCATION_TYPE_MANAGED == 2, "as CUDA 13.0's cuda.h");
static_assert(CU_MEMPOOL_ATTR_LOCATION_TYPE != CU_MEMPOOL_ATTR_LOCATION_ID, "distinct attributes");
__global__ void fill(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}
"""


def test_cccl_memory_pool_and_buffer_headers_compile() -> None:
    cccl = cccl_include()
    if cccl is None:
        pytest.skip(SKIP_REASON)
    ptx = compile_to_ptx(SOURCE, "pool.cu", CudaOptions(include_dirs=[str(cccl)])).ptx
    assert ".entry _Z4fillPii" in ptx

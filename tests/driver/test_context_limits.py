"""Context limits belong to a context: what one context sets is not what the next one starts with."""

from __future__ import annotations

from tests.driver.conftest import check

from cumetal import driver as cu

L = cu.CUlimit


def setup_module():
    assert cu.cuInit(0)[0] == 0


def test_a_new_context_starts_from_cuda_defaults():
    a = check(cu.cuCtxCreate(None, 0, cu.CUdevice(0)))
    check(cu.cuCtxSetLimit(L.CU_LIMIT_PRINTF_FIFO_SIZE, 4096))
    check(cu.cuCtxSetLimit(L.CU_LIMIT_STACK_SIZE, 4096))
    assert check(cu.cuCtxGetLimit(L.CU_LIMIT_PRINTF_FIFO_SIZE)) == 4096
    b = check(cu.cuCtxCreate(None, 0, cu.CUdevice(0)))  # current now
    assert check(cu.cuCtxGetLimit(L.CU_LIMIT_PRINTF_FIFO_SIZE)) == 1 << 20  # CUDA's defaults
    assert check(cu.cuCtxGetLimit(L.CU_LIMIT_STACK_SIZE)) == 1024
    assert check(cu.cuCtxGetLimit(L.CU_LIMIT_MALLOC_HEAP_SIZE)) == 8 << 20
    check(cu.cuCtxDestroy(b))
    assert check(cu.cuCtxGetLimit(L.CU_LIMIT_STACK_SIZE)) == 4096  # a's own, again current
    check(cu.cuCtxDestroy(a))

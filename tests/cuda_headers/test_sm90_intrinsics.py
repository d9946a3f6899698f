"""The sm_90 cluster functions (``__isClusterShared``, ``__cluster_map_shared_rank``, ``__clusterDim``,
``__cluster_barrier_*``…) and ``__isGridConstant``, run on CuMetal's CPU backend (clusters run there)
and checked against what the CUDA C++ Programming Guide says each returns. libcu++ (NVIDIA's CCCL 3)
calls ``__isClusterShared``; it was missing."""

from __future__ import annotations

import ctypes

import numpy as np

from cumetal import driver as cu

COLS = 14


class Params(ctypes.Structure):
    _fields_ = [("v", ctypes.c_int * 8)]


def test_cluster_functions_and_grid_constant(gpu):
    gpu.load("sm90_cluster.cu", arch="sm_90")
    blocks, threads = 6, 8
    out = gpu.to_device(np.zeros(blocks * threads * COLS, np.uint32))
    glob = gpu.to_device(np.zeros(4, np.int32))
    args = [(out, None), (glob, None), (Params(), Params)]
    err, clusters = cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 0)
    if not clusters:  # Apple targets (air-sim, msl-sim, metal): the __cluster_dims__(2) kernel is refused
        assert err == cu.CUresult.CUDA_SUCCESS
        assert gpu.launch("cluster_functions", (blocks,), (threads,), args)[0] == cu.CUresult.CUDA_ERROR_NOT_SUPPORTED
        return
    gpu.run("cluster_functions", (blocks,), (threads,), args)
    rows = gpu.from_device(out, np.zeros(blocks * threads * COLS, np.uint32)).reshape(blocks, threads, COLS)
    for b in range(blocks):
        rank, other = b % 2, b ^ 1
        for t in range(threads):
            expected = [1, 0, 1, rank ^ 1, 1, 2, rank, blocks // 2, b // 2, 2, rank, 100 * other + t % 4, 1, 0]
            assert list(rows[b, t]) == expected, (b, t)

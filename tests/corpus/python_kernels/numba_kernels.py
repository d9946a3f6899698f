"""numba-cuda kernels for the PTX corpus (compiled by scripts/make_ptx_corpus.py with compile_ptx).

Kernels only; no cuda.fp16 (its PTX lists the linked extern helpers in a different order on every
run, which would make the corpus non-reproducible); no @cuda.jit(device=True) callees, because compile_ptx asks for a real GPU to link
those. Each 1-D array argument becomes 7 .params in the PTX (meminfo, parent, nitems, itemsize, data,
shape, strides).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from numba import cuda, float32, float64, int32, int64, uint32, uint64, void


@dataclass
class Case:
    name: str
    fn: Any
    sig: Any
    cc: tuple[int, int] = (8, 0)
    options: dict[str, Any] = field(default_factory=dict)


def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def matmul_shared(A, B, C):
    TPB = 16
    sA = cuda.shared.array(shape=(16, 16), dtype=float32)
    sB = cuda.shared.array(shape=(16, 16), dtype=float32)
    x, y = cuda.grid(2)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    acc = float32(0.0)
    for i in range((A.shape[1] + TPB - 1) // TPB):
        sA[ty, tx] = A[x, ty + i * TPB] if x < A.shape[0] and ty + i * TPB < A.shape[1] else 0.0
        sB[ty, tx] = B[tx + i * TPB, y] if y < B.shape[1] and tx + i * TPB < B.shape[0] else 0.0
        cuda.syncthreads()
        for j in range(TPB):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if x < C.shape[0] and y < C.shape[1]:
        C[x, y] = acc


def histogram(data, bins):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < data.size:
        cuda.atomic.add(bins, data[i] % bins.size, 1)
        i += stride


def block_reduce(inp, out):
    s = cuda.shared.array(256, float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = inp[i] if i < inp.size else 0.0
    cuda.syncthreads()
    k = 128
    while k > 0:
        if t < k:
            s[t] += s[t + k]
        cuda.syncthreads()
        k //= 2
    if t == 0:
        cuda.atomic.add(out, 0, s[0])


def math_funcs(x, y):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        y[i] = math.exp(v) + math.sin(v) * math.cos(v) + math.log(abs(v) + 1.0) + math.sqrt(abs(v)) + \
            math.tanh(v) + math.atan2(v, 2.0) + math.pow(abs(v), 0.3) + math.erf(v) + math.floor(v)


def warp_ops(x, out):
    i = cuda.grid(1)
    v = x[i]
    for o in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, o)
    m = cuda.ballot_sync(0xFFFFFFFF, x[i] > 0)
    a = cuda.all_sync(0xFFFFFFFF, x[i] != 0)
    w = cuda.shfl_xor_sync(0xFFFFFFFF, x[i], 1) + cuda.shfl_sync(0xFFFFFFFF, x[i], 0)
    out[i] = v + cuda.popc(m) + a + w + cuda.laneid + cuda.activemask()


def atomics_mixed(i32, u64, f32, f64):
    i = cuda.grid(1)
    cuda.atomic.max(i32, 0, i)
    cuda.atomic.min(i32, 1, -i)
    cuda.atomic.compare_and_swap(i32[2:], 0, i)
    cuda.atomic.exch(i32, 3, i)
    cuda.atomic.inc(u64, 0, uint64(1000))
    cuda.atomic.and_(u64, 1, uint64(i))
    cuda.atomic.or_(u64, 2, uint64(i))
    cuda.atomic.xor(u64, 3, uint64(i))
    cuda.atomic.add(f32, 0, float32(i) * 0.5)
    cuda.atomic.max(f64, 0, float64(i))
    cuda.atomic.sub(f64, 1, 1.0)


def stencil_3d(a, b):
    x, y, z = cuda.grid(3)
    nx, ny, nz = a.shape
    if 0 < x < nx - 1 and 0 < y < ny - 1 and 0 < z < nz - 1:
        b[x, y, z] = (a[x - 1, y, z] + a[x + 1, y, z] + a[x, y - 1, z] + a[x, y + 1, z] + a[x, y, z - 1] +
                      a[x, y, z + 1]) / 6.0


def local_sort(x):
    i = cuda.grid(1)
    buf = cuda.local.array(8, int32)
    for k in range(8):
        buf[k] = x[i * 8 + k]
    for p in range(8):
        for q in range(7 - p):
            if buf[q] > buf[q + 1]:
                buf[q], buf[q + 1] = buf[q + 1], buf[q]
    for k in range(8):
        x[i * 8 + k] = buf[k]


def bit_intrinsics(u, out):
    i = cuda.grid(1)
    v = u[i]
    out[i] = cuda.popc(v) + cuda.clz(v) + cuda.ffs(v) + cuda.brev(v) + cuda.fma(float32(v), 2.0, 1.0) + \
        cuda.cbrt(float32(v)) + cuda.selp(v > 10, 1, 2)


def fence_and_flags(data, flag):
    i = cuda.grid(1)
    data[i] = i
    cuda.threadfence()
    if cuda.threadIdx.x == 0:
        cuda.atomic.add(flag, 0, 1)
    cuda.threadfence_block()
    cuda.syncthreads()
    if cuda.syncthreads_or(1 if data[i] < 0 else 0):
        data[i] = -1


def complex_mul(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] * b[i] + abs(a[i])


def int64_div(a, b, q):
    i = cuda.grid(1)
    if i < q.size and b[i] != 0:
        q[i] = a[i] // b[i] + a[i] % b[i]


def dynamic_shared(x):
    s = cuda.shared.array(0, dtype=float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    cuda.syncthreads()
    x[t] = s[cuda.blockDim.x - 1 - t]


def device_only(x, y):  # compiled with device=True: a .func with the C-like ABI
    return x * y + math.sqrt(x)


F32 = float32[:]
CASES = [
    Case("saxpy", saxpy, void(float32, F32, F32, F32)),
    Case("saxpy_sm75", saxpy, void(float32, F32, F32, F32), cc=(7, 5)),
    Case("saxpy_sm90", saxpy, void(float32, F32, F32, F32), cc=(9, 0)),
    Case("matmul_shared", matmul_shared, void(float32[:, :], float32[:, :], float32[:, :])),
    Case("histogram", histogram, void(int32[:], uint32[:])),
    Case("block_reduce", block_reduce, void(float64[:], float64[:])),
    Case("math_funcs", math_funcs, void(float32[:], float32[:])),
    Case("math_funcs_fastmath", math_funcs, void(float32[:], float32[:]), options={"fastmath": True}),
    Case("math_funcs_f64", math_funcs, void(float64[:], float64[:])),
    Case("warp_ops", warp_ops, void(int32[:], int32[:])),
    Case("atomics_mixed", atomics_mixed, void(int32[:], uint64[:], float32[:], float64[:])),
    Case("stencil_3d", stencil_3d, void(float32[:, :, :], float32[:, :, :])),
    Case("local_sort", local_sort, void(int32[:])),
    Case("bit_intrinsics", bit_intrinsics, void(uint32[:], float32[:])),
    Case("fence_and_flags", fence_and_flags, void(int64[:], int32[:])),
    Case("complex_mul", complex_mul, "void(complex64[:], complex64[:], complex64[:])"),
    Case("int64_div", int64_div, void(int64[:], int64[:], int64[:])),
    Case("dynamic_shared", dynamic_shared, void(float32[:])),
    Case("saxpy_lineinfo", saxpy, void(float32, F32, F32, F32), options={"lineinfo": True}),
    Case("block_reduce_debug", block_reduce, void(float64[:], float64[:]), options={"debug": True, "opt": False}),
    Case("device_func", device_only, float32(float32, float32), options={"device": True}),
    Case("device_func_abi_c", device_only, float64(float64, float64), options={"device": True, "abi": "c"}),
]

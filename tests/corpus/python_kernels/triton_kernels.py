"""Triton kernels for the PTX corpus (compiled by scripts/make_ptx_corpus.py with triton.compile).

Each case is compiled for sm_80 and/or sm_90 (Triton emits sm_90a there: wgmma, TMA, mbarrier,
fence.proxy, elect.sync, ...). Triton adds 2 hidden trailing .u64 params and .reqntid to every kernel.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import triton
import triton.language as tl


@dataclass
class Case:
    name: str
    fn: Any
    signature: dict[str, str]
    constexprs: dict[str, Any] = field(default_factory=dict)
    targets: tuple[int, ...] = (80, 90)
    options: dict[str, Any] = field(default_factory=dict)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=rm[:, None] < M, other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=rn[None, :] < N, other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def layernorm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    y = xc * rstd * tl.load(w_ptr + cols, mask=mask) + tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, y, mask=mask)


@triton.jit
def dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def atomic_hist_kernel(x_ptr, hist_ptr, n, NB: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + (v % NB), 1, mask=mask)
    tl.atomic_max(hist_ptr + NB, tl.max(v, axis=0))
    tl.atomic_cas(hist_ptr + NB + 1, 0, 1)
    tl.atomic_xchg(hist_ptr + NB + 2 + offs % 4, v, mask=mask, sem="release", scope="cta")


@triton.jit
def cumsum_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * BLOCK + offs)
    tl.store(y_ptr + row * BLOCK + offs, tl.cumsum(x, axis=0))


@triton.jit
def math_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.exp2(x) + tl.log(tl.abs(x) + 1) + tl.sin(x) * tl.cos(x) + tl.sqrt_rn(tl.abs(x)) + tl.rsqrt(x * x + 1)
    y += tl.math.erf(x) + tl.sigmoid(x) + tl.fma(x, x, 1.0) + tl.floor(x) + tl.maximum(x, 0.5)
    tl.store(y_ptr + offs, y, mask=mask)


@triton.jit
def sort_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + tl.program_id(0) * BLOCK + offs)
    tl.store(y_ptr + tl.program_id(0) * BLOCK + offs, tl.sort(x))


@triton.jit
def tma_scale_kernel(a_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid = tl.program_id(0)
    x = src.load([pid * BM, 0])
    dst.store([pid * BM, 0], x * 2)


@triton.jit
def fp8_cast_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x.to(tl.float8e4nv).to(tl.float16), mask=mask)


CASES = [
    Case("add", add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32",
                             "BLOCK": "constexpr"}, {"BLOCK": 1024}),
    Case("softmax", softmax_kernel, {"out_ptr": "*fp32", "in_ptr": "*fp32", "in_stride": "i32", "out_stride": "i32",
                                     "n_cols": "i32", "BLOCK": "constexpr"}, {"BLOCK": 1024}),
    Case("matmul_fp16", matmul_kernel, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
                                        "K": "i32", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
         {"BM": 128, "BN": 128, "BK": 32}),
    Case("matmul_bf16_small", matmul_kernel, {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32", "M": "i32",
                                              "N": "i32", "K": "i32", "BM": "constexpr", "BN": "constexpr",
                                              "BK": "constexpr"},
         {"BM": 64, "BN": 64, "BK": 32}, options={"num_warps": 4, "num_stages": 2}),
    Case("matmul_tf32", matmul_kernel, {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "M": "i32", "N": "i32",
                                        "K": "i32", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
         {"BM": 64, "BN": 64, "BK": 16}),
    Case("layernorm", layernorm_kernel, {"x_ptr": "*fp16", "y_ptr": "*fp16", "w_ptr": "*fp16", "b_ptr": "*fp16",
                                         "mean_ptr": "*fp32", "rstd_ptr": "*fp32", "stride": "i32", "N": "i32",
                                         "eps": "fp32", "BLOCK": "constexpr"}, {"BLOCK": 2048}),
    Case("dropout", dropout_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "p": "fp32", "seed": "i32",
                                     "BLOCK": "constexpr"}, {"BLOCK": 1024}),
    Case("atomic_hist", atomic_hist_kernel, {"x_ptr": "*i32", "hist_ptr": "*i32", "n": "i32", "NB": "constexpr",
                                             "BLOCK": "constexpr"}, {"NB": 64, "BLOCK": 512}),
    Case("cumsum", cumsum_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "BLOCK": "constexpr"}, {"BLOCK": 256}),
    Case("math", math_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 512}),
    Case("sort", sort_kernel, {"x_ptr": "*i32", "y_ptr": "*i32", "BLOCK": "constexpr"}, {"BLOCK": 256}, targets=(80,)),
    Case("tma_scale", tma_scale_kernel, {"a_ptr": "*fp32", "out_ptr": "*fp32", "M": "i32", "N": "i32",
                                         "BM": "constexpr", "BN": "constexpr"}, {"BM": 64, "BN": 64}, targets=(90,)),
    Case("fp8_cast", fp8_cast_kernel, {"x_ptr": "*fp16", "y_ptr": "*fp16", "n": "i32", "BLOCK": "constexpr"},
         {"BLOCK": 1024}, targets=(90,)),
]

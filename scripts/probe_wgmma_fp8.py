#!/usr/bin/env python3
"""Probe how an NVIDIA GPU accumulates fp8 wgmma products (issue #14): many m64n16k32 launches
(f32 accumulators, e4m3/e5m2 operands, no swizzle) over inputs shaped to separate the hypotheses
(window width and its anchor, grouping of the k-sum, truncation or rounding, where C enters),
recorded as (A bytes, B bytes, C, D) per launch for fitting offline (the sweep's 3 fp8 cases are too
few to tell the models apart; docs/known-gaps.md).

Operands sit in shared memory K-major without swizzle (the sweep's wgmma layout: core matrices of 8
rows x 16 bytes, LBO 128 between the two K halves, SBO 256 between groups of 8 rows), so the byte of
A[m, k] is at (m // 8) * 256 + (k // 16) * 128 + (m % 8) * 16 + k % 16 and B[n, k] likewise.

Usage: python3 scripts/probe_wgmma_fp8.py --out DIR [--launches N]   (cuda-python on an NVIDIA GPU)
       python3 scripts/probe_wgmma_fp8.py --check                       (the layout, on CuMetal's cpu
       device with u8 operands against numpy: exact integer products)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.ptx_sweep.cases import wgmma as W  # noqa: E402

M, N, K = 64, 16, 32


def operand_offsets(rows: int) -> np.ndarray:
    """Byte offset of element (row, k) of a K-major operand, shape (rows, K)."""
    r, k = np.meshgrid(np.arange(rows), np.arange(K), indexing="ij")
    return (r // 8) * 256 + (k // 16) * 128 + (r % 8) * 16 + k % 16


def _d_coord(lane: int, i: int) -> tuple[int, int]:
    """(row within the warp's 16 rows, column) of accumulator slot i (as passes/semantics/wgmma.py;
    repeated so that this script needs no CuMetal import on the GPU machine; --check tests both)."""
    g, t = lane >> 2, lane & 3
    return g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * t + (i & 1)


def out_index() -> np.ndarray:
    """(M, N) -> index of D[m, n] in the kernel's output (thread-major, 8 f32 slots per thread)."""
    idx = np.zeros((M, N), dtype=np.int64)
    for t in range(128):
        for i in range(N // 2):
            r, c = _d_coord(t & 31, i)
            idx[16 * (t >> 5) + r, c] = t * (N // 2) + i
    return idx


class Probe:
    def __init__(self, cu, atype: str, btype: str, dtype: str = "f32") -> None:
        self.cu, self.dtype = cu, dtype
        case = W._case("probe", N, dtype, atype, btype, salt=99)  # noqa: SLF001
        self.ok(cu.cuInit(0))
        dev = self.ok(cu.cuDeviceGet(0))
        self.ctx = self.ok(cu.cuCtxCreate(None, 0, dev))
        self.mod = self.ok(cu.cuModuleLoadData(case.ptx.encode() + b"\0"))
        self.fn = self.ok(cu.cuModuleGetFunction(self.mod, b"k"))
        self.sizes = {b.name: b.nbytes for b in case.buffers}
        self.ptr = {n: self.ok(cu.cuMemAlloc(s)) for n, s in self.sizes.items()}
        self.aoff, self.boff, self.didx = operand_offsets(M), operand_offsets(N), out_index()

    def ok(self, res):
        err, *rest = res if isinstance(res, tuple) else (res,)
        if int(err) != 0:
            raise RuntimeError(f"CUDA error {err}")
        return rest[0] if len(rest) == 1 else rest

    def run(self, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        """D (M x N, raw u32 bits) of A (M x K bytes), B (N x K bytes: column n of B is row n here), C (M x N u32)."""
        cu = self.cu
        opnd = np.zeros(self.sizes["opnd"], dtype=np.uint8)
        opnd[self.aoff] = a
        opnd[8192 + self.boff] = b
        cin = np.zeros(self.sizes["cin"] // 4, dtype=np.uint32)
        cin[self.didx] = c
        self.ok(cu.cuMemcpyHtoD(self.ptr["opnd"], opnd, opnd.nbytes))
        self.ok(cu.cuMemcpyHtoD(self.ptr["cin"], cin, cin.nbytes))
        args = tuple(self.ptr[n] for n in ("out", "opnd", "cin", "ain"))
        self.ok(cu.cuLaunchKernel(self.fn, 1, 1, 1, 128, 1, 1, 0, 0, (args, (None,) * 4), 0))
        self.ok(cu.cuCtxSynchronize())
        out = np.empty(self.sizes["out"] // 4, dtype=np.uint32)
        self.ok(cu.cuMemcpyDtoH(out, self.ptr["out"], out.nbytes))
        return out[self.didx]


# ------------------------------------------------------------------ inputs
def _fp8(rng, et: str, shape, emin: int, emax: int, sign=True) -> np.ndarray:
    """Finite fp8 bytes with biased exponent field in [emin, emax] (0 = subnormal)."""
    mbits, ebias_max = (3, 15) if et == "e4m3" else (2, 30)
    e = rng.integers(emin, emax + 1, shape)
    m = rng.integers(0, 1 << mbits, shape)
    s = rng.integers(0, 2, shape) if sign else np.zeros(shape, dtype=np.int64)
    b = (s << 7) | (np.minimum(e, ebias_max) << mbits) | m
    if et == "e4m3":
        b = np.where((b & 0x7F) == 0x7F, b & 0xFE, b)
    return b.astype(np.uint8)


def _c(rng, kind: str) -> np.ndarray:
    if kind == "zero":
        x = np.zeros((M, N), dtype=np.float32)
    elif kind == "small":
        x = rng.uniform(-2, 2, (M, N)).astype(np.float32)
    elif kind == "wide":
        x = (rng.choice([-1.0, 1.0], (M, N)) * np.exp2(rng.integers(-20, 20, (M, N)))
             * rng.uniform(1, 2, (M, N))).astype(np.float32)
    else:  # random bits of moderate exponent
        x = (rng.uniform(-1, 1, (M, N)) * np.exp2(rng.integers(-8, 9, (M, N)))).astype(np.float32)
    return x.view(np.uint32)


def scenarios(et_a: str, et_b: str, seed: int):
    """(name, A, B, C) of one launch each, cycling through input shapes."""
    rng = np.random.default_rng(seed)
    top = 15 if et_a == "e4m3" else 30
    kinds = ["uniform", "narrow", "onebig", "zero_c", "ones_b", "wide_c", "cancel", "subnormal"]
    i = 0
    while True:
        kind = kinds[i % len(kinds)]
        i += 1
        c = _c(rng, {"zero_c": "zero", "wide_c": "wide", "ones_b": "zero"}.get(kind, "small"))
        if kind in ("uniform", "zero_c", "wide_c"):  # the sweep's inputs: every finite byte
            a, b = _fp8(rng, et_a, (M, K), 0, top), _fp8(rng, et_b, (N, K), 0, top)
        elif kind == "narrow":  # exponents in a band of 3 around the middle
            mid = top // 2
            a, b = _fp8(rng, et_a, (M, K), mid - 1, mid + 1), _fp8(rng, et_b, (N, K), mid - 1, mid + 1)
        elif kind == "onebig":  # one large product per dot, the rest spread below it
            a, b = _fp8(rng, et_a, (M, K), 1, top - 4), _fp8(rng, et_b, (N, K), 1, top - 4)
            j = rng.integers(0, K, M)
            a[np.arange(M), j] = _fp8(rng, et_a, M, top - 1, top)
        elif kind == "ones_b":  # B = +1: D = C + sum of A's row, products exactly A
            a = _fp8(rng, et_a, (M, K), 0, top)
            one = 0x38 if et_b == "e4m3" else 0x3C
            b = np.full((N, K), one, dtype=np.uint8)
            b[:, :] = np.where(rng.random((N, K)) < 0.5, one, one | 0x80)  # +-1 per column: sums differ
        elif kind == "cancel":  # pairs that cancel exactly plus small residues
            a, b = _fp8(rng, et_a, (M, K), 4, top), _fp8(rng, et_b, (N, K), 4, top)
            a[:, 1::2] = a[:, 0::2] ^ 0x80
            b[:, 1::2] = b[:, 0::2]
            a[:, -1] = _fp8(rng, et_a, M, 0, 3)
        else:  # subnormals and tiny values with a few normal ones
            a, b = _fp8(rng, et_a, (M, K), 0, 2), _fp8(rng, et_b, (N, K), 0, 8)
        yield kind, a, b, c


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path)
    ap.add_argument("--launches", type=int, default=400)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    if args.check:
        import os

        os.environ.setdefault("CUMETAL_BACKEND", "cpu")
        from cumetal import driver as cu

        p = Probe(cu, "u8", "u8", "s32")
        rng = np.random.default_rng(1)
        a, b = rng.integers(0, 256, (M, K)).astype(np.uint8), rng.integers(0, 256, (N, K)).astype(np.uint8)
        c = rng.integers(-1000, 1000, (M, N)).astype(np.int32).view(np.uint32)
        d = p.run(a, b, c).view(np.int32)
        want = a.astype(np.int64) @ b.astype(np.int64).T + c.view(np.int32)
        print("layout check:", "ok" if np.array_equal(d, want) else "MISMATCH")
        return 0 if np.array_equal(d, want) else 1
    from cuda.bindings import driver as cu

    args.out.mkdir(parents=True, exist_ok=True)
    for et_a, et_b in (("e4m3", "e4m3"), ("e5m2", "e5m2"), ("e4m3", "e5m2")):
        p = Probe(cu, et_a, et_b)
        names, A, B, C, D = [], [], [], [], []
        n = args.launches if et_a == et_b == "e4m3" else args.launches // 4
        for _, (kind, a, b, c) in zip(range(n), scenarios(et_a, et_b, seed=7), strict=False):
            names.append(kind)
            A.append(a)
            B.append(b)
            C.append(c)
            D.append(p.run(a, b, c))
        np.savez_compressed(args.out / f"fp8_probe_{et_a}_{et_b}.npz", kind=np.array(names), a=np.array(A),
                            b=np.array(B), c=np.array(C), d=np.array(D))
        print(f"{et_a} x {et_b}: {n} launches")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""f32 -> bf16 conversion of NaNs (and of their finite neighbours), PTX to air-sim (and msl-sim, cpu).

NVIDIA's rule (the H100 goldens of the sweep's cvt_*_bf16_f32 cases: 0x7FC00000, 0xFFC00000,
0x7FC12345, 0x7F800001 and 0x7FA00000 all give 0x7FFF; ir/ops.py ``fcvt``): any NaN gives the
canonical bf16 NaN 0x7FFF, in every rounding mode, with .relu, and in each half of bf16x2. Here
every payload bit, both signs, quiet and signalling NaNs, the patterns a bit-level round-to-nearest
would carry out of (0x7FFFFFFF rounds to 0x8000 = -0.0 when added to naively; 0x7F800001 truncates to
infinity) and random NaNs; finite neighbours check the rounding of each mode.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

from cumetal.backends.air.sim import launch_air
from cumetal.backends.cpu import launch as cpu_launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.passes import compile_ptx

PTX = """
.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pd, .param .u32 n)
{
  .reg .pred %p;
  .reg .b16 %h<8>;
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r1, %r2, %r3, %r1;
  ld.param.u32 %r4, [n];
  setp.ge.u32 %p, %r1, %r4;
  @%p bra DONE;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pd];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd1, %rd1, %rd3;
  ld.global.f32 %f1, [%rd1];
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd2, %rd2, %rd4;
  cvt.rn.bf16.f32 %h1, %f1;
  cvt.rz.bf16.f32 %h2, %f1;
  cvt.rm.bf16.f32 %h3, %f1;
  cvt.rp.bf16.f32 %h4, %f1;
  cvt.rn.relu.bf16.f32 %h5, %f1;
  st.global.b16 [%rd2], %h1;
  st.global.b16 [%rd2+2], %h2;
  st.global.b16 [%rd2+4], %h3;
  st.global.b16 [%rd2+6], %h4;
  st.global.b16 [%rd2+8], %h5;
  mov.f32 %f2, 0f3F800000;
  cvt.rn.bf16x2.f32 %r5, %f1, %f2;
  st.global.b32 [%rd2+12], %r5;
DONE:
  ret;
}
"""


def _nans() -> list[int]:
    out = []
    for sign in (0, 0x80000000):
        for quiet in (0, 0x400000):
            for bit in range(22):
                out.append(sign | 0x7F800000 | quiet | (1 << bit))
            out.append(sign | 0x7F800000 | quiet | 0x3FFFFF)
            out.append(sign | 0x7F800000 | quiet | 0x8000)
            out.append(sign | 0x7F800000 | quiet | 0x7FFF)
    rng = np.random.default_rng(7)
    payload = rng.integers(1, 1 << 23, 200)
    signs = rng.integers(0, 2, 200) << 31
    out += [int(s) | 0x7F800000 | int(p) for s, p in zip(signs, payload, strict=True)]
    return out


FINITE = [0, 0x80000000, 1, 0x80000001, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F7F8000, 0x7F7F7FFF, 0x7F7F8001,
          0x3F808000, 0x3F818000, 0x3F808001, 0x7F800000, 0xFF800000, 0x3F800000, 0xBF80FFFF, 0x0001FFFF]


def _round_bf16(bits: int, mode: str) -> int:
    """f32 -> bf16 rounding of a non-NaN value on its bits (bf16 is the top half of f32, so the low 16
    bits are exactly the discarded part; a carry out of the largest finite gives infinity)."""
    sign = bits >> 31
    if bits & 0x7FFFFFFF == 0x7F800000:
        return (sign << 15) | 0x7F80
    lo, rest = (bits & 0xFFFF0000) >> 16, bits & 0xFFFF
    if rest == 0:
        return lo
    down_mag = lo & 0x7FFF  # truncation toward zero
    up_mag = down_mag + 1
    if mode == "rn":
        half = 0x8000
        pick_up = rest > half or (rest == half and down_mag & 1)
    elif mode == "rz":
        pick_up = False
    else:
        pick_up = (mode == "rp") != bool(sign)  # away from zero when rounding toward that side
    mag = up_mag if pick_up else down_mag
    return (sign << 15) | mag


def _expected(bits: int) -> list[int]:
    if (bits & 0x7F800000) == 0x7F800000 and bits & 0x7FFFFF:
        return [0x7FFF] * 5 + [0x7FFF << 16 | 0x3F80]
    r = [_round_bf16(bits, m) for m in ("rn", "rz", "rm", "rp")]
    relu = 0 if bits >> 31 else r[0]
    return r + [relu, r[0] << 16 | 0x3F80]


def _run(launch, values: list[int]) -> np.ndarray:
    module = compile_ptx(PTX, "bf16_nan.ptx")
    fn = module.kernels["k"]
    n = len(values)
    mem = DeviceMemory(16 << 20)
    a = mem.alloc(4 * n)
    mem.write(a, np.array(values, np.uint32))
    d = mem.alloc(16 * n)
    params = struct.pack("<QQI", a, d, n)
    res = launch(fn, module, mem, ((n + 63) // 64, 1, 1), (64, 1, 1), 0, params, {})
    assert res.fault is None, res.fault
    raw = np.frombuffer(mem.read(d, 16 * n), np.uint8).reshape(n, 16)
    halves = raw[:, :10].copy().view(np.uint16).astype(np.uint32)
    pair = raw[:, 12:16].copy().view(np.uint32)
    return np.concatenate([halves, pair], axis=1)


def _launcher(backend: str):
    if backend == "msl-sim":
        from cumetal.backends.msl.sim.device_launch import launch

        return launch
    return launch_air if backend == "air-sim" else cpu_launch


@pytest.mark.parametrize("backend", ["air-sim", "msl-sim", "cpu"])
def test_f32_to_bf16_nan_is_nvidias_canonical_nan(backend):
    values = _nans() + FINITE
    got = _run(_launcher(backend), values)
    bad = [(f"{v:#010x}", [f"{int(x):#x}" for x in row], [f"{x:#x}" for x in _expected(v)])
           for v, row in zip(values, got, strict=True) if [int(x) for x in row] != _expected(v)]
    assert not bad, f"{len(bad)} of {len(values)} inputs differ (input, got, want): {bad[:6]}"

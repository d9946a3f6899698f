"""Huge modules under msl-sim: their kernels are compiled without optimization (launcher.HUGE_SOURCE_BYTES),
which must not change a single result bit, and g++ runs under a time limit.

The threshold is lowered here so a small module takes the huge-module path; the same kernels built
both ways (directed rounding, a shuffle, integer division by zero, a loop) give identical bits.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from msl_testing import HEADER, launch

import cumetal.backends.msl.sim.launcher as launcher
from cumetal.passes import compile_ptx

PTX = r"""
.visible .entry mix(.param .u64 pa, .param .u64 pout)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .f32 %f<6>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  fma.rz.f32 %f2, %f1, 0f3DCCCCCD, 0f3F800001;
  div.rp.f32 %f3, %f2, 0f40400000;
  shfl.sync.bfly.b32 %r2, %r1, 5, 31, -1;
  mov.b32 %r3, %f3;
  div.u32 %r4, %r3, %r2;
  mov.u32 %r5, 0;
  mov.u32 %r6, 0;
LOOP:
  add.u32 %r5, %r5, %r3;
  shf.l.wrap.b32 %r5, %r5, %r5, 7;
  add.u32 %r6, %r6, 1;
  setp.lt.u32 %p1, %r6, %r1;
  @%p1 bra LOOP;
  xor.b32 %r7, %r5, %r4;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r7;
  ret;
}
"""


def _run(program) -> np.ndarray:
    a = np.random.default_rng(7).standard_normal(64).astype(np.float32)
    a[:4] = [0.0, -0.0, np.float32(1e-40), np.inf]
    out = np.zeros(64, np.uint32)
    launch(program, "mix", 1, 64, a, out)
    return out


def test_huge_module_path_marks_only_huge_sources():
    tu = "prelude\n// ---- kernels\nkernel void k() {}\n"
    assert launcher._for_gxx(tu) == tu  # small: unchanged, so the cache keys of ordinary modules stay
    big = tu + " " * launcher.HUGE_SOURCE_BYTES
    marked = launcher._for_gxx(big)
    assert marked.count('#pragma GCC optimize ("O0")') == 1
    assert marked.index("#pragma") < marked.index("// ---- kernels") and marked.index("prelude") < marked.index("#pragma")


def test_unoptimized_kernels_give_the_same_bits(monkeypatch):
    module = compile_ptx(HEADER + PTX, "huge_path.ptx")
    optimized = _run(launcher.build_program(module))
    seen: list[str] = []
    real = launcher._compile
    monkeypatch.setattr(launcher, "HUGE_SOURCE_BYTES", 1)
    monkeypatch.setattr(launcher, "_compile", lambda tu: seen.append(launcher._for_gxx(tu)) or real(tu))
    [program] = launcher.build_batch([compile_ptx(HEADER + PTX, "huge_path.ptx")])
    assert seen and '#pragma GCC optimize ("O0")' in seen[0]
    np.testing.assert_array_equal(_run(program), optimized)


def test_gxx_time_limit_is_a_clear_error_and_kills_the_compiler(monkeypatch, tmp_path):
    monkeypatch.setenv("CUMETAL_CACHE_DIR", str(tmp_path))
    # a stand-in "g++" that starts a child (as g++ starts cc1plus) and outlives the time limit
    fake = tmp_path / "slow-cxx"
    pid_file = tmp_path / "child.pid"
    fake.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {pid_file}\nwait\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CXX", str(fake))
    monkeypatch.setattr(launcher, "GXX_TIMEOUT_S", 1.0)
    with pytest.raises(launcher.SimCompileError, match=r"g\+\+ did not finish compiling .* within 1 s"):
        launcher._compile("int main() { return 0; }\n")
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the compiler's child process outlived the time limit"


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended

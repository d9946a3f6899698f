"""The ``msl-sim`` device behind the device protocol (what ``CUMETAL_BACKEND=msl-sim`` opens):
kernels run through the emitted MSL, a kernel the back end refuses fails alone, and
``CUMETAL_FP64`` picks the fp64 mode."""

from __future__ import annotations

import struct

import numpy as np
from msl_testing import HEADER

from cumetal.devices.backends import open_device
from cumetal.devices.msl_sim_device import MslSimDevice

PTX = HEADER + r"""
.func (.param .b32 ret) depth(.param .b32 n)
{
  .reg .pred p;
  .reg .b32 t, r;
  ld.param.b32 t, [n];
  setp.eq.u32 p, t, 0;
  @p bra BASE;
  sub.u32 t, t, 1;
  {
  .param .b32 a0;
  .param .b32 r0;
  st.param.b32 [a0], t;
  call (r0), depth, (a0);
  ld.param.b32 r, [r0];
  }
  add.u32 r, r, 1;
  st.param.b32 [ret], r;
  ret;
BASE:
  st.param.b32 [ret], 0;
  ret;
}
.visible .entry recursive(.param .u64 out)
{
  .reg .b32 a;
  .reg .u64 p;
  ld.param.u64 p, [out];
  {
  .param .b32 a0;
  .param .b32 r0;
  st.param.b32 [a0], 5;
  call (r0), depth, (a0);
  ld.param.b32 a, [r0];
  }
  st.global.u32 [p], a;
  ret;
}
.func (.param .b32 ret) pong(.param .b32 n);
.func (.param .b32 ret) ping(.param .b32 n)
{
  .reg .b32 t;
  ld.param.b32 t, [n];
  {
  .param .b32 a0;
  .param .b32 r0;
  st.param.b32 [a0], t;
  call (r0), pong, (a0);
  ld.param.b32 t, [r0];
  }
  st.param.b32 [ret], t;
  ret;
}
.func (.param .b32 ret) pong(.param .b32 n)
{
  .reg .pred p;
  .reg .b32 t;
  ld.param.b32 t, [n];
  setp.eq.u32 p, t, 0;
  @p bra DONE;
  sub.u32 t, t, 1;
  {
  .param .b32 a0;
  .param .b32 r0;
  st.param.b32 [a0], t;
  call (r0), ping, (a0);
  ld.param.b32 t, [r0];
  }
DONE:
  st.param.b32 [ret], t;
  ret;
}
.visible .entry mutual(.param .u64 out)
{
  .reg .b32 a;
  .reg .u64 p;
  ld.param.u64 p, [out];
  {
  .param .b32 a0;
  .param .b32 r0;
  st.param.b32 [a0], 5;
  call (r0), ping, (a0);
  ld.param.b32 a, [r0];
  }
  st.global.u32 [p], a;
  ret;
}
.visible .entry scale(.param .u64 data, .param .f64 k)
{
  .reg .u32 i;
  .reg .u64 p, off;
  .reg .f64 x, y;
  ld.param.u64 p, [data];
  ld.param.f64 y, [k];
  mov.u32 i, %tid.x;
  mul.wide.u32 off, i, 8;
  add.s64 p, p, off;
  ld.global.f64 x, [p];
  mul.rn.f64 x, x, y;
  st.global.f64 [p], x;
  ret;
}
"""


def _run_scale(dev: MslSimDevice, image, x: np.ndarray, k: float):
    addr = dev.allocate(x.nbytes)
    dev.memory.write(addr, x.tobytes())
    stream = dev.create_stream()
    fault = dev.enqueue_launch(stream, image, "scale", (1, 1, 1), (len(x), 1, 1), 0, struct.pack("<Qd", addr, k))
    out = np.frombuffer(dev.memory.read(addr, x.nbytes), np.float64).copy()
    dev.free(addr)
    return fault, out


def test_msl_sim_device_runs_kernels_and_self_and_mutual_recursion():
    from cumetal.passes import compile_ptx

    dev = open_device("msl-sim")
    assert isinstance(dev, MslSimDevice) and "msl-sim" in dev.info.name
    image = dev.load_module(compile_ptx(PTX, "dev.ptx"))
    x = np.linspace(-3, 3, 64)
    fault, out = _run_scale(dev, image, x, 1.0 + 2.0 ** -40)
    assert fault is None
    assert (out == x * (1.0 + 2.0 ** -40)).all()  # numpy's IEEE binary64 products, bit for bit
    out_addr = dev.allocate(4)
    # a function calling itself runs over an explicit stack (backends/apple/recursion.py)
    fault = dev.enqueue_launch(dev.create_stream(), image, "recursive", (1, 1, 1), (1, 1, 1), 0,
                               struct.pack("<Q", out_addr))
    assert fault is None and struct.unpack("<I", dev.memory.read(out_addr, 4)) == (5,)
    # mutual recursion too: ping and pong merged into one function over an explicit stack
    fault = dev.enqueue_launch(dev.create_stream(), image, "mutual", (1, 1, 1), (1, 1, 1), 0,
                               struct.pack("<Q", out_addr))
    assert fault is None and struct.unpack("<I", dev.memory.read(out_addr, 4)) == (0,)  # ping(5) = pong(0); was 5
    fault, again = _run_scale(dev, image, x, 3.0)
    assert fault is None and (again == x * 3.0).all()
    assert dev.launches == 4


def test_cumetal_fp64_selects_emulation(monkeypatch):
    from cumetal.passes import compile_ptx

    monkeypatch.setenv("CUMETAL_FP64", "emulate")
    dev = open_device("msl-sim")
    image = dev.load_module(compile_ptx(PTX, "dev_emulate.ptx"))
    x = np.linspace(-3, 3, 64)
    fault, out = _run_scale(dev, image, x, 1.0 + 2.0 ** -40)
    assert fault is None
    exact = x * (1.0 + 2.0 ** -40)
    # float-float keeps ~46 bits: close to binary64, but the 2^-40 term is not kept exactly everywhere
    assert np.allclose(out, exact, rtol=2.0 ** -44, atol=0) and not (out == exact).all()


def test_bad_cumetal_fp64_is_said_and_native_used(monkeypatch, capfd):
    from cumetal.backends.msl.sim.device_launch import fp64_mode

    monkeypatch.setenv("CUMETAL_FP64", "fast")
    assert fp64_mode() == "native"
    assert "CUMETAL_FP64='fast' is not one of native, emulate, warn" in capfd.readouterr().err

"""air-sim robustness: bad accesses fault instead of touching memory, runaway kernels hit the
watchdog (with and without fibers), bad launches are refused, and the code executed is exactly
the module inside the .metallib."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from cumetal.backends.air.lower import compile_metallib, kernel_bitcode
from cumetal.backends.air.metallib import read_metallib
from cumetal.backends.air.metallib_wrapper import unwrap_bitcode
from cumetal.backends.air.sim import launch_air, runtime_lib
from cumetal.backends.cpu import launch as cpu_launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.passes import compile_ptx

PTX = """
.version 7.0
.target sm_70
.address_size 64

.visible .entry misaligned(.param .u64 p)
{
  .reg .b64 %rd<3>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  ld.global.u32 %r1, [%rd2+2];
  st.global.u32 [%rd2+8], %r1;
  ret;
}

.visible .entry shared_store(.param .u32 i, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  .shared .align 4 .b8 buf[64];
  ld.param.u32 %r1, [i];
  mov.u32 %r2, buf;
  add.u32 %r3, %r2, %r1;
  st.shared.u32 [%r3], %r1;
  bar.sync 0;
  ld.shared.u32 %r2, [%r3];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r2;
  ret;
}

.visible .entry local_index(.param .u32 i, .param .u64 out)
{
  .local .align 4 .b8 arr[16];
  .reg .b32 %r<3>;
  .reg .b64 %rd<6>;
  ld.param.u32 %r1, [i];
  mov.u64 %rd1, arr;
  cvt.u64.u32 %rd2, %r1;
  add.u64 %rd3, %rd1, %rd2;
  st.local.u32 [%rd3], %r1;
  ld.local.u32 %r2, [%rd3];
  ld.param.u64 %rd4, [out];
  cvta.to.global.u64 %rd5, %rd4;
  st.global.u32 [%rd5], %r2;
  ret;
}

.visible .entry spin_barrier()
{
$L_top:
  bar.sync 0;
  bra.uni $L_top;
}
"""


@pytest.fixture(scope="module")
def module():
    return compile_ptx(PTX, "errors.ptx")


@pytest.fixture
def mem():
    return DeviceMemory(64 << 20)


def _both(module, name, mem, grid, block, params, **kw):
    k = module.kernels[name]
    return (launch_air(k, module, mem, grid, block, 0, params, {}, **kw),
            cpu_launch(k, module, mem, grid, block, 0, params, {}, **kw))


def test_misaligned_access_faults_like_the_cpu_backend(module, mem):
    buf = mem.alloc(64)
    mem.write(buf, np.arange(16, dtype=np.uint32))
    air, cpu = _both(module, "misaligned", mem, (1, 1, 1), (1, 1, 1), struct.pack("<Q", buf))
    assert air.fault is not None and air.fault.code == "misaligned_address" == cpu.fault.code
    assert f"0x{buf + 2:x}" in air.fault.message
    assert np.frombuffer(mem.read(buf, 64), np.uint32).tolist() == list(range(16))  # nothing stored


def test_shared_memory_bounds(module, mem):
    out = mem.alloc(4)
    ok, _ = _both(module, "shared_store", mem, (1, 1, 1), (1, 1, 1), struct.pack("<I4xQ", 60, out))
    assert ok.fault is None and struct.unpack("<I", mem.read(out, 4))[0] == 60
    air, cpu = _both(module, "shared_store", mem, (1, 1, 1), (1, 1, 1), struct.pack("<I4xQ", 4096, out))
    assert air.fault is not None and air.fault.code == "illegal_address"
    assert cpu.fault is not None and cpu.fault.code == "illegal_address"


def test_local_memory_bounds(module, mem):
    out = mem.alloc(4)
    ok, _ = _both(module, "local_index", mem, (1, 1, 1), (2, 1, 1), struct.pack("<I4xQ", 8, out))
    assert ok.fault is None and struct.unpack("<I", mem.read(out, 4))[0] == 8
    air, cpu = _both(module, "local_index", mem, (1, 1, 1), (2, 1, 1), struct.pack("<I4xQ", 1 << 20, out))
    assert air.fault is not None and air.fault.code == "illegal_address" == cpu.fault.code
    assert "local memory" in air.fault.message


def test_runaway_barrier_loop_hits_the_watchdog(module, mem):
    k = module.kernels["spin_barrier"]
    out = launch_air(k, module, mem, (2, 1, 1), (64, 1, 1), 0, b"", {}, watchdog_s=0.3)
    assert out.fault is not None and out.fault.code == "timeout"


@pytest.mark.parametrize(("grid", "block", "params", "why"), [
    ((0, 1, 1), (1, 1, 1), b"\0" * 8, "grid"),
    ((1, 1, 1), (2048, 1, 1), b"\0" * 8, "threads per block"),
    ((1, 1, 1), (1, 1, 1), b"\0" * 4, "bytes of parameters"),
    ((1, 1), (1, 1, 1), b"\0" * 8, "three"),
])
def test_bad_launches_are_refused(module, mem, grid, block, params, why):
    out = launch_air(module.kernels["misaligned"], module, mem, grid, block, 0, params, {})
    assert out.fault is not None and out.fault.code == "invalid_launch" and why in out.fault.message


def test_missing_global_address_is_refused(mem):
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "tests/functional/kernels/memory.ptx"
    m = compile_ptx(path.read_text(), "memory.ptx")
    out = launch_air(m.kernels["count_threads"], m, mem, (1, 1, 1), (1, 1, 1), 0, b"\0" * 64, {})
    assert out.fault is not None and out.fault.code == "invalid_launch" and "device_counter" in out.fault.message


def test_runtime_build_failure_is_reported(module, mem, monkeypatch, tmp_path):
    monkeypatch.setattr(runtime_lib, "_lib", None)
    monkeypatch.setattr(runtime_lib, "cache_dir", lambda: tmp_path)
    monkeypatch.setenv("CC", "false")
    from cumetal.backends.air.sim import compile as sim_compile

    monkeypatch.setattr(sim_compile, "_cache", {})
    out = launch_air(module.kernels["misaligned"], module, mem, (1, 1, 1), (1, 1, 1), 0, b"\0" * 8, {})
    assert out.fault is not None and "building the air-sim runtime failed" in out.fault.message


def test_the_simulated_module_is_the_metallib_module(module):
    lib = read_metallib(compile_metallib(module))
    for name in module.kernels:
        assert unwrap_bitcode(lib.module(lib.function(name))) == kernel_bitcode(module, name)


def test_concurrent_launches_from_threads_are_safe(module, mem):
    """The C scheduler is global state: launches from several Python threads must not interleave."""
    from concurrent.futures import ThreadPoolExecutor

    outs = [mem.alloc(4) for _ in range(8)]
    k = module.kernels["shared_store"]

    def run(i: int):
        return launch_air(k, module, mem, (3, 1, 1), (64, 1, 1), 0, struct.pack("<I4xQ", 4 * i, outs[i]), {})

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(run, range(8)))
    assert all(r.fault is None for r in results)
    assert [struct.unpack("<I", mem.read(o, 4))[0] for o in outs] == [4 * i for i in range(8)]

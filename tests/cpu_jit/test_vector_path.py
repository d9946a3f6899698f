"""The main path's copy of a barrier-free kernel (backends/air/sim/vectorize.py ``_main_path``,
``__sim_wgs``): built only where it can help, unmasked, its vector stores made non-temporal after
optimization; run by a large launch for the threadgroups whose threads all stay on the path, with
the same results as numpy (n not a multiple of the threadgroup, NaN and infinities, divergent
branches, threads that go round a grid-stride loop) and faults reported exactly as before (an
out-of-bounds store inside a range of threadgroups)."""

from __future__ import annotations

import ctypes
import platform
import re

import numpy as np
import pytest
from kernel_params import pack_params as _params  # (same folder)

from cumetal.backends.air.sim import compile as sim_compile
from cumetal.backends.air.sim import launch_air, vectorize
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.passes import compile_ptx

SOURCE = r"""
extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void pick(const float *a, const float *b, float *c, float *d, int n, int m) {  // two paths
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    c[i] = a[i] + b[i];
    if (i >= m) d[i] = a[i] * b[i];  // a conditional store: a branch (the main path: through it)
  }
}
extern "C" __global__ void affine_gs(const int *x, int *y, int n) {  // grid-stride
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = 3 * x[i] + 1;
}
extern "C" __global__ void branchy(int *y, int n) {  // more conditional branches than PATH_BRANCHES
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int *o = y + 9 * i;  // a conditional store stays a branch
  if (i & 1) o[0] = 1; if (i & 2) o[1] = 2; if (i & 4) o[2] = 3; if (i & 8) o[3] = 4; if (i & 16) o[4] = 5;
  if (i & 32) o[5] = 6; if (i & 64) o[6] = 7; if (i & 128) o[7] = 8; if (i & 256) o[8] = 9;
}
"""
# a launch storing at least NT_MIN_BYTES on the main path (the copy runs only for those)
BIG = vectorize.NT_MIN_BYTES // 4 + 37  # floats: not a multiple of the threadgroup


@pytest.fixture(scope="module")
def module():
    ptx = compile_to_ptx(SOURCE, "path_kernels.cu", CudaOptions()).ptx
    return compile_ptx(ptx, "path_kernels.cu")


def _launch(module, name, grid, block, arrays, params, workers):
    mem = DeviceMemory(1 << 30)
    ptrs = []
    for a in arrays:
        p = mem.alloc(a.nbytes)
        mem.write(p, a.tobytes())
        ptrs.append(p)
    out = launch_air(module.kernels[name], module, mem, grid, block, 0, params(ptrs), {}, workers=workers)
    got = [np.frombuffer(mem.read(p, a.nbytes), a.dtype).copy() for p, a in zip(ptrs, arrays, strict=True)]
    return out, got, ptrs


def _path_groups() -> int:
    """Threadgroups run by a main path's copy so far, over every loaded engine (each worker's
    module has its own counter)."""
    total = 0
    for engine, *_ in list(sim_compile._ENGINES):
        try:
            addr = engine.get_global_value_address(vectorize.PATH_GROUPS)
        except Exception:  # noqa: BLE001 - an engine of a kernel without the copy
            addr = 0
        if addr:
            total += ctypes.c_int64.from_address(addr).value
    return total


def _optimized(module, name, monkeypatch, tmp_path):
    monkeypatch.setenv("CUMETAL_JIT_DUMP", str(tmp_path))
    monkeypatch.setattr(sim_compile, "_by_function", type(sim_compile._by_function)())
    monkeypatch.setattr(sim_compile, "_cache", {})
    monkeypatch.setenv("CUMETAL_CACHE_DIR", str(tmp_path / "cache"))
    ck = sim_compile.compile_kernel(module.kernels[name], module)
    return ck, (tmp_path / f"{name}.opt.ll").read_text()


def _function(text: str, name: str) -> str | None:
    m = re.search(rf"^define [^\n]*@{name}\(.*?^}}", text, re.S | re.M)
    return m.group(0) if m else None


def test_the_copy_is_unmasked_and_its_stores_non_temporal(module, monkeypatch, tmp_path):
    import llvmlite.binding as llvm

    ck, opt = _optimized(module, "vadd", monkeypatch, tmp_path)
    assert ck.vector and ck.ranges
    wgs = _function(opt, vectorize.PATH)
    assert wgs is not None, "vadd lost its main path's copy"
    assert vectorize.vectorized(wgs) and "llvm.masked" not in wgs, "the main path's loop is not full vectors"
    # compile.py applies after_optimization; without it the copy runs with plain stores
    text = opt if "!nontemporal" in wgs else vectorize.nontemporal_stores(opt)
    assert text is not None
    nt = _function(text, vectorize.PATH)
    stores = re.findall(r"store <\d+ x float> .*", nt)
    assert stores and all(("!nontemporal" in s) == (", align 4," not in s) for s in stores)
    assert all(f", align {s}" in line for line in stores if "!nontemporal" in line
               for s in [int(re.search(r"<(\d+) x", line).group(1)) * 4])
    new = llvm.parse_assembly(text, context=llvm.create_context())
    new.verify()
    if platform.machine() in ("x86_64", "AMD64"):
        asm = sim_compile._tm().emit_assembly(new)
        body = asm.split(f"{vectorize.PATH}:", 1)[1].split(".Lfunc_end", 1)[0]
        assert re.search(r"\bvmovntps\b|\bmovntps\b", body), "no non-temporal vector store in the copy"


def test_only_kernels_it_can_help_get_the_copy(module, monkeypatch, tmp_path):
    ck, opt = _optimized(module, "branchy", monkeypatch, tmp_path)
    assert ck.vector and _function(opt, vectorize.PATH) is None  # nine conditional branches
    assert vectorize.nontemporal_stores(opt) is None


@pytest.mark.parametrize("workers", [1, 2])
def test_a_large_launch_runs_the_copy_with_numpys_results(module, workers):
    n = BIG
    rng = np.random.default_rng(11)
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    a[::997] = np.nan
    b[5::991] = np.inf
    a[7::991] = -np.inf  # inf + -inf: NaN
    c = np.full(n + 300, 7.0, np.float32)  # past n: never written
    grid = (n + 255) // 256
    before = _path_groups()
    out, got, _ = _launch(module, "vadd", (grid, 1, 1), (256, 1, 1), [a, b, c],
                          lambda p: _params(("Q", p[0]), ("Q", p[1]), ("Q", p[2]), ("i", n)), workers)
    ran = _path_groups() - before
    assert out.fault is None
    with np.errstate(invalid="ignore"):
        ref = a + b
    nan = np.isnan(ref)
    assert np.array_equal(got[2][:n][~nan], ref[~nan]) and np.all(np.isnan(got[2][:n][nan]))
    assert np.all(got[2][n:] == 7.0)
    # every full threadgroup but the first of each worker's range (empty check windows) runs the
    # copy; the last (a partial one: threads leave the path at `i < n`) runs the masked loop
    assert grid - 1 - 2 * workers <= ran <= grid - 1, (ran, grid)


def test_a_small_launch_keeps_the_masked_loop(module):
    n = 64 * 256
    a, b = np.arange(n, dtype=np.float32), np.ones(n, np.float32)
    before = _path_groups()
    out, got, _ = _launch(module, "vadd", (64, 1, 1), (256, 1, 1), [a, b, np.zeros(n, np.float32)],
                          lambda p: _params(("Q", p[0]), ("Q", p[1]), ("Q", p[2]), ("i", n)), 1)
    assert out.fault is None and np.array_equal(got[2], a + b)
    assert _path_groups() == before


def test_divergent_branches_run_the_masked_loop(module):
    n = BIG
    m = n // 2 + 101  # inside a threadgroup: its threads diverge; the groups before it leave the path
    rng = np.random.default_rng(12)
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    grid = (n + 255) // 256
    before = _path_groups()
    out, got, _ = _launch(module, "pick", (grid, 1, 1), (256, 1, 1),
                          [a, b, np.zeros(n, np.float32), np.zeros(n, np.float32)],
                          lambda p: _params(("Q", p[0]), ("Q", p[1]), ("Q", p[2]), ("Q", p[3]), ("i", n), ("i", m)), 2)
    ran = _path_groups() - before
    assert out.fault is None
    low = np.arange(n) < m
    assert np.array_equal(got[2], a + b) and np.array_equal(got[3], np.where(low, 0, a * b))
    # the full threadgroups above m run the copy; the group holding m and those below do not
    assert grid // 2 - 8 < ran < grid // 2 + 2, (ran, grid)


@pytest.mark.parametrize("cover", [True, False])
def test_grid_stride_threads_that_go_round_stay_exact(module, cover):
    n = BIG
    x = np.random.default_rng(13).integers(-1 << 20, 1 << 20, n, dtype=np.int32)
    grid = (n + 255) // 256 if cover else (n + 255) // 256 // 3  # three or four trips per thread
    before = _path_groups()
    out, got, _ = _launch(module, "affine_gs", (grid, 1, 1), (256, 1, 1), [x, np.zeros(n, np.int32)],
                          lambda p: _params(("Q", p[0]), ("Q", p[1]), ("i", n)), 2)
    assert out.fault is None and np.array_equal(got[1], 3 * x + 1)
    ran = _path_groups() - before
    assert (ran > grid // 2) if cover else ran == 0  # threads that go round leave the path (bit 0)


def test_an_out_of_bounds_store_in_a_range_faults_exactly(module):
    n = BIG
    short = n - 3000  # c ends inside the grid: a threadgroup in the middle of a range stores past it
    a, b = np.arange(n, dtype=np.float32), np.full(n, 0.5, np.float32)
    grid = (n + 255) // 256
    out, got, ptrs = _launch(module, "vadd", (grid, 1, 1), (256, 1, 1), [a, b, np.zeros(short, np.float32)],
                             lambda p: _params(("Q", p[0]), ("Q", p[1]), ("Q", p[2]), ("i", n)), 1)
    assert out.fault is not None and out.fault.code == "illegal_address", out.fault
    assert f"0x{ptrs[2] + 4 * short:x}" in out.fault.message and "vadd" in out.fault.message
    # one worker: every threadgroup before the faulting one ran, the faulting thread stored nothing
    first = short // 256 * 256
    assert np.array_equal(got[2][:first], (a + b)[:first])

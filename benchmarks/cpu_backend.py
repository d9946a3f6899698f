"""The CPU backends side by side (a benchmark, not a test): the numpy engine (``cpu``), the
compiled backend (``cpu-jit``) on all cores and on one, and PoCL (the anchor) on the same kernels.

    python benchmarks/cpu_backend.py            # full sizes, median of 5 launches, 3 rounds
    python benchmarks/cpu_backend.py --quick    # small sizes, a smoke run
    python benchmarks/cpu_backend.py --skip-numpy --out table.md   # also write the table to a file

The ``cpu-jit`` rows run with the default bounds checks, once more without them
(``CUMETAL_JIT_CHECKS=0``, the documented opt-out) and once without the vectorized work-group loop
(``CUMETAL_JIT_VECTOR=0``: barrier-free kernels on the checked scalar loop, backends/air/sim/vectorize.py),
and the barrier kernels once without the vectorized work-item regions (``CUMETAL_JIT_WIVECTOR=0``,
the opt-out of backends/air/sim/wivector.py: checked work-item loops only). The time a cached kernel takes to be ready is
the first launch of each kernel in a new process whose JIT cache an earlier process filled. The
``cpu`` jit-engine column runs ``CUMETAL_BACKEND=cpu CUMETAL_CPU_ENGINE=jit``: the compiled backend
with tiering (docs/cpu-backend.md), whose large launches must be as fast as ``cpu-jit``'s.

CuMetal runs nvcc's PTX (tests/corpus/ptx/nvcc/sm80) through ``cumetal.driver``: a launch +
``cuCtxSynchronize`` is timed (the JIT compile happens in a warm-up launch). Each backend runs in
a child process of its own (``CUMETAL_BACKEND``), so that every row of one run shares the machine.
PoCL runs the same algorithms written in OpenCL C through pyopencl (``clEnqueueNDRangeKernel`` +
``clFinish``); the setup installs it when missing (``pip install pyopencl``; the ICD is Debian's
``pocl-opencl-icd``). Peak memory: the child's peak RSS for vecadd 2^24 minus its RSS before the
three device arrays were allocated (inputs filled by cuMemsetD8, no host copies), less the arrays.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "ptx" / "nvcc" / "sm80"
REPEAT = 5
EMPTY_PTX = """
.version 7.0
.target sm_80
.address_size 64
.visible .entry empty()
{
    ret;
}
"""
OPENCL = r"""
__kernel void vecadd(__global const float *a, __global const float *b, __global float *c, int n) {
    for (int i = get_group_id(0) * get_local_size(0) + get_local_id(0); i < n;
         i += get_local_size(0) * get_num_groups(0))
        c[i] = a[i] + b[i];
}
__kernel void reduce(__global const float *in, __global float *out, unsigned n) {
    __local float s[256];
    unsigned t = get_local_id(0);
    unsigned i = get_group_id(0) * 512 + t, grid = 512 * get_num_groups(0);
    float sum = 0.f;
    while (i < n) { sum += in[i]; if (i + 256 < n) sum += in[i + 256]; i += grid; }
    s[t] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < 128) s[t] += s[t + 128];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < 64) s[t] += s[t + 64];
    barrier(CLK_LOCAL_MEM_FENCE);
    /* OpenCL has no warp-synchronous execution: the last warp's steps are barriers here */
    for (unsigned k = 32; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0) out[get_group_id(0)] = s[0];
}
__kernel void matmul_tiled(__global const float *A, __global const float *B, __global float *C,
                           int M, int N, int K, float alpha, float beta) {
    __local float As[16][16];
    __local float Bs[16][16];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_group_id(1) * 16 + ty, col = get_group_id(0) * 16 + tx;
    float acc = 0.f;
    for (int t = 0; t < (K + 15) / 16; ++t) {
        int ak = t * 16 + tx, bk = t * 16 + ty;
        As[ty][tx] = (row < M && ak < K) ? A[row * K + ak] : 0.f;
        Bs[ty][tx] = (bk < K && col < N) ? B[bk * N + col] : 0.f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < 16; ++k) acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < M && col < N) C[row * N + col] = alpha * acc + beta * C[row * N + col];
}
__kernel void empty(void) {}
"""
ROWS = ("vecadd", "reduce", "matmul", "empty")


def _sizes(quick: bool) -> dict[str, int]:
    return {"vecadd": 1 << (20 if quick else 24), "reduce": 1 << (20 if quick else 24),
            "matmul": 128 if quick else 512}


CPU_MS: dict[str, float] = {}  # the last _median_ms call's median CPU time (this process, all threads)


def _median_ms(f, repeat: int) -> float:
    """Median wall time of ``repeat`` calls, in ms; the median CPU time goes to CPU_MS["last"]."""
    times, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        f()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    CPU_MS["last"] = statistics.median(cpu) * 1e3
    return statistics.median(times) * 1e3


def _loadavg() -> str:
    """The first three fields of /proc/loadavg (the machine is shared: every table says its load)."""
    try:
        with open("/proc/loadavg") as fh:
            return " ".join(fh.read().split()[:3])
    except OSError:
        return f"{os.getloadavg()[0]:.2f}"


def _rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _peak_rss_bytes() -> int:
    """This process image's peak RSS (VmHWM; ru_maxrss would include the parent's at fork time)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# ------------------------------------------------------------------ CuMetal (child process)
class Driver:
    """The few driver calls the rows need (cumetal.driver, CUDA's signatures)."""

    def __init__(self) -> None:
        from cumetal import driver as cu

        self.cu = cu
        self.check(cu.cuInit(0))
        dev = self.check(cu.cuDeviceGet(0))
        self.ctx = self.check(cu.cuCtxCreate(None, 0, dev))

    def check(self, ret):
        err, *rest = ret if isinstance(ret, tuple) else (ret,)
        if int(getattr(err, "value", err)) != 0:
            raise SystemExit(f"driver call failed: {err!r}")
        return rest[0] if len(rest) == 1 else (rest or None)

    def kernel(self, ptx: str, name_part: str):
        mod = self.check(self.cu.cuModuleLoadData(ptx.encode() + b"\0"))
        names = [ln.split("(")[0].split()[-1] for ln in ptx.splitlines() if ".entry" in ln]
        (name,) = [n for n in names if name_part in n]
        return self.check(self.cu.cuModuleGetFunction(mod, name.encode()))

    def put(self, a: np.ndarray) -> int:
        p = self.check(self.cu.cuMemAlloc(max(a.nbytes, 1)))
        self.check(self.cu.cuMemcpyHtoD(p, a.ctypes.data, a.nbytes))
        return p

    def get(self, p, like: np.ndarray) -> np.ndarray:
        out = np.empty_like(like)
        self.check(self.cu.cuMemcpyDtoH(out.ctypes.data, p, out.nbytes))
        return out

    def launch(self, f, grid, block, args, types) -> None:
        cu = self.cu
        self.check(cu.cuLaunchKernel(f, *grid, *block, 0, 0, (tuple(args), tuple(types)), 0))
        self.check(cu.cuCtxSynchronize())


def child(quick: bool, rows: list[str]) -> dict:
    sizes = _sizes(quick)
    d = Driver()
    out: dict = {}
    c_int, c_uint, c_float = ctypes.c_int, ctypes.c_uint, ctypes.c_float
    if "vecadd" in rows:
        n = sizes["vecadd"]
        f = d.kernel((CORPUS / "vector_add.ptx").read_text(), "vector_addPKf")
        tiny = [d.check(d.cu.cuMemAlloc(1024)) for _ in range(3)]
        d.launch(f, (1, 1, 1), (256, 1, 1), [*tiny, 256], [None, None, None, c_int])  # compiles the kernel
        base_rss = _rss_bytes()
        # the three device arrays and nothing else on the host: inputs filled by cuMemsetD8
        pa, pb, pc = (d.check(d.cu.cuMemAlloc(4 * n)) for _ in range(3))
        d.check(d.cu.cuMemsetD8(pa, 0x3F, 4 * n))
        d.check(d.cu.cuMemsetD8(pb, 0x40, 4 * n))
        run = lambda: d.launch(f, ((n + 255) // 256, 1, 1), (256, 1, 1), [pa, pb, pc, n], [None, None, None, c_int])  # noqa: E731
        run()
        out["vecadd"] = _median_ms(run, REPEAT)
        out["vecadd_cpu"] = CPU_MS["last"]
        peak = _peak_rss_bytes()  # before the check's copy
        out["vecadd_extra_mb"] = (peak - base_rss - 3 * 4 * n) / 2**20
        want = np.full(1, 0x3F3F3F3F, np.uint32).view(np.float32) + np.full(1, 0x40404040, np.uint32).view(np.float32)
        assert np.all(d.get(pc, np.zeros(n, np.float32)) == want[0]), "vecadd: wrong result"
    if "reduce" in rows:
        n = sizes["reduce"]
        f = d.kernel((CORPUS / "reduce_shared.ptx").read_text(), "reduceILj256")
        x = np.random.default_rng(1).random(n, dtype=np.float32)
        grid = n // 512
        px, po = d.put(x), d.put(np.zeros(grid, np.float32))
        run = lambda: d.launch(f, (grid, 1, 1), (256, 1, 1), [px, po, n], [None, None, c_uint])  # noqa: E731
        run()
        got = d.get(po, np.zeros(grid, np.float32)).astype(np.float64)
        ref = x.astype(np.float64).reshape(grid, 512).sum(axis=1)
        assert np.allclose(got, ref, rtol=1e-5), "reduce: wrong result"
        out["reduce"] = _median_ms(run, REPEAT)
        out["reduce_cpu"] = CPU_MS["last"]
    if "matmul" in rows:
        s = sizes["matmul"]
        f = d.kernel((CORPUS / "tiled_matmul.ptx").read_text(), "matmul_tiled")
        rng = np.random.default_rng(2)
        a, b = rng.random((s, s), dtype=np.float32), rng.random((s, s), dtype=np.float32)
        pa, pb, pc = d.put(a), d.put(b), d.put(np.zeros((s, s), np.float32))
        g = (s + 15) // 16
        run = lambda: d.launch(f, (g, g, 1), (16, 16, 1), [pa, pb, pc, s, s, s, 1.0, 0.0],  # noqa: E731
                               [None, None, None, c_int, c_int, c_int, c_float, c_float])
        run()
        np.testing.assert_allclose(d.get(pc, a), a @ b, rtol=1e-4)
        out["matmul"] = _median_ms(run, REPEAT)
        out["matmul_cpu"] = CPU_MS["last"]
    if "empty" in rows:
        f = d.kernel(EMPTY_PTX, "empty")
        run = lambda: d.launch(f, (1, 1, 1), (1, 1, 1), [], [])  # noqa: E731
        for _ in range(20):
            run()
        per = [_median_ms(lambda: [run() for _ in range(200)], 1) / 200 for _ in range(REPEAT)]
        out["empty"] = statistics.median(per)
    return out


def ready_child() -> dict:
    """First launch of each kernel in a fresh process (tiny grid: what is timed is getting the
    kernel ready: the JIT compile, or the disk-cache lookup and object loads), and a second one."""
    d = Driver()
    c_int, c_uint, c_float = ctypes.c_int, ctypes.c_uint, ctypes.c_float
    buf = [d.check(d.cu.cuMemAlloc(64 << 10)) for _ in range(3)]
    warm = d.kernel(EMPTY_PTX, "empty")
    d.launch(warm, (1, 1, 1), (1, 1, 1), [], [])  # the runtime library and worker pool, not a kernel's cost
    kernels = {"vecadd": ("vector_add.ptx", "vector_addPKf", (1, 1, 1), (256, 1, 1), [*buf, 256],
                          [None, None, None, c_int]),
               "reduce": ("reduce_shared.ptx", "reduceILj256", (1, 1, 1), (256, 1, 1), [buf[0], buf[1], 512],
                          [None, None, c_uint]),
               "matmul": ("tiled_matmul.ptx", "matmul_tiled", (1, 1, 1), (16, 16, 1),
                          [*buf, 16, 16, 16, 1.0, 0.0], [None, None, None, c_int, c_int, c_int, c_float, c_float])}
    out = {}
    for row, (path, name, grid, block, args, types) in kernels.items():
        f = d.kernel((CORPUS / path).read_text(), name)
        times = []
        for _ in range(2):
            t0 = time.perf_counter()
            d.launch(f, grid, block, args, types)
            times.append((time.perf_counter() - t0) * 1e3)
        out[row] = times
    return out


def run_ready(backend: str) -> tuple[dict, dict]:
    """(cold, warm): first launches in a process with an empty JIT cache, then in a second process
    over the cache the first one filled."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, CUMETAL_BACKEND=backend, CUMETAL_QUIET="1", CUMETAL_CACHE_DIR=tmp)
        got = []
        for _ in range(2):
            proc = subprocess.run([sys.executable, __file__, "--ready-child"], env=env, capture_output=True,
                                  text=True, timeout=600, check=False)
            if proc.returncode != 0:
                raise SystemExit(f"{backend} ready child failed:\n{proc.stdout}{proc.stderr}")
            got.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return got[0], got[1]


def run_child(backend: str, quick: bool, rows: list[str], threads: int | None = None,
              extra_env: dict[str, str] | None = None) -> dict:
    env = dict(os.environ, CUMETAL_BACKEND=backend, CUMETAL_QUIET="1", **(extra_env or {}))
    if threads is not None:
        env["CUMETAL_CPU_THREADS"] = str(threads)
    cmd = [sys.executable, __file__, "--child", "--rows", ",".join(rows)] + (["--quick"] if quick else [])
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{backend} child failed:\n{proc.stdout}{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------ PoCL
def _pyopencl():
    try:
        import pyopencl
    except ImportError:
        print("(installing pyopencl for the PoCL anchor)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "pyopencl"], check=False)
        try:
            import pyopencl
        except ImportError:
            return None
    return pyopencl


def pocl(quick: bool, rows: list[str]) -> dict | None:
    cl = _pyopencl()
    if cl is None:
        return None
    try:
        plats = [p for p in cl.get_platforms() if "Portable" in p.name or "pocl" in p.name.lower()]
    except cl.Error:
        plats = []
    if not plats:
        print("(no PoCL platform: apt-get install pocl-opencl-icd)", file=sys.stderr)
        return None
    ctx = cl.Context(plats[0].get_devices())
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, OPENCL).build()
    mf = cl.mem_flags
    sizes = _sizes(quick)
    out: dict = {}

    def buf(a):
        return cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a)

    def timed(kernel, gsize, lsize, *args):
        def run():
            kernel(q, gsize, lsize, *args)
            q.finish()
        run()
        wall = _median_ms(run, REPEAT)
        CPU_MS["pocl"] = CPU_MS["last"]
        return wall

    if "vecadd" in rows:
        n = sizes["vecadd"]
        rng = np.random.default_rng(0)
        a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        c = np.zeros(n, np.float32)
        ba, bb, bc = buf(a), buf(b), buf(c)
        out["vecadd"] = timed(prg.vecadd, ((n + 255) // 256 * 256,), (256,), ba, bb, bc, np.int32(n))
        out["vecadd_cpu"] = CPU_MS["pocl"]
        cl.enqueue_copy(q, c, bc)
        assert np.array_equal(c, a + b)
    if "reduce" in rows:
        n = sizes["reduce"]
        x = np.random.default_rng(1).random(n, dtype=np.float32)
        grid = n // 512
        o = np.zeros(grid, np.float32)
        bx, bo = buf(x), buf(o)
        out["reduce"] = timed(prg.reduce, (grid * 256,), (256,), bx, bo, np.uint32(n))
        out["reduce_cpu"] = CPU_MS["pocl"]
        cl.enqueue_copy(q, o, bo)
        assert np.allclose(o, x.astype(np.float64).reshape(grid, 512).sum(axis=1), rtol=1e-5)
    if "matmul" in rows:
        s = sizes["matmul"]
        rng = np.random.default_rng(2)
        a, b = rng.random((s, s), dtype=np.float32), rng.random((s, s), dtype=np.float32)
        c = np.zeros((s, s), np.float32)
        ba, bb, bc = buf(a), buf(b), buf(c)
        g = (s + 15) // 16 * 16
        out["matmul"] = timed(prg.matmul_tiled, (g, g), (16, 16), ba, bb, bc, np.int32(s), np.int32(s),
                              np.int32(s), np.float32(1.0), np.float32(0.0))
        out["matmul_cpu"] = CPU_MS["pocl"]
        cl.enqueue_copy(q, c, bc)
        np.testing.assert_allclose(c, a @ b, rtol=1e-4)
    if "empty" in rows:
        k = prg.empty

        def many():
            for _ in range(200):
                k(q, (1,), (1,))
                q.finish()
        many()
        out["empty"] = statistics.median(_median_ms(many, 1) / 200 for _ in range(REPEAT))
    return out


# ------------------------------------------------------------------ report
LABELS = {"vecadd": "vecadd 2^24 f32", "reduce": "reduce 2^24 f32, 256/block, shared tree",
          "matmul": "tiled 16x16 matmul 512^3", "empty": "empty launch + sync"}
QUICK_LABELS = {"vecadd": "vecadd 2^20 f32", "reduce": "reduce 2^20 f32, 256/block, shared tree",
                "matmul": "tiled 16x16 matmul 128^3", "empty": "empty launch + sync"}


def _fmt(ms: float | None) -> str:
    if ms is None:
        return "-"
    return f"{ms * 1000:.0f} µs" if ms < 1 else f"{ms:.1f} ms"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--rows", default=",".join(ROWS))
    ap.add_argument("--ready-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--skip-numpy", action="store_true", help="leave out the numpy engine (slow at full size)")
    ap.add_argument("--rounds", type=int, default=3, help="times every configuration runs (medians over rounds)")
    ap.add_argument("--out", help="also write the report (markdown) to this file")
    args = ap.parse_args()
    rows = [r for r in args.rows.split(",") if r]
    if args.child:
        print(json.dumps(child(args.quick, rows)))
        return 0
    if args.ready_child:
        print(json.dumps(ready_child()))
        return 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load_start = _loadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    runs: list[dict[str, dict | None]] = []
    for _ in range(args.rounds):  # every configuration once per round: each round shares the machine's load
        r: dict[str, dict | None] = {}
        r["pocl"] = pocl(args.quick, rows)
        r["jit"] = run_child("cpu-jit", args.quick, rows)
        # the compiled backend behind `cpu` with tiering (small launches on the numpy engine until a
        # compile pays off): big launches must be as fast as cpu-jit's
        r["tier"] = run_child("cpu", args.quick, rows, extra_env={"CUMETAL_CPU_ENGINE": "jit"})
        r["jit1"] = run_child("cpu-jit", args.quick, [r_ for r_ in rows if r_ != "empty"], threads=1)
        r["jitnc"] = run_child("cpu-jit", args.quick, [r_ for r_ in rows if r_ != "empty"],
                               extra_env={"CUMETAL_JIT_CHECKS": "0"})
        r["jitsc"] = run_child("cpu-jit", args.quick, [r_ for r_ in rows if r_ == "vecadd"],
                               extra_env={"CUMETAL_JIT_VECTOR": "0"})
        # barrier kernels without the vectorized work-item regions (the opt-out of backends/air/sim/wivector.py)
        r["jitwv"] = run_child("cpu-jit", args.quick, [r_ for r_ in rows if r_ in ("reduce", "matmul")],
                               extra_env={"CUMETAL_JIT_WIVECTOR": "0"})
        r["numpy"] = None if args.skip_numpy else run_child("cpu", args.quick, rows,
                                                            extra_env={"CUMETAL_CPU_ENGINE": "numpy"})
        runs.append(r)

    def cell(config: str, key: str) -> float | None:
        vals = [r[config][key] for r in runs if r[config] and key in r[config]]
        return statistics.median(vals) if vals else None

    def ratio(a: str, b: str, key: str) -> float | None:
        vals = [r[a][key] / r[b][key] for r in runs if r[a] and r[b] and r[a].get(key) and r[b].get(key)]
        return statistics.median(vals) if vals else None

    cold, warm = run_ready("cpu-jit")
    labels = QUICK_LABELS if args.quick else LABELS
    lines = [f"Run {started}: {platform.machine()}, {cores} cores, Python {platform.python_version()}, "
             f"/proc/loadavg {load_start} at the start, {_loadavg()} at the end; median of {REPEAT} launches "
             f"per round, median of {args.rounds} rounds (ratios: median of the rounds' ratios)", "",
             f"| kernel | numpy `cpu` | `cpu-jit` ({cores} cores) | `cpu` (tiered default) | `cpu-jit` (1 core) | "
             f"`cpu-jit`, CUMETAL_JIT_VECTOR=0 | `cpu-jit`, CUMETAL_JIT_CHECKS=0 | `cpu-jit`, CUMETAL_JIT_WIVECTOR=0 "
             f"| PoCL | cpu-jit / PoCL "
             f"| tiered cpu / PoCL | CPU time cpu-jit / PoCL | scaling 1→{cores} |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        rt, ct, sc = ratio("jit", "pocl", r), ratio("jit", "pocl", r + "_cpu"), ratio("jit1", "jit", r)
        tt = ratio("tier", "pocl", r)
        lines.append(f"| {labels[r]} | {_fmt(cell('numpy', r))} | {_fmt(cell('jit', r))} | {_fmt(cell('tier', r))} "
                     f"| {_fmt(cell('jit1', r))} | {_fmt(cell('jitsc', r))} "
                     f"| {_fmt(cell('jitnc', r))} | {_fmt(cell('jitwv', r))} | {_fmt(cell('pocl', r))} | {'-' if rt is None else f'{rt:.2f}×'} "
                     f"| {'-' if tt is None else f'{tt:.2f}×'} "
                     f"| {'-' if ct is None else f'{ct:.2f}×'} | {'-' if sc is None else f'{sc:.2f}×'} |")
    if "vecadd" in rows:
        extra = cell("numpy", "vecadd_extra_mb")
        lines += ["", f"Peak memory beyond the three arrays, vecadd: cpu-jit {cell('jit', 'vecadd_extra_mb'):.1f} MB"
                  + ("" if extra is None else f", numpy engine {extra:.1f} MB")]
    lines += ["", "First launch of a kernel in a new process (tiny grid), cpu-jit: JIT compile (empty cache) / "
              "from the disk cache / second launch"]
    for r, (c, w) in ((r, (cold[r], warm[r])) for r in cold):
        lines.append(f"  {r}: {c[0]:.1f} ms / {w[0]:.1f} ms / {w[1]:.2f} ms")
    print("\n".join(lines))
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

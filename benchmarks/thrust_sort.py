"""Thrust sort, sort_by_key, inclusive_scan and reduce on CuMetal's CPU device, beside numpy (a
benchmark, not a test).

A small Thrust program (``PROGRAM`` below) is built with ``cumetalc -I$CCCL`` against the user's
CCCL (``pip install nvidia-cuda-cccl==13.3.5.0.6``, docs/libraries.md) and run on the data this
script writes: ``thrust::sort`` of 2^20 uint32 keys, ``thrust::sort_by_key`` of 2^20 key-value
pairs, ``thrust::inclusive_scan`` and ``thrust::reduce`` of 2^22 uint32. Each call is timed inside
the program (``std::chrono`` around the call and a ``cudaDeviceSynchronize``) after a warm-up call
of the same (which compiles the kernels); the sorts time a device-to-device copy of the unsorted
input plus the sort and subtract the copy timed alone. The anchor is numpy on the same data in the
same run: ``np.sort``, a stable ``np.argsort`` plus two gathers for the pairs, ``np.cumsum`` and
``np.sum`` (uint32, wrapping as the device does). Every result is checked against numpy's.

    python benchmarks/thrust_sort.py [--rounds 3] [--before] [--backend cpu] [--out table.md]

``--before`` also runs the program with ``CUMETAL_JIT_MERGED=0`` (the CUB kernels whose work-item
regions would be too large go back to fibers, as before backends/air/sim/workitem.py ``_merged``).
Times are the median over the rounds; the machine's load average is printed with them.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

PROGRAM = r"""
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/copy.h>
#include <thrust/sort.h>
#include <thrust/scan.h>
#include <thrust/reduce.h>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

static std::vector<uint32_t> load(const std::string &path, size_t n) {
  std::vector<uint32_t> v(n);
  FILE *f = fopen(path.c_str(), "rb");
  if (!f || fread(v.data(), 4, n, f) != n) { fprintf(stderr, "cannot read %s\n", path.c_str()); exit(2); }
  fclose(f);
  return v;
}
static void save(const std::string &path, const thrust::host_vector<uint32_t> &v) {
  FILE *f = fopen(path.c_str(), "wb");
  fwrite(v.data(), 4, v.size(), f);
  fclose(f);
}
static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
template <class F> static double timed(F f) {
  f();  // warm-up (compiles the kernels)
  cudaDeviceSynchronize();
  double t0 = now();
  f();
  cudaDeviceSynchronize();
  return now() - t0;
}

int main(int argc, char **argv) {
  if (argc < 5) { fprintf(stderr, "usage: thrust_sort DIR NSORT NSCAN WHICH(s p c r)\n"); return 2; }
  std::string dir = argv[1], which = argv[4];
  size_t ns = strtoull(argv[2], 0, 10), nc = strtoull(argv[3], 0, 10);
  std::vector<uint32_t> keys = load(dir + "/keys.bin", ns), vals = load(dir + "/vals.bin", ns);
  std::vector<uint32_t> data = load(dir + "/data.bin", nc);
  if (which.find('s') != std::string::npos) {
    thrust::device_vector<uint32_t> src(keys.begin(), keys.end()), d(ns);
    double copy = timed([&] { thrust::copy(src.begin(), src.end(), d.begin()); });
    double t = timed([&] { thrust::copy(src.begin(), src.end(), d.begin()); thrust::sort(d.begin(), d.end()); });
    printf("sort %.6f\n", t - copy);
    save(dir + "/out_sort.bin", thrust::host_vector<uint32_t>(d));
  }
  if (which.find('p') != std::string::npos) {
    thrust::device_vector<uint32_t> ks(keys.begin(), keys.end()), vs(vals.begin(), vals.end()), k(ns), v(ns);
    auto cp = [&] { thrust::copy(ks.begin(), ks.end(), k.begin()); thrust::copy(vs.begin(), vs.end(), v.begin()); };
    double copy = timed(cp);
    double t = timed([&] { cp(); thrust::sort_by_key(k.begin(), k.end(), v.begin()); });
    printf("sort_by_key %.6f\n", t - copy);
    save(dir + "/out_keys.bin", thrust::host_vector<uint32_t>(k));
    save(dir + "/out_vals.bin", thrust::host_vector<uint32_t>(v));
  }
  if (which.find('c') != std::string::npos) {
    thrust::device_vector<uint32_t> in(data.begin(), data.end()), out(nc);
    double t = timed([&] { thrust::inclusive_scan(in.begin(), in.end(), out.begin()); });
    printf("inclusive_scan %.6f\n", t);
    save(dir + "/out_scan.bin", thrust::host_vector<uint32_t>(out));
  }
  if (which.find('r') != std::string::npos) {
    thrust::device_vector<uint32_t> in(data.begin(), data.end());
    uint32_t r = 0;
    double t = timed([&] { r = thrust::reduce(in.begin(), in.end(), 0u); });
    printf("reduce %.6f %u\n", t, r);
  }
  return 0;
}
"""

ALGOS = ("sort", "sort_by_key", "inclusive_scan", "reduce")


def _cccl() -> Path:
    import importlib.metadata as md

    try:
        return Path(md.distribution("nvidia-cuda-cccl").locate_file("nvidia/cu13/include/cccl"))
    except md.PackageNotFoundError:
        sys.exit("needs CCCL's headers: pip install nvidia-cuda-cccl==13.3.5.0.6 (docs/libraries.md)")


def build(cache: Path) -> Path:
    """The program, built once per source text (kept under ``cache``)."""
    tag = hashlib.sha256(PROGRAM.encode()).hexdigest()[:12]
    exe = cache / f"thrust_sort-{tag}"
    if not exe.exists():
        cache.mkdir(parents=True, exist_ok=True)
        src = cache / f"thrust_sort-{tag}.cu"
        src.write_text(PROGRAM)
        subprocess.run([sys.executable, "-m", "cumetal.tools.cumetalc", f"-I{_cccl()}", str(src), "-o", str(exe)],
                       check=True)
    return exe


def run_program(exe: Path, data: Path, ns: int, nc: int, env: dict[str, str]) -> dict[str, float]:
    proc = subprocess.run([str(exe), str(data), str(ns), str(nc), "spcr"], capture_output=True, text=True,
                          env=env, timeout=3600, check=False)
    if proc.returncode != 0:
        sys.exit(f"{exe.name} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr[-3000:]}")
    times = {}
    for line in proc.stdout.splitlines():
        word = line.split()
        times[word[0]] = float(word[1])
        if word[0] == "reduce":
            times["reduce_value"] = int(word[2])
    return times


def check(data: Path, keys, vals, x, reduced: int) -> None:
    """Every result equal to numpy's on the same data."""
    def read(name):
        return np.fromfile(data / name, np.uint32)
    order = np.argsort(keys, kind="stable")
    assert np.array_equal(read("out_sort.bin"), np.sort(keys)), "sort"
    assert np.array_equal(read("out_keys.bin"), keys[order]) and np.array_equal(read("out_vals.bin"), vals[order]), \
        "sort_by_key"
    assert np.array_equal(read("out_scan.bin"), np.cumsum(x, dtype=np.uint32)), "inclusive_scan"
    assert reduced == int(np.sum(x, dtype=np.uint32)), "reduce"


def numpy_times(keys, vals, x, rounds: int) -> dict[str, float]:
    def best(f):
        out = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            f()
            out.append(time.perf_counter() - t0)
        return statistics.median(out)

    def pairs():
        o = np.argsort(keys, kind="stable")
        return keys[o], vals[o]
    return {"sort": best(lambda: np.sort(keys)), "sort_by_key": best(pairs),
            "inclusive_scan": best(lambda: np.cumsum(x, dtype=np.uint32)),
            "reduce": best(lambda: np.sum(x, dtype=np.uint32))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sort-n", type=int, default=1 << 20)
    ap.add_argument("--scan-n", type=int, default=1 << 22)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--before", action="store_true", help="also run with CUMETAL_JIT_MERGED=0 (fibers, as before)")
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    cache = Path(os.environ.get("CUMETAL_CACHE_DIR") or Path.home() / ".cache" / "cumetal") / "benchmarks"
    exe = build(cache)
    rng = np.random.default_rng(2026)
    keys = rng.integers(0, 1 << 32, a.sort_n, dtype=np.uint32)
    vals = np.arange(a.sort_n, dtype=np.uint32)
    x = rng.integers(0, 1 << 32, a.scan_n, dtype=np.uint32)
    configs = [("before (fibers)", {"CUMETAL_JIT_MERGED": "0"})] if a.before else []
    configs.append(("CuMetal", {}))
    load0 = os.getloadavg()[0]
    rows: dict[str, list[dict[str, float]]] = {name: [] for name, _ in configs}
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        keys.tofile(data / "keys.bin")
        vals.tofile(data / "vals.bin")
        x.tofile(data / "data.bin")
        for _ in range(a.rounds):
            for name, extra in configs:
                env = dict(os.environ, CUMETAL_BACKEND=a.backend, CUMETAL_QUIET="1", **extra)
                t = run_program(exe, data, a.sort_n, a.scan_n, env)
                check(data, keys, vals, x, int(t["reduce_value"]))
                rows[name].append(t)
    ref = numpy_times(keys, vals, x, max(a.rounds, 3))
    load1 = os.getloadavg()[0]
    sizes = {"sort": a.sort_n, "sort_by_key": a.sort_n, "inclusive_scan": a.scan_n, "reduce": a.scan_n}
    head = "| algorithm (uint32) | n | " + " | ".join(f"{name} ({a.backend})" for name, _ in configs) + \
        " | numpy | CuMetal / numpy |"
    lines = [f"Run: {os.uname().machine}, {os.cpu_count()} CPUs, load average {load0:.1f} -> {load1:.1f}, "
             f"median of {a.rounds}, times of one call after a warm-up call", "", head,
             "|" + "---|" * (head.count("|") - 1)]
    for algo in ALGOS:
        med = {name: statistics.median(r[algo] for r in rows[name]) for name, _ in configs}
        cells = " | ".join(f"{1e3 * med[name]:.1f} ms" for name, _ in configs)
        lines.append(f"| {algo} | 2^{sizes[algo].bit_length() - 1} | {cells} | {1e3 * ref[algo]:.2f} ms | "
                     f"{med['CuMetal'] / ref[algo]:.0f}x |")
    text = "\n".join(lines)
    print(text)
    if a.out:
        a.out.write_text(text + "\n")


if __name__ == "__main__":
    main()

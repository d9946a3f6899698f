"""Record where NVIDIA's cuRAND switches Poisson methods, on a machine with an NVIDIA GPU, CUDA 13
and cupy (one ``run`` on the project's H100, ~1-2 min):

    python scripts/make_curand_switches.py OUTDIR

writes ``OUTDIR/curand_switch_goldens.npz``:

* ``host/<GEN>/<switch>``: for each switch of ``curandGeneratePoisson`` that earlier recordings only
  bracketed (square histogram -> discrete Gauss / ITR, ITR -> rounded normal), a bisection in lambda
  (seed 1234, N draws from the start of the stream). Each step classifies NVIDIA's draws with
  CuMetal's model of the method below the switch (``cumetal.libs.curand.poisson``, imported from this
  checkout: numpy only) applied to the generator's own words (``curandGenerate(LongLong)`` of a fresh
  generator with the same seed). ``.../lams`` and ``.../below`` hold every lambda tried and its class;
  ``.../lo`` and ``.../hi`` NVIDIA's draws at the final bracket, so the tests re-check both sides
  independently of the bisection.
* ``host/<GEN>/grid``: the same classification on a coarse grid across the bracket (monotone?).
* ``methods/*``: the method, shift and length of ``curandCreatePoissonDistribution`` over a grid and
  two refinements around the change of method (tests/libs/golden/src/curand_switch_goldens.cu,
  nvcc -DDUMP_METHODS, NVIDIA's struct layout);
* ``device/raw``: that program's kernels: Philox ``curand_discrete4`` (table and Gauss distributions),
  ``curand_poisson4``, ``curand_normal4``/``log_normal4``/``normal2``/``log_normal2``.
"""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys
import time
import traceback

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
SRC = ROOT / "tests" / "libs" / "golden" / "src" / "curand_switch_goldens.cu"
sys.path.insert(0, str(ROOT / "src"))
from cumetal.libs.curand import poisson  # noqa: E402  (numpy only)

_spec = importlib.util.spec_from_file_location("make_curand_goldens", ROOT / "scripts" / "make_curand_goldens.py")
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)  # type: ignore[union-attr]
_spec2 = importlib.util.spec_from_file_location("mcps", ROOT / "scripts" / "make_curand_poisson_sobol.py")
mcps = importlib.util.module_from_spec(_spec2)
_spec2.loader.exec_module(mcps)  # type: ignore[union-attr]

N_TABLE, N_ITR = 512, 64   # draws per classification (ITR vs rounded normal differ in ~20% of draws)
DEADLINE = time.time() + 100.0
# (generator, switch name, lower-method classifier, bracket (below, above)) from the earlier recordings
SWITCHES = [
    ("XORWOW", "table", "table", 1500.0, 2000.0),
    ("PHILOX4_32_10", "table", "table", 1500.0, 2000.0),
    ("MRG32K3A", "table", "table", 1500.0, 2000.0),
    ("MT19937", "table", "table", 1500.0, 2000.0),
    ("MTGP32", "table", "table", 10.0, 63.0),
    ("SOBOL32", "table", "table", 4.0, 30.0),
    ("SCRAMBLED_SOBOL32", "table", "table", 4.0, 30.0),
    ("MTGP32", "normal", "itr32", 5000.0, 10000.0),
    ("SOBOL64", "normal", "itr64", 1000.0, 5000.0),
    ("SOBOL32", "normal", "itr32", 5000.0, 100000.0),
]


class Host:
    def __init__(self) -> None:
        inc = base.cuda_include()
        enums = base.parse_enums(inc) if inc is not None else {}
        cu = enums.get("curand.h", {})
        self.rng = {k: cu.get("CURAND_RNG_PSEUDO_" + k, cu.get("CURAND_RNG_QUASI_" + k, v))
                    for k, v in base.RNG.items()}
        self.c = base.Curand()
        self.words: dict[tuple[str, str], np.ndarray] = {}

    def _gen(self, name: str):  # noqa: ANN202
        quasi = "SOBOL" in name
        return self.c.gen(self.rng[name], seed=None if quasi else 1234, dims=1 if quasi else None)

    def draws(self, name: str, kind: str, n: int, *args: float) -> np.ndarray:
        g = self._gen(name)
        try:
            return self.c.run(g, kind, n, *args)
        finally:
            self.c.destroy(g)

    def word(self, name: str, kind: str, n: int) -> np.ndarray:
        if (name, kind) not in self.words:
            self.words[(name, kind)] = self.draws(name, kind, N_TABLE)
        return self.words[(name, kind)][:n]

    def below(self, name: str, method: str, lam: float) -> tuple[bool, np.ndarray]:
        """Whether NVIDIA's draws at lam are CuMetal's model of the method below the switch."""
        n = N_TABLE if method == "table" else N_ITR
        got = self.draws(name, "poisson", n, lam)
        if method == "table":
            model = poisson.histogram_draws(self.word(name, "u32", n), lam)
        elif method == "itr32":
            model = poisson.itr_draws((self.word(name, "u32", n).astype(np.float64) + 1.0) * 2.0 ** -32, lam)
        else:
            x64 = self.word(name, "u64", n)
            model = poisson.itr_draws((x64 >> np.uint64(11)).astype(np.float64) * 2.0 ** -53 + 2.0 ** -54, lam)
        return bool(np.array_equal(model, got)), got


def host_part(out: dict[str, np.ndarray]) -> None:
    h = Host()
    for name, switch, method, lo, hi in SWITCHES:
        key = f"host/{name}/{switch}"
        try:
            grid = np.linspace(lo, hi, 21)
            cls = [h.below(name, method, float(x))[0] for x in grid]
            out[key + "/grid_lams"], out[key + "/grid_below"] = grid, np.array(cls)
            print(f"{key}: grid {''.join('1' if c else '0' for c in cls)}", flush=True)
            if not cls[0] or cls[-1]:
                print(f"{key}: bracket does not hold, no bisection", flush=True)
                continue
            lo = float(grid[max(i for i, c in enumerate(cls) if c)])
            hi = float(grid[min(i for i, c in enumerate(cls) if not c and grid[i] > lo)])
            lams, below = [], []
            while hi - lo > 1e-7 * hi and time.time() < DEADLINE:
                mid = 0.5 * (lo + hi)
                ok, _ = h.below(name, method, mid)
                lams.append(mid)
                below.append(ok)
                lo, hi = (mid, hi) if ok else (lo, mid)
            out[key + "/lams"], out[key + "/below"] = np.array(lams), np.array(below)
            out[key + "/bracket"] = np.array([lo, hi])
            out[key + "/lo"] = h.below(name, method, lo)[1]
            out[key + "/hi"] = h.below(name, method, hi)[1]
            print(f"{key}: switch in ({lo!r}, {hi!r}) after {len(lams)} steps; "
                  f"columns {poisson.table_columns(lo)} / {poisson.table_columns(hi)}", flush=True)
        except Exception:  # noqa: BLE001
            traceback.print_exc()


def build(workdir: pathlib.Path) -> pathlib.Path:
    nvcc, include = mcps._nvcc()
    so = pathlib.Path(base.load_curand()._name).resolve()
    lib = so.parent
    link = [f"-L{lib}", "-lcurand"] if (lib / "libcurand.so").exists() else [f"-Xlinker={so}"]
    exe = workdir / "curand_switch"
    cmd = [nvcc, *include, "-DDUMP_METHODS", "-arch=sm_90", "-O3", "-o", str(exe), str(SRC), *link,
           f"-Xlinker=-rpath,{lib}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=300)
    print(f"nvcc: rc={proc.returncode} {proc.stderr[-3000:]}", flush=True)
    return exe


def methods(exe: pathlib.Path, workdir: pathlib.Path, lams: np.ndarray) -> np.ndarray:
    src, dst = workdir / "lams.txt", workdir / "methods.bin"
    src.write_text("\n".join(repr(float(x)) for x in lams) + "\n")
    run = subprocess.run([str(exe), "--methods", str(src), str(dst)], capture_output=True, text=True, check=False,
                         timeout=120)
    if run.returncode != 0:
        raise RuntimeError(run.stderr[-2000:])
    return np.frombuffer(dst.read_bytes(), np.uint32).reshape(-1, 3)


def device_part(out: dict[str, np.ndarray], workdir: pathlib.Path) -> None:
    exe = build(workdir)
    raw = workdir / "switch.bin"
    run = subprocess.run([str(exe), str(raw)], capture_output=True, text=True, check=False, timeout=120)
    print(f"program: rc={run.returncode} {run.stdout[-200:]} {run.stderr[-2000:]}", flush=True)
    if raw.exists():
        out["device/raw"] = np.frombuffer(raw.read_bytes(), np.uint32)
    lams = np.arange(1000.0, 3000.0, 2.0)
    for level in range(3):
        m = methods(exe, workdir, lams)
        out[f"methods/lams{level}"], out[f"methods/rec{level}"] = lams, m
        change = np.flatnonzero(m[1:, 0] != m[:-1, 0])
        print(f"methods level {level}: {len(lams)} lambdas, method changes after {lams[change]}", flush=True)
        if len(change) == 0:
            break
        i = int(change[0])
        lams = np.linspace(lams[i], lams[i + 1], 1001)


def main() -> int:
    outdir = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    outdir.mkdir(parents=True, exist_ok=True)
    out: dict[str, np.ndarray] = {}
    for what, fn in (("device", lambda: device_part(out, outdir)), ("host", lambda: host_part(out))):
        t = time.time()
        try:
            fn()
            print(f"{what}: done in {time.time() - t:.1f}s", flush=True)
        except Exception:  # noqa: BLE001
            traceback.print_exc()
        np.savez_compressed(outdir / "curand_switch_goldens.npz", **out)
    print(f"{len(out)} arrays", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

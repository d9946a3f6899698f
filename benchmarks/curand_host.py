"""CPU time of cuRAND's host API (cumetal.libs.curand.host) per generator and distribution, side by
side with numpy's own generator for the same distribution (np.random.default_rng) as the anchor.

    python benchmarks/curand_host.py [--sizes 20,22] [--numpy-models] [--gens XORWOW,MRG32K3A]

Times are CPU seconds (time.process_time) of one call producing 2^k values; "first" rows include
per-seed setup (MT19937's 8192 jumped generators, MRG32k3a's 2^17 subsequence states, XORWOW's
4096), the other rows a second call with the setup cached. ``--numpy-models`` forces the numpy
fallback of the per-element models and inner loops (the path used when no C compiler exists).
The load average is printed: the figures depend on it (docs/libraries.md, "Figures").
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

KINDS = ("u32", "uniform", "uniform_double", "normal", "normal_double", "lognormal", "lognormal_double", "poisson")
NUMPY = {"u32": lambda r, n: r.integers(0, 2 ** 32, n, dtype=np.uint32), "uniform": lambda r, n: r.random(n, np.float32),
         "uniform_double": lambda r, n: r.random(n), "normal": lambda r, n: r.standard_normal(n, np.float32),
         "normal_double": lambda r, n: r.standard_normal(n), "lognormal": lambda r, n: r.lognormal(0, 1, n),
         "lognormal_double": lambda r, n: r.lognormal(0, 1, n), "poisson": lambda r, n: r.poisson(10.0, n)}


def cpu(fn) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def main() -> None:
    from cumetal.libs.curand import host as H

    try:
        from cumetal.libs.curand import fast
    except ImportError:  # before the C models existed
        fast = None

    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="20,22")
    ap.add_argument("--numpy-models", action="store_true")
    ap.add_argument("--gens", default="XORWOW,PHILOX4_32_10,MRG32K3A,MTGP32,MT19937,SOBOL32")
    ap.add_argument("--kinds", default=",".join(KINDS))
    args = ap.parse_args()
    if args.numpy_models and fast is not None:
        fast.disable()
    names = {v: k for k, v in H.SUPPORTED.items()}
    kinds = args.kinds.split(",")
    print(f"# load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}, CPUs {os.cpu_count()}, "
          f"models: {'numpy' if args.numpy_models or fast is None or not fast.available() else 'C'}", flush=True)
    print("| generator | values | first | " + " | ".join(kinds) + " |", flush=True)
    for k in (int(s) for s in args.sizes.split(",")):
        n = 1 << k
        rng = np.random.default_rng(1)
        row = [f"{cpu(lambda f=NUMPY[kind], rng=rng, n=n: f(rng, n)):.3f}" for kind in kinds]
        print(f"| numpy default_rng | 2^{k} | - | " + " | ".join(row) + " |", flush=True)
        for gname in args.gens.split(","):
            h = H.create(names[gname], True)
            g = H.get(h)
            g.seed = 1234 + k
            first = cpu(lambda g=g, n=n: H.values(g, "u32", n))  # setup for this seed + the first values
            row = []
            for kind in kinds:
                p1, p2 = (10.0, 0.0) if kind == "poisson" else (0.0, 1.0)
                row.append(f"{cpu(lambda g=g, kind=kind, n=n, p1=p1, p2=p2: H.values(g, kind, n, p1, p2)):.3f}")
            print(f"| {gname} | 2^{k} | {first:.2f} | " + " | ".join(row) + " |", flush=True)
            H.destroy(h)


if __name__ == "__main__":
    main()

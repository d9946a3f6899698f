"""Record what CuMetal's MT19937 and scrambled Sobol generators are built from, on NVIDIA's cuRAND.

Runs on a machine with an NVIDIA GPU, CUDA 13 and cupy (the helpers of make_curand_goldens.py
load libcurand through ctypes):

    python scripts/make_curand_mt19937_sobol.py OUTDIR [PART,PART]

writes

* ``OUTDIR/curand_scrambled_sobol.npz``: cuRAND's scrambled Joe–Kuo direction vectors for all
  20,000 dimensions (``CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6``, uint64 [20000, 64]) and
  whether the 32-bit set equals their top halves (``top_halves_equal``), plus the scramble
  constants (``scramble64``; the 32-bit ones are checked the same way);
* ``OUTDIR/curand_mt19937_layout.npz``: the first 2^16 outputs of the MT19937 host generator for
  seed 1234 (``out1234``) and, for every one of the first 2^17 outputs of the plain MT19937
  sequence of ``init_genrand(1234)`` found among its first 2^25 outputs, its index there
  (``base_pos``, ``out_idx``): how cuRAND lays out its parallel MT19937 streams;
* ``OUTDIR/curand_mt19937_sample.npz``: outputs of seed 1234 at indices spread over the first 2^24
  (chunks 0…255 of 65,536, generators 0, 1, 2, 7, 100, 999, 1000, 4095, 8191, all 8 threads):
  ``index``, ``value``, and the status curandSetGeneratorOrdering returns for PSEUDO_BEST, DEFAULT,
  SEEDED, LEGACY, DYNAMIC (``ordering_status``) (tests/libs/golden/).
"""

from __future__ import annotations

import ctypes
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from make_curand_goldens import Curand  # noqa: E402

MT19937, SCRAMBLED_64 = 142, 104
DIMS = 20000


def scrambled_tables(c: Curand) -> dict[str, np.ndarray]:
    p = ctypes.c_void_p()
    c.check(c.lib.curandGetDirectionVectors64(ctypes.byref(p), ctypes.c_int(SCRAMBLED_64)), "dirvec64s")
    v64 = np.ctypeslib.as_array((ctypes.c_uint64 * (DIMS * 64)).from_address(p.value)).copy()
    v64 = v64.reshape(DIMS, 64)
    p32 = ctypes.c_void_p()
    c.check(c.lib.curandGetDirectionVectors32(ctypes.byref(p32), ctypes.c_int(SCRAMBLED_64 - 2)), "dirvec32s")
    v32 = np.ctypeslib.as_array((ctypes.c_uint32 * (DIMS * 32)).from_address(p32.value)).copy()
    top = (v64[:, :32] >> np.uint64(32)).astype(np.uint32).reshape(-1)
    s64, s32 = ctypes.c_void_p(), ctypes.c_void_p()
    c.check(c.lib.curandGetScrambleConstants64(ctypes.byref(s64)), "scramble64")
    c.check(c.lib.curandGetScrambleConstants32(ctypes.byref(s32)), "scramble32")
    k64 = np.ctypeslib.as_array((ctypes.c_uint64 * DIMS).from_address(s64.value)).copy()
    k32 = np.ctypeslib.as_array((ctypes.c_uint32 * DIMS).from_address(s32.value)).copy()
    return {"dirvec64s": v64, "top_halves_equal": np.array([np.array_equal(top, v32)]),
            "scramble64": k64,
            "scramble_top_halves_equal": np.array([np.array_equal((k64 >> np.uint64(32)).astype(np.uint32), k32)])}


def mt19937_layout(c: Curand) -> dict[str, np.ndarray]:
    g = c.gen(MT19937, seed=1234)
    out = c.run(g, "u32", 1 << 25)
    c.destroy(g)
    rs = np.random.RandomState(1234).get_state()
    bg = np.random.MT19937()
    bg.state = {"bit_generator": "MT19937", "state": {"key": rs[1], "pos": rs[2]}}
    base = bg.random_raw(1 << 17).astype(np.uint32)
    order = np.argsort(out, kind="stable")
    srt = out[order]
    idx = np.minimum(np.searchsorted(srt, base), len(out) - 1)
    hit = srt[idx] == base
    return {"out1234": out[: 1 << 16], "base_pos": np.nonzero(hit)[0], "out_idx": order[idx[hit]]}


def mt19937_sample(c: Curand) -> dict[str, np.ndarray]:
    g = c.gen(MT19937, seed=1234)
    out = c.run(g, "u32", 1 << 24)
    c.destroy(g)
    gens = np.array([0, 1, 2, 7, 100, 999, 1000, 4095, 8191])
    idx = (np.arange(256)[:, None, None] * 65536 + gens[None, :, None] * 8 + np.arange(8)[None, None, :]).reshape(-1)
    statuses = []
    for ordering in (100, 101, 102, 103, 104):  # PSEUDO_BEST, DEFAULT, SEEDED, LEGACY, DYNAMIC
        g = c.gen(MT19937, seed=1234)
        statuses.append(c.lib.curandSetGeneratorOrdering(g, ctypes.c_int(ordering)))
        c.destroy(g)
    return {"index": idx.astype(np.int64), "value": out[idx], "ordering_status": np.array(statuses)}


def main() -> int:
    outdir = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    outdir.mkdir(parents=True, exist_ok=True)
    c = Curand()
    parts = sys.argv[2].split(",") if len(sys.argv) > 2 else ["curand_scrambled_sobol", "curand_mt19937_layout",
                                                              "curand_mt19937_sample"]
    for name, fn in (("curand_scrambled_sobol", scrambled_tables), ("curand_mt19937_layout", mt19937_layout),
                     ("curand_mt19937_sample", mt19937_sample)):
        if name not in parts:
            continue
        try:
            data = fn(c)
            np.savez_compressed(outdir / f"{name}.npz", **data)
            print(name, {k: v.shape for k, v in data.items()}, flush=True)
        except Exception as e:  # noqa: BLE001
            print(f"{name}: {e!r}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

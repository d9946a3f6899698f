#!/usr/bin/env python3
"""Record NVIDIA's ``erfcinvf`` / ``erfcinv`` on an H100 as a black box (issue #15: cuRAND MT19937
normals bit for bit).

cuRAND's MT19937 float normals are -/+sqrt2 * erfcinvf(2p) with p = (j + 1/2) 2^-32 rounded to float,
j < 2^31, so erfcinvf's inputs are the floats c = 2p in (0, 1): every float of [2^-8, 1) that the
rounding reaches and the odd multiples of 2^-32 below 2^-8; its double normals are
-sqrt2 * erfcinv((2x + 1) 2^-32) over all 32-bit x (docs/libraries.md).

On a machine with nvcc and an sm_90 GPU (one ``run`` of the device tool)::

    python3 scripts/make_erfcinv_recordings.py record OUTDIR

builds scripts/make_erfcinv_probe.cu (nvcc -O3, default flags) and writes

* ``erfcinvf_hist.npy``: over every float c in [0, 2], per bucket of 2^19 inputs (c's bits >> 19):
  counts of erfcinvf(c) minus the NVIDIA double erfcinv rounded to float in ulps (<= -2, -1, 0, +1,
  >= +2), of erfcinvf(c) == erfinvf(1 - c), of erfcinvf(c) == -erfcinvf(2 - c) and the bucket size;
* ``erfcinvf_hi.npz``: erfcinvf of every float in [2^-4, 1) (``DENSE_HI``), lossless: the second
  differences of the results' ordered bit patterns (int8, lzma; exceptions kept exactly) and a CRC;
* ``erfcinvf_win.npz``: the same for ``WINDOW`` consecutive floats from the start and the middle of
  every binade in [2^-32, 2^-4);
* ``erfcinv_d.npz``: erfcinv (double) at cuRAND's inputs (2x + 1) 2^-32 for ``DSAMPLES`` random x and
  the 2^16 smallest and 2^16 around x = 2^31, raw.

``load(path)`` decodes the float files into {name: (input bits, output bits)}.

    python3 scripts/make_erfcinv_recordings.py verify OUTDIR

builds the probe with CuMetal's model (src/cumetal/libdevice/src/erfcinvf_h100.h, NVIDIA's erfcinvf
standing in for the model's tail) and writes ``verify.npz``: per bucket of 2^19 floats of [0, 2] the
mismatch count, and up to 2^20 mismatching inputs with the GPU's results; and ``erfcinvf_mid.npz``,
erfcinvf of every float in [2^-9, 2^-4) (``DENSE_MID``, encoded as ``erfcinvf_hi.npz``).

    python3 scripts/make_erfcinv_recordings.py erfinv OUTDIR

writes ``erfinvf_top.npz``: erfinvf of every float in [0.99, 1) (``ERFINV_TOP``, raw), where the
H100's erfinvf leaves the central form.

    python3 scripts/make_erfcinv_recordings.py double OUTDIR
    python3 scripts/make_erfcinv_recordings.py oddeven OUTDIR   # erfcinv_oddeven.npz (:func:`odd_even`)

writes ``erfcinv_sweep.npz`` (:func:`double_sweep`): the double erfcinv on windows of every binade
of cuRAND's inputs and on general doubles, erfinv and normcdfinv (for
scripts/make_erfcinv_double_fit.py ``sweep``).
"""

from __future__ import annotations

import lzma
import pathlib
import subprocess
import sys
import tempfile
import zlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
SRC = ROOT / "scripts" / "make_erfcinv_probe.cu"
DENSE_HI = (0x3D800000, 0x3F800000)   # [2^-4, 1)
DENSE_MID = (0x3B000000, 0x3D800000)  # [2^-9, 2^-4)
ERFINV_TOP = (0x3F7D70A4, 0x3F800000)  # [0.99, 1)
WINDOW = 1 << 18
WIN_BINADES = range(-32, -4)          # binades [2^e, 2^(e+1))
DSAMPLES = 1 << 19
SEED = 15


def windows() -> dict[str, int]:
    out = {}
    for e in WIN_BINADES:
        start = (e + 127) << 23
        out[f"e{e}a"] = start
        out[f"e{e}m"] = start + (1 << 22)
    return out


def _ordered(bits: np.ndarray) -> np.ndarray:
    mag = (bits & 0x7FFFFFFF).astype(np.int64)
    return np.where(bits >> 31 != 0, -mag, mag)


def _from_ordered(o: np.ndarray) -> np.ndarray:
    return np.where(o < 0, (-o) | 0x80000000, o).astype(np.uint32)


def encode(bits: np.ndarray) -> dict[str, np.ndarray]:
    o = _ordered(bits)
    d2 = np.diff(o, 2)
    exc = np.abs(d2) > 126
    d8 = np.where(exc, -128, d2).astype(np.int8)
    idx = np.flatnonzero(exc).astype(np.uint32)
    return {"d8": np.frombuffer(lzma.compress(d8.tobytes(), preset=6), np.uint8), "exc_idx": idx,
            "exc_val": d2[idx], "head": o[:2].copy(), "crc": np.array([zlib.crc32(bits.tobytes())], np.uint64)}


def decode(d: dict[str, np.ndarray], prefix: str = "") -> np.ndarray:
    d2 = np.frombuffer(lzma.decompress(d[prefix + "d8"].tobytes()), np.int8).astype(np.int64)
    d2[d[prefix + "exc_idx"]] = d[prefix + "exc_val"]
    head = d[prefix + "head"]
    d1 = np.concatenate([[head[1] - head[0]], head[1] - head[0] + np.cumsum(d2)])
    o = np.concatenate([[head[0]], head[0] + np.cumsum(d1)])
    bits = _from_ordered(o)
    if zlib.crc32(bits.tobytes()) != int(d[prefix + "crc"][0]):
        raise ValueError(f"{prefix}: decoded erfcinvf bits fail their CRC")
    return bits


def load(rec: str | pathlib.Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{name: (input bits, erfcinvf bits)} from erfcinvf_hi.npz and erfcinvf_win.npz under ``rec``."""
    rec = pathlib.Path(rec)
    out = {}
    hi = np.load(rec / "erfcinvf_hi.npz")
    x = np.arange(*DENSE_HI, dtype=np.uint32)
    out["hi"] = (x, decode(hi))
    win = np.load(rec / "erfcinvf_win.npz")
    for name, start in windows().items():
        out[name] = (np.uint32(start) + np.arange(WINDOW, dtype=np.uint32), decode(win, name + "_"))
    return out


def _probe(exe: pathlib.Path, args: list[str], stdin: bytes | None = None) -> bytes:
    return subprocess.run([str(exe), *args], input=stdin, check=True, capture_output=True, timeout=300).stdout


def build(tmp: pathlib.Path, model: bool = False) -> pathlib.Path:
    exe = tmp / ("probe_model" if model else "probe")
    cmd = ["nvcc", "-O3", "-arch=sm_90", "-o", str(exe), str(SRC)] + (["-DERFCINVF_MODEL"] if model else [])
    subprocess.run(cmd, check=True)
    return exe


def record(out: pathlib.Path, exe: pathlib.Path) -> None:
    hist = np.frombuffer(_probe(exe, ["hist"]), np.uint64).reshape(-1, 8)
    np.save(out / "erfcinvf_hist.npy", hist)
    tot = hist.sum(axis=0)
    print("hist totals (<=-2 -1 0 +1 >=2 erfinvf(1-c) -f(2-c) n):", tot.tolist(), flush=True)
    n = DENSE_HI[1] - DENSE_HI[0]
    bits = np.frombuffer(_probe(exe, ["fdense", hex(DENSE_HI[0]), str(n)]), np.uint32)
    np.savez(out / "erfcinvf_hi.npz", **encode(bits))
    win = {}
    for name, start in windows().items():
        bits = np.frombuffer(_probe(exe, ["fdense", hex(start), str(WINDOW)]), np.uint32)
        win.update({f"{name}_{k}": v for k, v in encode(bits).items()})
    np.savez(out / "erfcinvf_win.npz", **win)
    rng = np.random.default_rng(SEED)
    xs = np.concatenate([rng.integers(0, 1 << 32, DSAMPLES, dtype=np.uint64), np.arange(1 << 16, dtype=np.uint64),
                         np.arange((1 << 31) - (1 << 15), (1 << 31) + (1 << 15), dtype=np.uint64)])
    c = (2.0 * xs.astype(np.float64) + 1.0) * 2.0 ** -32
    y = np.frombuffer(_probe(exe, ["dlist", str(len(c))], c.tobytes()), np.float64)
    np.savez_compressed(out / "erfcinv_d.npz", x=xs.astype(np.uint32), y=y)
    for f in sorted(out.iterdir()):
        print(f.name, f.stat().st_size, flush=True)


def verify(out: pathlib.Path, exe: pathlib.Path, plain: pathlib.Path) -> None:
    raw = _probe(exe, ["verify"])
    hist = np.frombuffer(raw[:2049 * 8], np.uint64)
    bad = np.frombuffer(raw[2049 * 8:], np.uint32).copy()
    got = np.frombuffer(_probe(plain, ["flist", str(len(bad))], bad.tobytes()), np.uint32) if len(bad) else bad
    np.savez_compressed(out / "verify.npz", hist=hist, x=bad, y=got)
    print(f"model vs erfcinvf on [0, 2]: {int(hist.sum())} mismatches", flush=True)
    n = DENSE_MID[1] - DENSE_MID[0]
    bits = np.frombuffer(_probe(plain, ["fdense", hex(DENSE_MID[0]), str(n)]), np.uint32)
    np.savez(out / "erfcinvf_mid.npz", **encode(bits))
    for f in sorted(out.iterdir()):
        print(f.name, f.stat().st_size, flush=True)


def erfinv(out: pathlib.Path, exe: pathlib.Path) -> None:
    x = np.arange(*ERFINV_TOP, dtype=np.uint32)
    y = np.frombuffer(_probe(exe, ["filist", str(len(x))], x.tobytes()), np.uint32)
    np.savez_compressed(out / "erfinvf_top.npz", x=x, y=y)


def double_sweep(out: pathlib.Path, exe: pathlib.Path) -> None:
    """erfcinv_sweep.npz: the double functions beyond cuRAND's random sample: ``grid_x`` / ``grid_y``,
    erfcinv at (2x + 1) 2^-32 for 2^14 consecutive x from the start of every binade of c in
    [2^-32, 1) (all x of the smaller binades); ``gen_c`` / ``gen_y``, erfcinv of 2^18 doubles uniform
    in (0, 2) and 2^18 with uniformly random exponents (2^-1022 ... 1) and mantissas, and their
    2 - c; ``inv_x`` / ``inv_y``, erfinv of 2^18 doubles uniform in (-1, 1) and 2^17 at 1 - 2^-k
    (k uniform in [1, 52]) with random signs; ``ncd_p`` / ``ncd_y``, normcdfinv of 2^18 doubles
    uniform in (0, 1) and 2^17 with random exponents."""
    rng = np.random.default_rng(SEED + 1)
    xs = []
    for e in range(-31, 0):
        lo = 1 << (e + 31)  # c = (2x + 1) 2^-32 >= 2^e for x >= 2^(e + 31)
        xs.append(np.arange(lo, min(lo + (1 << 14), 2 * lo), dtype=np.uint64))
    gx = np.concatenate([np.arange(1, dtype=np.uint64), *xs])
    gc = (2.0 * gx.astype(np.float64) + 1.0) * 2.0 ** -32
    u = rng.random(1 << 18) * 2.0
    r = np.ldexp(1.0 + rng.random(1 << 18), rng.integers(-1022, 0, 1 << 18))
    c = np.concatenate([u, r, 2.0 - r])
    c = c[(c > 0) & (c < 2)]
    y = np.concatenate([rng.random(1 << 18) * 2.0 - 1.0,
                        (1.0 - np.ldexp(rng.random(1 << 17) + 1.0, -rng.integers(1, 53, 1 << 17)))
                        * rng.choice([-1.0, 1.0], 1 << 17)])
    p = np.concatenate([rng.random(1 << 18), np.ldexp(1.0 + rng.random(1 << 17), rng.integers(-1022, -1, 1 << 17))])

    def run(mode: str, v: np.ndarray) -> np.ndarray:
        return np.frombuffer(_probe(exe, [mode, str(len(v))], v.tobytes()), np.float64)

    np.savez_compressed(out / "erfcinv_sweep.npz", grid_x=gx.astype(np.uint32), grid_y=run("dlist", gc),
                        gen_c=c, gen_y=run("dlist", c), inv_x=y, inv_y=run("dilist", y), ncd_p=p,
                        ncd_y=run("dnlist", p))
    print("erfcinv_sweep.npz", (out / "erfcinv_sweep.npz").stat().st_size, flush=True)


def odd_even(out: pathlib.Path, exe: pathlib.Path) -> None:
    """erfcinv_oddeven.npz: the double erfcinv at c with RN(c RN(2 - c)) = 2^e m exactly for the same
    16,382 random m in [sqrt(1/2), sqrt(2)) at every e = 0 ... -9 (150,906 inputs, ``c``, ``y``, ``e``):
    whether the H100's odd-e deviation (scripts/make_erfcinv_double_fit.py, step 3) depends on m or e."""
    rng = np.random.default_rng(77)
    m = np.sqrt(0.5) + rng.random(1 << 14) * (np.sqrt(2) - np.sqrt(0.5))
    m = m[(m >= float.fromhex("0x1.6a09e667f3bcdp-1")) & (m < np.sqrt(2))]
    cs, es = [], []
    for e in range(0, -10, -1):
        t = np.ldexp(m, e)
        t = t[t < 1]
        c0 = t / (1 + np.sqrt(1 - t))
        found = np.full(len(t), np.nan)
        for k in range(-4, 5):
            c = c0.copy()
            for _ in range(abs(k)):
                c = np.nextafter(c, np.inf if k > 0 else -np.inf)
            ok = (c * (2 - c) == t) & np.isnan(found)
            found[ok] = c[ok]
        keep = ~np.isnan(found)
        cs.append(found[keep])
        es.append(np.full(int(keep.sum()), e))
    c = np.concatenate(cs)
    y = np.frombuffer(_probe(exe, ["dlist", str(len(c))], c.tobytes()), np.float64)
    np.savez_compressed(out / "erfcinv_oddeven.npz", c=c, y=y, e=np.concatenate(es))
    print("erfcinv_oddeven.npz", len(c), flush=True)


def main() -> None:
    mode, out = sys.argv[1], pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        if mode == "record":
            record(out, build(pathlib.Path(tmp)))
        elif mode == "double":
            double_sweep(out, build(pathlib.Path(tmp)))
        elif mode == "oddeven":
            odd_even(out, build(pathlib.Path(tmp)))
        elif mode == "erfinv":
            erfinv(out, build(pathlib.Path(tmp)))
        elif mode == "verify":
            verify(out, build(pathlib.Path(tmp), model=True), build(pathlib.Path(tmp)))
        else:
            raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()

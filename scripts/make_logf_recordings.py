#!/usr/bin/env python3
"""Record NVIDIA's ``logf`` on an H100 as a black box (issue #15: cuRAND float normals bit for bit).

On a machine with nvcc and an sm_90 GPU (one ``run`` of the device tool)::

    python3 scripts/make_logf_recordings.py record OUTDIR

builds scripts/make_logf_probe.cu (nvcc -O3, default flags: -fmad=true, no fast math, as cuRAND's
``curand_normal`` is built) and writes

* ``logf_dense.npz``: logf of every float of the binades in ``DENSE`` (2^23 each), stored as the
  difference in ulps from log computed in float64 and rounded to float32 (int8, lzma) plus the exact
  bits where that does not fit or the float64 reference is within 1e-4 ulp of a rounding boundary,
  and a CRC of the bits; ``load_dense(path)`` decodes and checks every CRC;
* ``logf_samples.npz``: 2^20 random bit patterns (every sign, exponent, NaN, subnormal) and specials,
  raw inputs and outputs;
* ``logf_hist.npy``: over all 2^32 inputs, per (sign, exponent) the counts of logf - reference in
  ulps (bins <= -2, -1, 0, +1, >= +2, both NaN, one NaN);
* ``dlog.npz`` / ``dsincospi.npz``: raw samples of double ``log`` on (0, 1] and ``sincospi`` on
  [0, 2) (for the double normals, later work).

    python3 scripts/make_logf_recordings.py verify OUTDIR [SECONDS]

builds the probe with CuMetal's model (src/cumetal/libdevice/src/logf_h100.h) and

* checks it against the GPU's logf on all 2^32 inputs: ``verify.npz`` (the mismatch count and up to
  2^22 mismatching inputs with the GPU's results);
* runs the probe's ``search`` mode (a random local search of the eight coefficients, 32 candidates per
  step, each scored against the GPU's logf on all 2^24 floats of [0.5, 2)) from the model's
  coefficients for each evaluation order in ``SCHEMES``, SECONDS in all; ``search.txt``.
"""

from __future__ import annotations

import lzma
import os
import pathlib
import subprocess
import sys
import tempfile
import zlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
SRC = ROOT / "scripts" / "make_logf_probe.cu"
BINADE = 1 << 23
# name -> first bit pattern of a binade recorded exhaustively
DENSE = {
    "sub": 0x00000000,      # all positive subnormals (and +0)
    "e-126": 0x00800000,    # [2^-126, 2^-125)
    "e-33": 0x2F000000,     # [2^-33, 2^-32): cuRAND's smallest u
    "e-10": 0x3A800000,
    "e-2": 0x3E800000,      # [0.25, 0.5)
    "e-1": 0x3F000000,      # [0.5, 1)
    "e0": 0x3F800000,       # [1, 2)
    "e1": 0x40000000,       # [2, 4)
    "e100": 0x71800000,
    "e127": 0x7F000000,     # [2^127, inf)
}
SAMPLES = 1 << 20
SEED = 15


def reference(x_bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log(x) in float64 rounded to float32, and where that rounding is fragile."""
    x = x_bits.view(np.float32).astype(np.float64)
    with np.errstate(all="ignore"):
        r64 = np.log(x)
        r32 = r64.astype(np.float32)
        spacing = np.spacing(np.abs(r32)).astype(np.float64)
        frac = np.abs(r64 - r32.astype(np.float64)) / spacing
    fragile = ~np.isfinite(r32) | ~np.isfinite(frac) | (np.abs(frac - 0.5) < 1e-4)
    return r32, fragile


def _ordered(bits: np.ndarray) -> np.ndarray:
    mag = (bits & 0x7FFFFFFF).astype(np.int64)
    return np.where(bits >> 31 != 0, -mag, mag)


def _from_ordered(o: np.ndarray) -> np.ndarray:
    return np.where(o < 0, (-o) | 0x80000000, o).astype(np.uint32)


def dense_inputs(start: int) -> np.ndarray:
    return np.uint32(start) + np.arange(BINADE, dtype=np.uint32)


def encode(x_bits: np.ndarray, bits: np.ndarray) -> dict[str, np.ndarray]:
    r32, fragile = reference(x_bits)
    delta = _ordered(bits) - _ordered(r32.view(np.uint32))
    exc = fragile | (np.abs(delta) > 126) | np.isnan(bits.view(np.float32))
    d8 = np.where(exc, -128, delta).astype(np.int8)
    idx = np.flatnonzero(exc).astype(np.uint32)
    return {"d8": np.frombuffer(lzma.compress(d8.tobytes(), preset=6), np.uint8),
            "exc_idx": idx, "exc_bits": bits[idx], "crc": np.array([zlib.crc32(bits.tobytes())], np.uint64)}


def decode(x_bits: np.ndarray, d8z: np.ndarray, idx: np.ndarray, exc_bits: np.ndarray, crc: int) -> np.ndarray:
    r32, _ = reference(x_bits)
    d8 = np.frombuffer(lzma.decompress(d8z.tobytes()), np.int8).astype(np.int64)
    bits = _from_ordered(_ordered(r32.view(np.uint32)) + d8)
    bits[idx] = exc_bits
    if zlib.crc32(bits.tobytes()) != crc:
        raise ValueError("decoded logf bits fail their CRC (the float64 reference differs from the recording's)")
    return bits


def load_dense(path: str | pathlib.Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{binade name: (input bits, logf bits)} from logf_dense.npz."""
    data = np.load(path)
    out = {}
    for name, start in DENSE.items():
        if f"{name}_d8" not in data:
            continue
        x = dense_inputs(start)
        out[name] = (x, decode(x, data[f"{name}_d8"], data[f"{name}_exc_idx"], data[f"{name}_exc_bits"],
                                int(data[f"{name}_crc"][0])))
    return out


def _probe(exe: pathlib.Path, args: list[str], stdin: bytes | None = None) -> bytes:
    return subprocess.run([str(exe), *args], input=stdin, check=True, capture_output=True, timeout=300).stdout


def sample_inputs() -> np.ndarray:
    rng = np.random.default_rng(SEED)
    specials = np.array([0, 0x80000000, 1, 0x80000001, 0x007FFFFF, 0x00800000, 0x3F800000, 0xBF800000,
                         0x7F7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001,
                         0x7FFFFFFF, 0xFFFFFFFF, 0x3F7FFFFF, 0x3F800001], np.uint32)
    return np.concatenate([specials, rng.integers(0, 1 << 32, SAMPLES, dtype=np.uint32)])


def record(out: pathlib.Path, exe: pathlib.Path) -> None:
    dense = {}
    for name, start in DENSE.items():
        bits = np.frombuffer(_probe(exe, ["dense", hex(start), str(BINADE)]), np.uint32).copy()
        for k, v in encode(dense_inputs(start), bits).items():
            dense[f"{name}_{k}"] = v
        print(name, "exceptions", len(dense[f"{name}_exc_idx"]), "bytes", len(dense[f"{name}_d8"]), flush=True)
    np.savez(out / "logf_dense.npz", **dense)
    x = sample_inputs()
    y = np.frombuffer(_probe(exe, ["list", str(len(x))], x.tobytes()), np.uint32)
    np.savez_compressed(out / "logf_samples.npz", x=x, y=y)
    hist = np.frombuffer(_probe(exe, ["hist"]), np.uint64).reshape(512, 7)
    np.save(out / "logf_hist.npy", hist)
    rng = np.random.default_rng(SEED + 1)
    # double uniforms as cuRAND's double normals see them: (0, 1], half log-uniform down to 2^-53
    u = np.concatenate([rng.random(1 << 17), np.exp2(-53 * rng.random(1 << 17))])
    u = np.where(u == 0, 1.0, u)
    dlog = np.frombuffer(_probe(exe, ["dlog", str(len(u))], u.tobytes()), np.float64)
    np.savez_compressed(out / "dlog.npz", x=u, y=dlog)
    v = 2.0 * rng.random(1 << 17)
    sc = np.frombuffer(_probe(exe, ["dsincospi", str(len(v))], v.tobytes()), np.float64)
    np.savez_compressed(out / "dsincospi.npz", x=v, sin=sc[:len(v)], cos=sc[len(v):])
    tot = hist.sum(axis=0)
    print("all 2^32: <=-2 -1 0 +1 >=2 nan/nan nan/num:", tot.tolist())


# (evaluation order, steps, seed) of the coefficient searches (see the probe); LOGF_SEARCH_SCALE multiplies steps
SEARCHES = ((0, 12000, 1), (0, 12000, 2), (10, 4000, 1), (12, 4000, 1), (13, 4000, 1))
VERIFY_CAP = 1 << 22


def model_coeffs() -> list[str]:
    """C1 ... C8 of logf_h100.h as f32 bit patterns."""
    text = (ROOT / "src" / "cumetal" / "libdevice" / "src" / "logf_h100.h").read_text()
    out = []
    for k in range(1, 9):
        lit = text.split(f"#define LOGF_H100_C{k} ")[1].split()[0].rstrip("f")
        out.append(hex(int(np.float32(float.fromhex(lit)).view(np.uint32))))
    return out


def verify(out: pathlib.Path, exe: pathlib.Path, seconds: float) -> None:
    raw = _probe(exe, ["verify", str(VERIFY_CAP)])
    count = int(np.frombuffer(raw[:8], np.uint64)[0])
    bad = np.frombuffer(raw[8:], np.uint32).copy()
    got = np.frombuffer(_probe(exe, ["list", str(len(bad))], bad.tobytes()), np.uint32) if len(bad) else bad
    np.savez_compressed(out / "verify.npz", count=np.array([count], np.uint64), x=bad, y=got)
    print(f"model vs logf on all 2^32 inputs: {count} mismatches", flush=True)
    coeffs = model_coeffs()
    log = []
    scale = int(os.environ.get("LOGF_SEARCH_SCALE", "1"))
    per = seconds / sum(steps * scale for _, steps, _ in SEARCHES)
    for scheme, steps, seed in SEARCHES:
        steps *= scale
        try:
            text = subprocess.run([str(exe), "search", str(scheme), str(steps), str(seed), *coeffs], check=True,
                                  capture_output=True, timeout=max(10.0, per * steps)).stdout.decode()
        except subprocess.TimeoutExpired as exc:
            text = (exc.stdout or b"").decode() + "(time limit)\n"
        log.append(text)
        print(text.strip().splitlines()[-1] if text.strip() else f"scheme {scheme}: no output", flush=True)
    (out / "search.txt").write_text("".join(log))


def main() -> None:
    mode, out = sys.argv[1], pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        exe = pathlib.Path(tmp) / "probe"
        flags = ["-O3", "-arch=sm_90", f"-I{ROOT / 'src' / 'cumetal' / 'libdevice' / 'src'}"]
        if mode == "verify":
            flags.append("-DLOGF_MODEL")
        subprocess.run(["nvcc", *flags, str(SRC), "-o", str(exe)], check=True, timeout=300)
        if mode == "record":
            record(out, exe)
        elif mode == "verify":
            verify(out, exe, float(sys.argv[3]) if len(sys.argv) > 3 else 240.0)
        else:
            raise SystemExit(f"unknown mode {mode!r} (record | verify)")


if __name__ == "__main__":
    main()

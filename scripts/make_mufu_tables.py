#!/usr/bin/env python3
"""Record NVIDIA's MUFU results for the f32 .approx instructions on an H100 (issues #15, #8).

On a machine with nvcc and an sm_90 GPU (one ``run`` of the device tool, ~2 min)::

    python3 scripts/make_mufu_tables.py record OUTDIR

builds scripts/make_mufu_probe.cu and writes, per group, ``OUTDIR/<group>.npz``:

* ``sin``/``cos``: the value for every 25-bit fraction of a turn k (sin.approx(x) is a function of
  k = floor(frac(RZ(x * f32(1/2pi))) * 2^25) alone; the probe counts the x that disagree), 2^25 entries,
  unreachable k marked;
* ``ex2 lg2 rsqrt rcp sqrt tanh``: every input of one to three binades;
* ``samples``: 65,536 random bit patterns per instruction (all exponents, signs, NaN, subnormals).

Arrays are stored as the difference in ulps from the correctly rounded value (int8, lzma) plus the
exact bits where that does not fit or where rounding the float64 reference is fragile, and a CRC of the
bits, so a few MB carry 2^25 results; ``load(path)`` decodes a file and checks every CRC.
The SASS around each MUFU instruction is printed (cuobjdump).
"""

from __future__ import annotations

import lzma
import pathlib
import subprocess
import sys
import tempfile
import zlib
from concurrent.futures import ProcessPoolExecutor

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
SRC = ROOT / "scripts" / "make_mufu_probe.cu"
OPS = {"sin": 0, "cos": 1, "ex2": 2, "ex2_ftz": 3, "lg2": 4, "rsqrt": 5, "rcp": 6, "sqrt": 7, "tanh": 8}
F32 = {"0.125": 0x3E000000, "0.25": 0x3E800000, "0.5": 0x3F000000, "1": 0x3F800000, "2": 0x40000000,
       "-1": 0xBF800000, "-2": 0xC0000000}
BINADE = 1 << 23
# group -> list of (array name, op, how): how = "table" or (base bits, count)
GROUPS: dict[str, list[tuple[str, str, object]]] = {
    "sin": [("sin_table", "sin", "table")],
    "cos": [("cos_table", "cos", "table")],
    "ex2": [(f"ex2_{b}", "ex2", (F32[b], BINADE)) for b in ("0.5", "1", "-1", "-2")],
    "lg2": [(f"lg2_{b}", "lg2", (F32[b], BINADE)) for b in ("0.5", "1", "2")],
    "rsq": [("rsqrt_1", "rsqrt", (F32["1"], BINADE)), ("rsqrt_2", "rsqrt", (F32["2"], BINADE)),
            ("rcp_1", "rcp", (F32["1"], BINADE)), ("sqrt_1", "sqrt", (F32["1"], BINADE)),
            ("sqrt_2", "sqrt", (F32["2"], BINADE))],
    "tanh": [(f"tanh_{b}", "tanh", (F32[b], BINADE)) for b in ("0.25", "0.5", "1", "2")],
}
SAMPLES = 65536
UNREACHABLE = 0xFFFFFFFF


def reference(op: str, x: np.ndarray) -> np.ndarray:
    """The exact function in float64 (x: float64 inputs; for the tables, turns)."""
    with np.errstate(all="ignore"):
        return {"sin": lambda: np.sin(2 * np.pi * x), "cos": lambda: np.cos(2 * np.pi * x),
                "ex2": lambda: np.exp2(x), "ex2_ftz": lambda: np.exp2(x), "lg2": lambda: np.log2(x),
                "rsqrt": lambda: 1 / np.sqrt(x), "rcp": lambda: 1 / x, "sqrt": lambda: np.sqrt(x),
                "tanh": lambda: np.tanh(x)}[op]()


def inputs(how: object) -> np.ndarray:
    if how == "table":
        return np.arange(1 << 25, dtype=np.float64) * 2.0 ** -25
    base, count = how  # type: ignore[misc]
    return (np.uint32(base) + np.arange(count, dtype=np.uint32)).view(np.float32).astype(np.float64)


def _ordered(bits: np.ndarray) -> np.ndarray:
    mag = (bits & 0x7FFFFFFF).astype(np.int64)
    return np.where(bits >> 31 != 0, -mag, mag)


def _from_ordered(o: np.ndarray) -> np.ndarray:
    return np.where(o < 0, (-o) | 0x80000000, o).astype(np.uint32)


def encode(op: str, how: object, bits: np.ndarray) -> dict[str, np.ndarray]:
    ref64 = reference(op, inputs(how))
    with np.errstate(all="ignore"):
        ref32 = ref64.astype(np.float32)
        spacing = np.spacing(np.abs(ref32)).astype(np.float64)
        frac = np.abs(ref64 - ref32.astype(np.float64)) / spacing
    fragile = ~np.isfinite(ref32) | ~np.isfinite(frac) | (np.abs(frac - 0.5) < 1e-4)
    unreach = bits == UNREACHABLE
    delta = _ordered(bits) - _ordered(ref32.view(np.uint32))
    exc = (fragile | (np.abs(delta) > 126) | np.isnan(bits.view(np.float32))) & ~unreach
    d8 = np.where(exc | unreach, -128, delta).astype(np.int8)
    idx = np.flatnonzero(exc).astype(np.uint32)
    return {"d8": np.frombuffer(lzma.compress(d8.tobytes(), preset=6), np.uint8),
            "unreach": np.frombuffer(lzma.compress(np.packbits(unreach).tobytes(), preset=6), np.uint8),
            "exc_idx": idx, "exc_bits": bits[idx], "crc": np.array([zlib.crc32(bits.tobytes())], np.uint64),
            "n": np.array([len(bits)], np.uint64)}


def decode(op: str, how: object, enc: dict[str, np.ndarray]) -> np.ndarray:
    """The recorded bits (UNREACHABLE where no input reaches a table entry)."""
    n = int(enc["n"][0])
    ref32 = reference(op, inputs(how)).astype(np.float32)
    d8 = np.frombuffer(lzma.decompress(enc["d8"].tobytes()), np.int8).astype(np.int64)
    unreach = np.unpackbits(np.frombuffer(lzma.decompress(enc["unreach"].tobytes()), np.uint8))[:n].astype(bool)
    bits = _from_ordered(_ordered(ref32.view(np.uint32)) + d8)
    bits[unreach] = UNREACHABLE
    bits[enc["exc_idx"]] = enc["exc_bits"]
    if zlib.crc32(bits.tobytes()) != int(enc["crc"][0]):
        raise ValueError(f"{op}: decoded bits fail their CRC (float64 reference differs from the recording's)")
    return bits


def load(path: str | pathlib.Path) -> dict[str, np.ndarray]:
    """Decode one recorded group file into {array name: u32 bits} (samples: {op: (inputs, outputs)})."""
    path = pathlib.Path(path)
    data = np.load(path)
    group = path.stem
    if group == "samples":
        return {op: (data[f"{op}_in"], data[f"{op}_out"]) for op in OPS}
    out = {}
    for name, op, how in GROUPS[group]:
        enc = {k.split(":", 1)[1]: data[k] for k in data.files if k.startswith(name + ":")}
        out[name] = decode(op, how, enc)
    return out


def _encode_job(job: tuple[str, str, object, str]) -> tuple[str, dict[str, np.ndarray]]:
    name, op, how, raw = job
    return name, encode(op, how, np.fromfile(raw, np.uint32))


def record(outdir: pathlib.Path) -> None:
    outdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        t = pathlib.Path(tmp)
        exe = t / "probe"
        subprocess.run(["nvcc", "-O3", "-arch=sm_90", str(SRC), "-o", str(exe)], check=True, timeout=300)
        sass = subprocess.run(["cuobjdump", "-sass", str(exe)], capture_output=True, text=True, timeout=120).stdout
        for fn in OPS:
            sec = sass.split(f"Function : one_{fn}\n", 1)
            if len(sec) == 2:
                body = [ln.split(";")[0].split("*/", 1)[-1].strip() for ln in sec[1].split("Function :")[0].splitlines()
                        if "/*" in ln and ";" in ln]
                print(f"SASS one_{fn}: " + " | ".join(b for b in body if b and not b.startswith(("NOP", "BRA"))))
        jobs = []
        for arrays in GROUPS.values():
            for name, op, how in arrays:
                raw = t / f"{name}.bin"
                if how == "table":
                    r = subprocess.run([str(exe), "table", str(OPS[op]), str(raw)], capture_output=True, text=True,
                                       timeout=300, check=True)
                    print(r.stdout.strip())
                else:
                    base, count = how  # type: ignore[misc]
                    subprocess.run([str(exe), "range", str(OPS[op]), f"{base:x}", str(count), str(raw)],
                                   check=True, timeout=120)
                jobs.append((name, op, how, str(raw)))
        samples = {}
        for op, code in OPS.items():
            raw = t / f"sample_{op}.bin"
            subprocess.run([str(exe), "sample", str(code), str(SAMPLES), str(code + 1), str(raw)], check=True, timeout=60)
            both = np.fromfile(raw, np.uint32)
            samples[f"{op}_in"], samples[f"{op}_out"] = both[:SAMPLES], both[SAMPLES:]
        np.savez_compressed(outdir / "samples.npz", **samples)
        with ProcessPoolExecutor(max_workers=12) as pool:
            encoded = dict(pool.map(_encode_job, jobs))
    for group, arrays in GROUPS.items():
        flat = {f"{name}:{k}": v for name, _, _ in arrays for k, v in encoded[name].items()}
        np.savez(outdir / f"{group}.npz", **flat)
        print(group, (outdir / f"{group}.npz").stat().st_size, "bytes",
              {name: len(encoded[name]["exc_idx"]) for name, _, _ in arrays}, "exceptions")
    for group in GROUPS:  # prove the files decode here too
        load(outdir / f"{group}.npz")
    print("decoded and CRC-checked every group")


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] != "record":
        print(__doc__)
        return 2
    record(pathlib.Path(sys.argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

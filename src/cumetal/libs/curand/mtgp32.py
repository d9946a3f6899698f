"""MTGP32: the Mersenne Twister for Graphic Processors (Saito and Matsumoto, "Variants of Mersenne
Twister Suitable for Graphic Processors", ACM TOMS 39(2), 2013), period 2^11213 - 1, as cuRAND uses it.

One MTGP32 sequence per parameter set. The state is N = 351 words x[0..350]; then
    x[n] = rec(x[n-N], x[n-N+1], x[n-N+pos]),  rec(a, b, y): t = (a & mask) ^ b; t ^= t << sh1;
                                                 y = t ^ (y >> sh2); return y ^ tbl[y & 15]
    out[n-N] = x[n] ^ tmp_tbl[u & 15] with u = x[n-N+pos-1]; u ^= u >> 16; u ^= u >> 8.
Because pos <= 95, N - pos >= 256 consecutive values depend only on older ones: a block of 256
threads computes 256 of them at once, and so does :func:`sequences` (vectorised over blocks too).

The 200 parameter sets are the published ones for exponent 11213 (``mtgp32dc-param-11213.c`` of the
MTGP distribution, Hiroshima University and the University of Tokyo, BSD licence), stored in
``data/mtgp32_11213.npz`` by ``python -m cumetal.libs.curand.mtgp32 --regenerate PATH``.

cuRAND's host generator (read off outputs recorded on an H100, tests/libs/golden): block b in
0..199 runs parameter set b from MTGP's initialisation with s + b + 1, where s is the 64-bit seed's
two halves XORed; output i is
element 256 r + t of block b's sequence, where i = 51200 r + 256 b + t.
"""

from __future__ import annotations

import functools
import pathlib
import re
import sys

import numpy as np

N = 351              # state words for exponent 11213: 11213 // 32 + 1
BLOCK = 256          # outputs one block computes at once
SETS = 200           # parameter sets (and host-generator blocks)
MEXP = 11213
DATA = pathlib.Path(__file__).parent / "data" / "mtgp32_11213.npz"
M32 = np.uint64(0xFFFFFFFF)


@functools.lru_cache(maxsize=1)
def params() -> dict[str, np.ndarray]:
    """pos, sh1, sh2 (uint32, one per set), tbl and tmp_tbl (uint32 [200, 16]), mask."""
    with np.load(DATA) as z:
        return {k: z[k] for k in z.files}


def init_states(seeds: np.ndarray, sets: np.ndarray) -> np.ndarray:
    """MTGP's initialisation of one state per (seed, parameter set): [len(seeds), N] uint32."""
    p = params()
    tbl = p["tbl"][sets].astype(np.uint64)
    hidden = (tbl[:, 4] ^ (tbl[:, 8] << np.uint64(16))) & M32
    fill = hidden + (hidden >> np.uint64(16))
    fill = (fill + (fill >> np.uint64(8))) & np.uint64(0xFF)
    a = np.repeat((fill * np.uint64(0x01010101))[:, None], N, axis=1)
    a[:, 0] = np.asarray(seeds, dtype=np.uint64) & M32
    a[:, 1] = hidden
    for i in range(1, N):
        prev = a[:, i - 1]
        a[:, i] ^= (np.uint64(1812433253) * (prev ^ (prev >> np.uint64(30))) + np.uint64(i)) & M32
    return a.astype(np.uint32)


def sequences(states: np.ndarray, sets: np.ndarray, rounds: int) -> np.ndarray:
    """The first ``rounds * 256`` outputs of each state: [len(states), rounds * 256] uint32; in C
    (:mod:`cumetal.libs.curand.fast`, one value after another) or :func:`sequences_numpy`."""
    from cumetal.libs.curand import fast  # noqa: PLC0415

    if fast.on():
        p = params()
        return fast.mtgp_sequences(states, p["pos"][sets], p["sh1"][sets], p["sh2"][sets], p["tbl"][sets],
                                   p["tmp_tbl"][sets], int(p["mask"]), rounds * BLOCK)
    return sequences_numpy(states, sets, rounds)


def sequences_numpy(states: np.ndarray, sets: np.ndarray, rounds: int) -> np.ndarray:
    """:func:`sequences` in numpy: 256 values of every state at once (pos <= 95 keeps them independent)."""
    p = params()
    pos = p["pos"][sets].astype(np.int64)[:, None]
    sh1 = p["sh1"][sets].astype(np.uint32)[:, None]
    sh2 = p["sh2"][sets].astype(np.uint32)[:, None]
    tbl, tmp = p["tbl"][sets], p["tmp_tbl"][sets]
    mask = np.uint32(p["mask"])
    rows = np.arange(len(states))[:, None]
    x = np.empty((len(states), N + rounds * BLOCK), dtype=np.uint32)
    x[:, :N] = states
    out = np.empty((len(states), rounds * BLOCK), dtype=np.uint32)
    t = np.arange(BLOCK)[None, :]
    for r in range(rounds):
        j = r * BLOCK + t                               # index of x[n - N] for the 256 new values
        a, b = x[:, r * BLOCK:r * BLOCK + BLOCK], x[:, r * BLOCK + 1:r * BLOCK + BLOCK + 1]
        y = x[rows, j + pos]
        v = (a & mask) ^ b
        v ^= v << sh1
        y = v ^ (y >> sh2)
        y ^= tbl[rows, y & np.uint32(15)]
        x[:, N + r * BLOCK:N + (r + 1) * BLOCK] = y
        u = x[rows, j + pos - 1]
        u ^= u >> np.uint32(16)
        u ^= u >> np.uint32(8)
        out[:, r * BLOCK:(r + 1) * BLOCK] = y ^ tmp[rows, u & np.uint32(15)]
    return out


def fold_seed(seed: int) -> int:
    """The 32-bit seed MTGP starts from: the two halves of the 64-bit seed XORed (recorded)."""
    return ((seed >> 32) ^ seed) & 0xFFFFFFFF


def host_u32(seed: int, start: int, n: int) -> np.ndarray:
    """Outputs ``start .. start + n`` of cuRAND's host MTGP32 generator (module docstring)."""
    if n <= 0:
        return np.zeros(0, np.uint32)
    if n >= BLOCK * SETS:  # every block: the outputs are the sequences' rounds laid side by side
        rounds = (start + n - 1) // (BLOCK * SETS) + 1
        every = np.arange(SETS)
        seeds = (np.uint64(fold_seed(seed)) + every.astype(np.uint64) + np.uint64(1)) & M32
        seqs = sequences(init_states(seeds, every), every, rounds)
        return seqs.reshape(SETS, rounds, BLOCK).transpose(1, 0, 2).reshape(-1)[start:start + n]
    return host_u32_at(seed, start, n)


def host_u32_at(seed: int, start: int, n: int) -> np.ndarray:
    """:func:`host_u32` output by output (the blocks in use only)."""
    idx = np.arange(start, start + n, dtype=np.int64)
    rnd, rem = np.divmod(idx, BLOCK * SETS)
    blk, thr = np.divmod(rem, BLOCK)
    used = np.unique(blk)
    rounds = int(rnd.max()) + 1
    seeds = (np.uint64(fold_seed(seed)) + used.astype(np.uint64) + np.uint64(1)) & M32
    seqs = sequences(init_states(seeds, used), used, rounds)
    row = np.searchsorted(used, blk)
    return seqs[row, rnd * BLOCK + thr]


# ---------------------------------------------------------------- the published table
def parse_published(text: str) -> dict[str, np.ndarray]:
    """The parameter sets of ``mtgp32dc-param-11213.c``: per set mexp, pos, sh1, sh2, tbl[16],
    tmp_tbl[16], flt_tmp_tbl[16], mask, then a 21-byte SHA-1 of the characteristic polynomial."""
    body = text.split("mtgp32dc_params_fast_11213[]", 1)[1]
    sets, sha1 = [], []
    for m in re.finditer(r"/\*\s*No\.(\d+)[^*]*\*/(.*?)\{\s*(0x[^}]*)\}", body, flags=re.S):
        sha1.append([int(b, 16) for b in re.findall(r"0x[0-9a-fA-F]+", m.group(3))])
        words = [int(a, 16) if a else int(b) for a, b in
                 re.findall(r"UINT32_C\((0x[0-9a-fA-F]+)\)|\b(\d+),", m.group(2))]
        if len(words) != 53 or int(m.group(1)) != len(sets):
            raise ValueError(f"parameter set No.{m.group(1)}: expected 53 numbers, found {len(words)}")
        sets.append(words)
    a = np.array(sets, dtype=np.uint64)
    if a.shape != (SETS, 53) or (a[:, 0] != MEXP).any() or len(set(a[:, 52].tolist())) != 1:
        raise ValueError(f"not the {SETS} MTGP32 parameter sets for exponent {MEXP}")
    tbl, tmp, flt = a[:, 4:20], a[:, 20:36], a[:, 36:52]
    for name, t in (("tbl", tbl), ("tmp_tbl", tmp)):  # each table is linear in its index bits
        for k in range(16):
            acc = np.zeros(SETS, np.uint64)
            for bit in range(4):
                if k >> bit & 1:
                    acc ^= t[:, 1 << bit]
            if (acc != t[:, k]).any():
                raise ValueError(f"{name}[{k}] is not the XOR of its basis entries")
    if ((tmp >> np.uint64(9)) | np.uint64(0x3F800000) != flt).any():
        raise ValueError("flt_tmp_tbl is not tmp_tbl >> 9 | 1.0f")
    if any(len(h) != 21 for h in sha1):
        raise ValueError("poly_sha1 is not 21 bytes")
    return {"sha1": np.array(sha1, dtype=np.uint8), "pos": a[:, 1].astype(np.uint32), "sh1": a[:, 2].astype(np.uint32), "sh2": a[:, 3].astype(np.uint32),
            "tbl": tbl.astype(np.uint32), "tmp_tbl": tmp.astype(np.uint32), "mask": np.uint32(a[0, 52])}


def header_text() -> str:
    """curand_mtgp32dc_p_11213.h: the parameter sets as the C array cuRAND's device API takes."""
    p = params()
    out = ["/* GENERATED by `python -m cumetal.libs.curand.mtgp32 --header` from",
           " * src/cumetal/libs/curand/data/mtgp32_11213.npz: the 200 MTGP32 parameter sets for exponent 11213",
           " * published with the MTGP distribution (mtgp32dc-param-11213.c; Copyright (c) 2009-2012 Mutsuo Saito,",
           " * Makoto Matsumoto, Hiroshima University and University of Tokyo; BSD licence, see docs/libraries.md).",
           " * Do not edit. */",
           "#ifndef CURAND_MTGP32DC_P_11213_H", "#define CURAND_MTGP32DC_P_11213_H", '#include "curand_mtgp32.h"', "",
           "static mtgp32_params_fast_t mtgp32dc_params_fast_11213[] __attribute__((unused)) = {"]
    for i in range(SETS):
        def words(t: np.ndarray) -> str:
            return ", ".join(f"0x{int(v):08x}u" for v in t)
        flt = (p["tmp_tbl"][i] >> np.uint32(9)) | np.uint32(0x3F800000)
        out += [f"    {{{MEXP}, {int(p['pos'][i])}, {int(p['sh1'][i])}, {int(p['sh2'][i])},",
                f"     {{{words(p['tbl'][i])}}},", f"     {{{words(p['tmp_tbl'][i])}}},", f"     {{{words(flt)}}},",
                f"     0x{int(p['mask']):08x}u, {{{', '.join(f'0x{int(b):02x}' for b in p['sha1'][i])}}}}},"]
    out += ["};", "", "#endif /* CURAND_MTGP32DC_P_11213_H */", ""]
    return "\n".join(out)


def _regenerate(path: str) -> None:
    data = parse_published(pathlib.Path(path).read_text())
    np.savez_compressed(DATA, **data)
    params.cache_clear()
    print(f"wrote {DATA} ({SETS} parameter sets)")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--regenerate":
        _regenerate(sys.argv[2])
    elif len(sys.argv) == 2 and sys.argv[1] == "--header":
        from cumetal.cudacxx import include_dir  # noqa: PLC0415

        (include_dir() / "curand_mtgp32dc_p_11213.h").write_text(header_text())
    else:
        print("usage: python -m cumetal.libs.curand.mtgp32 --regenerate <MTGP>/cuda-sample/mtgp32dc-param-11213.c\n"
              "       python -m cumetal.libs.curand.mtgp32 --header   (writes curand_mtgp32dc_p_11213.h)")
        sys.exit(2)

"""cuBLASLt's algorithm API: ``cublasLtMatmulAlgoGetIds``, ``AlgoInit``, ``AlgoCapGetAttribute``,
``AlgoConfigSet/GetAttribute`` and the configuration check behind ``AlgoCheck`` and ``cublasLtMatmul``.

For the type combinations recorded on an H100 (:mod:`lt_algos_h100`, from
tests/libs/golden/cublaslt_algos_orders_h100.txt) the ids, capabilities (tile and stage lists included)
and refusals are NVIDIA's: GetIds returns the H100's ids, Init takes exactly those (ids up to 80 not
listed: NOT_SUPPORTED, above: INVALID_VALUE), an id every H100 AlgoCheck refused with ARCH_MISMATCH or
INVALID_VALUE is refused with that status. Every other listed id, with any configuration its
capabilities allow (a listed tile and stage or UNDEFINED, a reduction scheme of its mask, swizzling where
supported, a custom option up to the maximum; any split-K, as the H100 took split-K 4 for an id without
SPLITK_SUPPORT), runs CuMetal's one
matmul: the results are those of the matmul without an algorithm. Other type combinations have
CuMetal's single algorithm, id 0.

``cublasLtMatmulAlgo_t`` (16 uint32 slots) holds the configuration attributes at their own numbers
(0 ID … 8 CLUSTER_SHAPE_ID) and, in slot 15, which recorded combination it was initialised for (its
index in ``IDS`` plus one; 0: CuMetal's own algorithm).
"""

from __future__ import annotations

import numpy as np

from cumetal.libs import devmem
from cumetal.libs.cublas import fp8, gemmex
from cumetal.libs.cublas import lt_algos_h100 as H100
from cumetal.libs.cublas import status as S
from cumetal.libs.devmem import LibError

KEYS = list(H100.IDS)
COMBO_SLOT = 15
# cublasLtMatmulAlgoConfigAttributes_t -> dtype; stored as uint32 slot ``attr`` of cublasLtMatmulAlgo_t
CONFIG = {0: np.int32, 1: np.uint32, 2: np.uint32, 3: np.uint32, 4: np.uint32, 5: np.uint32, 6: np.uint32,
          7: np.uint16, 8: np.uint16}
C_ID, C_TILE, C_SPLITK, C_REDUCTION, C_SWIZZLE, C_CUSTOM, C_STAGES = 0, 1, 2, 3, 4, 5, 6
CAP_REDUCTION_MASK, CAP_SWIZZLE, CAP_TILES, CAP_CUSTOM_MAX, CAP_STAGES = 1, 2, 6, 7, 13
# cublasLtMatmulAlgoCapAttributes_t -> dtype (NVIDIA's sizes: 4 bytes, NUMERICAL_IMPL_FLAGS 8)
CAP_TYPES = {0: np.int32, 1: np.uint32, 2: np.uint32, 3: np.int32, 4: np.int32, 5: np.int32, 6: np.uint32,
             7: np.int32, 10: np.int32, 11: np.uint32, 12: np.uint32, 13: np.uint32, 14: np.int32, 15: np.uint64,
             16: np.uint32, 17: np.uint32, 18: np.uint32, 19: np.uint32, 21: np.int32, 22: np.int32}
# CuMetal's own algorithm (id 0) for the combinations not recorded: what CuMetal's matmul does
_EPILOGUES = 1 | 2 | 4 | 6 | 32 | 36 | 130 | 134 | 160 | 164 | 136 | 152 | 192 | 208 | 256 | 512
OWN_CAPS = {0: 0, 1: 0, 2: 0, 3: 1, 4: 1, 5: 0, 7: 0, 10: 1, 11: 1 | 2 | 16, 12: _EPILOGUES, 14: 0, 15: 1, 16: 1,
            17: 1, 18: 1, 19: 1, 21: 1, 22: 0}


def key_of(compute: int, scale: int, atype: int, btype: int, ctype: int, dtype: int) -> tuple[int, ...]:
    return (compute, scale, atype, btype, ctype, dtype)


def _expand(runs: tuple[tuple[int, int], ...]) -> list[int]:
    return [v for first, last in runs for v in range(first, last + 1)]


def check_types(compute: int, scale: int, atype: int, btype: int, ctype: int, dtype: int) -> None:
    gemmex.compute_dtype(compute, ctype)
    for code, what in ((scale, "scaleType"), (atype, "Atype"), (btype, "Btype"), (ctype, "Ctype"), (dtype, "Dtype")):
        if code not in fp8.TYPES and code != S.C_16F:
            gemmex.storage(code, what)


def ids_for(key: tuple[int, ...]) -> tuple[int, ...]:
    return H100.IDS.get(key, (0,))


def get_ids(key: tuple[int, ...], requested: int, ids: int, count: int) -> None:
    if requested <= 0 or not ids or not count:
        raise LibError(S.INVALID_VALUE, "requestedAlgoCount must be > 0 and algoIdsArray, returnAlgoCount non-NULL")
    found = list(ids_for(key))[:requested]
    devmem.write_host(ids, np.array(found, np.int32))
    devmem.write_host(count, np.array([len(found)], np.int32))


def slots_for(key: tuple[int, ...], algo_id: int, tile: int = 0, stage: int = 0) -> np.ndarray:
    """A fresh algorithm's slots, as cublasLtMatmulAlgoInit leaves them (split-K 1, the rest 0)."""
    slots = np.zeros(16, np.uint32)
    slots[C_ID], slots[C_TILE], slots[C_SPLITK], slots[C_STAGES] = algo_id, tile, 1, stage
    slots[COMBO_SLOT] = KEYS.index(key) + 1 if key in H100.IDS else 0
    return slots


def init(key: tuple[int, ...], algo_id: int, algo: int) -> None:
    if not algo:
        raise LibError(S.INVALID_VALUE, "algo is NULL")
    listed = ids_for(key)
    if algo_id not in listed:
        status = S.NOT_SUPPORTED if 0 <= algo_id <= H100.MAX_ID else S.INVALID_VALUE
        raise LibError(status, f"algoId={algo_id} is not an algorithm for these types (compute, scale, A, B, C, D = "
                               f"{key}; ids: {', '.join(map(str, listed))}, as NVIDIA's library on the H100 listed "
                               "them)" if key in H100.IDS else f"algoId={algo_id}: CuMetal has one algorithm, id 0, "
                               f"for these types {key}")
    devmem.write_host(algo, slots_for(key, algo_id))


def heuristic_algo(key: tuple[int, ...]) -> bytes:
    """The algorithm a heuristic query returns: for a recorded combination the first id (and tile,
    stage) AlgoCheck took on the H100 for a 64^3 matmul; else CuMetal's id 0."""
    algo_id, tile, stage = H100.PICKS.get(key, (0, 0, 0))
    return slots_for(key, algo_id, tile, stage).tobytes()


def read_slots(algo: int) -> np.ndarray:
    if not algo:
        raise LibError(S.INVALID_VALUE, "algo is NULL")
    return devmem.read_host(algo, np.uint32, 16).copy()


def _entry(slots: np.ndarray) -> tuple[tuple[int, ...] | None, dict[int, int], list[int], list[int], int]:
    """(combination, capabilities, tiles, stages, refusal status) of an algorithm's slots."""
    combo, algo_id = int(slots[COMBO_SLOT]), int(np.int32(slots[C_ID]))
    if combo == 0:
        if algo_id != 0:
            raise LibError(S.INVALID_VALUE, f"algorithm id {algo_id} was not set up by cublasLtMatmulAlgoInit "
                                            "(CuMetal's own algorithm is id 0)")
        return None, OWN_CAPS, [0], [0], 0
    if combo > len(KEYS) or (KEYS[combo - 1], algo_id) not in H100.ALGOS:
        raise LibError(S.INVALID_VALUE, "the algorithm was not set up by cublasLtMatmulAlgoInit or a heuristic query")
    key = KEYS[combo - 1]
    caps, tiles, stages, refuse = H100.ALGOS[key, algo_id]
    return key, H100.CAPS[caps], _expand(H100.LISTS[tiles]), _expand(H100.LISTS[stages]), refuse


def check(algo: int, key: tuple[int, ...]) -> None:
    """That a matmul of these types can run this algorithm as configured (NOT_SUPPORTED otherwise)."""
    slots = read_slots(algo)
    combo, caps, tiles, stages, refuse = _entry(slots)
    algo_id = int(np.int32(slots[C_ID]))
    if combo is not None and combo != key:
        raise LibError(S.INVALID_VALUE, f"algorithm {algo_id} was initialised for the types {combo}, the matmul has "
                                        f"{key} (compute, scale, A, B, C, D)")
    if refuse:
        raise LibError(refuse, f"algorithm {algo_id} for the types {key}: NVIDIA's library on the H100 refused every "
                               f"use of it ({'ARCH_MISMATCH' if refuse == S.ARCH_MISMATCH else 'INVALID_VALUE'}), and "
                               "so does CuMetal")
    tile, stage, splitk = int(slots[C_TILE]), int(slots[C_STAGES]), int(slots[C_SPLITK])
    scheme, swizzle, custom = int(slots[C_REDUCTION]), int(slots[C_SWIZZLE]), int(slots[C_CUSTOM])
    problems = []
    if tile and tile not in tiles:
        problems.append(f"tile {tile} is not one of its TILE_IDS")
    if stage and stage not in stages:
        problems.append(f"stages {stage} is not one of its STAGES_IDS")
    if splitk > 1 and scheme & ~caps.get(CAP_REDUCTION_MASK, 0):
        problems.append(f"reduction scheme {scheme} is outside its REDUCTION_SCHEME_MASK {caps.get(CAP_REDUCTION_MASK, 0)}")
    if scheme > 7:
        problems.append(f"reduction scheme {scheme} is not a cublasLtReductionScheme_t")
    if swizzle and not caps.get(CAP_SWIZZLE, 0):
        problems.append(f"CTA swizzling {swizzle} without CTA_SWIZZLING_SUPPORT")
    if custom > caps.get(CAP_CUSTOM_MAX, 0):
        problems.append(f"custom option {custom} > CUSTOM_OPTION_MAX {caps.get(CAP_CUSTOM_MAX, 0)}")
    if problems:
        raise LibError(S.NOT_SUPPORTED, f"algorithm {algo_id}: " + "; ".join(problems))


def _write_attr(values: np.ndarray, buf: int, size: int, written: int, what: str, exact: bool) -> None:
    """An attribute's value into buf; size 0 with a NULL buf asks for the size. A single value needs
    exactly its size (as NVIDIA's library answered on the H100), a list at least its size."""
    nbytes = values.nbytes
    if size == 0 and not buf:
        if not written:
            raise LibError(S.INVALID_VALUE, "sizeWritten is NULL")
        devmem.write_host(written, np.array([nbytes], np.uint64))
        return
    if not buf or size < nbytes or (exact and size != nbytes):
        raise LibError(S.INVALID_VALUE, f"{what} takes {nbytes} bytes, got {size}")
    if nbytes:
        devmem.write_host(buf, values)
    if written:
        devmem.write_host(written, np.array([nbytes], np.uint64))


def cap_get(algo: int, attr: int, buf: int, size: int, written: int) -> None:
    _, caps, tiles, stages, _ = _entry(read_slots(algo))
    if attr == CAP_TILES:
        values = np.array(tiles, np.uint32)
    elif attr == CAP_STAGES:
        values = np.array(stages, np.uint32)
    elif attr in CAP_TYPES and attr in caps:
        values = np.array([caps[attr]], CAP_TYPES[attr])
    else:
        raise LibError(S.INVALID_VALUE, f"algorithm capability {attr} is not a cublasLtMatmulAlgoCapAttributes_t "
                                        "CuMetal knows")
    _write_attr(values, buf, size, written, f"capability {attr}", attr not in (CAP_TILES, CAP_STAGES))


def config_set(algo: int, attr: int, buf: int, size: int) -> None:
    slots = read_slots(algo)
    dtype = CONFIG.get(attr)
    if dtype is None:
        raise LibError(S.INVALID_VALUE, f"algorithm configuration attribute {attr} is unknown")
    if not buf or size != np.dtype(dtype).itemsize:
        raise LibError(S.INVALID_VALUE, f"configuration attribute {attr} takes {np.dtype(dtype).itemsize} bytes, "
                                        f"got {size}")
    slots[attr] = np.uint32(int(devmem.read_host(buf, dtype)[0]) & 0xFFFFFFFF)
    devmem.write_host(algo, slots)


def config_get(algo: int, attr: int, buf: int, size: int, written: int) -> None:
    slots = read_slots(algo)
    dtype = CONFIG.get(attr)
    if dtype is None:
        raise LibError(S.INVALID_VALUE, f"algorithm configuration attribute {attr} is unknown")
    _write_attr(np.array([slots[attr]]).astype(dtype), buf, size, written, f"configuration attribute {attr}",
                True)

"""The Python half of cuBLASLt's C ABI (csrc/cublasLt.c): ints in, a cublasStatus_t out, never raises."""

from __future__ import annotations

import ctypes
import os

from cumetal.libs.cublas import logger, lt, lt_algos, lt_transform
from cumetal.libs.cublas import status as S
from cumetal.libs.cublas.capi import _out, entry, status_name, status_string  # noqa: F401 - re-exported for C
from cumetal.libs.devmem import LibError


def _out_handle(out: int, value: int) -> None:
    if not out:
        raise LibError(S.INVALID_VALUE, "the output pointer is NULL")
    ctypes.c_void_p.from_address(out).value = value


@entry("cublasLtCreate", with_handle=False)
def create(out: int) -> None:
    _out_handle(out, lt.new("handle"))


@entry("cublasLtDestroy", with_handle=False)
def destroy(h: int) -> None:
    lt.destroy(h, "handle")


@entry("cublasLtMatmulDescCreate", with_handle=False)
def desc_create(out: int, compute: int, scale: int) -> None:
    _out_handle(out, lt.desc_create(compute, scale))


@entry("cublasLtMatrixLayoutCreate", with_handle=False)
def layout_create(out: int, dtype: int, rows: int, cols: int, ld: int) -> None:
    _out_handle(out, lt.layout_create(dtype, rows, cols, ld))


@entry("cublasLtMatmulPreferenceCreate", with_handle=False)
def pref_create(out: int) -> None:
    _out_handle(out, lt.new("preference"))


_KINDS = {0: "matmul descriptor", 1: "matrix layout", 2: "preference", 3: "transform descriptor",
          4: "emulation descriptor"}


@entry("cublasLt*Destroy", with_handle=False)
def obj_destroy(kind: int, h: int) -> None:
    lt.destroy(h, _KINDS[kind])


@entry("cublasLt*SetAttribute", with_handle=False)
def obj_set(kind: int, h: int, attr: int, buf: int, size: int) -> None:
    lt.set_attribute(h, _KINDS[kind], attr, buf, size)


@entry("cublasLt*GetAttribute", with_handle=False)
def obj_get(kind: int, h: int, attr: int, buf: int, size: int, written: int) -> None:
    lt.get_attribute(h, _KINDS[kind], attr, buf, size, written)


@entry("cublasLtMatmulAlgoGetHeuristic", with_handle=False)
def heuristic(*args: int) -> None:
    lt.heuristic(*args)


@entry("cublasLtMatmul", with_handle=False)
def matmul(*args: int) -> None:
    lt.matmul(*args)


@entry("cublasLtMatmulAlgoGetIds", with_handle=False)
def algo_get_ids(handle: int, compute: int, scale: int, a: int, b: int, c: int, d: int, requested: int, ids: int,
                 count: int) -> None:
    lt.get(handle, "handle")
    lt_algos.check_types(compute, scale, a, b, c, d)
    lt_algos.get_ids(lt_algos.key_of(compute, scale, a, b, c, d), requested, ids, count)


@entry("cublasLtMatmulAlgoInit", with_handle=False)
def algo_init(handle: int, compute: int, scale: int, a: int, b: int, c: int, d: int, algo_id: int, algo: int) -> None:
    lt.get(handle, "handle")
    lt_algos.check_types(compute, scale, a, b, c, d)
    lt_algos.init(lt_algos.key_of(compute, scale, a, b, c, d), algo_id, algo)


@entry("cublasLtMatmulAlgoCheck", with_handle=False)
def algo_check(*args: int) -> None:
    lt.algo_check(*args)


@entry("cublasLtMatmulAlgoCapGetAttribute", with_handle=False)
def algo_cap_get(*args: int) -> None:
    lt_algos.cap_get(*args)


@entry("cublasLtMatmulAlgoConfigSetAttribute", with_handle=False)
def algo_config_set(*args: int) -> None:
    lt_algos.config_set(*args)


@entry("cublasLtMatmulAlgoConfigGetAttribute", with_handle=False)
def algo_config_get(*args: int) -> None:
    lt_algos.config_get(*args)


@entry("cublasLtMatrixTransformDescCreate", with_handle=False)
def transform_desc_create(out: int, scale: int) -> None:
    _out_handle(out, lt_transform.transform_desc_create(scale))


@entry("cublasLtMatrixTransform", with_handle=False)
def transform(*args: int) -> None:
    lt_transform.transform(*args)


_INIT_SIZES = {0: 32 * 8, 1: 8 * 8, 2: 8 * 8, 3: 8 * 8, 4: 8 * 8}  # the opaque structs' sizes (uint64_t data[...])


@entry("cublasLt*Init", with_handle=False)
def obj_init(kind: int, ptr: int, size: int, a: int, b: int, c: int, d: int) -> None:
    """The stack-allocated forms (cublasLtMatmulDescInit, …): the struct's address becomes the
    object's handle; initialising it again resets it."""
    if not ptr:
        raise LibError(S.INVALID_VALUE, "the descriptor pointer is NULL")
    if size < _INIT_SIZES[kind]:
        raise LibError(S.INVALID_VALUE, f"size {size} is smaller than the opaque structure ({_INIT_SIZES[kind]})")
    if kind == 0:
        lt.register(ptr, "matmul descriptor", lt._objects_attrs(lt.desc_create(a, b)))
    elif kind == 1:
        lt.register(ptr, "matrix layout", lt._objects_attrs(lt.layout_create(a, b, c, d)))
    elif kind == 2:
        lt.register(ptr, "preference", {})
    elif kind == 3:
        lt.register(ptr, "transform descriptor", lt._objects_attrs(lt_transform.transform_desc_create(a)))
    else:
        lt.register(ptr, "emulation descriptor", lt._objects_attrs(lt.emulation_desc_create()))


@entry("cublasLtEmulationDescCreate", with_handle=False)
def emulation_desc_create(out: int) -> None:
    _out_handle(out, lt.emulation_desc_create())



@entry("cublasLtHeuristicsCache*Capacity", with_handle=False)
def heuristics_cache(get: int, value: int) -> None:
    global _CACHE_CAPACITY
    if get:
        if not value:
            raise LibError(S.INVALID_VALUE, "capacity is NULL")
        ctypes.c_size_t.from_address(value).value = _CACHE_CAPACITY
    else:
        _CACHE_CAPACITY = value


_CACHE_CAPACITY = int(os.environ.get("CUBLASLT_HEURISTICS_CACHE_CAPACITY", "8192") or 8192)  # NVIDIA's default


@entry("cublasLtLoggerSetCallback", with_handle=False)
def logger_set_callback(callback: int) -> None:
    logger.LT.callback = callback


@entry("cublasLtLoggerSetFile", with_handle=False)
def logger_set_file(cfile: int) -> None:
    if not cfile:
        raise LibError(S.INVALID_VALUE, "file is NULL")
    logger.LT.cfile, logger.LT.file = cfile, None


@entry("cublasLtLoggerOpenFile", with_handle=False)
def logger_open_file(path: int) -> None:
    name = ctypes.string_at(path).decode(errors="replace") if path else ""
    f = logger._open(name) if name else None
    if f is None:
        raise LibError(S.INVALID_VALUE, f"log file {name!r} cannot be opened for writing")
    logger.LT.file, logger.LT.cfile = f, 0


@entry("cublasLtLoggerSetLevel", with_handle=False)
def logger_set_level(level: int) -> None:
    if not 0 <= level <= 5:
        raise LibError(S.INVALID_VALUE, f"level={level} (0 to 5)")
    logger.LT.mask = (1 << level) - 1


@entry("cublasLtLoggerSetMask", with_handle=False)
def logger_set_mask(mask: int) -> None:
    if not 0 <= mask <= 31:
        raise LibError(S.INVALID_VALUE, f"mask={mask} (bits 0 to 4: error, trace, hints, info, API trace)")
    logger.LT.mask = mask


@entry("cublasLtLoggerForceDisable", with_handle=False)
def logger_force_disable() -> None:
    logger.LT.disabled = True

"""The Python half of cuBLASLt's C ABI (csrc/cublasLt.c): ints in, a cublasStatus_t out, never raises."""

from __future__ import annotations

import ctypes

from cumetal.libs.cublas import lt
from cumetal.libs.cublas import status as S
from cumetal.libs.cublas.capi import entry, status_name, status_string  # noqa: F401 - re-exported for C
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


_KINDS = {0: "matmul descriptor", 1: "matrix layout", 2: "preference"}


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

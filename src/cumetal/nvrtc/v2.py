"""cuda-python's newer NVRTC layer (``cuda.bindings._v2.nvrtc``): snake_case functions that return
values and raise ``NvrtcError`` subclasses. Same programs and compiler as ``cumetal.nvrtc``;
use ``from cumetal.nvrtc import v2 as nvrtc``."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from cumetal.nvrtc import api
from cumetal.nvrtc.enums import nvrtcResult

Result = IntEnum("Result", {m.name.removeprefix("NVRTC_"): m.value for m in nvrtcResult})


class NvrtcError(Exception):
    def __init__(self, status: int) -> None:
        self.status = status
        super().__init__(get_error_string(status))

    def __reduce__(self) -> tuple:
        return (type(self), (self.status,))


def _error_class(name: str) -> type[NvrtcError]:
    return type(name, (NvrtcError,), {"__module__": __name__})


# NVRTC_ERROR_INVALID_INPUT -> InvalidInputError, NVRTC_ERROR_INTERNAL_ERROR -> InternalErrorError …
_ERRORS: dict[int, type[NvrtcError]] = {}
for _m in nvrtcResult:
    if _m.value:
        _cls = _error_class("".join(w.capitalize() for w in _m.name.removeprefix("NVRTC_ERROR_").split("_"))
                            + "Error")
        globals()[_cls.__name__] = _cls
        _ERRORS[_m.value] = _cls


def _check(result: tuple) -> tuple:
    status = int(result[0])
    if status:
        raise _ERRORS.get(status, NvrtcError)(status)
    return result[1:]


def get_error_string(result: int) -> str:
    return api.nvrtcGetErrorString(result)[1].decode()


def version() -> tuple[int, int]:
    return tuple(_check(api.nvrtcVersion()))  # type: ignore[return-value]


def get_num_supported_archs() -> int:
    return _check(api.nvrtcGetNumSupportedArchs())[0]


def get_supported_archs() -> list[int]:
    return list(_check(api.nvrtcGetSupportedArchs())[0])


def create_program(src: bytes, name: Any, headers: Any = None, include_names: Any = None) -> int:
    headers, include_names = list(headers or []), list(include_names or [])
    if len(headers) != len(include_names):
        raise ValueError(f"headers and include_names must have the same length "
                         f"({len(headers)} != {len(include_names)})")
    return int(_check(api.nvrtcCreateProgram(src, name, len(headers), headers, include_names))[0])


def destroy_program(prog: int) -> None:
    _check(api.nvrtcDestroyProgram(prog))


def compile_program(prog: int, options: Any = None) -> None:
    options = list(options or [])
    _check(api.nvrtcCompileProgram(prog, len(options), options))


def add_name_expression(prog: int, name_expression: Any) -> None:
    _check(api.nvrtcAddNameExpression(prog, name_expression))


def get_lowered_name(prog: int, name_expression: bytes) -> bytes:
    return _check(api.nvrtcGetLoweredName(prog, name_expression))[0]


def set_flow_callback(prog: int, callback: int, payload: int) -> None:
    _check(api.nvrtcSetFlowCallback(prog, callback, payload))


def _getters(kind: str):  # noqa: ANN202
    size_fn, data_fn = getattr(api, f"nvrtcGet{kind}Size"), getattr(api, f"nvrtcGet{kind}")

    def size(prog: int) -> int:
        return _check(size_fn(prog))[0]

    def data(prog: int) -> bytes:
        buf = bytearray(size(prog))
        _check(data_fn(prog, buf))
        return bytes(buf)
    return size, data


get_ptx_size, get_ptx = _getters("PTX")
get_cubin_size, get_cubin = _getters("CUBIN")
get_ltoir_size, get_ltoir = _getters("LTOIR")
get_optix_ir_size, get_optix_ir = _getters("OptiXIR")
get_tile_ir_size, get_tile_ir = _getters("TileIR")
get_program_log_size, get_program_log = _getters("ProgramLog")


def get_pch_heap_size() -> int:
    return _check(api.nvrtcGetPCHHeapSize())[0]


def set_pch_heap_size(size: int) -> None:
    _check(api.nvrtcSetPCHHeapSize(size))


def get_pch_create_status(prog: int) -> int:
    return int(api.nvrtcGetPCHCreateStatus(prog)[0])


def get_pch_heap_size_required(prog: int) -> int:
    return _check(api.nvrtcGetPCHHeapSizeRequired(prog))[0]

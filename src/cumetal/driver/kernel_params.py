"""Packing cuLaunchKernel arguments into the kernel's parameter buffer.

``kernelParams`` is accepted in every form cuda-python accepts:

* ``None`` (no parameters, or parameters passed through ``extra``);
* an int: the address of a C array of ``void*``, one per parameter, each pointing at its value;
* a buffer-protocol object (e.g. a numpy uint64 array) holding that array of pointers;
* ``((values...), (types...))``: a ctypes type per value (c_int, c_float, c_void_p, ...), or None
  for values that carry their own storage: handles such as CUdeviceptr, ctypes.Structure
  instances (structs by value), enum members (a C int). CuMetal also accepts a plain int with
  type None (pointer-sized), numpy scalar types, and any ctypes type (arrays, structures) as the
  type, where cuda-python would raise.

``extra`` is the CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE / _END list, given as an int address of
a C ``void*`` array, or as a Python list/tuple whose values are addresses, buffers or (for the
size) a ctypes.c_size_t.

Each parameter is copied into its slot (offset, size) of the kernel's layout; a typed integer
narrower than its parameter is sign- or zero-extended with a warning (CUDA would read past it:
NVIDIA's simple_cuda_graphs example passes c_uint for size_t), any other narrower value is an
error, a wider one is truncated to the parameter's size as the hardware would (little-endian).
"""

from __future__ import annotations

import ctypes
import enum
import struct
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from cumetal.driver.enums import (
    CU_LAUNCH_PARAM_BUFFER_POINTER,
    CU_LAUNCH_PARAM_BUFFER_SIZE,
    CU_LAUNCH_PARAM_END,
    CUresult,
)
from cumetal.driver.errors import CudaError
from cumetal.driver.handles import CUdevice, _Handle

R = CUresult
_PTR = ctypes.sizeof(ctypes.c_void_p)
_MAX_EXTRA = 64  # entries read from a C ``extra`` array before giving up on a missing END


class ParamSlot(Protocol):
    name: str
    size: int
    offset: int


def pack_launch_params(kernel_params: Any, extra: Any, params: Sequence[ParamSlot], param_size: int) -> bytes:
    """The packed parameter buffer for a launch; CudaError(INVALID_VALUE) on any mismatch."""
    if type(kernel_params) is tuple and len(kernel_params) == 2 and (extra is None or (type(extra) is int and not extra)):
        values, types = kernel_params  # the common ((values...), (types...)) form without extra, first
        if type(values) in (tuple, list) and type(types) in (tuple, list):
            packed = _fast_pack(values, types, params, param_size)
            if packed is not None:
                return packed
    has_kp = not _is_null(kernel_params)
    has_extra = not _is_null(extra)
    if has_kp and has_extra:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "kernelParams and extra are both given; pass one")
    if has_extra:
        return _from_extra(extra, param_size)
    if not has_kp:
        if params:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE,
                            f"the kernel takes {len(params)} parameter(s) but kernelParams is None")
        return bytes(param_size)
    if isinstance(kernel_params, tuple) and len(kernel_params) == 2 and all(
        isinstance(x, tuple | list) for x in kernel_params
    ):
        values, types = kernel_params
        packed = _fast_pack(values, types, params, param_size)
        if packed is not None:
            return packed
        buf = bytearray(param_size)
        if len(values) != len(types):
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE,
                            f"kernelParams has {len(values)} values but {len(types)} types")
        _check_count(len(values), params)
        for i, (value, ctype, slot) in enumerate(zip(values, types, params, strict=True)):
            data = value_bytes(value, ctype, i)
            if len(data) < slot.size:
                data = _widened_integer(data, ctype, slot, i)
            _place(buf, data, slot, i)
        return bytes(buf)
    base = _pointer_array_address(kernel_params, len(params))
    if not params:
        return bytes(param_size)
    pointers = (ctypes.c_uint64 * len(params)).from_address(base)
    buf = ctypes.create_string_buffer(param_size)
    dst = ctypes.addressof(buf)
    for i, slot in enumerate(params):
        ptr = pointers[i]
        if ptr == 0:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"kernelParams[{i}] is a NULL pointer")
        ctypes.memmove(dst + slot.offset, ptr, slot.size)
    return buf.raw


# ---- the fast path for ((values...), (types...)): one struct.pack per launch
# ctypes types whose bytes struct packs identically (little-endian, no alignment: the slots'
# offsets are spelled out as padding); None and c_void_p take an int or a pointer-sized handle
_STRUCT_CODES: dict[Any, tuple[str, int]] = {
    None: ("Q", 0), ctypes.c_void_p: ("Q", 0),
    ctypes.c_byte: ("b", 1), ctypes.c_ubyte: ("B", 1), ctypes.c_short: ("h", 1), ctypes.c_ushort: ("H", 1),
    ctypes.c_int: ("i", 1), ctypes.c_uint: ("I", 1), ctypes.c_long: ("l" if ctypes.sizeof(ctypes.c_long) == 4 else "q", 1),
    ctypes.c_ulong: ("L" if ctypes.sizeof(ctypes.c_long) == 4 else "Q", 1),
    ctypes.c_longlong: ("q", 1), ctypes.c_ulonglong: ("Q", 1),
    ctypes.c_float: ("f", 2), ctypes.c_double: ("d", 2),
}
_packers: dict[tuple[int, tuple], tuple[Any, Any]] = {}  # (id(params), types) -> (params, packer or None)


class _Packer:
    """A struct for one parameter layout and one tuple of ctypes types, where every value's bytes
    fill its slot exactly (no widening or truncation), and the kind of value each slot takes
    (0: an int or a pointer-sized handle, 1: an int, 2: an int or a float): any other value, or one
    that struct refuses (out of range, negative for an unsigned type), takes the general path,
    whose result (or error) the fast path never differs from."""

    __slots__ = ("struct", "kinds")

    def __init__(self, fmt: str, kinds: tuple[int, ...]) -> None:
        self.struct = struct.Struct(fmt)
        self.kinds = kinds


def _packer(params: Sequence[ParamSlot], types: tuple, param_size: int) -> _Packer | None:
    fmt, kinds, pos = ["<"], [], 0
    for ctype, slot in zip(types, params, strict=True):
        try:
            code, kind = _STRUCT_CODES[ctype]
        except (KeyError, TypeError):  # another type, or an unhashable one
            return None
        if struct.calcsize("<" + code) != slot.size or slot.offset < pos:
            return None
        if slot.offset > pos:
            fmt.append(f"{slot.offset - pos}x")
        fmt.append(code)
        kinds.append(kind)
        pos = slot.offset + slot.size
    if pos > param_size:
        return None
    if param_size > pos:
        fmt.append(f"{param_size - pos}x")
    return _Packer("".join(fmt), tuple(kinds))


def _fast_pack(values: Sequence[Any], types: Sequence[Any], params: Sequence[ParamSlot], param_size: int) -> bytes | None:
    """The packed buffer for the common ``((values...), (types...))`` launch, or None for the
    general path (``_Packer``)."""
    if len(values) != len(params) or len(types) != len(params):
        return None
    try:
        key = (id(params), tuple(types))
        hit = _packers.get(key)
    except TypeError:
        return None
    if hit is None or hit[0] is not params:
        if len(_packers) >= 1024:
            _packers.clear()
        hit = (params, _packer(params, key[1], param_size))
        _packers[key] = hit
    packer = hit[1]
    if packer is None:
        return None
    for v, kind in zip(values, packer.kinds, strict=True):
        t = type(v)
        if t is int or (kind == 2 and t is float) or (kind == 0 and isinstance(v, _Handle) and t is not CUdevice):
            continue
        return None
    try:
        return packer.struct.pack(*values)
    except (struct.error, OverflowError, TypeError, ValueError):
        return None


def _is_null(x: Any) -> bool:
    if x is None:
        return True
    if isinstance(x, int | _Handle) and not isinstance(x, bool):
        return int(x) == 0
    if isinstance(x, ctypes.c_void_p):
        return not x.value
    if isinstance(x, list | tuple) and len(x) == 0:
        return True
    return False


def _check_count(n: int, params: Sequence[ParamSlot]) -> None:
    if n != len(params):
        names = ", ".join(p.name for p in params) or "none"
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE,
                        f"{n} kernel argument(s) given but the kernel takes {len(params)} ({names})")


def _place(buf: bytearray, data: bytes, slot: ParamSlot, i: int) -> None:
    if len(data) < slot.size:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE,
                        f"argument {i} ('{slot.name}') is {len(data)} bytes but the parameter takes {slot.size}")
    buf[slot.offset : slot.offset + slot.size] = data[: slot.size]


_SIGNED_CTYPES = (ctypes.c_byte, ctypes.c_short, ctypes.c_int, ctypes.c_long, ctypes.c_longlong)
_UNSIGNED_CTYPES = (ctypes.c_ubyte, ctypes.c_ushort, ctypes.c_uint, ctypes.c_ulong, ctypes.c_ulonglong,
                    ctypes.c_bool)
_warned_widening: set[tuple[str, int]] = set()


def _widened_integer(data: bytes, ctype: Any, slot: ParamSlot, i: int) -> bytes:
    """A typed integer narrower than its parameter (NVIDIA's simple_cuda_graphs passes c_uint for
    size_t): CUDA would read past the value, which works there only by luck; CuMetal converts it as C
    would (sign- or zero-extension) and warns once. Anything else narrower stays an error."""
    signed = isinstance(ctype, type) and (issubclass(ctype, _SIGNED_CTYPES)
                                          or issubclass(ctype, np.signedinteger))
    unsigned = isinstance(ctype, type) and (issubclass(ctype, _UNSIGNED_CTYPES)
                                            or issubclass(ctype, np.unsignedinteger))
    if not (signed or unsigned) or slot.size > 8:
        return data
    key = (slot.name, i)
    if key not in _warned_widening:
        _warned_widening.add(key)
        import sys
        import warnings

        frame, level = sys._getframe(0), 1  # report at the caller's line, outside CuMetal
        while frame is not None and frame.f_globals.get("__name__", "").startswith("cumetal."):
            frame, level = frame.f_back, level + 1
        warnings.warn(f"kernel argument {i} ('{slot.name}') is a {len(data)}-byte {ctype.__name__} but the "
                      f"parameter takes {slot.size} bytes: CuMetal {'sign' if signed else 'zero'}-extends it "
                      "(CUDA would read past the value)", RuntimeWarning, stacklevel=level)
    value = int.from_bytes(data, "little", signed=signed)
    return (value % (1 << (8 * slot.size))).to_bytes(slot.size, "little")


def value_bytes(value: Any, ctype: Any, i: int = 0) -> bytes:
    """The bytes cuda-python would point kernelParams[i] at for ``(value, ctype)``."""
    try:
        if ctype is None:
            return _untyped_bytes(value, i)
        if ctype is ctypes.c_void_p:
            if isinstance(value, ctypes.c_void_p):
                return (value.value or 0).to_bytes(_PTR, "little")
            # Handles pass their value: cuda-python would pass the address of the handle's own
            # storage here, which is never what a kernel wants.
            if isinstance(value, int | np.integer | _Handle) and not isinstance(value, bool):
                return (int(value) % 2**64).to_bytes(_PTR, "little")
            if hasattr(value, "getPtr") and hasattr(value, "__int__"):
                return (int(value) % 2**64).to_bytes(_PTR, "little")
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE,
                            f"argument {i}: c_void_p needs an int or a handle, got {type(value).__name__}")
        if isinstance(ctype, type) and issubclass(ctype, np.generic):
            return np.asarray(value, dtype=ctype).tobytes()
        if isinstance(ctype, type) and issubclass(ctype, ctypes._SimpleCData | ctypes.Structure | ctypes.Union
                                                  | ctypes.Array):
            if isinstance(value, ctype):
                return bytes(value)
            if ctype is ctypes.c_double and isinstance(value, ctypes.c_float):
                return bytes(ctypes.c_double(value.value))
            if isinstance(value, ctypes._SimpleCData):
                value = value.value
            elif isinstance(value, np.generic):
                value = value.item()
            return bytes(ctype(value))
    except CudaError:
        raise
    except (TypeError, ValueError, OverflowError) as e:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE,
                        f"argument {i}: cannot convert {type(value).__name__} to {getattr(ctype, '__name__', ctype)}: {e}") from None
    raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"argument {i}: unsupported type {ctype!r}")


def _untyped_bytes(value: Any, i: int) -> bytes:
    if isinstance(value, CUdevice):
        return int(value).to_bytes(4, "little", signed=True)
    if isinstance(value, _Handle):
        return int(value).to_bytes(8, "little")
    if isinstance(value, ctypes.Structure | ctypes.Union | ctypes.Array | ctypes._SimpleCData):
        return bytes(value)
    if isinstance(value, enum.Enum):
        return int(value.value).to_bytes(4, "little", signed=int(value.value) < 0)
    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        return (int(value) % 2**64).to_bytes(_PTR, "little")
    if hasattr(value, "getPtr") and hasattr(value, "__int__"):  # e.g. cuda-python's own handles
        return (int(value) % 2**64).to_bytes(_PTR, "little")
    raise CudaError(R.CUDA_ERROR_INVALID_VALUE,
                    f"argument {i}: a {type(value).__name__} with type None must be a handle (CUdeviceptr ...), "
                    "a ctypes.Structure or an enum member")


def _pointer_array_address(kernel_params: Any, n: int) -> int:
    if isinstance(kernel_params, int | np.integer) and not isinstance(kernel_params, bool):
        return int(kernel_params)
    if isinstance(kernel_params, ctypes.c_void_p):
        return int(kernel_params.value or 0)
    try:
        view = np.frombuffer(kernel_params, dtype=np.uint8)
    except (TypeError, ValueError, BufferError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE,
                        "kernelParams must be None, an int address, a buffer of pointers or "
                        f"((values...), (types...)); got {type(kernel_params).__name__}") from None
    if view.size < n * _PTR:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE,
                        f"kernelParams buffer holds {view.size // _PTR} pointers but the kernel takes {n}")
    return int(view.ctypes.data)


def _from_extra(extra: Any, param_size: int) -> bytes:
    entries: list[Any]
    if isinstance(extra, list | tuple):
        entries = list(extra)
    else:
        base = _pointer_array_address(extra, 0)
        entries = []
        for k in range(_MAX_EXTRA):
            word = ctypes.c_uint64.from_address(base + k * _PTR).value
            entries.append(word)
            if word == CU_LAUNCH_PARAM_END and k % 2 == 0:
                break
        else:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "extra has no CU_LAUNCH_PARAM_END")
    pointer = size = None
    k = 0
    while k < len(entries):
        key = entries[k]
        key = None if key is None else int(key.value or 0) if isinstance(key, ctypes.c_void_p) else int(key)
        if key is None or key == CU_LAUNCH_PARAM_END:
            break
        if k + 1 >= len(entries):
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"extra[{k}] has no value after it")
        value = entries[k + 1]
        if key == CU_LAUNCH_PARAM_BUFFER_POINTER:
            pointer = value
        elif key == CU_LAUNCH_PARAM_BUFFER_SIZE:
            size = _size_value(value)
        else:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"extra[{k}]: unknown key {key}")
        k += 2
    if pointer is None or size is None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE,
                        "extra needs both CU_LAUNCH_PARAM_BUFFER_POINTER and CU_LAUNCH_PARAM_BUFFER_SIZE")
    if size != param_size:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE,
                        f"extra's parameter buffer is {size} bytes but the kernel's parameters take {param_size}")
    if isinstance(pointer, int | np.integer | ctypes.c_void_p):
        addr = int(pointer.value or 0) if isinstance(pointer, ctypes.c_void_p) else int(pointer)
        if addr == 0:
            if size:
                raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "CU_LAUNCH_PARAM_BUFFER_POINTER is NULL")
            return b""
        return ctypes.string_at(addr, size)
    try:
        data = np.frombuffer(pointer, dtype=np.uint8)
    except (TypeError, ValueError, BufferError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE,
                        f"CU_LAUNCH_PARAM_BUFFER_POINTER value must be an address or a buffer, got {type(pointer).__name__}") from None
    if data.size < size:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"the parameter buffer holds {data.size} bytes, needs {size}")
    return data[:size].tobytes()


def _size_value(value: Any) -> int:
    """CU_LAUNCH_PARAM_BUFFER_SIZE's value: a pointer to a size_t (C semantics), or a c_size_t."""
    if isinstance(value, ctypes.c_size_t | ctypes.c_uint64 | ctypes.c_ulong):
        return int(value.value)
    if isinstance(value, ctypes.c_void_p):
        value = value.value or 0
    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        if int(value) == 0:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "CU_LAUNCH_PARAM_BUFFER_SIZE points to NULL")
        return ctypes.c_size_t.from_address(int(value)).value
    try:
        data = np.frombuffer(value, dtype=np.uint8)
    except (TypeError, ValueError, BufferError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE,
                        f"CU_LAUNCH_PARAM_BUFFER_SIZE value must point to a size_t, got {type(value).__name__}") from None
    return int(np.frombuffer(data[:8].tobytes(), dtype=np.uint64)[0])

"""The Python side of ``csrc/cm_driver_legacy.c``: every legacy Driver API name of
:data:`cumetal.capi.legacy_driver.TABLE` arrives here as ``drv_legacy(name, *values)`` and is
converted by the roles its table entry gives (conventions of :mod:`cumetal.capi.bridge_driver`)."""

from __future__ import annotations

import ctypes
from typing import Any

from cumetal import driver as cu
from cumetal.capi.bridge_driver import _c_int, _c_ptr, _c_size, _c_u64, _c_uint, _guard, _null, _say
from cumetal.capi.legacy_driver import BY_NAME, STRUCTS

NOT_SUPPORTED = 801
_CELLS = {"int": _c_int, "uint": _c_uint, "size": _c_size, "ptr": _c_ptr, "u64": _c_u64}
_FIELD_TYPES = {"int": ctypes.c_int, "uint": ctypes.c_uint, "size": ctypes.c_size_t}
_layouts: dict[str, type[ctypes.Structure]] = {}


def _layout(name: str) -> type[ctypes.Structure]:
    """The ctypes structure of ``STRUCTS[name]`` (C's layout of the legacy struct)."""
    if name not in _layouts:
        fields = [(f, _FIELD_TYPES[t] * n if n > 1 else _FIELD_TYPES[t]) for f, t, n in STRUCTS[name]]
        _layouts[name] = type(name, (ctypes.Structure,), {"_fields_": fields})
    return _layouts[name]


def _write(role: str, address: int, value: Any, capacity: int = 0) -> None:
    if role == "buf":
        data = bytes(value or b"")[: max(capacity - 1, 0)]
        ctypes.memmove(address, data + b"\0", len(data) + 1) if capacity > 0 else None
    elif role.startswith("o:struct:"):
        name = role.split(":", 2)[2]
        out = _layout(name).from_address(address)
        for field, _, n in STRUCTS[name]:
            v = getattr(value, field)
            if n > 1:
                getattr(out, field)[:] = [int(x) for x in v]
            else:
                setattr(out, field, int(v))
    else:
        cell = _CELLS[role[2:]]
        cell.from_address(address).value = int(value or 0)


@_guard
def drv_legacy(name: bytes | str, *values: int | float) -> int:
    name = name.decode() if isinstance(name, bytes) else name
    entry = BY_NAME[name]
    if entry.refuse:
        _say(f"{name}: CUDA_ERROR_NOT_SUPPORTED: {entry.refuse}")
        return NOT_SUPPORTED
    passed = [p for p in entry.params if p[2] != "x"]
    ins: list[Any] = []
    outs: list[tuple[str, int, int]] = []  # (role, address, capacity)
    for i, ((_, pname, role), value) in enumerate(zip(passed, values, strict=True)):
        if role.startswith("o:") or role == "buf":
            if not value:
                return _null(pname)
            capacity = int(values[i + 1]) if role == "buf" else 0
            outs.append((role, int(value), capacity))
        elif role == "h":
            ins.append(int(value) or None)
        elif role == "s":
            if not value:
                return _null(pname)
            ins.append(ctypes.string_at(int(value)))
        else:
            ins.append(value)
    result = getattr(cu, entry.call)(*ins)
    err = int(result[0])
    if err == 0:
        for (role, address, capacity), value in zip(outs, result[1:], strict=False):
            _write(role, address, value, capacity)
    return err

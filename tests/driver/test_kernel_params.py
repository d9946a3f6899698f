"""kernelParams / extra packing against byte layouts computed independently with struct."""

from __future__ import annotations

import ctypes
import enum
import struct
from dataclasses import dataclass

import numpy as np
import pytest

from cumetal import driver as cu
from cumetal.driver.errors import CudaError
from cumetal.driver.kernel_params import pack_launch_params


@dataclass
class Slot:
    name: str
    size: int
    offset: int
    align: int = 1


def layout(*sizes_aligns):
    """Natural C layout for (size, align) pairs, as PTX .param lists are laid out."""
    slots, off = [], 0
    for i, (size, align) in enumerate(sizes_aligns):
        off = (off + align - 1) // align * align
        slots.append(Slot(f"p{i}", size, off, align))
        off += size
    return slots, off


class Pair(ctypes.Structure):
    _fields_ = [("x", ctypes.c_float), ("n", ctypes.c_int32), ("d", ctypes.c_double)]


class Color(enum.IntEnum):
    RED = 7


# kernel(float *a, int n, float s, Pair p, char c, double d, unsigned long long u)
SLOTS, SIZE = layout((8, 8), (4, 4), (4, 4), (16, 8), (1, 1), (8, 8), (8, 8))
PTR = 0x7F00_1234_5600
EXPECTED = bytearray(SIZE)
for slot, data in zip(SLOTS, [struct.pack("<Q", PTR), struct.pack("<i", -5), struct.pack("<f", 2.5),
                              struct.pack("<fi d", 1.5, 9, -2.25).replace(b" ", b""), b"z",
                              struct.pack("<d", 3.0), struct.pack("<Q", 2**64 - 1)], strict=True):
    EXPECTED[slot.offset: slot.offset + slot.size] = data
EXPECTED = bytes(EXPECTED)


def test_expected_struct_layout_is_c_layout():
    assert ctypes.sizeof(Pair) == 16 and bytes(Pair(1.5, 9, -2.25)) == struct.pack("<fid", 1.5, 9, -2.25)


def test_values_and_types_form():
    values = (cu.CUdeviceptr(PTR), -5, 2.5, Pair(1.5, 9, -2.25), b"z", ctypes.c_float(3.0), 2**64 - 1)
    types = (None, ctypes.c_int, ctypes.c_float, None, ctypes.c_char, ctypes.c_double, ctypes.c_ulonglong)
    assert pack_launch_params((values, types), None, SLOTS, SIZE) == EXPECTED


def test_void_p_int_and_numpy_scalars():
    values = (PTR, np.int32(-5), np.float32(2.5), Pair(1.5, 9, -2.25), ctypes.c_char(b"z"), np.float64(3.0),
              ctypes.c_ulonglong(2**64 - 1))
    types = (ctypes.c_void_p, ctypes.c_int, ctypes.c_float, Pair, ctypes.c_char, ctypes.c_double, ctypes.c_uint64)
    assert pack_launch_params((values, types), None, SLOTS, SIZE) == EXPECTED
    # a handle with c_void_p passes its value; a plain int with type None is pointer-sized
    assert pack_launch_params(((cu.CUdeviceptr(PTR),), (ctypes.c_void_p,)), None, SLOTS[:1], 8) == struct.pack("<Q", PTR)
    assert pack_launch_params(((PTR,), (None,)), None, SLOTS[:1], 8) == struct.pack("<Q", PTR)
    assert pack_launch_params(((np.float32(1.0),), (np.float32,)), None, [Slot("f", 4, 0)], 4) == struct.pack("<f", 1.0)


def test_enum_and_device_handles_with_type_none():
    slots, size = layout((4, 4), (4, 4))
    got = pack_launch_params(((Color.RED, cu.CUdevice(3)), (None, None)), None, slots, size)
    assert got == struct.pack("<ii", 7, 3)


def _pointer_array(values_and_ctypes):
    keep = [t(v) for v, t in values_and_ctypes]
    arr = (ctypes.c_void_p * len(keep))(*[ctypes.addressof(k) for k in keep])
    return arr, keep


def test_address_of_void_pointer_array_and_buffer_forms():
    pair = Pair(1.5, 9, -2.25)
    scalars = [(PTR, ctypes.c_uint64), (-5, ctypes.c_int), (2.5, ctypes.c_float)]
    keep = [t(v) for v, t in scalars] + [pair, ctypes.c_char(b"z"), ctypes.c_double(3.0), ctypes.c_uint64(2**64 - 1)]
    addrs = [ctypes.addressof(k) for k in keep]
    arr = (ctypes.c_void_p * len(keep))(*addrs)
    assert pack_launch_params(ctypes.addressof(arr), None, SLOTS, SIZE) == EXPECTED
    np_arr = np.array(addrs, dtype=np.uint64)  # the numpy idiom from cuda-python's examples
    assert pack_launch_params(np_arr, None, SLOTS, SIZE) == EXPECTED
    assert pack_launch_params(int(np_arr.ctypes.data), None, SLOTS, SIZE) == EXPECTED


def test_extra_forms():
    buf = bytearray(EXPECTED)
    size = ctypes.c_size_t(SIZE)
    raw = (ctypes.c_char * SIZE).from_buffer(buf)
    c_extra = (ctypes.c_void_p * 5)(cu.CU_LAUNCH_PARAM_BUFFER_POINTER, ctypes.addressof(raw),
                                     cu.CU_LAUNCH_PARAM_BUFFER_SIZE, ctypes.addressof(size), cu.CU_LAUNCH_PARAM_END)
    assert pack_launch_params(None, ctypes.addressof(c_extra), SLOTS, SIZE) == EXPECTED
    assert pack_launch_params(0, [cu.CU_LAUNCH_PARAM_BUFFER_POINTER, buf, cu.CU_LAUNCH_PARAM_BUFFER_SIZE, size,
                                  cu.CU_LAUNCH_PARAM_END], SLOTS, SIZE) == EXPECTED
    assert pack_launch_params(None, (cu.CU_LAUNCH_PARAM_BUFFER_SIZE, ctypes.addressof(size),
                                     cu.CU_LAUNCH_PARAM_BUFFER_POINTER, ctypes.addressof(raw), None), SLOTS, SIZE) == EXPECTED


@pytest.mark.parametrize(
    "kp,extra,why",
    [
        (None, None, "kernelParams is None"),
        (((1, 2), (ctypes.c_int,)), None, "values but"),
        (((1,), (ctypes.c_int,)), None, "takes 7"),
        (((PTR, -5, 2.5, Pair(), b"z", 3.0, 1),
          (None, ctypes.c_int, ctypes.c_float, None, ctypes.c_char, ctypes.c_float, ctypes.c_uint64)), None, "4 bytes"),
        (((PTR, "x", 2.5, Pair(), b"z", 3.0, 1),
          (None, ctypes.c_int, ctypes.c_float, None, ctypes.c_char, ctypes.c_double, ctypes.c_uint64)), None, "convert"),
        (((1.5,) * 7, (None,) * 7), None, "type None"),
        (((1,) * 7, (str,) * 7), None, "unsupported type"),
        ("params", None, "kernelParams must be"),
        (np.zeros(3, np.uint64), None, "holds 3 pointers"),
        (((1,) * 7, (ctypes.c_int,) * 7), [1, b"", 2, ctypes.c_size_t(SIZE), 0], "both"),
        (None, [cu.CU_LAUNCH_PARAM_BUFFER_POINTER, bytearray(SIZE), cu.CU_LAUNCH_PARAM_BUFFER_SIZE,
                ctypes.c_size_t(SIZE - 8), 0], "kernel's parameters take"),
        (None, [cu.CU_LAUNCH_PARAM_BUFFER_POINTER, bytearray(SIZE), 0], "needs both"),
        (None, [9, 1, 0], "unknown key"),
    ],
)
def test_bad_arguments_are_invalid_value(kp, extra, why):
    with pytest.raises(CudaError) as e:
        pack_launch_params(kp, extra, SLOTS, SIZE)
    assert e.value.code == cu.CUresult.CUDA_ERROR_INVALID_VALUE
    assert why in e.value.message


def test_no_parameters():
    assert pack_launch_params(None, None, [], 0) == b""
    assert pack_launch_params(((), ()), None, [], 0) == b""


def test_wider_value_is_truncated_like_little_endian_hardware():
    assert pack_launch_params(((7,), (ctypes.c_int64,)), None, [Slot("n", 4, 0)], 4) == struct.pack("<i", 7)


def test_narrower_typed_integers_are_extended_as_c_converts_them():
    # NVIDIA's simple_cuda_graphs passes ctypes.c_uint for size_t parameters
    slots = [Slot("n", 8, 0), Slot("m", 8, 8)]
    with pytest.warns(RuntimeWarning, match="-extends") as caught:
        packed = pack_launch_params(((ctypes.c_uint(0xFFFF_FFF0), -3), (ctypes.c_uint, ctypes.c_int)), None, slots, 16)
    assert packed == struct.pack("<Qq", 0xFFFF_FFF0, -3)
    assert sorted(str(w.message).split("CuMetal ")[1][:4] for w in caught) == ["sign", "zero"]


def test_matches_cuda_python_helper_when_installed():
    real = pytest.importorskip("cuda.bindings.driver")
    values = (cu.CUdeviceptr(PTR), -5, 2.5, Pair(1.5, 9, -2.25), b"z", ctypes.c_float(3.0), 2**64 - 1)
    types = (None, ctypes.c_int, ctypes.c_float, None, ctypes.c_char, ctypes.c_double, ctypes.c_ulonglong)
    real_values = (real.CUdeviceptr(PTR),) + values[1:]
    helper = real._HelperKernelParams((real_values, types))
    if not hasattr(helper, "ckernelParams"):  # a private attribute; cuda-bindings 13.5 no longer exposes it
        pytest.skip("this cuda-bindings hides _HelperKernelParams.ckernelParams")
    # Read each parameter through cuda-python's own void* array, as the CUDA driver would.
    from_real = pack_launch_params(helper.ckernelParams, None, SLOTS, SIZE)
    assert from_real == pack_launch_params((values, types), None, SLOTS, SIZE) == EXPECTED

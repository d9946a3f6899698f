"""Shared fixtures for the Runtime API tests: a fresh runtime per test and the driver tests' kernels."""

from __future__ import annotations

import ctypes
import pathlib

import numpy as np
import pytest

from cumetal import runtime as rt
from cumetal.driver.state import STATE as DRIVER

OK = rt.cudaError_t.cudaSuccess
KERNELS_PTX = pathlib.Path(__file__).parents[1] / "driver" / "data" / "kernels.ptx"
H2D = rt.cudaMemcpyKind.cudaMemcpyHostToDevice
D2H = rt.cudaMemcpyKind.cudaMemcpyDeviceToHost
D2D = rt.cudaMemcpyKind.cudaMemcpyDeviceToDevice
DEFAULT = rt.cudaMemcpyKind.cudaMemcpyDefault


def check(result):
    """Unpack ``(err, *values)`` asserting success; returns the value(s)."""
    err, *rest = result
    assert err == OK, f"{rt.cudaError_t(err).name}"
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


@pytest.fixture(autouse=True)
def fresh_runtime(monkeypatch):
    """Each test starts with no context current, no sticky error and a reset device."""
    monkeypatch.setenv("CUMETAL_QUIET", "1")
    DRIVER.stack().clear()
    rt.cudaDeviceReset()
    rt.cudaGetLastError()
    yield
    rt.cudaSetDeviceFlags(0)  # device flags outlive cudaDeviceReset (the driver's primary-context flags)
    rt.cudaDeviceReset()
    DRIVER.stack().clear()


@pytest.fixture
def lib():
    return check(rt.cudaLibraryLoadData(KERNELS_PTX.read_text()))


def kernel(lib, name):
    return check(rt.cudaLibraryGetKernel(lib, name.encode()))


def upload(array: np.ndarray) -> int:
    d = check(rt.cudaMalloc(array.nbytes))
    check(rt.cudaMemcpy(d, array, array.nbytes, H2D))
    return d


def download(d: int, like: np.ndarray) -> np.ndarray:
    out = np.empty_like(like)
    check(rt.cudaMemcpy(out, d, out.nbytes, D2H))
    return out


class ArgArray:
    """A C ``void*`` array of kernel arguments, as compiled host code passes to cudaLaunchKernel."""

    def __init__(self, *values: ctypes._SimpleCData) -> None:
        self.values = values
        self.array = (ctypes.c_void_p * max(1, len(values)))(*[ctypes.addressof(v) for v in values])

    @property
    def address(self) -> int:
        return ctypes.addressof(self.array)

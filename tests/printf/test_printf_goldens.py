"""Device printf prints the same on every backend, and what an H100 prints.

``printf_cases.cu`` prints one line per case from one thread; ``golden_nvidia.txt`` is its output on
an H100 and ``printf_cases.ptx`` nvcc's PTX of it (both from scripts/make_printf_goldens.py). The
PTX runs on cpu, air-sim and msl-sim (and the same source compiled by CuMetal's clang front end on
cpu) and the output must equal the golden line for line. For the few cases whose NVIDIA output
does not follow from the arguments (see backends/common/printf_format.py), the expected line is
the C library's ``snprintf`` of the same format and arguments instead.
"""

from __future__ import annotations

import ctypes
import struct
from pathlib import Path

import pytest

from cumetal.devices.backends import open_device
from cumetal.passes import compile_ptx

HERE = Path(__file__).resolve().parent
GOLDEN = (HERE / "golden_nvidia.txt").read_bytes().decode()
PI = 3.14159265358979323846
I, S, LL, LD = ctypes.c_int, ctypes.c_size_t, ctypes.c_longlong, ctypes.c_longdouble

# case number -> (format, arguments) of the cases NVIDIA prints unrelated memory or bytes for
C_SEMANTICS: dict[int, tuple[bytes, tuple]] = {
    0: (b"%03d [%*d] [%hhd]", (I(0), I(5), I(42), I(300))),  # %hh: NVIDIA prints format-text bytes
    1: (b"%03d [%hhd %hhu %hhx %hhd]", (I(1), I(300), I(300), I(-1), I(-129))),
    52: (b"%03d [%hhd|%hhu|%hhd|%hhx]", (I(52), I(5), I(200), I(-5), I(0x7F))),
    # z/j/t and .*: NVIDIA prints the rest of the format as written in one call, garbage in another
    6: (b"%03d [%zu %zd %jd %td]", (I(6), S(123456789012), ctypes.c_long(-5), LL(-6), ctypes.c_long(7))),
    46: (b"%03d [%zu|%d]", (I(46), S(5), I(7))),
    11: (b"%03d [%*d|%-*d|%*d|%.*d|%*.*d]", (I(11), I(6), I(42), I(6), I(42), I(-6), I(42), I(4), I(42), I(8), I(5),
                                            I(42))),
    14: (b"%03d [%*s|%-*s|%.*s]", (I(14), I(8), b"hello", I(8), b"hello", I(2), b"hello")),
    32: (b"%03d [%.*f|%.*f|%.*f|%*.*f|%-*.*e|]", (I(32), I(3), ctypes.c_double(PI), I(-1), ctypes.c_double(PI), I(0),
                                                   ctypes.c_double(PI), I(10), I(2), ctypes.c_double(PI), I(12), I(2),
                                                   ctypes.c_double(PI))),
    47: (b"%03d [%.*d|%d]", (I(47), I(3), I(42), I(7))),
    # %5%: NVIDIA prints it as written in one call, '%' in another (C: '%')
    19: (b"%03d [100%% %% %5% done]", (I(19),)),
    49: (b"%03d [%5%|%d]", (I(49), I(7))),
    50: (b"%03d [%Lf|%d]", (I(50), LD(2.5), I(7))),  # a double passed for %Lf: NVIDIA reads garbage
}


def _c_printf(fmt: bytes, args: tuple) -> str:
    libc = ctypes.CDLL(None)
    buf = ctypes.create_string_buffer(4096)
    libc.snprintf(buf, len(buf), fmt, *args)
    return buf.value.decode()


def expected_lines() -> list[str]:
    lines = GOLDEN.splitlines()
    for case, (fmt, args) in C_SEMANTICS.items():
        assert lines[case].startswith(f"{case:03d} [")
        lines[case] = _c_printf(fmt, args)
    return lines


def _run(backend: str, ptx: str, capfd) -> list[str]:
    device = open_device(backend)
    image = device.load_module(compile_ptx(ptx, "printf_cases.ptx"))
    stream = device.create_stream()
    capfd.readouterr()
    fault = device.enqueue_launch(stream, image, "printf_cases", (1, 1, 1), (1, 1, 1), 0, struct.pack("<Qd", 0, 0.0))
    faults = device.synchronize(stream)
    assert fault is None and not faults, (fault, faults)
    return capfd.readouterr().out.splitlines()


def _compare(got: list[str], want: list[str]) -> None:
    diffs = [f"  want {w!r}\n  got  {g!r}" for w, g in zip(want, got, strict=False) if w != g]
    assert not diffs and len(got) == len(want), f"{len(diffs)} lines differ:\n" + "\n".join(diffs[:10])


@pytest.mark.parametrize("backend", ["cpu", "air-sim", "msl-sim"])
def test_nvcc_ptx_prints_as_an_h100(backend, capfd):
    _compare(_run(backend, (HERE / "printf_cases.ptx").read_text(), capfd), expected_lines())


def test_clang_ptx_prints_as_an_h100(capfd):
    """The same source through CuMetal's own CUDA front end (clang) prints the same."""
    from cumetal.cudacxx.compile import compile_to_ptx
    from cumetal.cudacxx.toolchain import ToolchainError

    try:
        ptx = compile_to_ptx((HERE / "printf_cases.cu").read_text(), "printf_cases.cu").ptx
    except ToolchainError as e:  # pragma: no cover - clang (ziglang) missing
        pytest.skip(f"no CUDA front end: {e}")
    _compare(_run("cpu", ptx, capfd), expected_lines())


def test_the_golden_matches_the_c_library_where_nvidia_is_defined():
    """Independent check of the reading above: every other case NVIDIA printed is what glibc prints."""
    golden = GOLDEN.splitlines()
    assert golden[3] == _c_printf(b"%03d [%d %i %u %x %X %o]", (I(3), I(-42), I(42), I(-1), I(255), I(255), I(8)))
    assert golden[33] == _c_printf(b"%03d [%a %a %a %a %A]", (I(33), *map(ctypes.c_double, (1.0, 0.1, -2.5, 0.0, 1.0))))
    assert golden[15] == _c_printf(b"%03d [%s]", (I(15), None))

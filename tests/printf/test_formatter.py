"""The one printf formatter (backends/common/printf_format.py) against the C library's snprintf
(glibc: every NVIDIA golden line that follows from its arguments is what glibc prints), over
random conversions, flags, widths and precisions; and the Apple ring's record round trip."""

from __future__ import annotations

import ctypes
import math
import random
import struct

import pytest

from cumetal.backends.apple.printf_ring import decode_ring, encode_ring, record_layout
from cumetal.backends.common.printf_format import arg_layout, format_buffer

LIBC = ctypes.CDLL(None)


def c_snprintf(fmt: bytes, *args) -> bytes:
    buf = ctypes.create_string_buffer(1 << 12)
    LIBC.snprintf(buf, len(buf), fmt, *args)
    return buf.value


def pack(fmt: bytes, values: list[tuple[str, object]]) -> bytes:
    """The vprintf buffer of ``values`` ((struct code, value) each) laid out as the format reads it."""
    offsets, size = arg_layout(fmt)
    buf = bytearray(size)
    for off, (code, v) in zip(offsets, values, strict=True):
        struct.pack_into("<" + code, buf, off, v)
    return bytes(buf)


def _spec(rng: random.Random, convs: str) -> str:
    flags = "".join(rng.sample("-+ #0", rng.randint(0, 3)))
    width = rng.choice(["", str(rng.randint(1, 25))])
    prec = rng.choice(["", ".", "." + str(rng.randint(0, 20))])
    return "%" + flags + width + prec + rng.choice(convs)


INTS = [0, 1, -1, 7, -42, 255, 65535, 2**31 - 1, -2**31, 123456789]
LONGS = [0, -1, 2**63 - 1, -2**63, 0xDEADBEEFCAFEBABE - 2**64, 10**18]
FLOATS = [0.0, -0.0, 1.0, -2.5, 0.1, 1e-5, 123456.789, 1e300, 5e-324, 2.2250738585072014e-308, 1.5, 2.5, 0.5,
          math.pi, -1e-300, 1.7976931348623157e308, float("inf"), float("-inf"), float("nan"), 9.999999e-5]


@pytest.mark.parametrize("seed", range(4))
def test_random_conversions_match_the_c_library(seed):
    rng = random.Random(seed)
    for _ in range(400):
        kind = rng.choice(["int", "long", "float", "str"])
        if kind == "int":
            spec = _spec(rng, "diouxX")
            v = rng.choice(INTS)
            fmt = f"[{spec}]".encode()
            want = c_snprintf(fmt, ctypes.c_int(v))
            got = format_buffer(fmt, pack(fmt, [("i", v)]), lambda a: b"")
        elif kind == "long":
            spec = _spec(rng, "diouxX").replace("%", "%" + "", 1)
            spec = spec[:-1] + rng.choice(["l", "ll"]) + spec[-1]
            v = rng.choice(LONGS)
            fmt = f"[{spec}]".encode()
            want = c_snprintf(fmt, ctypes.c_longlong(v))
            got = format_buffer(fmt, pack(fmt, [("q", v)]), lambda a: b"")
        elif kind == "float":
            spec = _spec(rng, "eEfFgGaA")
            v = rng.choice(FLOATS) * (-1 if rng.random() < 0.3 else 1)
            fmt = f"[{spec}]".encode()
            want = c_snprintf(fmt, ctypes.c_double(v))
            got = format_buffer(fmt, pack(fmt, [("d", v)]), lambda a: b"")
        else:
            spec = _spec(rng, "s").replace("#", "").replace("+", "").replace(" ", "").replace("0", "")
            text = rng.choice([b"", b"hello", b"x" * 40])
            fmt = f"[{spec}]".encode()
            want = c_snprintf(fmt, ctypes.c_char_p(text))
            got = format_buffer(fmt, pack(fmt, [("Q", 0x1000)]), lambda a, t=text: t)
        assert got == want, f"{fmt!r}: {got!r} != C {want!r}"


def test_star_width_precision_and_lengths():
    fmt = b"%*d|%-*d|%.*f|%*.*e|%hd|%hhu|%zu|%lld|%c|%p|%p|%s|%.3s|%%|%5%|%k"
    values = [("i", 6), ("i", 42), ("i", -6), ("i", 42), ("i", 3), ("d", math.pi), ("i", 12), ("i", 2),
              ("d", math.pi), ("i", 70000), ("i", 300), ("Q", 2**40), ("q", -5), ("i", 65 + 256), ("Q", 0x1234),
              ("Q", 0), ("Q", 0), ("Q", 0)]
    want = c_snprintf(b"%*d|%-*d|%.*f|%*.*e|%hd|%hhu|%zu|%lld|%c|%p|%p|%s|%.3s|%%|%5%|", 6, 42, -6, 42, 3,
                      ctypes.c_double(math.pi), 12, 2, ctypes.c_double(math.pi), 70000, 300, ctypes.c_size_t(2**40),
                      ctypes.c_longlong(-5), 65 + 256, ctypes.c_void_p(0x1234), None, None, None)
    assert format_buffer(fmt, pack(fmt, values), lambda a: b"") == want + b"%k"


def test_ring_round_trip_and_dropped_records():
    fmts = [b"a=%d b=%f\n", b"%s!\n"]
    strings = {0x5000: b"hi"}
    recs = [(0, pack(fmts[0], [("i", 3), ("d", 0.5)])), (1, pack(fmts[1], [("Q", 0x5000)]))] * 3
    ring = encode_ring(recs, capacity=70)  # room for 3 of the 6 records (24 and 16 bytes each)
    text, dropped = decode_ring(ring, fmts, strings.__getitem__)
    assert text == "a=3 b=0.500000\nhi!\na=3 b=0.500000\n"
    assert dropped == 3
    assert record_layout(fmts[0]) == (16, 2)

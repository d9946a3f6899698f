"""printf on the Apple paths (issue 11): a format register reused between calls, and every corpus
file that calls vprintf, compile for AIR (.metallib) and MSL with each call's format resolved.

The format table is the host's only way to print a record, so a format that does not resolve
fails the whole module on Metal. The reused-register PTX (nvcc -O0/-G and hand-written PTX load
several formats into one %rd) runs on air-sim and msl-sim and prints both lines; the corpus files'
resolved formats are checked against the strings decoded from the PTX's own .global arrays."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from cumetal.backends.air.lower import compile_metallib
from cumetal.backends.air.metallib import read_metallib
from cumetal.backends.msl import emit_module
from cumetal.backends.msl.printf import printf_formats
from cumetal.devices.backends import open_device
from cumetal.passes import compile_ptx

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "ptx"
PRINTF_FILES = sorted(p for p in CORPUS.rglob("*.ptx") if "vprintf" in p.read_text(errors="replace"))

REUSED = r""".version 7.8
.target sm_80
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 $str[7] = {102, 105, 114, 115, 116, 10, 0};
.global .align 1 .b8 $str1[11] = {115, 101, 99, 111, 110, 100, 32, 37, 100, 10, 0};
.visible .entry reuse(.param .u32 reuse_param_0)
{
    .local .align 8 .b8 __local_depot0[8];
    .reg .b32 %r<4>;
    .reg .b64 %rd<6>;
    mov.u64 %rd5, __local_depot0;
    cvta.local.u64 %rd2, %rd5;
    ld.param.u32 %r1, [reuse_param_0];
    mov.u64 %rd1, $str;
    cvta.global.u64 %rd1, %rd1;
    mov.u64 %rd3, 0;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd1;
    .param .b64 param1;
    st.param.b64 [param1], %rd3;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    ld.param.b32 %r2, [retval0];
    }
    st.local.u32 [%rd5], %r1;
    mov.u64 %rd1, $str1;
    cvta.global.u64 %rd1, %rd1;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd1;
    .param .b64 param1;
    st.param.b64 [param1], %rd2;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    ld.param.b32 %r3, [retval0];
    }
    ret;
}
"""


def ptx_strings(text: str) -> set[bytes]:
    """Every byte array of the PTX's .global/.const data as a C string (up to its first NUL)."""
    found = set()
    for body in re.findall(r"\.b8\s+[\w$]+\[\d+\]\s*=\s*\{([^}]*)\}", text):
        raw = bytes(int(v, 0) for v in body.replace("\n", " ").split(",") if v.strip())
        found.add(raw.split(b"\0")[0])
    return found


def test_corpus_has_the_printf_files():
    assert len(PRINTF_FILES) >= 8  # nvcc sm75/sm80/sm80_G/sm90/rdc and clang printf_kernel, clang reduce_printf


@pytest.mark.parametrize("path", PRINTF_FILES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_printf_resolves_on_air_and_msl(path):
    text = path.read_text(errors="replace")
    module = compile_ptx(text, str(path))
    formats = printf_formats(module)
    calls = len(re.findall(r"\bcall(?:\.uni)?\s*(?:\([^)]*\)\s*,\s*)?vprintf\b", text))
    assert calls and len(formats) >= 1 and set(formats) <= ptx_strings(text)
    assert emit_module(module, fp64="emulate").printf_formats == formats
    lib = read_metallib(compile_metallib(module))
    assert {f.name for f in lib.functions} == set(module.kernels)


@pytest.mark.parametrize("backend", ["air-sim", "msl-sim"])
def test_reused_format_register_prints_both_lines(backend, capfd):
    device = open_device(backend)
    image = device.load_module(compile_ptx(REUSED, "reuse.ptx"))
    stream = device.create_stream()
    capfd.readouterr()
    fault = device.enqueue_launch(stream, image, "reuse", (1, 1, 1), (1, 1, 1), 0, struct.pack("<I", 7))
    faults = device.synchronize(stream)
    assert fault is None and not faults, (fault, faults)
    assert capfd.readouterr().out == "first\nsecond 7\n"

"""NVRTC keeps the device globals the host can look up, under the names NVIDIA's NVRTC gives them.

NVIDIA's binomialOptions_nvrtc sample fills a ``static __constant__`` array that device code only
reads through cuModuleGetGlobal("d_OptionData"). clang dropped the array (and folded its loads to 0);
the expected answers were recorded with NVIDIA's NVRTC on an H100 by
scripts/check_nvrtc_static_globals.py (tests/nvrtc/static_globals_h100.json)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from cumetal import nvrtc
from cumetal.nvrtc.program import static_device_variables, unmangle_internal_globals

ROOT = Path(__file__).resolve().parents[2]
H100 = json.loads((Path(__file__).parent / "static_globals_h100.json").read_text())


def _script():
    spec = importlib.util.spec_from_file_location("check_nvrtc_static_globals",
                                                  ROOT / "scripts" / "check_nvrtc_static_globals.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_same_globals_and_values_as_nvidia_nvrtc() -> None:
    got = _script().main("cumetal")
    found = {k: v["result"] == "0" for k, v in got["globals"].items()}
    expected = {k: v["result"] == "CUDA_SUCCESS" for k, v in H100["globals"].items()}
    assert found == expected
    assert {k: v["bytes"] for k, v in got["globals"].items()} == {k: v["bytes"] for k, v in H100["globals"].items()}
    assert got["kernel_read"] == H100["kernel_read"]  # the host-written constant, not a folded 0


def _compile(src: str, names: tuple[str, ...] = ()) -> tuple[str, dict[str, str]]:
    err, prog = nvrtc.nvrtcCreateProgram(src.encode(), b"p.cu", 0, [], [])
    for n in names:
        nvrtc.nvrtcAddNameExpression(prog, n.encode())
    (err,) = nvrtc.nvrtcCompileProgram(prog, 0, [])
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS
    size = nvrtc.nvrtcGetPTXSize(prog)[1]
    buf = b" " * size
    nvrtc.nvrtcGetPTX(prog, buf)
    lowered = {n: nvrtc.nvrtcGetLoweredName(prog, n.encode())[1] for n in names}
    return buf.rstrip(b"\0").decode(), lowered


def test_name_expression_of_a_static_constant_is_the_plain_name() -> None:
    ptx, lowered = _compile("static __constant__ int table[8];\n"
                            "__global__ void k(int *o) { o[0] = table[threadIdx.x]; }\n", ("&table",))
    assert lowered["&table"] in (b"table", "table")
    assert ".const .align 4 .b8 table[32];" in ptx


@pytest.mark.parametrize("src", [
    # a static inside a namespace: not visible at file scope, the program still compiles
    "namespace ns { static __constant__ float c[2]; }\n__global__ void k(float *o) { o[0] = ns::c[1]; }\n",
    # static device functions are not variables
    "static __device__ __forceinline__ int twice(int a) { return 2 * a; }\n"
    "__global__ void k(int *o) { o[0] = twice(o[1]); }\n",
])
def test_programs_with_other_statics_still_compile(src: str) -> None:
    ptx, _ = _compile(src)
    assert ".entry" in ptx


def test_declarator_parsing() -> None:
    src = ("static __constant__ float a[4], b;\nstatic __device__ __forceinline__ int f(int x) { return x; }\n"
           "__constant__ static const int z = 3;\nstatic int host_only;\n__device__ int plain;\n"
           "static __constant__ Pair<int, Pair<float, int>> t[2], u;\n")
    assert static_device_variables(src) == ["a", "b", "z", "t", "u"]


def test_unmangling_keeps_names_that_are_taken() -> None:
    ptx = ".const .align 4 .b8 _ZL1x[4];\n.visible .global .align 4 .u32 x;\n.const .b32 _ZL2yz;\n"
    out, renamed = unmangle_internal_globals(ptx)
    assert renamed == {"_ZL2yz": "yz"}
    assert "_ZL1x[4]" in out and ".const .b32 yz;" in out


H100_NS = json.loads((Path(__file__).parent / "namespace_statics_h100.json").read_text())


def _ns_script():
    spec = importlib.util.spec_from_file_location("check_nvrtc_namespace_statics",
                                                  ROOT / "scripts" / "check_nvrtc_namespace_statics.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_namespace_statics_reach_the_host_through_their_lowered_names() -> None:
    """Statics in named, nested and anonymous namespaces: NVIDIA's NVRTC names them with a per-file
    prefix only nvrtcGetLoweredName knows; ours are clang's names. Either way the lowered name must
    find a global of the right size, the host must fill it and the kernel must read the value back
    (a never-written static __constant__ was folded to 0 before)."""
    got = _ns_script().main("cumetal")
    assert got["kernel_read"] == H100_NS["kernel_read"]
    for expr, name in H100_NS["lowered"].items():
        assert got["globals"][got["lowered"][expr]] == H100_NS["globals"][name], expr
    # names with external or file-scope linkage are the same strings as NVIDIA's
    for expr in ("&ns::dC", "&fileG"):
        assert got["lowered"][expr] == H100_NS["lowered"][expr]


def test_namespace_qualified_static_names() -> None:
    src = ("namespace a::b { struct S { static __device__ int no; }; // static __device__ int c1;\n"
           " static __device__ int yes; }\nvoid g() { static __device__ int nope; }\n"
           "namespace outer { namespace { static __constant__ float k[2]; } inline namespace v1 { "
           "static __device__ int w; } }\nnamespace s = a::b;\n")
    assert static_device_variables(src) == ["a::b::yes", "outer::k", "outer::v1::w"]

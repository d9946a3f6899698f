"""__launch_bounds__ with one, two and three arguments: the third (maxBlocksPerCluster) exists from
sm_90 on; below it clang would drop the whole attribute (and .maxntid with it), so the header keeps
the first two there."""

from __future__ import annotations

import pytest
from cudacxx_harness import ptx_of

from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions

SRC = ("__global__ void __launch_bounds__(128) one(int *p) { *p = 1; }\n"
       "__global__ void __launch_bounds__(256, 2) two(int *p) { *p = 2; }\n"
       "__global__ void __launch_bounds__(512, 1, 4) three(int *p) { *p = 3; }\n")


def _directives(ptx: str, kernel: str) -> list[str]:
    body = ptx[ptx.index(f".entry _Z{len(kernel)}{kernel}Pi"):]
    body = body[:body.index("{")]
    return [ln.split("//")[0].strip() for ln in body.splitlines() if ln.strip().startswith((".max", ".min"))]


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_launch_bounds_arguments(arch: str) -> None:
    result = compile_to_ptx(SRC, "lb.cu", CudaOptions(arch=arch))
    assert "warning" not in result.log
    ptx = result.ptx
    assert _directives(ptx, "one") == [".maxntid 128"]
    assert _directives(ptx, "two") == [".maxntid 256", ".minnctapersm 2"]
    three = [".maxntid 512", ".minnctapersm 1"] + ([".maxclusterrank 4"] if arch == "sm_90" else [])
    assert _directives(ptx, "three") == three


def test_launch_bounds_from_a_template_argument() -> None:
    ptx = ptx_of("template <int N> __global__ void __launch_bounds__(N, N / 64) k(int *p) { *p = N; }\n"
                 "template __global__ void k<192>(int *);\n")
    assert ".maxntid 192" in ptx and ".minnctapersm 3" in ptx


def test_launch_bounds_argument_with_commas_inside_template_arguments() -> None:
    """CUB writes __launch_bounds__(policy_getter<A, B, C>::threads): the preprocessor splits at those
    commas, so the header must not pick arguments by counting them (a regression of 664733e)."""
    src = ("template <int A, int B, int C> struct Policy { static constexpr int threads = A * B * C; };\n"
           "template <int N> __global__ void __launch_bounds__(Policy<N, 2, 4>::threads) k(int *p) { *p = N; }\n"
           "template __global__ void k<16>(int *);\n")
    for arch in ("sm_80", "sm_90"):
        ptx = compile_to_ptx(src, "cub_like.cu", CudaOptions(arch=arch)).ptx
        assert ".maxntid 128" in ptx

"""Components of the vector special registers against an H100 (#10 audit).

ptxas 13.0 accepts %tid.w and the colour names %tid.r/.g/.b/.a; the H100 reads .w as 0 and .r/.g/.b/.a
as .x/.y/.z/.w (``data/sreg_components_h100.txt``, made by ``data/make_sreg_components.sh`` from
``data/sreg_components.cu``: block 4x2x2, grid 3x2x1, thread (3,1,1) of block (2,1,0)). Before, the
colour names gave 0 on msl-sim and a launch-time ILLEGAL_INSTRUCTION on air-sim, and `%tid.q` or
`%laneid.x` (which ptxas refuses) compiled silently; now the parser reads the colour names as x/y/z/w
and refuses unknown components with a located error.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cumetal import driver as cu
from cumetal.ptx import parse

H100 = dict(line.split() for line in (Path(__file__).parent / "data/sreg_components_h100.txt").read_text()
            .splitlines()[2:])
NAMES = [f"{r}.{c}" for r in ("tid", "ntid", "ctaid", "nctaid") for c in "xyzwrgba"]


def _expected(name: str) -> int:
    reg, comp = name.split(".")
    comp = {"r": "x", "g": "y", "b": "z", "a": "w"}.get(comp, comp)
    return int(H100[f"{reg}.{comp}"])


def _kernel(names: list[str]) -> str:
    reads = "".join(f"    mov.u32 %v{i}, %{n};\n    st.global.u32 [%rd1+{4 * i}], %v{i};\n" for i, n in enumerate(names))
    return f""".version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{{
    .reg .u32 %v<{len(names)}>;
    .reg .u32 %t<4>;
    .reg .pred %p<6>;
    .reg .u64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %t0, %tid.x; setp.ne.u32 %p0, %t0, 3; @%p0 bra $Ldone;
    mov.u32 %t1, %tid.y; setp.ne.u32 %p1, %t1, 1; @%p1 bra $Ldone;
    mov.u32 %t2, %tid.z; setp.ne.u32 %p2, %t2, 1; @%p2 bra $Ldone;
    mov.u32 %t3, %ctaid.x; setp.ne.u32 %p3, %t3, 2; @%p3 bra $Ldone;
    mov.u32 %t3, %ctaid.y; setp.ne.u32 %p4, %t3, 1; @%p4 bra $Ldone;
{reads}$Ldone:
    ret;
}}
"""


def _run(names: list[str]) -> list[int]:
    assert cu.cuInit(0)[0] == 0
    err, ctx = cu.cuCtxCreate(None, 0, cu.cuDeviceGet(0)[1])
    assert err == 0
    try:
        err, mod = cu.cuModuleLoadData(_kernel(names).encode())
        assert err == 0, cu.last_error_message()
        out = cu.cuMemAlloc(4 * len(names))[1]
        fn = cu.cuModuleGetFunction(mod, b"k")[1]
        assert cu.cuLaunchKernel(fn, 3, 2, 1, 4, 2, 2, 0, 0, ((out,), (None,)), 0)[0] == 0
        assert cu.cuCtxSynchronize()[0] == 0, cu.last_error_message()
        got = np.zeros(len(names), np.uint32)
        cu.cuMemcpyDtoH(got, out, got.nbytes)
        return got.tolist()
    finally:
        cu.cuCtxDestroy(ctx)


def test_components_and_colour_names_read_as_on_the_h100():
    names = [n for n in NAMES if not n.endswith((".w", ".a"))]
    assert _run(names) == [_expected(n) for n in names]


def test_the_fourth_component_reads_zero():
    names = [n for n in NAMES if n.endswith((".w", ".a"))]
    assert _run(names) == [_expected(n) for n in names] == [0] * len(names)


@pytest.mark.parametrize("spelling,why", [("%tid.q", "(x, y, z, w or r, g, b, a)"), ("%ctaid.xx", "(x, y, z, w"),
                                          ("%laneid.x", "(it is a scalar)"), ("%envreg3.x", "(it is a scalar)")])
def test_unknown_components_are_located_errors(spelling, why):
    text = (".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() {\n    .reg .u32 %r;\n"
            f"    mov.u32 %r, {spelling};\n    ret;\n}}\n")
    [d] = parse(text, "k.ptx").diagnostics
    name, comp = spelling.split(".")
    assert d.severity == "error" and (d.loc.line, d.loc.col) == (6, 17)
    assert d.message.startswith(f"special register {name} has no component '.{comp}' {why}")

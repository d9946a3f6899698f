"""createpolicy / applypriority / discard (cache hints) compile and run; createpolicy's fractional
and cvt forms return the bits an H100 returned (tests/passes/data/createpolicy_h100.txt, recorded by
scripts/make_createpolicy_goldens.cu: the same forms in the same order)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cumetal import driver as cu

GOLDEN = Path(__file__).parent / "data" / "createpolicy_h100.txt"

# (recorded index, instruction text with %rd2 as the destination); register forms read %f1 / %rd3
IMMEDIATE = [
    (0, "createpolicy.fractional.L2::evict_last.b64 %rd2;"),
    (1, "createpolicy.fractional.L2::evict_normal.b64 %rd2;"),
    (2, "createpolicy.fractional.L2::evict_first.b64 %rd2;"),
    (3, "createpolicy.fractional.L2::evict_unchanged.b64 %rd2;"),
    (4, "createpolicy.fractional.L2::evict_last.b64 %rd2, 1.0;"),
    (5, "createpolicy.fractional.L2::evict_last.b64 %rd2, 0.5;"),
    (6, "createpolicy.fractional.L2::evict_last.b64 %rd2, 0.25;"),
    (7, "createpolicy.fractional.L2::evict_first.b64 %rd2, 0.75;"),
    (8, "createpolicy.fractional.L2::evict_normal.b64 %rd2, 0.1;"),
    (9, "createpolicy.fractional.L2::evict_unchanged.b64 %rd2, 0.3;"),
    (10, "createpolicy.fractional.L2::evict_last.L2::evict_first.b64 %rd2, 0.5;"),
    (11, "createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd2, 0.5;"),
    (12, "createpolicy.fractional.L2::evict_normal.L2::evict_first.b64 %rd2, 1.0;"),
    (13, "createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %rd2, 0.9;"),
]
REGISTER_FRACTIONS = [(14, 1.0), (15, 0.5), (16, 0.3), (17, 0.001), (18, 0.999), (19, 0.0625)]
CVT_INPUTS = [(28, 0), (29, 1), (30, 0x12345678), (31, 0xFFFFFFFFFFFFFFFF)]


def _golden() -> dict[int, int]:
    rows = [ln.split() for ln in GOLDEN.read_text().splitlines() if ln and not ln.startswith("base")]
    return {int(i): int(v, 16) for i, v in rows}


def _kernel() -> str:
    body = []
    for slot, (_, text) in enumerate(IMMEDIATE):
        body += [text, f"st.global.u64 [%rd1+{8 * slot}], %rd2;"]
    base = len(IMMEDIATE)
    body += ["createpolicy.fractional.L2::evict_last.b64 %rd2, %f1;", f"st.global.u64 [%rd1+{8 * base}], %rd2;",
             "createpolicy.cvt.L2.b64 %rd2, %rd3;", f"st.global.u64 [%rd1+{8 * (base + 1)}], %rd2;",
             "applypriority.global.L2::evict_normal [%rd1], 128;", "discard.global.L2 [%rd4], 128;",
             "ld.global.u64 %rd5, [%rd4];", f"st.global.u64 [%rd1+{8 * (base + 2)}], %rd5;"]
    return (".version 8.0\n.target sm_90\n.address_size 64\n"
            ".visible .entry k(.param .u64 out, .param .f32 fr, .param .u64 pol, .param .u64 keep)\n{\n"
            ".reg .b64 %rd<6>;\n.reg .f32 %f1;\nld.param.u64 %rd1, [out];\nld.param.f32 %f1, [fr];\n"
            "ld.param.u64 %rd3, [pol];\nld.param.u64 %rd4, [keep];\n"
            + "\n".join(body) + "\nret;\n}\n")


@pytest.fixture(scope="module")
def kernel():
    assert cu.cuInit(0)[0] == 0
    err, ctx = cu.cuCtxCreate(None, 0, cu.cuDeviceGet(0)[1])
    assert err == 0
    err, mod = cu.cuModuleLoadData(_kernel().encode() + b"\0")
    assert err == 0, cu.last_error_message() if hasattr(cu, "last_error_message") else err
    yield cu.cuModuleGetFunction(mod, b"k")[1]
    cu.cuCtxDestroy(ctx)


@pytest.mark.parametrize("fraction_index,cvt_index", [(i, i % len(CVT_INPUTS)) for i in range(len(REGISTER_FRACTIONS))])
def test_createpolicy_returns_the_h100_bits(kernel, fraction_index, cvt_index):
    import ctypes

    golden = _golden()
    n = len(IMMEDIATE) + 3
    out, keep = cu.cuMemAlloc(8 * n)[1], cu.cuMemAlloc(256)[1]
    assert cu.cuMemsetD8(keep, 0x5A, 256)[0] == 0
    rec_f, fr = REGISTER_FRACTIONS[fraction_index]
    rec_c, pol = CVT_INPUTS[cvt_index]
    args = ((out, fr, pol, keep), (None, ctypes.c_float, ctypes.c_uint64, None))
    assert cu.cuLaunchKernel(kernel, 1, 1, 1, 1, 1, 1, 0, 0, args, 0)[0] == 0
    got = np.zeros(n, np.uint64)
    assert cu.cuMemcpyDtoH(got.ctypes.data, out, got.nbytes)[0] == 0
    want = [golden[i] for i, _ in IMMEDIATE] + [golden[rec_f], golden[rec_c], 0x5A5A5A5A5A5A5A5A]
    assert [hex(v) for v in got.tolist()] == [hex(v) for v in want]
    cu.cuMemFree(out)
    cu.cuMemFree(keep)

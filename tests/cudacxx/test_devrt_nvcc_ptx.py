"""nvcc-made PTX calling the device runtime (``nvcc -rdc=true``: ``.extern .func __cudaCDP2GetDevice``
…, which NVIDIA's libcudadevrt defines) loads and runs: cumetal.cudacxx.devrt_link appends CuMetal's
bodies for those names (devrt_cdp2.cu). The PTX and the answers are nvcc 13's on an H100
(scripts/h100_cxx_audit/run.sh -> h100/devrt_calls_sm80.ptx, h100/devrt_calls.txt)."""

from __future__ import annotations

import pathlib
import re

import numpy as np
from tests.nvrtc.conftest import Device

from cumetal.cudacxx.devrt_link import link_device_runtime
from cumetal.passes import compile_ptx

RECORD = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "h100_cxx_audit" / "h100"
PTX = (RECORD / "devrt_calls_sm80.ptx").read_text()


def test_extern_declarations_become_forward_declarations_in_place():
    linked = link_device_runtime(PTX)
    n = PTX.count("\n")
    assert linked.splitlines()[:n] == [re.sub(r"^\.extern(?=\s+\.func\s*\(\.param \.b\d+ func_retval0\) __cudaCDP2)",
                                              " " * 7, ln) for ln in PTX.splitlines()[:n]]
    assert not any(re.match(r"\.extern\s+\.func[^\n]*__cudaCDP2", ln) for ln in linked.splitlines())
    assert link_device_runtime(linked) == linked  # already defined: left alone
    plain = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { ret; }\n"
    assert link_device_runtime(plain) is plain
    assert not compile_ptx(linked, "devrt.ptx").failed


def test_device_runtime_calls_answer_as_on_the_h100():
    h100 = (RECORD / "devrt_calls.txt").read_text().splitlines()
    want = [int(v) for v in h100[1].split()]
    dev = Device()
    try:
        fn = dev.function(PTX, "_Z5devrtPiPc")
        out, text = dev.to_device(np.full(32, -5, np.int32)), dev.to_device(np.zeros(128, np.uint8))
        dev.run(fn, 1, 1, [(out, None), (text, None)])
        got = dev.from_device(out, np.zeros(32, np.int32))[:18].tolist()
        message = bytes(dev.from_device(text, np.zeros(128, np.uint8))).split(b"\0")[0].decode()
    finally:
        dev.close()
    # every call returns cudaSuccess (0), device 0, warp size 32, stack limit 1024 as on the H100
    for i in (0, 1, 2, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15):
        assert got[i] == want[i], (i, got, want)
    assert got[3] >= 1  # device count: CuMetal's
    assert got[9] == 13000  # the host runtime's version (the H100's device runtime answered 6000)
    assert got[16:18] == [0x07070707] * 2  # memset then memcpy complete in the calling thread (async on CUDA)
    assert message == h100[2] == "cudaErrorInvalidValue|invalid argument"


def test_cumetalc_emits_msl_for_it(tmp_path):
    import io

    from cumetal.tools.cumetalc import main

    err = io.StringIO()
    out = tmp_path / "devrt.metal"
    assert main([str(RECORD / "devrt_calls_sm80.ptx"), "--emit=msl", "-o", str(out)], out=io.StringIO(), err=err) == 0, \
        err.getvalue()
    assert "__cudaCDP2GetDevice" in out.read_text()

"""cumetal.core.graph's GraphCompleteOptions and GraphDebugPrintOptions (cuda.core 1.x)."""

from __future__ import annotations

import numpy as np
import pytest
from tests.driver.ptx_snippets import SCALE

from cumetal import driver as cu
from cumetal.core import Device, LaunchConfig, Program, launch
from cumetal.core.graph import GraphCompleteOptions, GraphDebugPrintOptions


@pytest.fixture(scope="module")
def dev():
    d = Device()
    d.set_current()
    yield d
    from cumetal.core import _device

    d.sync()
    cu.cuCtxSetCurrent(None)
    cu.cuDevicePrimaryCtxRelease(0)
    _device._tls.__dict__.clear()


def test_complete_and_dot_options(dev, tmp_path):
    s = dev.create_stream()
    ker = Program(SCALE, code_type="ptx").compile("cubin").get_kernel("scale")
    x, y = dev.allocate(400), dev.allocate(400)
    np.from_dlpack(x).view(np.float32)[:] = np.arange(100)
    gb = dev.create_graph_builder().begin_building()
    launch(gb, LaunchConfig(grid=1, block=128), ker, x, y, np.float32(4), np.uint32(100))
    gb.end_building()
    plain = tmp_path / "plain.dot"
    detailed = tmp_path / "detailed.dot"
    gb.debug_dot_print(str(plain))
    gb.debug_dot_print(str(detailed), GraphDebugPrintOptions(verbose=True, kernel_node_params=True, handles=True))
    for dot in (plain, detailed):  # the flags are accepted; CuMetal's DOT has one level of detail
        text = dot.read_text()
        assert text.startswith("digraph") and "Kernel" in text
    graph = gb.complete(GraphCompleteOptions(auto_free_on_launch=True, upload_stream=s, use_node_priority=True))
    graph.launch(s)
    s.sync()
    np.testing.assert_array_equal(np.from_dlpack(y).view(np.float32)[:100], np.arange(100) * 4)
    with pytest.raises(ValueError):
        gb.complete(GraphCompleteOptions(auto_free_on_launch=True, device_launch=True))
    with pytest.raises(TypeError):
        gb.complete({"auto_free_on_launch": True})
    graph.close()
    gb.close()
    s.close()

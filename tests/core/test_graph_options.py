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
    # the options become CUgraphDebugDot_flags: the plain text names the kernel only, the detailed one
    # has its launch (<<<grid,block,shared>>>), attributes and handles (tests/driver/test_graph_dot.py)
    assert plain.read_text().startswith("digraph dot {") and '"graph_' in plain.read_text()
    assert "scale" in plain.read_text() and "node handle" not in plain.read_text()
    detailed_text = detailed.read_text()
    assert "KERNEL" in detailed_text and "\\<\\<\\<1,128,0\\>\\>\\>" in detailed_text
    assert "func handle" in detailed_text
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


def test_executable_node_views_update_the_executable_only(dev):
    from cumetal.core import Event, ObjectCode  # noqa: F401
    from cumetal.core.graph import (
        ExecutableKernelNode,
        ExecutableMemcpyNode,
        ExecutableMemsetNode,
        GraphDefinition,
    )

    n = 32
    kernel = ObjectCode.from_ptx(SCALE).get_kernel("scale")
    x, y, z = dev.allocate(4 * n), dev.allocate(4 * n), dev.allocate(4 * n)
    g = GraphDefinition()
    fill = g.memset(x, np.float32(2.0), n)
    k = fill.launch(LaunchConfig(grid=1, block=n), kernel, x, y, np.float32(3.0), np.uint32(n))
    copy = k.memcpy(z, y, 4 * n)
    ran = []
    done = copy.callback(lambda: ran.append("first"))
    exe = g.instantiate()
    s = dev.create_stream()
    view = exe[k]
    assert isinstance(view, ExecutableKernelNode) and isinstance(exe[fill], ExecutableMemsetNode)
    assert isinstance(exe[copy], ExecutableMemcpyNode) and view.is_enabled
    exe[fill].update(dst=x, value=np.float32(5.0), width=n)
    view.update(config=LaunchConfig(grid=1, block=n), kernel=kernel, args=(x, y, np.float32(10.0), np.uint32(n)))
    exe[done].update(lambda: ran.append("second"))
    exe.launch(s)
    s.sync()
    np.testing.assert_array_equal(np.from_dlpack(z).view(np.float32), np.full(n, 50.0, np.float32))
    assert ran == ["second"]
    exe[copy].disable()  # z keeps its values while y changes
    exe[fill].update(dst=x, value=np.float32(1.0), width=n)
    exe.launch(s)
    s.sync()
    assert not exe[copy].is_enabled
    np.testing.assert_array_equal(np.from_dlpack(y).view(np.float32), np.full(n, 10.0, np.float32))
    np.testing.assert_array_equal(np.from_dlpack(z).view(np.float32), np.full(n, 50.0, np.float32))
    # the definition still has its own parameters: a new instantiation does what it says
    exe2 = g.instantiate()
    exe2.launch(s)
    s.sync()
    np.testing.assert_array_equal(np.from_dlpack(z).view(np.float32), np.full(n, 6.0, np.float32))
    with pytest.raises(TypeError):
        exe["node"]
    for obj in (exe, exe2, g, x, y, z, s):
        obj.close()

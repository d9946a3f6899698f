"""cumetal.core's device resources and green contexts (cuda.core 1.2's ``Device.resources``,
``SMResource.split``, ``Device.create_context``, ``Context.create_stream``) and IPC-enabled events."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
from tests.driver.ptx_snippets import SCALE

from cumetal import driver as cu
from cumetal.core import (
    ContextOptions,
    Device,
    EventOptions,
    LaunchConfig,
    Program,
    SMResourceOptions,
    launch,
)
from cumetal.core._utils import CUDAError


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


def test_sm_resources_split_and_green_context_launch(dev):
    total = dev.properties.multiprocessor_count
    sm = dev.resources.sm
    assert (sm.sm_count, sm.min_partition_size, sm.coscheduled_alignment) == (total, 2, 2)
    groups, rest = sm.split(SMResourceOptions(count=None))  # discovery: all whole pairs
    assert [g.sm_count for g in groups] == [total - total % 2] and rest.sm_count == total % 2
    one, rest = sm.split(SMResourceOptions(count=1, backfill=True))  # backfill: any count
    assert one[0].sm_count == 1 and rest.sm_count == total - 1
    with pytest.raises(CUDAError):
        sm.split(SMResourceOptions(count=3))  # not a multiple of 2 without backfill
    with pytest.raises(ValueError):
        sm.split(SMResourceOptions(count=[1, 1], backfill=[True]))
    dry, _ = sm.split(SMResourceOptions(count=1, backfill=True), dry_run=True)
    with pytest.raises(ValueError):
        dev.create_context(ContextOptions(resources=dry))
    with pytest.raises(ValueError):
        dev.create_context()
    ctx = dev.create_context(ContextOptions(resources=one))
    try:
        assert ctx.is_green and ctx.resources.sm.sm_count == 1
        s = ctx.create_stream()
        assert s.resources.sm.sm_count == 1 and s.context.is_green and s.context == ctx
        ker = Program(SCALE, code_type="ptx").compile("cubin").get_kernel("scale")
        x, y = dev.allocate(400), dev.allocate(400)
        np.from_dlpack(x).view(np.float32)[:] = np.arange(100)
        # the green context's stream while the primary context is current: the launch uses the stream's
        launch(s, LaunchConfig(grid=1, block=128), ker, x, y, np.float32(3), np.uint32(100))
        s.sync()
        np.testing.assert_array_equal(np.from_dlpack(y).view(np.float32)[:100], np.arange(100) * 3)
        with pytest.raises(ValueError):
            ctx.create_stream({"nonblocking": False})
        with pytest.raises(RuntimeError):
            dev.context.create_stream()  # the primary context is not green
        s.close()
        x.close()
        y.close()
    finally:
        ctx.close()
    assert ctx.is_closed and ctx.handle is None
    with pytest.raises(CUDAError):
        dev.resources.workqueue  # noqa: B018 - no configurable work queues


CHILD = """
import pickle, sys
from cumetal.core import Device
Device().set_current()
ev = pickle.loads(bytes.fromhex(sys.argv[1]))
assert ev.is_ipc_enabled and not ev.is_timing_enabled
s = Device().create_stream()
s.record(ev)
ev.sync()
print("child recorded")
"""


@pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="IPC on CuMetal needs Linux")
def test_ipc_event_pickles_into_another_process(dev, tmp_path):
    from cumetal.runtime import ipc

    with pytest.raises(ValueError):
        dev.create_event(EventOptions(ipc_enabled=True, timing_enabled=True))
    ev = dev.create_event(EventOptions(ipc_enabled=True))
    assert ev.is_ipc_enabled
    desc = ev.ipc_descriptor
    assert pickle.loads(pickle.dumps(desc)) == desc
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    proc = subprocess.run([sys.executable, str(script), pickle.dumps(ev).hex()], capture_output=True, text=True,
                          timeout=240, cwd=os.getcwd(), env=dict(os.environ, CUMETAL_QUIET="1"))
    assert proc.returncode == 0 and "child recorded" in proc.stdout, proc.stdout + proc.stderr
    shared = ipc.shared_event(int(ev.handle))
    assert int(shared.cells[0]) == 1 == int(shared.cells[1])  # the child's record reached our event
    assert ev.is_done
    with pytest.raises(TypeError):
        pickle.dumps(dev.create_event())  # only IPC-enabled events pickle
    ev.close()

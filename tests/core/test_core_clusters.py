"""Thread block clusters through cumetal.core, as cuda.core does them: ``LaunchConfig(grid, cluster)``
counts the grid in clusters, and clusters need compute capability 9.0, which the cpu device reports
with ``CUMETAL_COMPUTE_CAPABILITY=9.0`` (it runs clusters with every block of a cluster together).
Each case runs in a fresh process: the device's capability is fixed at cuInit."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

CLUSTER_PROGRAM = textwrap.dedent(r'''
    import numpy as np
    from cumetal import driver as cu
    from cumetal.core import Device, LaunchConfig, LegacyPinnedMemoryResource, Program, ProgramOptions, launch

    SRC = r"""
    #include <cooperative_groups.h>
    namespace cg = cooperative_groups;
    extern "C" __global__ void where(unsigned int *out) {
        cg::grid_group g = cg::this_grid();
        cg::cluster_group c = cg::this_cluster();
        __shared__ unsigned int mine;
        if (threadIdx.x == 0) mine = 1000 + blockIdx.x;
        c.sync();
        unsigned int *peer = c.map_shared_rank(&mine, (c.block_rank() + 1) % c.num_blocks());  // DSMEM
        if (threadIdx.x == 0) {
            unsigned int *o = out + 4 * blockIdx.x;
            o[0] = (unsigned int)g.cluster_rank();
            o[1] = (unsigned int)g.num_clusters();
            o[2] = (unsigned int)g.num_blocks();
            o[3] = *peer;
        }
        c.sync();
    }
    """
    dev = Device()
    dev.set_current()
    print("cc", tuple(dev.compute_capability))
    err, optin = cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0)
    print("optin", optin)
    kernel = Program(SRC, "c++", ProgramOptions(arch=f"sm_{dev.arch}", std="c++17")).compile("cubin").get_kernel("where")
    buf = LegacyPinnedMemoryResource().allocate(4 * 4 * 8)
    out = np.from_dlpack(buf).view(np.uint32).reshape(8, 4)
    out[:] = 0
    launch(dev.default_stream, LaunchConfig(grid=4, cluster=2, block=32), kernel, buf)
    dev.sync()
    print("rows", out.tolist())
''')

REFUSED_PROGRAM = textwrap.dedent('''
    from cumetal.core import CUDAError, Device, LaunchConfig
    Device().set_current()
    try:
        LaunchConfig(grid=4, cluster=2, block=32)
        print("accepted")
    except CUDAError as e:
        print("refused:", e)
''')


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k != "CUMETAL_COMPUTE_CAPABILITY"} | env
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=full,
                          check=False)


def test_clusters_on_a_cpu_device_reporting_9_0():
    proc = _run(CLUSTER_PROGRAM, CUMETAL_BACKEND="cpu", CUMETAL_COMPUTE_CAPABILITY="9.0")
    assert proc.returncode == 0, proc.stderr
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines())
    assert lines["cc"] == "(9, 0)" and lines["optin"] == str(227 * 1024)  # sm_90's opt-in shared memory
    rows = eval(lines["rows"])  # noqa: S307 - our own subprocess's list of ints
    # grid=4 clusters of 2 blocks: 8 blocks; block b is in cluster b // 2 and reads its partner's shared word
    expected = [[b // 2, 4, 8, 1000 + (b ^ 1)] for b in range(8)]
    assert rows == expected


def test_clusters_need_compute_capability_9_0():
    proc = _run(REFUSED_PROGRAM, CUMETAL_BACKEND="cpu")
    assert proc.returncode == 0, proc.stderr
    assert "refused: thread block clusters are not supported on devices with compute capability < 9.0" in proc.stdout


def test_a_device_running_one_block_at_a_time_keeps_8_0():
    proc = _run(REFUSED_PROGRAM, CUMETAL_BACKEND="air-sim", CUMETAL_COMPUTE_CAPABILITY="9.0")
    assert proc.returncode == 0, proc.stderr
    assert "refused:" in proc.stdout and "cannot launch thread block clusters" in proc.stderr


def test_cuda_home_for_tools_that_look_for_a_toolkit():
    """cuda.core's examples (and cuda.pathfinder) find headers through CUDA_HOME/CUDA_PATH."""
    from pathlib import Path

    proc = subprocess.run([sys.executable, "-m", "cumetal.capi.library", "--cuda-home"], capture_output=True,
                          text=True, timeout=120, check=True)
    home = Path(proc.stdout.strip())
    assert (home / "include" / "cooperative_groups.h").is_file() and (home / "include" / "cuda_runtime.h").is_file()

"""nvcc accepts PTX special registers written with a single % in extended inline asm
("mov.u32 %0, %laneid;"); clang needs %%. The front end doubles them before clang sees the source."""

from __future__ import annotations

import numpy as np
from functional_harness import I32

from cumetal.cudacxx.inline_asm import escape_special_registers

SOURCE = r"""
extern "C" __global__ void lanes(unsigned *out, int n) {
    unsigned lane, tid;
    asm volatile("mov.u32 %0, %laneid;" : "=r"(lane));
    asm("mov.u32 %0, "
        "%tid.x;" : "=r"(tid));            // split literals
    if ((int)tid < n) out[tid] = lane * 1000u + tid;
}
"""


def test_only_extended_asm_templates_change():
    src = ('asm volatile("mov.u64 %0, %globaltimer;" : "=l"(g));\n'
           'asm("mov.u32 %0, %%laneid;" : "=r"(x));\n'     # already escaped
           'asm volatile("trap; // %weird");\n'            # basic asm: % is literal
           'asm("add.u32 %0, %1, %2;" : "=r"(a) : "r"(b), "r"(c));\n'
           '// asm("%clock" : )\n'                           # a comment
           'const char *s = "asm(\\"%clock\\" : )";\n')    # a string
    out = escape_special_registers(src).splitlines()
    assert out[0] == 'asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));'
    assert out[1:] == src.splitlines()[1:]


def test_kernel_with_single_percent_registers_runs(gpu, tmp_path):
    path = tmp_path / "lanes.cu"
    path.write_text(SOURCE)
    mod = gpu.load(SOURCE, str(path))
    n = 70
    d_out = gpu.zeros(n, np.uint32)
    gpu.run(gpu.function(mod, "lanes"), (1,), (96,), [(d_out, None), (n, I32)])
    t = np.arange(n, dtype=np.uint32)
    assert np.array_equal(gpu.from_device(d_out, n, np.uint32), (t % 32) * 1000 + t)

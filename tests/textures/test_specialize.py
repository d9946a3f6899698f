"""Launch-time specialization of texture fetches on the descriptor (passes/specialize_textures.py):
the folded copy is much smaller, the original kernel is left alone, handles that do not come
straight from a kernel parameter keep the generic code, and on the compiled CPU backend a kernel
relaunched with texture objects of other formats, filter and address modes gets a copy per kind,
each equal bit for bit to the numpy model of NVIDIA's texture unit (tests/textures/nvtex_reference.py)."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

from tests.textures.ptx_kernels import fetch_kernel

from cumetal.ir.dump import dump_function
from cumetal.passes import compile_ptx
from cumetal.passes import specialize_textures as S
from cumetal.passes.semantics.texture import FIELDS, LEVEL_TABLE, MAGIC

ROOT = Path(__file__).resolve().parents[2]


def _words(**fields: int) -> bytes:
    """A descriptor (up to its level table): a 64x32 f32 image, linear filtering, clamp."""
    base = dict(elem=4, nch=1, csize=4, kind=2, read_norm=0, linear=1, norm_coords=0, addr0=1, addr1=1,
                addr2=1, res_type=0, magic=MAGIC, levels=1, mip_linear=0, width=64, height=32, depth=1, layers=1)
    base.update(fields)
    raw = bytearray(LEVEL_TABLE)
    for name, value in base.items():
        struct.pack_into("<I", raw, FIELDS[name], value)
    struct.pack_into("<QQ", raw, 0, 0x10000, 256)  # base, pitch
    return bytes(raw)


def _size(fn) -> int:
    return sum(len(b.insts) for b in fn.blocks)


def test_the_specialized_copy_is_small_and_the_kernel_unchanged() -> None:
    kernel = compile_ptx(fetch_kernel("2d", "f32")).kernels["fetch"]
    before = dump_function(kernel)
    assert S._marked_loads(kernel) and S._plan(kernel, None).handles == (0,)
    linear = S.specialize(kernel, {0: _words()})
    point = S.specialize(kernel, {0: _words(linear=0, addr0=0, addr1=0, norm_coords=1)})
    whole = S.specialize(kernel, {0: _words()}, geometry=True)
    assert dump_function(kernel) == before
    # measured: 1571 generic, 147 (f32, linear, clamp), fewer for point sampling
    assert _size(linear) < _size(kernel) // 5 and _size(point) < _size(linear), (_size(kernel), _size(linear))
    assert "texdesc=linear" not in dump_function(linear) and "texdesc=linear" in before
    # the image's base, pitch and sizes stay loads unless the whole descriptor is folded
    assert "texdesc=base" in dump_function(linear) and "texdesc" not in dump_function(whole)


def test_handles_from_memory_keep_the_generic_code() -> None:
    ptx = fetch_kernel("2d", "f32").replace("ld.param.u64 %rd1, [t];", "ld.param.u64 %rd7, [t]; ld.global.u64 %rd1, [%rd7];")
    module = compile_ptx(ptx)
    kernel = module.kernels["fetch"]
    assert S._plan(kernel, module).handles == ()
    assert S.for_launch(kernel, module, None, bytes(32)) == (kernel, module)


SCRIPT = """
import numpy as np
from tests.textures import harness as H
from tests.textures.test_goldens import _reference
from cumetal.driver.state import STATE
from cumetal.passes import specialize_textures as S
data, meta = H.goldens()
def pick(**kw):
    return next(i for i, m in enumerate(meta) if f"c{i}_out" in data and all(m[k] == v for k, v in kw.items()))
configs = [pick(geom="2d", fmt="f32x1", filter="linear", addr="clamp", norm=0),
           pick(geom="2d", fmt="u8x4", filter="linear", read="normalized", addr="border", norm=1),
           pick(geom="2d", fmt="f16x4", filter="point", addr="wrap", norm=1),
           pick(geom="2d", fmt="f32x1", filter="point", addr="mirror", norm=1)]
for i in configs + configs[:1]:   # the last launch reuses the first copy
    out = H.run_config(i)
    assert np.array_equal(out, _reference(i)), meta[i]
dev = STATE.device
variants = sum(len(p.variants) for p in S._plans.values())
assert variants == 4 and dev.fallbacks == 0 and dev.launches == 5, (variants, dev.fallbacks, dev.launches)
print("OK")
"""


def test_relaunch_with_other_texture_kinds_recompiles_and_matches() -> None:
    env = os.environ | {"CUMETAL_BACKEND": "cpu-jit", "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=ROOT, env=env,
                       timeout=600, check=False)
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout[-2000:] + r.stderr[-2000:]

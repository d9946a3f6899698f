"""cumetal.core.texture's mipmapped arrays (cuda.core 1.1+): Device.create_mipmapped_array, get_level,
ResourceDescriptor.from_mipmapped_array; a kernel's tex2DLod reads the level its LOD selects."""

from __future__ import annotations

import numpy as np
import pytest

from cumetal import driver as cu
from cumetal.core import Device, LaunchConfig, Program, launch
from cumetal.core.texture import MipmappedArrayOptions, ResourceDescriptor, TextureObjectOptions

LOD = r"""
extern "C" __global__ void lod(cudaTextureObject_t t, float* out) {
    int i = threadIdx.x;
    out[i] = tex2DLod<float>(t, 0.3f, 0.6f, 0.5f * i);
}
"""


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


def test_levels_and_lod_sampling(dev):
    s = dev.create_stream()
    opts = MipmappedArrayOptions(shape=(16, 8), format="float32", num_channels=1, num_levels=3)
    with dev.create_mipmapped_array(opts) as mip:
        assert (mip.num_levels, mip.shape, mip.num_channels) == (3, (16, 8), 1)
        for k in range(3):
            level = mip.get_level(k)
            assert level.shape == (16 >> k, 8 >> k)
            level.copy_from(np.full(level.shape[::-1], 10.0 * (k + 1), np.float32), stream=s)
            back = np.zeros(level.shape[::-1], np.float32)
            level.copy_to(back, stream=s)
            s.sync()
            assert (back == 10.0 * (k + 1)).all()
            level.close()  # a level view: the mipmap keeps its storage
        with pytest.raises(ValueError):
            mip.get_level(3)
        tex = dev.create_texture_object(ResourceDescriptor.from_mipmapped_array(mip), TextureObjectOptions(
            normalized_coords=True, max_mipmap_level_clamp=2.0))
        ker = Program(LOD, code_type="c++").compile("cubin").get_kernel("lod")
        out = dev.allocate(6 * 4)
        launch(s, LaunchConfig(grid=1, block=6), ker, np.uint64(tex.handle), out)
        s.sync()
        # POINT mipmap filtering: the nearest level to each LOD (0, .5, 1, 1.5, 2, 2.5 -> clamped to 2)
        got = np.from_dlpack(out).view(np.float32)
        assert got[0] == 10 and got[2] == 20 and got[4] == 30 and got[5] == 30
        assert got[1] in (10, 20) and got[3] in (20, 30)
        tex.close()
        out.close()
    assert mip.is_closed
    with pytest.raises(ValueError):
        MipmappedArrayOptions(shape=(16, 8), format="float32", num_channels=1, num_levels=0)
    with pytest.raises(TypeError):
        dev.create_mipmapped_array(object())
    s.close()

"""cuTensorMapEncodeTiled argument sets, valid and invalid, whose CUresult NVIDIA's driver
recorded (scripts/make_tensormap_goldens.py -> tensormap_errors.json)."""

from __future__ import annotations

_OK = {"dtype": 7, "rank": 2, "dims": [64, 32], "strides": [256], "box": [32, 8], "estrides": [1, 1]}


def _v(name: str, **kw) -> dict:
    return {**_OK, "name": name, **kw}


CASES = [
    _v("valid_2d_f32"),
    _v("valid_sw128", swizzle=3),
    _v("valid_sw32_box8", box=[8, 8], swizzle=1),
    _v("valid_5d", rank=5, dims=[8, 3, 3, 2, 2], strides=[32, 96, 288, 576], box=[4, 2, 2, 2, 2],
       estrides=[1, 1, 1, 1, 1]),
    _v("valid_1d_u8", dtype=0, rank=1, dims=[200], strides=[], box=[64], estrides=[1]),
    _v("valid_nanfill_f32", oob=1),
    _v("valid_dim_2p32", dims=[1 << 32, 2], strides=[1 << 34]),
    _v("valid_box_256", dims=[512, 512], strides=[2048], box=[256, 2]),
    _v("valid_estride_8", estrides=[8, 8]),
    _v("rank_0", rank=0, dims=[], strides=[], box=[], estrides=[]),
    _v("rank_6", rank=6, dims=[2] * 6, strides=[16] * 5, box=[4] + [1] * 5, estrides=[1] * 6),
    _v("address_misaligned_8", offset=8),
    _v("address_misaligned_4", offset=4),
    _v("dim_zero", dims=[0, 32]),
    _v("dim_over_2p32", dims=[(1 << 32) + 1, 2], strides=[1 << 35]),
    _v("stride_not_16", strides=[264]),
    _v("stride_2p40", strides=[1 << 40]),
    _v("box_zero", box=[0, 8]),
    _v("box_257", dims=[512, 512], strides=[2048], box=[4, 257]),
    _v("box_inner_not_16_bytes", box=[3, 8]),
    _v("estride_zero", estrides=[0, 1]),
    _v("estride_9", estrides=[1, 9]),
    _v("swizzle_span_exceeded_32", box=[16, 8], swizzle=1),
    _v("swizzle_span_exceeded_128", box=[64, 8], swizzle=3),
    _v("nanfill_int", dtype=2, oob=1),
    _v("interleave_rank2", interleave=1),
    _v("dtype_bad", dtype=99),
    _v("valid_stride_smaller_than_row", strides=[16]),
]

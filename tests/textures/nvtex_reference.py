"""A numpy model of NVIDIA's texture unit, written from the CUDA C++ Programming Guide (appendix
"Texture Fetching") and fitted to the H100 goldens in ``golden/`` (scripts/make_texture_goldens.py).
It is the test-side truth for CuMetal's texture lowering: independent code (numpy, float64 where the
hardware is exact), checked against the goldens in test_goldens.py.

What the goldens showed (and this model does):
* linear filtering: x_B = x - 0.5, i = floor(x_B), alpha = frac(x_B) rounded half-up to 8 fractional
  bits (the guide's 9-bit fixed-point weight); corner weights (1/256 units) per corner_weights(); 1D
  textures are sampled as 2D ones of height 1 at y = 0 (so border mode blends in the border color
  of row -1); for f32 texels the weighted sum is exact and rounded once to f32; f16 texels: the same
  sum rounded to f16;
  8/16-bit normalized texels: each texel as 16-bit fixed point (unorm 65535 v, snorm 32767 v,
  rounded), the weighted sum / 256 rounded half-up, then divided by 65535 / 32767;
* normalized coordinates are truncated to ceil(log2(size)) + 11 fractional bits before scaling by
  the size (fitted to textures of 4..7, 512, 1000 and 4096 texels: golden/texture_weights.npz and
  NVIDIA's simpleSurfaceWrite reference image);
* address modes are applied to each texel index (clamp, wrap, mirror, border); wrap and mirror with
  unnormalized coordinates behave as clamp; a layer index is read unsigned and clamped;
* channels a format lacks read as 0 (w too);
* the border color is converted to the channel format (round to nearest, saturate) and back;
  integer reads of a border texel are 0;
* normalized float: unsigned v / (2^n - 1), signed max(v / (2^(n-1) - 1), -1).
"""

from __future__ import annotations

import numpy as np

NORM_BITS = -11  # > 0: fractional bits a normalized coordinate keeps; < 0: ceil(log2 size) - NORM_BITS
FORMATS = {  # name -> (bits, channels, kind, numpy dtype)
    "u8x1": (8, 1, "unsigned", np.uint8), "u8x4": (8, 4, "unsigned", np.uint8),
    "s8x2": (8, 2, "signed", np.int8), "u16x1": (16, 1, "unsigned", np.uint16),
    "s16x1": (16, 1, "signed", np.int16), "f16x1": (16, 1, "float", np.float16),
    "f16x4": (16, 4, "float", np.float16), "f32x1": (32, 1, "float", np.float32),
    "f32x4": (32, 4, "float", np.float32),
}


def texel_values(raw: np.ndarray, fmt: str, read: str) -> np.ndarray:
    """Texel channel values as the fetch returns them before filtering: float64 for float results,
    int64 for element reads of integer formats. Shape (..., 4)."""
    bits, nch, kind, dt = FORMATS[fmt]
    v = raw.view(dt).astype(np.float64 if kind == "float" else np.int64).reshape(-1, nch)
    if kind != "float" and read == "normalized":
        scale = (1 << bits) - 1 if kind == "unsigned" else (1 << (bits - 1)) - 1
        v = v.astype(np.float64) / scale  # exact; -128/127 < -1 is kept (the filter sees it), see sample()
    out = np.zeros((v.shape[0], 4), v.dtype)
    out[:, :nch] = v
    return out


def border_texel(fmt: str, read: str, border: list[float]) -> np.ndarray:
    bits, nch, kind, dt = FORMATS[fmt]
    b = np.array(border, np.float32).astype(np.float64)
    out = np.zeros(4, np.float64 if (kind == "float" or read == "normalized") else np.int64)
    if kind == "float":
        out[:nch] = b[:nch].astype(dt).astype(np.float64)
    elif read == "normalized":
        if kind == "unsigned":
            scale = (1 << bits) - 1
            q = np.clip(np.floor(b * scale + 0.5), 0, scale)
            out[:nch] = (q / scale).astype(np.float32)[:nch]
        else:
            scale = (1 << (bits - 1)) - 1
            q = np.clip(np.floor(b * scale + 0.5), -scale - 1, scale)
            out[:nch] = np.maximum(q / scale, -1.0).astype(np.float32)[:nch]
    return out


def _address(i: np.ndarray, n: int, mode: str, norm: int) -> tuple[np.ndarray, np.ndarray]:
    """(index in [0, n), inside) for integer texel indices under an address mode."""
    if not norm and mode in ("wrap", "mirror"):
        mode = "clamp"
    if mode == "clamp":
        return np.clip(i, 0, n - 1), np.ones(i.shape, bool)
    if mode == "border":
        return np.clip(i, 0, n - 1), (i >= 0) & (i < n)
    if mode == "wrap":
        return np.mod(i, n), np.ones(i.shape, bool)
    j = np.mod(i, 2 * n)
    return np.where(j >= n, 2 * n - 1 - j, j), np.ones(i.shape, bool)


def _f32(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, np.float32)


def corner_weights(alphas: list[np.ndarray]) -> dict[tuple[int, ...], np.ndarray]:
    """Corner weights (1/256 units) from per-axis fractions (1/256 units), as an H100 forms them
    (golden/texture_weights.npz reads them directly): 2D: uu = a*b/256 rounded half-up, the others
    its complements; 3D: the x-z pair by that rule, each split along y with the upper part
    w*b/256 rounded half-up."""
    def rhu(x: np.ndarray) -> np.ndarray:
        return np.floor(x + 0.5)

    def pair(a: np.ndarray, b: np.ndarray) -> dict[tuple[int, int], np.ndarray]:
        uu = rhu(a * b / 256)
        return {(1, 1): uu, (0, 1): b - uu, (1, 0): a - uu, (0, 0): 256 - a - b + uu}

    if len(alphas) == 1:
        return {(0,): 256 - alphas[0], (1,): alphas[0]}
    if len(alphas) == 2:
        return dict(pair(alphas[0], alphas[1]))
    out: dict[tuple[int, ...], np.ndarray] = {}
    for (bx, bz), w in pair(alphas[0], alphas[2]).items():
        up = rhu(w * alphas[1] / 256)
        out[(bx, 1, bz)], out[(bx, 0, bz)] = up, w - up
    return out


def sample(values: np.ndarray, dims: tuple[int, int, int], layers: int, cfg: dict, coords: np.ndarray,
           border: np.ndarray) -> np.ndarray:
    """Fetch at float32 coords (N x 4: x, y, z, layer). ``values``: (layers*d*h*w, 4) texel values;
    ``dims``: the (w, h, d) of the sampled geometry (h = d = 1 for 1D). Returns (N, 4) float64/int64."""
    w, h, d = dims
    ndim = {"1d": 1, "1dl": 1, "fetch": 1, "3d": 3}.get(cfg["geom"], 2)
    sizes = (w, h, d)[:ndim]
    c = _f32(coords)
    n = len(c)
    linear = cfg["filter"] == "linear"
    idx0, alphas, modes = [], [], []
    for a in range(ndim):
        x = c[:, a]
        if cfg["norm"]:  # the normalized coordinate is truncated to 16 fractional bits first
            with np.errstate(invalid="ignore"):
                bits = NORM_BITS if NORM_BITS > 0 else int(np.ceil(np.log2(sizes[a]))) - NORM_BITS
                x = _f32(np.floor(x.astype(np.float64) * 2.0**bits) / 2.0**bits * sizes[a])
        if linear:
            x = _f32(x - np.float32(0.5))
        with np.errstate(invalid="ignore"):
            fl = np.floor(x)
            f = np.where(np.isfinite(x), x - fl, 0.0).astype(np.float64)
        fl = np.where(np.isnan(x), 0, fl)
        fl = np.clip(fl, -2.0**31, 2.0**31 - 1).astype(np.int64)
        idx0.append(fl)
        alphas.append(np.floor(f * 256 + 0.5) if linear else np.zeros(n))
        modes.append(cfg["addr"])
    if cfg["geom"] == "1d" and linear:  # 1D textures are sampled as 2D ones of height 1 at y = 0
        sizes = (w, 1)
        idx0.append(np.full(n, -1, np.int64))
        alphas.append(np.full(n, 128.0))
        modes.append(cfg["addr"])
    layer = np.zeros(n, np.int64)
    if cfg["geom"] in ("1dl", "2dl"):  # the layer is read unsigned and clamped to the last one
        layer = np.minimum(c[:, 3].astype(np.int64) & 0xFFFFFFFF, layers - 1)
    is_int = values.dtype == np.int64
    level = corner_weights(alphas) if linear else {(0,) * len(sizes): np.full(n, 256.0)}
    fmt = cfg["fmt"]
    bits, _, kind, _ = FORMATS[fmt]
    fixed = linear and kind != "float"  # 8/16-bit normalized formats filter in 16-bit fixed point
    acc = np.zeros((n, 4), np.float64)
    for corner, wt in level.items():
        flat = layer * (w * h * d)
        inside = np.ones(n, bool)
        stride = 1
        for a in range(len(sizes)):
            i, ok = _address(idx0[a] + corner[a], sizes[a], modes[a], cfg["norm"])
            if not np.isfinite(c[:, min(a, ndim - 1)]).all() and modes[a] in ("wrap", "mirror") and cfg["norm"]:
                i = np.where(np.isfinite(c[:, min(a, ndim - 1)]), i, 0)
            inside &= ok
            flat = flat + i * stride
            stride *= sizes[a]
        t = np.where(inside[:, None], values[flat], border[None, :])
        if is_int:
            return t
        if not linear:
            return np.maximum(t.astype(np.float32).astype(np.float64), -1.0) if kind == "signed" else \
                t.astype(np.float32).astype(np.float64)
        if fixed:
            t = _to_fixed16(t, kind, bits)
        acc += (wt / 256)[:, None] * t
    if fixed:
        scale = 65535.0 if kind == "unsigned" else 32767.0
        q = np.floor(acc * (258.0078125 if (kind == "signed" and bits == 8) else 1.0) + 0.5)
        return np.maximum(q / scale, -1.0).astype(np.float32).astype(np.float64)
    if fmt.startswith("f16"):
        return acc.astype(np.float16).astype(np.float64)
    return acc


def _to_fixed16(t: np.ndarray, kind: str, bits: int) -> np.ndarray:
    """A normalized texel value (float) as the 16-bit fixed-point number the filter weights:
    unorm round(65535 * value) (8 bits: v * 257, bit replication); snorm16 v; snorm8 v itself: an
    H100 weights the 8-bit values and widens the sum by 258 + 1/128 before rounding half-up
    (a single texel -64 -> -16512, -128 -> -33025)."""
    if kind == "unsigned":
        return np.floor(t * 65535.0 + 0.5)
    if bits == 8:  # weighted as 8-bit values, widened after the sum (sample())
        return np.round(t * 127)
    return np.round(t * 32767)


def as_words(result: np.ndarray) -> np.ndarray:
    """The four 32-bit result words as the kernel stores them."""
    if result.dtype == np.int64:
        return result.astype(np.int64).astype(np.uint32)
    return result.astype(np.float32).view(np.uint32)


def bilinear(img: np.ndarray, x: np.ndarray, y: np.ndarray, border: float | None = None) -> np.ndarray:
    """NVIDIA's linear filter of a one-channel float image at unnormalized texel coordinates (clamp
    addressing, or a border color): x - 0.5, weights per the model above, exact sum to f32."""
    h, w = img.shape
    u, v = (np.asarray(x, np.float32) - np.float32(0.5)), (np.asarray(y, np.float32) - np.float32(0.5))
    i, j = np.floor(u).astype(np.int64), np.floor(v).astype(np.int64)
    a = np.floor((u - i).astype(np.float64) * 256 + 0.5)
    b = np.floor((v - j).astype(np.float64) * 256 + 0.5)
    weights = corner_weights([a, b])
    out = np.zeros(np.shape(u))
    for (di, dj), wt in weights.items():  # corner (x offset, y offset)
        ii, jj = i + di, j + dj
        t = img[np.clip(jj, 0, h - 1), np.clip(ii, 0, w - 1)].astype(np.float64)
        if border is not None:
            t = np.where((ii >= 0) & (ii < w) & (jj >= 0) & (jj < h), t, border)
        out += wt / 256 * t
    return out.astype(np.float32)

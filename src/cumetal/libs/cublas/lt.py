"""cuBLASLt on numpy: matmul descriptors, matrix layouts, preferences, heuristics and
``cublasLtMatmul`` with the epilogues llm.c and PyTorch-style training code use: bias, ReLU, GELU,
their AUX forms (ReLU: a bit-mask of the positive results, one bit per element, column-major with
EPILOGUE_AUX_LD in bits, a multiple of 128; GELU: the GELU input), and the backward ones (DRELU and
DGELU with their bias gradients, BGRADA, BGRADB). D = epilogue(alpha * op(A) op(B) + beta * C), in
the order of the given stream; the arithmetic is cublasGemmEx's (:mod:`cumetal.libs.cublas.gemmex`).
The aux layouts and the gradients were checked against an H100 (tests/libs/test_cublaslt_epilogues.py,
scripts/make_llmc_cublaslt_goldens.py).

Also: FP8 (E4M3/E5M2) A and B with scale pointers and AMAX_D (PyTorch's ``_scaled_mm``), the
alpha-vector pointer mode, ROW, COL32 and the IMMA orders' views, and the rules NVIDIA's library applied
on the H100 to these (tests/libs/golden/cublaslt_fp8.npz, scripts/make_cublaslt_fp8_goldens.py;
tests/libs/golden/cublaslt_algos_orders_h100.txt). The algorithm API is in :mod:`lt_algos`,
cublasLtMatrixTransform in :mod:`lt_transform`.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field

import numpy as np

from cumetal.libs import devmem, streams
from cumetal.libs.cublas import fp8, gemmex, kernels, lt_algos
from cumetal.libs.cublas import status as S
from cumetal.libs.devmem import LibError

# attribute -> (size in bytes, numpy dtype) of cublasLtMatmulDescAttributes_t / layout / preference
DESC_ATTRS = {0: (4, np.int32), 1: (4, np.int32), 2: (4, np.int32), 3: (4, np.int32), 4: (4, np.int32),
              5: (4, np.int32), 6: (4, np.int32), 7: (4, np.uint32), 8: (8, np.uint64), 10: (8, np.int64),
              11: (8, np.uint64), 12: (8, np.int64), 13: (8, np.int64), 14: (8, np.int64), 15: (4, np.int32),
              17: (8, np.uint64), 18: (8, np.uint64), 19: (8, np.uint64), 20: (8, np.uint64), 21: (8, np.uint64),
              22: (4, np.int32), 23: (8, np.uint64), 24: (8, np.uint64), 25: (1, np.int8), 26: (4, np.int32),
              31: (4, np.int32), 32: (4, np.int32), 33: (4, np.int32), 34: (4, np.int32), 35: (4, np.int32),
              36: (8, np.uint64), 37: (4, np.int32), 38: (8, np.uint64)}
LAYOUT_ATTRS = {0: (4, np.uint32), 1: (4, np.int32), 2: (8, np.uint64), 3: (8, np.uint64), 4: (8, np.int64),
                5: (4, np.int32), 6: (8, np.int64), 7: (8, np.int64), 8: (4, np.int32)}
TRANSFORM_ATTRS = {0: (4, np.int32), 1: (4, np.int32), 2: (4, np.int32), 3: (4, np.int32)}
EMULATION_ATTRS = {0: (4, np.int32), 1: (4, np.int32), 2: (4, np.int32), 3: (4, np.int32), 4: (4, np.int32),
                   5: (8, np.uint64)}
EMULATION_DEFAULTS = {0: 0, 1: 0xFFFF, 2: 0, 3: 0, 4: 0, 5: 0}  # cuBLASLt's documented defaults
E_BIT_COUNT_POINTER = 5
PREF_ATTRS = {0: (4, np.uint32), 1: (8, np.uint64), 3: (4, np.uint32), 5: (4, np.uint32), 6: (4, np.uint32),
              7: (4, np.uint32), 8: (4, np.uint32), 9: (4, np.float32), 12: (8, np.uint64)}

D_COMPUTE, D_SCALE, D_POINTER_MODE, D_TRANSA, D_TRANSB, D_EPILOGUE, D_BIAS, D_BIAS_STRIDE = 0, 1, 2, 3, 4, 7, 8, 10
D_AUX, D_AUX_LD, D_AUX_STRIDE, D_ALPHA_STRIDE, D_AUX_TYPE, D_BIAS_TYPE = 11, 12, 13, 14, 22, 26
D_A_SCALE, D_B_SCALE, D_C_SCALE, D_D_SCALE, D_AMAX_D, D_AUX_SCALE, D_AUX_AMAX = 17, 18, 19, 20, 21, 23, 24
D_SCALE_MODES, D_OUT_SCALE, D_EMULATION = (31, 32, 33, 34, 35, 37), 36, 38
SCALE_SCALAR, SCALE_OUTER_VEC = 0, 3  # cublasLtMatmulMatrixScale_t
L_TYPE, L_ORDER, L_ROWS, L_COLS, L_LD, L_BATCH, L_STRIDE, L_PLANE, L_BATCH_MODE = 0, 1, 2, 3, 4, 5, 6, 7, 8
ORDER_COL, ORDER_ROW, ORDER_COL32, ORDER_COL4_4R2_8C, ORDER_COL32_2R_4R4 = 0, 1, 2, 3, 4
PM_HOST, PM_DEVICE, PM_DEVICE_VECTOR, PM_ALPHA_VEC_BETA_ZERO, PM_ALPHA_VEC_BETA_HOST = 0, 1, 2, 3, 4
EPI_DEFAULT, EPI_RELU, EPI_BIAS, EPI_RELU_BIAS, EPI_GELU, EPI_GELU_BIAS = 1, 2, 4, 6, 32, 36
EPI_RELU_AUX, EPI_RELU_AUX_BIAS, EPI_GELU_AUX, EPI_GELU_AUX_BIAS = 130, 134, 160, 164
EPI_DRELU, EPI_DRELU_BGRAD, EPI_DGELU, EPI_DGELU_BGRAD, EPI_BGRADA, EPI_BGRADB = 136, 152, 192, 208, 256, 512
SUPPORTED_EPILOGUES = {EPI_DEFAULT, EPI_RELU, EPI_BIAS, EPI_RELU_BIAS, EPI_GELU, EPI_GELU_BIAS, EPI_RELU_AUX,
                       EPI_RELU_AUX_BIAS, EPI_GELU_AUX, EPI_GELU_AUX_BIAS, EPI_DRELU, EPI_DRELU_BGRAD, EPI_DGELU,
                       EPI_DGELU_BGRAD, EPI_BGRADA, EPI_BGRADB}
RELU_MASK_OUT = (EPI_RELU_AUX, EPI_RELU_AUX_BIAS)           # aux: the ReLU bit-mask, written
RELU_MASK_IN = (EPI_DRELU, EPI_DRELU_BGRAD)                  # aux: the ReLU bit-mask, read
GELU_AUX_OUT = (EPI_GELU_AUX, EPI_GELU_AUX_BIAS)             # aux: the GELU input, written
GELU_AUX_IN = (EPI_DGELU, EPI_DGELU_BGRAD)                   # aux: the GELU input, read
BIAS_GRADIENTS = (EPI_DRELU_BGRAD, EPI_DGELU_BGRAD, EPI_BGRADA, EPI_BGRADB)  # the bias buffer is an output
HEURISTIC_RESULT_SIZE = 96  # cublasLtMatmulAlgo_t (64) + size_t + cublasStatus_t + float + int[4]


@dataclass
class Obj:
    kind: str
    attrs: dict[int, int | float] = field(default_factory=dict)


_objects: dict[int, Obj] = {}
_lock = threading.Lock()
_ids = itertools.count(0xCB17000, 0x40)


def new(kind: str, attrs: dict[int, int | float] | None = None) -> int:
    with _lock:
        h = next(_ids)
        _objects[h] = Obj(kind, dict(attrs or {}))
    return h


def get(h: int, kind: str) -> Obj:
    obj = _objects.get(h)
    if obj is None or obj.kind != kind:
        raise LibError(S.NOT_INITIALIZED if kind == "handle" else S.INVALID_VALUE,
                       f"0x{h:x} is not a live cuBLASLt {kind}")
    return obj


def register(h: int, kind: str, attrs: dict[int, int | float]) -> None:
    """An object at a caller-chosen address (the stack-allocated ``*Init`` forms)."""
    with _lock:
        _objects[h] = Obj(kind, dict(attrs))


def _objects_attrs(h: int) -> dict[int, int | float]:
    """The attributes of a just-created object, which is then dropped (its address is not used)."""
    with _lock:
        return _objects.pop(h).attrs


def destroy(h: int, kind: str) -> None:
    get(h, kind)
    with _lock:
        del _objects[h]


def _table(kind: str) -> dict[int, tuple[int, type]]:
    return {"matmul descriptor": DESC_ATTRS, "matrix layout": LAYOUT_ATTRS, "preference": PREF_ATTRS,
            "transform descriptor": TRANSFORM_ATTRS, "emulation descriptor": EMULATION_ATTRS}[kind]


def set_attribute(h: int, kind: str, attr: int, buf: int, size: int) -> None:
    obj = get(h, kind)
    spec = _table(kind).get(attr)
    if spec is None:
        raise LibError(S.INVALID_VALUE, f"attribute {attr} of a {kind} is not supported by CuMetal")
    nbytes, dt = spec
    if size != nbytes or not buf:
        raise LibError(S.INVALID_VALUE, f"attribute {attr} of a {kind} takes {nbytes} bytes, got {size}"
                       + ("" if buf else " (buf is NULL)"))
    value = devmem.read_host(buf, dt)[0]
    obj.attrs[attr] = float(value) if dt is np.float32 else int(value)


def get_attribute(h: int, kind: str, attr: int, buf: int, size: int, written: int) -> None:
    obj = get(h, kind)
    spec = _table(kind).get(attr)
    if spec is None:
        raise LibError(S.INVALID_VALUE, f"attribute {attr} of a {kind} is not supported by CuMetal")
    nbytes, dt = spec
    if size == 0 and not buf:
        if not written:
            raise LibError(S.INVALID_VALUE, "sizeWritten is NULL")
        devmem.write_host(written, np.array([nbytes], np.uint64))
        return
    if size < nbytes or not buf:
        raise LibError(S.INVALID_VALUE, f"attribute {attr} of a {kind} needs {nbytes} bytes, got {size}")
    devmem.write_host(buf, np.array([obj.attrs.get(attr, 0)], dt))
    if written:
        devmem.write_host(written, np.array([nbytes], np.uint64))


def desc_create(compute: int, scale_type: int) -> int:
    gemmex.compute_dtype(compute, scale_type)
    return new("matmul descriptor", {D_COMPUTE: compute, D_SCALE: scale_type, D_POINTER_MODE: 0, D_TRANSA: 0,
                                     D_TRANSB: 0, D_EPILOGUE: EPI_DEFAULT, D_BIAS: 0, D_BIAS_TYPE: -1})


def layout_create(dtype: int, rows: int, cols: int, ld: int) -> int:
    storage(dtype, "type")
    return new("matrix layout", {L_TYPE: dtype, L_ORDER: ORDER_COL, L_ROWS: rows, L_COLS: cols, L_LD: ld,
                                 L_BATCH: 1, L_STRIDE: 0})


# CUDA_C_16F (complex half): a (re, im) pair of halves; computed as complex64
C16F = np.dtype([("re", np.float16), ("im", np.float16)])
# the element type of each plane of a planar complex matrix (CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET)
PLANE_DTYPE = {S.C_16F: np.dtype(np.float16), S.C_32F: np.dtype(np.float32), S.C_64F: np.dtype(np.float64)}


def storage(code: int, what: str) -> np.dtype:
    """cuBLAS's storage types plus FP8 (bytes) and CUDA_C_16F."""
    if code == S.C_16F:
        return C16F
    return np.dtype(np.uint8) if code in fp8.TYPES else gemmex.storage(code, what)


def load(m: np.ndarray, code: int) -> np.ndarray:
    if code == S.C_16F:
        return (m["re"].astype(np.float32) + np.complex64(1j) * m["im"].astype(np.float32)).astype(np.complex64)
    return fp8.decode(m, code) if code in fp8.TYPES else gemmex.load(m, code)


def store(dst: np.ndarray, value: np.ndarray, code: int) -> None:
    """Round once to the storage type: FP8 to nearest even with saturation; integers from a float
    result to nearest even with saturation (as the H100 rounded int8 D with a float scale)."""
    if code in fp8.TYPES:
        dst[...] = fp8.encode(value, code)
    elif code == S.C_16F:
        v = np.asarray(value)
        with np.errstate(over="ignore"):
            dst["re"], dst["im"] = v.real.astype(np.float16), v.imag.astype(np.float16)
    elif code in (S.R_8I, S.R_8U, S.R_32I) and np.asarray(value).dtype.kind == "f":
        info = np.iinfo(dst.dtype)
        dst[...] = np.clip(np.rint(np.asarray(value, np.float64)), info.min, info.max).astype(dst.dtype)
    else:
        gemmex.store(dst, value, code)


def tiled_offsets(order: int, r: np.ndarray, c: np.ndarray, ld: int) -> np.ndarray:
    """Element offsets of (r, c) in the tiled orders: 32-column groups, group t at t·ld, each group a
    stack of row tiles. COL32: rows of 32 elements, (r, c) at 32·r + c mod 32. COL4_4R2_8C: tiles of
    8 rows × 32 columns (256 elements), in each the even rows then the odd ones, each half by blocks
    of 4 columns holding 4 rows of 4: (r, c) at 256·(r / 8) + 128·(r mod 2) + 16·(c mod 32 / 4)
    + 4·(r mod 8 / 2) + c mod 4. COL32_2R_4R4: tiles of 32 × 32, row r of a tile stored as row
    ((r mod 8 / 2)·4 + r / 8)·2 + r mod 2. Checked byte for byte against NVIDIA's cublasLtMatrixTransform
    on the H100 (tests/libs/golden/cublaslt_algos_orders_h100.txt)."""
    base, cc = (c // 32) * ld, c % 32
    if order == ORDER_COL32:
        return base + 32 * r + cc
    if order == ORDER_COL4_4R2_8C:
        rr = r % 8
        return base + 256 * (r // 8) + 128 * (rr % 2) + 16 * (cc // 4) + 4 * (rr // 2) + cc % 4
    rr = r % 32
    return base + 1024 * (r // 32) + 32 * (((rr % 8) // 2 * 4 + rr // 8) * 2 + rr % 2) + cc


TILE_ROWS = {2: 1, 3: 8, 4: 32}  # ORDER_COL32, COL4_4R2_8C, COL32_2R_4R4: rows are padded to a multiple of this
ORDER_NAMES = {0: "COL", 1: "ROW", 2: "COL32", 3: "COL4_4R2_8C", 4: "COL32_2R_4R4"}


class Tiled:
    """A rows × cols matrix in CUBLASLT_ORDER_COL32, COL4_4R2_8C or COL32_2R_4R4 (:func:`tiled_offsets`);
    each 32-column group spans 32 · (rows padded to the order's row tile) elements from its start, so
    ld must be at least that. Writing zero-fills the unused places of each group (as NVIDIA's
    cublasLtMatrixTransform did)."""

    def __init__(self, ptr: int, dt: np.dtype, rows: int, cols: int, ld: int, order: int, what: str) -> None:
        span = 32 * (-(-rows // TILE_ROWS[order]) * TILE_ROWS[order])
        if ld < span:
            raise LibError(S.INVALID_VALUE, f"{what}: ld={ld} < {span} (ORDER_{ORDER_NAMES[order]}: 32 x rows padded "
                                            f"to a multiple of {TILE_ROWS[order]})")
        tiles = (cols + 31) // 32
        count = (tiles - 1) * ld + span if rows and cols else 0
        devmem.check_range(ptr, count * dt.itemsize, what, S.INVALID_VALUE)
        self.flat = devmem._flat(ptr, dt, count) if count else np.zeros(0, dt)
        self.idx = tiled_offsets(order, np.arange(rows)[:, None], np.arange(cols)[None, :], ld)
        self.spans = [slice(t * ld, t * ld + span) for t in range(tiles)] if rows and cols else []
        self.shape, self.dtype = (rows, cols), dt

    def read(self) -> np.ndarray:
        return self.flat[self.idx]

    def write(self, v: np.ndarray) -> None:
        for sl in self.spans:
            self.flat[sl] = 0
        self.flat[self.idx] = v


class Planar:
    """A complex rows × cols matrix stored as two planes (CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET): the real
    parts as a real matrix at ptr, the imaginary parts as one at ptr + plane_offset bytes (any sign),
    both with the layout's ld (column-major, or row-major when ``row_major``)."""

    def __init__(self, ptr: int, code: int, rows: int, cols: int, ld: int, offset: int, row_major: bool,
                 what: str) -> None:
        pdt = PLANE_DTYPE[code]
        r, c = (cols, rows) if row_major else (rows, cols)
        self.re = devmem.matrix(ptr, pdt, r, c, ld, f"{what} (real plane)", S.INVALID_VALUE)
        self.im = devmem.matrix(ptr + offset, pdt, r, c, ld, f"{what} (imaginary plane)", S.INVALID_VALUE)
        if row_major:
            self.re, self.im = self.re.T, self.im.T
        self.shape, self.dtype = (rows, cols), storage(code, what)

    def read(self) -> np.ndarray:
        out = np.empty(self.shape, self.dtype)
        if self.dtype == C16F:
            out["re"], out["im"] = self.re, self.im
        else:
            out.real, out.imag = self.re, self.im
        return out

    def write(self, v: np.ndarray) -> None:
        if self.dtype == C16F:
            self.re[...], self.im[...] = v["re"], v["im"]
        else:
            self.re[...], self.im[...] = v.real, v.imag


def _get(m: np.ndarray | Tiled | Planar | None) -> np.ndarray | None:
    return m.read() if isinstance(m, Tiled | Planar) else m


def _put(m: np.ndarray | Tiled | Planar, value: np.ndarray, code: int) -> None:
    if isinstance(m, Tiled | Planar):
        tmp = np.empty(m.shape, m.dtype)
        store(tmp, value, code)
        m.write(tmp)
    else:
        store(m, value, code)


def _check_order(lay: Obj, what: str, transform: bool = False) -> None:
    """The layout's order and batch mode. COL4_4R2_8C and COL32_2R_4R4 (Turing/Ampere IMMA layouts)
    only in cublasLtMatrixTransform: NVIDIA's library on the H100 refused every matmul with them."""
    order = lay.attrs.get(L_ORDER, ORDER_COL)
    if order not in ORDER_NAMES:
        raise LibError(S.NOT_SUPPORTED, f"{what}: matrix order {order} is not a cublasLtOrder_t")
    if order in (ORDER_COL4_4R2_8C, ORDER_COL32_2R_4R4) and not transform:
        raise LibError(S.NOT_SUPPORTED, f"{what}: matrix order {ORDER_NAMES[order]} in a matmul (an IMMA layout of "
                                        "Turing/Ampere: NVIDIA's cuBLASLt on the H100 refused every int8 matmul with "
                                        "it; cublasLtMatrixTransform writes it)")
    if int(lay.attrs.get(L_BATCH_MODE, 0)) not in (0, 1):
        raise LibError(S.INVALID_VALUE, f"{what}: batch mode {lay.attrs[L_BATCH_MODE]} is not a cublasLtBatchMode_t")
    if int(lay.attrs.get(L_PLANE, 0)) != 0:
        if int(lay.attrs[L_TYPE]) not in PLANE_DTYPE:
            raise LibError(S.INVALID_VALUE, f"{what}: PLANE_OFFSET (planar complex) with the real type "
                                            f"{lay.attrs[L_TYPE]}")
        if order not in (ORDER_COL, ORDER_ROW):
            raise LibError(S.NOT_SUPPORTED, f"{what}: PLANE_OFFSET (planar complex) with matrix order {order} "
                                            "(COL and ROW are supported)")


def _view(ptr: int, lay: Obj, batch: int, what: str, transform: bool = False) -> np.ndarray | Tiled | Planar:
    """The ``batch``-th matrix of a layout as a (rows × cols) array (column- or row-major), a
    :class:`Tiled` (COL32 and the IMMA orders) or a :class:`Planar` (planar complex)."""
    rows, cols, ld = int(lay.attrs[L_ROWS]), int(lay.attrs[L_COLS]), int(lay.attrs[L_LD])
    order = lay.attrs.get(L_ORDER, ORDER_COL)
    dt = storage(int(lay.attrs[L_TYPE]), what)
    _check_order(lay, what, transform)
    if int(lay.attrs.get(L_BATCH_MODE, 0)) == 1:  # POINTER_ARRAY: ptr is a device array of batch pointers
        count = int(lay.attrs.get(L_BATCH, 1))
        base = int(devmem.vector(ptr, np.uint64, count, 1, f"{what} (pointer array)", S.INVALID_VALUE)[batch])
        if not base:
            raise LibError(S.INVALID_VALUE, f"{what}: pointer {batch} of the pointer array is NULL")
    else:
        plane = int(lay.attrs.get(L_PLANE, 0))
        base = ptr + batch * int(lay.attrs.get(L_STRIDE, 0)) * (PLANE_DTYPE[int(lay.attrs[L_TYPE])].itemsize
                                                               if plane else dt.itemsize)
    if int(lay.attrs.get(L_PLANE, 0)):
        if ld < max(1, cols if order == ORDER_ROW else rows):
            raise LibError(S.INVALID_VALUE, f"{what}: ld={ld} too small for a {rows}x{cols} plane")
        return Planar(base, int(lay.attrs[L_TYPE]), rows, cols, ld, int(lay.attrs[L_PLANE]), order == ORDER_ROW, what)
    if order in TILE_ROWS:
        return Tiled(base, dt, rows, cols, ld, order, what)
    if order == ORDER_COL:
        if ld < max(1, rows):
            raise LibError(S.INVALID_VALUE, f"{what}: ld={ld} < rows={rows}")
        return devmem.matrix(base, dt, rows, cols, ld, what, S.INVALID_VALUE)
    if ld < max(1, cols):
        raise LibError(S.INVALID_VALUE, f"{what}: ld={ld} < cols={cols} (row-major)")
    return devmem.matrix(base, dt, cols, rows, ld, what, S.INVALID_VALUE).T


GELU_C, GELU_K = np.float32(0.7978845608028654), np.float32(0.044715)  # sqrt(2/pi), the cubic coefficient


def _gelu(x: np.ndarray) -> np.ndarray:
    """GELU, tanh approximation (what cuBLASLt's GELU epilogue computes)."""
    return 0.5 * x * (1.0 + np.tanh(GELU_C * (x + GELU_K * x * x * x)))


def _gelu_grad(x: np.ndarray) -> np.ndarray:
    """d GELU / dx of the tanh approximation (DGELU multiplies the incoming gradient by it)."""
    t = np.tanh(GELU_C * (x + GELU_K * x * x * x))
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * GELU_C * (1.0 + 3.0 * GELU_K * x * x)


def _mask_bytes(ptr: int, ld_bits: int, m: int, n: int) -> np.ndarray:
    """The ReLU bit-mask buffer as a column-major byte matrix (ceil(m / 8) × n, ld = ld_bits / 8)."""
    return devmem.matrix(ptr, np.uint8, (m + 7) // 8, n, ld_bits // 8, "aux (ReLU bit-mask)", S.INVALID_VALUE)


# the epilogues CuMetal's GEMM kernel applies (Apple devices), as its EPILOGUE_* codes
_KERNEL_EPILOGUE = {EPI_DEFAULT: kernels.EPILOGUE_NONE, EPI_BIAS: kernels.EPILOGUE_NONE, EPI_RELU: kernels.EPILOGUE_RELU,
                    EPI_RELU_BIAS: kernels.EPILOGUE_RELU, EPI_GELU: kernels.EPILOGUE_GELU,
                    EPI_GELU_BIAS: kernels.EPILOGUE_GELU}


def _kernel_path(epi: int, layouts: tuple[Obj, ...], atype: int, btype: int, ctype: int, dtype_d: int, compute: int,
                 sdt: np.dtype, bias_type: int, C: int) -> bool:
    """Whether this matmul runs as CuMetal's GEMM kernel: an Apple device, column-major layouts, the
    kernel's types, no AUX or gradient epilogue (those stay on numpy)."""
    return (epi in _KERNEL_EPILOGUE and bool(C) and ctype == dtype_d
            and all(lay.attrs.get(L_ORDER, ORDER_COL) == ORDER_COL and not lay.attrs.get(L_BATCH_MODE, 0)
                    and not lay.attrs.get(L_PLANE, 0) for lay in layouts)
            and kernels.supported(atype, btype, ctype, compute, sdt)
            and (epi not in (EPI_BIAS, EPI_RELU_BIAS, EPI_GELU_BIAS) or kernels.supported(bias_type, bias_type, ctype,
                                                                                         compute, sdt))
            and kernels.wanted())


FP8_C_FOR_FP8_D = {S.R_16BF, S.R_16F}
FP8_PLAIN_D = {S.R_32F, S.R_16BF, S.R_16F}


@dataclass
class Plan:
    """What one cublasLtMatmul computes, validated (shared by matmul, the heuristic and AlgoCheck)."""
    m: int
    n: int
    k: int
    ta: int
    tb: int
    epi: int
    compute: int
    scale_type: int
    sdt: np.dtype
    atype: int
    btype: int
    ctype: int
    dtype_d: int
    batch: int
    mode: int
    is_fp8: bool
    bias_type: int

    @property
    def key(self) -> tuple[int, ...]:
        """(compute, scale, A, B, C, D types): what the algorithm API is keyed on."""
        return (self.compute, self.scale_type, self.atype, self.btype, self.ctype, self.dtype_d)


def _check_fp8(d: dict[int, int | float], atype: int, btype: int, ctype: int, dtype_d: int, ta: int, tb: int,
               compute: int, scale_type: int) -> bool:
    """FP8 and the scale/amax pointers, with the rules NVIDIA's cuBLASLt applied on the H100
    (scripts/make_cublaslt_fp8_goldens.py). Returns whether this is an FP8 matmul."""
    a8, b8 = atype in fp8.TYPES, btype in fp8.TYPES
    modes = {attr: int(d.get(attr, 0)) for attr in D_SCALE_MODES}
    a_mode, b_mode = modes.pop(31), modes.pop(32)
    if any(modes.values()) or a_mode not in (SCALE_SCALAR, SCALE_OUTER_VEC) or \
            b_mode not in (SCALE_SCALAR, SCALE_OUTER_VEC):
        raise LibError(S.NOT_SUPPORTED, "scale modes other than SCALAR_32F (and OUTER_VEC_32F for A and B) — block "
                                        "and 16/32/128-element vector scaling — are not supported by CuMetal")
    if SCALE_OUTER_VEC in (a_mode, b_mode) and (a_mode != b_mode or not (atype in fp8.TYPES and btype in fp8.TYPES)
                                                 or dtype_d in fp8.TYPES):
        raise LibError(S.INVALID_VALUE, "OUTER_VEC_32F scaling needs A and B both in that mode, FP8 A and B and a "
                                        "non-FP8 D (as NVIDIA's library answered on the H100)")
    for attr, what in ((D_OUT_SCALE, "D_OUT_SCALE_POINTER"), (D_AUX_SCALE, "EPILOGUE_AUX_SCALE_POINTER"),
                       (D_AUX_AMAX, "EPILOGUE_AUX_AMAX_POINTER")):
        if int(d.get(attr, 0)):
            raise LibError(S.NOT_SUPPORTED, f"CUBLASLT_MATMUL_DESC_{what} is not supported by CuMetal")
    if not (a8 or b8):
        for attr, what in ((D_A_SCALE, "A"), (D_B_SCALE, "B"), (D_C_SCALE, "C"), (D_D_SCALE, "D"),
                           (D_AMAX_D, "AMAX_D")):
            if int(d.get(attr, 0)):
                raise LibError(S.INVALID_VALUE, f"a {what} scale/amax pointer needs FP8 A and B (types "
                                                f"{atype}, {btype})")
        if ctype in fp8.TYPES or dtype_d in fp8.TYPES:
            raise LibError(S.NOT_SUPPORTED, "FP8 C or D needs FP8 A and B")
        return False
    if not (a8 and b8) or atype == btype == fp8.E5M2:
        raise LibError(S.NOT_SUPPORTED, f"FP8 A and B must be E4M3 x E4M3, E4M3 x E5M2 or E5M2 x E4M3 (got "
                                        f"{atype}, {btype})")
    if (ta, tb) != (S.OP_T, S.OP_N):
        raise LibError(S.NOT_SUPPORTED, f"FP8 matmuls take only the TN layout (transa = T, transb = N), got "
                                        f"transa={ta}, transb={tb}")
    if compute not in (S.COMPUTE_32F, S.COMPUTE_32F_PEDANTIC) or scale_type != S.R_32F:
        raise LibError(S.NOT_SUPPORTED, "FP8 matmuls compute in CUBLAS_COMPUTE_32F with CUDA_R_32F scales")
    if dtype_d in fp8.TYPES:
        if ctype not in FP8_C_FOR_FP8_D or (dtype_d == fp8.E5M2 and fp8.E5M2 not in (atype, btype)):
            raise LibError(S.NOT_SUPPORTED, f"FP8 D type {dtype_d} with C type {ctype} and A/B {atype}/{btype}: "
                                            "C must be bf16 or f16, an E5M2 D needs an E5M2 input")
    else:
        if dtype_d not in FP8_PLAIN_D or ctype != dtype_d:
            raise LibError(S.NOT_SUPPORTED, f"FP8 matmul with C type {ctype} and D type {dtype_d}: C and D must "
                                            "be the same, f32, bf16 or f16 (or D FP8 with bf16/f16 C)")
        for attr, what in ((D_D_SCALE, "D_SCALE_POINTER"), (D_AMAX_D, "AMAX_D_POINTER")):
            if int(d.get(attr, 0)):
                raise LibError(S.INVALID_VALUE, f"CUBLASLT_MATMUL_DESC_{what} needs an FP8 D (D type {dtype_d})")
    return True


def _plan(desc: int, adesc: int, bdesc: int, cdesc: int, ddesc: int) -> tuple[Plan, dict, tuple[Obj, ...]]:
    d = get(desc, "matmul descriptor").attrs
    la, lb = get(adesc, "matrix layout"), get(bdesc, "matrix layout")
    lc, ld_ = get(cdesc, "matrix layout"), get(ddesc, "matrix layout")
    ta, tb, epi = int(d[D_TRANSA]), int(d[D_TRANSB]), int(d[D_EPILOGUE])
    compute, scale_type = int(d[D_COMPUTE]), int(d[D_SCALE])
    if epi not in SUPPORTED_EPILOGUES:
        raise LibError(S.NOT_SUPPORTED, f"epilogue {epi} is not supported by CuMetal (bias, ReLU, GELU, their "
                                        "AUX forms and their gradients are)")
    if ta not in (S.OP_N, S.OP_T, S.OP_C) or tb not in (S.OP_N, S.OP_T, S.OP_C):
        raise LibError(S.INVALID_VALUE, f"transa={ta}, transb={tb}")
    for lay, what in ((la, "A"), (lb, "B"), (lc, "C"), (ld_, "D")):
        _check_order(lay, what)
    ar, ac = int(la.attrs[L_ROWS]), int(la.attrs[L_COLS])
    br, bc = int(lb.attrs[L_ROWS]), int(lb.attrs[L_COLS])
    m, k = (ar, ac) if ta == S.OP_N else (ac, ar)
    kb, n = (br, bc) if tb == S.OP_N else (bc, br)
    if kb != k or (int(ld_.attrs[L_ROWS]), int(ld_.attrs[L_COLS])) != (m, n) or \
            (int(lc.attrs[L_ROWS]), int(lc.attrs[L_COLS])) != (m, n):
        raise LibError(S.INVALID_VALUE, f"shapes disagree: op(A) {m}x{k}, op(B) {kb}x{n}, "
                                        f"C {lc.attrs[L_ROWS]}x{lc.attrs[L_COLS]}, D {ld_.attrs[L_ROWS]}x{ld_.attrs[L_COLS]}")
    atype, btype, ctype, dtype_d = (int(lay.attrs[L_TYPE]) for lay in (la, lb, lc, ld_))
    if compute in (S.COMPUTE_32I, S.COMPUTE_32I_PEDANTIC) and dtype_d == S.R_32I and scale_type != S.R_32I:
        raise LibError(S.INVALID_VALUE, f"scale type {scale_type} with an int32 D and COMPUTE_32I: the scale "
                                        "type must be CUDA_R_32I")
    mode = int(d[D_POINTER_MODE])
    if mode not in (PM_HOST, PM_DEVICE, PM_DEVICE_VECTOR, PM_ALPHA_VEC_BETA_ZERO, PM_ALPHA_VEC_BETA_HOST):
        raise LibError(S.INVALID_VALUE, f"pointer mode {mode} is not a cublasLtPointerMode_t")
    if mode in (PM_DEVICE_VECTOR, PM_ALPHA_VEC_BETA_ZERO) or (
            mode == PM_ALPHA_VEC_BETA_HOST and compute not in (S.COMPUTE_32I, S.COMPUTE_32I_PEDANTIC)):
        raise LibError(S.NOT_SUPPORTED, f"pointer mode {mode}: CuMetal (like NVIDIA's cuBLASLt on the H100) "
                                        "takes alpha vectors only as ALPHA_DEVICE_VECTOR_BETA_HOST with "
                                        "CUBLAS_COMPUTE_32I")
    is_fp8 = _check_fp8(d, atype, btype, ctype, dtype_d, ta, tb, compute, scale_type)
    sdt = storage(scale_type, "scaleType")
    sdt = np.dtype(np.float32) if scale_type == S.R_16BF else sdt
    bias_type = int(d.get(D_BIAS_TYPE, -1))
    if bias_type < 0:
        bias_type = ctype if dtype_d in fp8.TYPES else dtype_d
    batch = int(ld_.attrs.get(L_BATCH, 1))
    plan = Plan(m, n, k, ta, tb, epi, compute, scale_type, sdt, atype, btype, ctype, dtype_d, batch, mode, is_fp8,
                bias_type)
    return plan, d, (la, lb, lc, ld_)


def _product(Am: np.ndarray, Bm: np.ndarray, p: Plan) -> np.ndarray:
    if p.is_fp8:  # FP8 products are exact in float64; sums are rounded once to float32
        a, b = fp8.decode(Am, p.atype).astype(np.float64), fp8.decode(Bm, p.btype).astype(np.float64)
        return (a.T if p.ta != S.OP_N else a) @ (b.T if p.tb != S.OP_N else b)
    if S.C_16F in (p.atype, p.btype):  # complex halves: widened exactly to complex64 first
        Am, atype = (load(Am, S.C_16F), S.C_32F) if p.atype == S.C_16F else (Am, p.atype)
        Bm, btype = (load(Bm, S.C_16F), S.C_32F) if p.btype == S.C_16F else (Bm, p.btype)
        return gemmex.matmul(Am, Bm, p.ta, p.tb, atype, btype, p.compute, p.dtype_d)
    return gemmex.matmul(Am, Bm, p.ta, p.tb, p.atype, p.btype, p.compute, p.dtype_d)


def _scale(ptr: int) -> float:
    return float(devmem.read_host(ptr, np.float32)[0]) if ptr else 1.0


def matmul(handle: int, desc: int, alpha: int, A: int, adesc: int, B: int, bdesc: int, beta: int, C: int, cdesc: int,
           D: int, ddesc: int, stream: int, algo: int = 0) -> None:
    get(handle, "handle")
    p, d, (la, lb, lc, ld_) = _plan(desc, adesc, bdesc, cdesc, ddesc)
    if algo:
        lt_algos.check(algo, p.key)
    m, n, k, ta, tb, epi, compute, batch, sdt = p.m, p.n, p.k, p.ta, p.tb, p.epi, p.compute, p.batch, p.sdt
    bits_ptr = _emulation_pointer(d, compute)
    device_scalars = p.mode == PM_DEVICE
    alpha_vector = p.mode == PM_ALPHA_VEC_BETA_HOST
    alpha_stride = int(d.get(D_ALPHA_STRIDE, 0))
    for ptr, what in ((alpha, "alpha"), (beta, "beta")):
        if not ptr:
            raise LibError(S.INVALID_VALUE, f"{what} is NULL")
    if device_scalars:
        for ptr, what in ((alpha, "alpha"), (beta, "beta")):
            devmem.check_range(ptr, sdt.itemsize, what, S.INVALID_VALUE)
    if alpha_vector:
        devmem.check_range(alpha, ((batch - 1) * alpha_stride + m) * sdt.itemsize if m else 0, "alpha (vector)",
                           S.INVALID_VALUE)
    host_ab = None if device_scalars or alpha_vector else (devmem.read_host(alpha, sdt)[0],
                                                           devmem.read_host(beta, sdt)[0])
    host_beta = devmem.read_host(beta, sdt)[0] if alpha_vector else None
    scales = {attr: int(d.get(attr, 0)) for attr in (D_A_SCALE, D_B_SCALE, D_C_SCALE, D_D_SCALE, D_AMAX_D)}
    outer = int(d.get(31, 0)) == SCALE_OUTER_VEC  # A scales per row of D, B scales per column
    for attr, ptr in scales.items():
        if ptr:
            count = {D_A_SCALE: m, D_B_SCALE: n}.get(attr, 1) if outer else 1
            devmem.check_range(ptr, 4 * count, f"scale/amax pointer (attribute {attr})", S.INVALID_VALUE)
    if outer and not (scales[D_A_SCALE] and scales[D_B_SCALE]):
        raise LibError(S.INVALID_VALUE, "OUTER_VEC_32F scaling needs the A and B scale pointers")
    dtype_d, atype, btype, ctype = p.dtype_d, p.atype, p.btype, p.ctype
    views = []
    for i in range(batch):
        def bi(lay: Obj, i: int = i) -> int:  # a layout with a batch of one is shared by every batch
            return i if int(lay.attrs.get(L_BATCH, 1)) > 1 else 0
        views.append((_view(A, la, bi(la), "A") if k else None, _view(B, lb, bi(lb), "B") if k else None,
                      _view(C, lc, bi(lc), "C") if C else None, _view(D, ld_, i, "D")))
    has_bias = epi in (EPI_BIAS, EPI_RELU_BIAS, EPI_GELU_BIAS, EPI_RELU_AUX_BIAS, EPI_GELU_AUX_BIAS)
    bias_type = p.bias_type
    bias = None
    if has_bias or epi in BIAS_GRADIENTS:
        bias_dt = gemmex.storage(bias_type, "bias data type")
        bptr = int(d.get(D_BIAS, 0))
        if not bptr:
            raise LibError(S.INVALID_VALUE, f"epilogue {epi} {'writes a bias gradient' if epi in BIAS_GRADIENTS else 'adds a bias'}"
                                            " but CUBLASLT_MATMUL_DESC_BIAS_POINTER is NULL")
        blen = n if epi == EPI_BGRADB else m  # BGRADB reduces op(B) over k: one value per column of D
        bias = [devmem.vector(bptr + i * int(d.get(D_BIAS_STRIDE, 0)) * bias_dt.itemsize, bias_dt, blen, 1, "bias",
                              S.INVALID_VALUE) for i in range(batch)]
    aux = None
    aptr, ald, astride = int(d.get(D_AUX, 0)), int(d.get(D_AUX_LD, 0)), int(d.get(D_AUX_STRIDE, 0))
    aux_type = int(d[D_AUX_TYPE]) if D_AUX_TYPE in d else dtype_d  # EPILOGUE_AUX_DATA_TYPE, default D's type
    if epi in GELU_AUX_OUT + GELU_AUX_IN and aux_type not in (S.R_32F, S.R_16F, S.R_16BF, S.R_64F):
        raise LibError(S.NOT_SUPPORTED, f"EPILOGUE_AUX_DATA_TYPE {aux_type} for the GELU input (f32, f16, bf16 or "
                                        "f64 are supported)")
    aux_dt = gemmex.storage(aux_type, "EPILOGUE_AUX_DATA_TYPE") if epi in GELU_AUX_OUT + GELU_AUX_IN else None
    if epi in RELU_MASK_OUT + RELU_MASK_IN:
        if not aptr or ald < m or ald % 128:
            raise LibError(S.INVALID_VALUE, f"epilogue {epi} needs EPILOGUE_AUX_POINTER and EPILOGUE_AUX_LD (in bits) "
                                            f">= rows and a multiple of 128, got {ald}")
        aux = [_mask_bytes(aptr + i * astride // 8, ald, m, n) for i in range(batch)]
    elif epi in GELU_AUX_OUT + GELU_AUX_IN:
        if p.is_fp8:
            raise LibError(S.NOT_SUPPORTED, "GELU aux epilogues with FP8 inputs are not supported by CuMetal")
        if not aptr or ald < m:
            raise LibError(S.INVALID_VALUE, f"epilogue {epi} needs EPILOGUE_AUX_POINTER and EPILOGUE_AUX_LD >= rows")
        aux = [devmem.matrix(aptr + i * astride * aux_dt.itemsize, aux_dt, m, n, ald, "aux", S.INVALID_VALUE)
               for i in range(batch)]
    dt, _ = gemmex.compute_dtype(compute, dtype_d)
    if p.is_fp8 or (dt.kind == "i" and sdt.kind == "f"):
        dt = np.dtype(np.float32)  # FP8, or int8 products scaled by a float: the epilogue runs in float
    if bits_ptr:  # every check passed; no fixed-point emulation runs: -1, in stream order
        streams.submit(stream, lambda: devmem.write_host(bits_ptr, np.array([-1], np.int32)), "cublasLtMatmul",
                       S.EXECUTION_FAILED)
    if p.mode in (PM_HOST, PM_DEVICE) and not p.is_fp8 and \
            _kernel_path(epi, (la, lb, lc, ld_), atype, btype, ctype, dtype_d, compute, sdt, bias_type, C):
        def stride(lay: Obj) -> int:  # a layout with a batch of one is shared by every batch
            return int(lay.attrs.get(L_STRIDE, 0)) if int(lay.attrs.get(L_BATCH, 1)) > 1 else 0

        out = kernels.Output(D, int(ld_.attrs[L_LD]), stride(ld_), int(d.get(D_BIAS, 0)) if has_bias else 0, bias_type,
                             int(d.get(D_BIAS_STRIDE, 0)), _KERNEL_EPILOGUE[epi])
        scalars = [(0.0, ptr, sdt) if device_scalars else (host_ab[j], 0, sdt) for j, ptr in enumerate((alpha, beta))]
        kernels.launch(stream, ta, tb, m, n, k, scalars[0], scalars[1], A, int(la.attrs[L_LD]), B,
                       int(lb.attrs[L_LD]), C, int(lc.attrs[L_LD]), atype, ctype, compute, batch, stride(la),
                       stride(lb), stride(lc), output=out)
        return

    def go() -> None:
        if alpha_vector:
            bv = host_beta
        else:
            av, bv = host_ab if host_ab is not None else (devmem.read_host(alpha, sdt)[0],
                                                          devmem.read_host(beta, sdt)[0])
        sc, sd = _scale(scales[D_C_SCALE]), _scale(scales[D_D_SCALE])
        if outer:  # alpha · a[i] · b[j] for element (i, j)
            sab = (devmem.read_host(scales[D_A_SCALE], np.float32, m)[:, None]
                   * devmem.read_host(scales[D_B_SCALE], np.float32, n)[None, :])
        else:
            sab = np.float32(_scale(scales[D_A_SCALE]) * _scale(scales[D_B_SCALE]))
        amax = 0.0
        for i, (Am, Bm, Cm, Dm) in enumerate(views):
            Am, Bm, Cm = _get(Am), _get(Bm), _get(Cm)
            if alpha_vector:
                av_i = devmem.read_host(alpha + i * alpha_stride * sdt.itemsize, sdt, m).astype(dt)[:, None]
                use_product = bool(np.any(av_i != 0))
            else:
                av_i = dt.type(av) * sab.astype(dt) if p.is_fp8 else dt.type(av)
                use_product = av != 0
            acc = np.zeros((m, n), dt)
            if use_product and k:
                acc += av_i * np.asarray(_product(Am, Bm, p), np.float64 if p.is_fp8 else None).astype(dt)
            if bv != 0 and Cm is not None:
                acc += dt.type(bv) * dt.type(sc) * np.asarray(load(Cm, ctype), dt)
            if has_bias:
                acc += np.asarray(gemmex.load(bias[i], bias_type), dt)[:, None]
            if epi in RELU_MASK_OUT:
                bits = np.zeros((aux[i].shape[0] * 8, n), np.uint8)
                bits[:m] = acc > 0
                aux[i][...] = np.packbits(bits, axis=0, bitorder="little")
            elif epi in GELU_AUX_OUT:
                gemmex.store(aux[i], acc, aux_type)
            if epi in (EPI_RELU, EPI_RELU_BIAS, EPI_RELU_AUX, EPI_RELU_AUX_BIAS):
                acc = np.maximum(acc, 0)
            elif epi in (EPI_GELU, EPI_GELU_BIAS, EPI_GELU_AUX, EPI_GELU_AUX_BIAS):
                acc = _gelu(acc)
            elif epi in RELU_MASK_IN:
                acc = acc * np.unpackbits(np.ascontiguousarray(aux[i]), axis=0, bitorder="little")[:m].astype(dt)
            elif epi in GELU_AUX_IN:
                acc = acc * _gelu_grad(np.asarray(gemmex.load(aux[i], aux_type), dt))
            if epi in (EPI_DRELU_BGRAD, EPI_DGELU_BGRAD):
                gemmex.store(bias[i], acc.sum(axis=1, dtype=np.float64), bias_type)
            elif epi == EPI_BGRADA:
                opa = np.asarray(load(Am, atype), np.float64) if k else np.zeros((m, 0))
                gemmex.store(bias[i], (opa if ta == S.OP_N else opa.T).sum(axis=1), bias_type)
            elif epi == EPI_BGRADB:
                opb = np.asarray(load(Bm, btype), np.float64) if k else np.zeros((0, n))
                gemmex.store(bias[i], (opb if tb == S.OP_N else opb.T).sum(axis=0), bias_type)
            if compute in (S.COMPUTE_16F, S.COMPUTE_16F_PEDANTIC):
                acc = acc.astype(np.float16)
            if scales[D_AMAX_D] and acc.size:
                amax = max(amax, float(np.nanmax(np.abs(acc))))
            _put(Dm, acc * dt.type(sd) if p.is_fp8 and sd != 1.0 else acc, dtype_d)
        if scales[D_AMAX_D]:
            devmem.write_host(scales[D_AMAX_D], np.array([amax], np.float32))
    streams.submit(stream, go, "cublasLtMatmul", S.EXECUTION_FAILED)


def _write_result(results: int, algo: bytes | None = None) -> None:
    record = np.zeros(HEURISTIC_RESULT_SIZE, np.uint8)
    if algo is not None:
        record[:64] = np.frombuffer(algo, np.uint8)
    record[72:76] = np.frombuffer(np.int32(S.SUCCESS).tobytes(), np.uint8)      # state
    record[76:80] = np.frombuffer(np.float32(1.0).tobytes(), np.uint8)          # wavesCount
    devmem.write_host(results, record)                                          # no workspace


def heuristic(handle: int, desc: int, adesc: int, bdesc: int, cdesc: int, ddesc: int, pref: int, requested: int,
              results: int, count: int) -> None:
    get(handle, "handle")
    get(pref, "preference")
    if requested <= 0 or not results or not count:
        raise LibError(S.INVALID_VALUE, "requestedAlgoCount must be > 0 and the result pointers non-NULL")
    try:
        plan = _plan(desc, adesc, bdesc, cdesc, ddesc)[0]
    except LibError:
        devmem.write_host(count, np.array([0], np.int32))
        raise
    _write_result(results, lt_algos.heuristic_algo(plan.key))                   # one algorithm
    devmem.write_host(count, np.array([1], np.int32))


# ---------------------------------------------------------------- algorithms (lt_algos.py)

def algo_check(handle: int, desc: int, adesc: int, bdesc: int, cdesc: int, ddesc: int, algo: int, result: int) -> None:
    get(handle, "handle")
    p, _, _ = _plan(desc, adesc, bdesc, cdesc, ddesc)
    lt_algos.check(algo, p.key)
    if not result:
        raise LibError(S.INVALID_VALUE, "result is NULL")
    _write_result(result, devmem.read_host(algo, np.uint8, 64).tobytes())


# ---------------------------------------------------------------- emulation descriptors


def emulation_desc_create() -> int:
    """An emulation descriptor: its settings are kept; CuMetal computes natively (as cuBLASLt does
    where it has no emulated algorithm), so a set bit-count pointer receives -1."""
    return new("emulation descriptor", EMULATION_DEFAULTS)


def _emulation_pointer(d: dict[int, int | float], compute: int) -> int:
    """The bit-count pointer of the matmul's emulation descriptor, if this is an FP64 matmul."""
    e = int(d.get(D_EMULATION, 0))
    if not e:
        return 0
    ptr = int(get(e, "emulation descriptor").attrs.get(E_BIT_COUNT_POINTER, 0))
    if ptr and compute in (S.COMPUTE_64F, S.COMPUTE_64F_PEDANTIC, S.COMPUTE_64F_EMULATED_FIXEDPOINT):
        devmem.check_range(ptr, 4, "the emulation descriptor's bit-count pointer", S.INVALID_VALUE)
        return ptr
    return 0

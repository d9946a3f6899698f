"""cuBLAS's grouped batched GEMMs (cublas{S,D}gemmGroupedBatched, cublasGemmGroupedBatchedEx and their
_64 forms): ``group_count`` groups; group i has ``group_size[i]`` problems sharing transa/transb, m, n, k,
the leading dimensions, alpha and beta (host arrays of ``group_count`` entries); Aarray, Barray and
Carray are device arrays of one pointer per problem, the problems of group 0 first. Every problem is
checked before any runs; each then runs as the plain GEMM (gemm / GemmEx), in stream order."""

from __future__ import annotations

import dataclasses

import numpy as np

from cumetal.libs import devmem
from cumetal.libs.cublas import blas, gemmex
from cumetal.libs.cublas import status as S
from cumetal.libs.cublas.common import DTYPES, need
from cumetal.libs.cublas.handle import Handle


def _host_array(ptr: int, dtype: type, count: int, what: str) -> np.ndarray:
    need(ptr != 0, f"{what} is NULL")
    return devmem.read_host(ptr, dtype, count)


def gemm_grouped(h: Handle, t: str, ta_arr: int, tb_arr: int, m_arr: int, n_arr: int, k_arr: int, alpha_arr: int,
                 A: int, lda_arr: int, B: int, ldb_arr: int, beta_arr: int, C: int, ldc_arr: int, groups: int,
                 size_arr: int, width: int, atype: int = -1, btype: int = -1, ctype: int = -1,
                 compute: int = -1) -> None:
    """``t``: S or D (gemmGroupedBatched) or "" (GemmGroupedBatchedEx with the given types); ``width``: the
    bytes of the integer arrays' elements (4, or 8 for the _64 forms)."""
    need(groups >= 0, f"group_count={groups} must be >= 0")
    if groups == 0:
        return
    it = np.int64 if width == 8 else np.int32
    ta, tb = _host_array(ta_arr, np.int32, groups, "transa_array"), _host_array(tb_arr, np.int32, groups,
                                                                                   "transb_array")
    m, n, k = (_host_array(p, it, groups, w) for p, w in ((m_arr, "m_array"), (n_arr, "n_array"), (k_arr, "k_array")))
    lda, ldb, ldc = (_host_array(p, it, groups, w) for p, w in ((lda_arr, "lda_array"), (ldb_arr, "ldb_array"),
                                                                 (ldc_arr, "ldc_array")))
    sizes = _host_array(size_arr, it, groups, "group_size")
    for i, s in enumerate(sizes):
        need(s >= 0, f"group_size[{i}]={s} must be >= 0")
    if t:
        adt = bdt = cdt = sdt = DTYPES[t]
    else:
        adt, bdt, cdt = (gemmex.storage(c, w) for c, w in ((atype, "Atype"), (btype, "Btype"), (ctype, "Ctype")))
        gemmex.check_c8i(atype, btype, ctype, compute)
        sdt = gemmex.scale_dtype(gemmex.effective_compute(h, compute, atype), ctype)
    need(alpha_arr != 0 and beta_arr != 0, "alpha_array or beta_array is NULL")
    total = int(sizes.sum())
    if total == 0:
        return
    pa, pb, pc = (devmem.vector(p, np.uint64, total, 1, w, S.INVALID_VALUE)
                  for p, w in ((A, "Aarray"), (B, "Barray"), (C, "Carray")))
    problems = []
    j = 0
    for g in range(groups):
        args = (int(ta[g]), int(tb[g]), int(m[g]), int(n[g]), int(k[g]))
        gemmex.check_gemm(*args, int(lda[g]), int(ldb[g]), int(ldc[g]))
        for _ in range(int(sizes[g])):
            ptrs = (int(pa[j]), int(pb[j]), int(pc[j]))
            if args[2] and args[3]:
                gemmex.gemm_views(*args, ptrs[0], int(lda[g]), ptrs[1], int(ldb[g]), ptrs[2], int(ldc[g]), adt, bdt, cdt)
            problems.append((g, args, ptrs))
            j += 1
    host = dataclasses.replace(h, pointer_mode=S.POINTER_HOST)  # the scalars are host arrays; same stream
    item = np.dtype(sdt).itemsize
    for g, (a_t, b_t, mm, nn, kk), (pa_, pb_, pc_) in problems:
        al, be = alpha_arr + g * item, beta_arr + g * item
        if t:
            blas.gemm(host, t, a_t, b_t, mm, nn, kk, al, pa_, int(lda[g]), pb_, int(ldb[g]), be, pc_, int(ldc[g]))
        else:
            gemmex.gemm_ex(host, a_t, b_t, mm, nn, kk, al, pa_, atype, int(lda[g]), pb_, btype, int(ldb[g]), be, pc_,
                           ctype, int(ldc[g]), compute, name="cublasGemmGroupedBatchedEx")

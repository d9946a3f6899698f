"""Memory: vector ld/st, sign/zero extension, truncating stores, cache/volatile/ordering qualifiers,
shared memory (static, dynamic, via cvta), local memory, module-scope .global/.const data, isspacep."""

from __future__ import annotations

import numpy as np

from .. import values as V
from ..case import Buf, Case
from ..ptxgen import global_index, kernel_text

FAM = "memory"
N = 128  # threads per case


def _addr(buf: str, stride: int, dst: str) -> str:
    return (f"    ld.param.u64 {dst}, [p_{buf}];\n    cvta.to.global.u64 {dst}, {dst};\n"
            f"    mad.lo.u64 {dst}, %gl, {stride}, {dst};\n")


def _copy_case(name: str, src: np.ndarray, dst_dtype: str, dst_count: int, s_stride: int, d_stride: int,
               body: str, *, module_decls: str = "", shared_bytes: int = 0, block: int = N, target: str = "sm_80",
               note: str = "") -> Case:
    """One thread per slot: %ga = &src[gi*s_stride bytes], %gb = &dst[gi*d_stride bytes], then body."""
    s = Buf("src", str(src.dtype), len(src), init=src)
    d = Buf("dst", dst_dtype, dst_count, output=True)
    code = global_index() + _addr("src", s_stride, "%ga") + _addr("dst", d_stride, "%gb") + body + "\n    ret;"
    ptx = kernel_text([s, d], code, module_decls=module_decls, target=target)
    n_threads = N
    return Case(name, FAM, ptx, "k", (n_threads // block, 1, 1), (block, 1, 1), (s, d), shared_bytes=shared_bytes,
                note=note)


def _vectors() -> list[Case]:
    out = []
    w32 = V.random_bits("u32", 4 * N, salt=1)
    w64 = V.random_bits("u64", 2 * N, salt=2)
    out.append(_copy_case("ld_st_v2_u32", w32[: 2 * N], "uint32", 2 * N, 8, 8,
                          "    ld.global.v2.u32 {%t0, %t1}, [%ga];\n    st.global.v2.u32 [%gb], {%t1, %t0};",
                          note="pairs swapped"))
    out.append(_copy_case("ld_st_v4_u32", w32, "uint32", 4 * N, 16, 16,
                          "    ld.global.v4.u32 {%t0, %t1, %t2, %t3}, [%ga];\n"
                          "    st.global.v4.u32 [%gb], {%t3, %t1, %t0, %t2};"))
    out.append(_copy_case("ld_st_v2_u64", w64, "uint64", 2 * N, 16, 16,
                          "    ld.global.v2.u64 {%w0, %w1}, [%ga];\n    add.u64 %w0, %w0, %w1;\n"
                          "    st.global.v2.u64 [%gb], {%w1, %w0};"))
    f32 = np.resize(V.edges("f32"), 4 * N)
    out.append(_copy_case("ld_nc_v4_f32", f32, "uint32", 4 * N, 16, 16,
                          "    ld.global.nc.v4.f32 {%t0, %t1, %t2, %t3}, [%ga];\n"
                          "    st.global.v4.f32 [%gb], {%t0, %t1, %t2, %t3};", note="NaN payloads must survive ld/st"))
    out.append(_copy_case("ld_st_v2_f64_offsets", w64, "uint64", 2 * N, 16, 16,
                          "    ld.global.f64 %w0, [%ga+8];\n    ld.global.f64 %w1, [%ga];\n"
                          "    st.global.v2.f64 [%gb], {%w0, %w1};", note="immediate address offsets"))
    h = V.random_bits("u16", 4 * N, salt=3)
    out.append(_copy_case("ld_st_v4_u16", h, "uint16", 4 * N, 8, 8,
                          "    ld.global.v4.u16 {%h0, %h1, %h2, %h3}, [%ga];\n"
                          "    st.global.v4.u16 [%gb], {%h2, %h3, %h0, %h1};"))
    b = V.random_bits("u8", 4 * N, salt=4)
    out.append(_copy_case("ld_v4_s8_sext", b, "uint16", 4 * N, 4, 8,
                          "    ld.global.v4.s8 {%h0, %h1, %h2, %h3}, [%ga];\n"
                          "    st.global.v4.u16 [%gb], {%h0, %h1, %h2, %h3};", note="s8 sign-extends into .b16 regs"))
    return out


def _extension() -> list[Case]:
    out = []
    b = np.concatenate([V.edges("u8"), V.random_bits("u8", N - 8, salt=5)])
    h = np.concatenate([V.edges("u16"), V.random_bits("u16", N - 16, salt=6)])
    w = np.concatenate([V.edges("u32"), V.random_bits("u32", N - 21, salt=7)])
    for ty, src, stride in (("s8", b, 1), ("u8", b, 1), ("s16", h, 2), ("u16", h, 2)):
        out.append(_copy_case(f"ld_{ty}_into_b32", src, "uint32", N, stride, 4,
                              f"    ld.global.{ty} %t0, [%ga];\n    st.global.u32 [%gb], %t0;"))
    for ty, src, stride in (("s8", b, 1), ("s16", h, 2), ("s32", w, 4), ("u32", w, 4)):
        out.append(_copy_case(f"ld_{ty}_into_b64", src, "uint64", N, stride, 8,
                              f"    ld.global.{ty} %w0, [%ga];\n    st.global.u64 [%gb], %w0;"))
    out.append(_copy_case("st_u8_truncates_b32", w, "uint8", N, 4, 1,
                          "    ld.global.u32 %t0, [%ga];\n    st.global.u8 [%gb], %t0;"))
    out.append(_copy_case("st_u16_truncates_b32", w, "uint16", N, 4, 2,
                          "    ld.global.u32 %t0, [%ga];\n    st.global.u16 [%gb], %t0;"))
    out.append(_copy_case("st_u32_truncates_b64", V.random_bits("u64", N, 8), "uint32", N, 8, 4,
                          "    ld.global.u64 %w0, [%ga];\n    st.global.u32 [%gb], %w0;"))
    return out


def _qualifiers() -> list[Case]:
    w = V.random_bits("u32", 8 * N, salt=9)
    loads = ["ld.global.ca.u32", "ld.global.cg.u32", "ld.global.cs.u32", "ld.global.lu.u32", "ld.global.cv.u32",
             "ld.volatile.global.u32", "ld.relaxed.gpu.global.u32", "ld.acquire.gpu.global.u32"]
    body = "".join(f"    {op} %t{i}, [%ga+{4 * i}];\n" for i, op in enumerate(loads))
    body += "".join(f"    st.global.u32 [%gb+{4 * i}], %t{i};\n" for i in range(len(loads)))
    out = [_copy_case("ld_qualifiers", w, "uint32", 8 * N, 32, 32, body)]
    stores = ["st.global.wb.u32", "st.global.cg.u32", "st.global.cs.u32", "st.global.wt.u32",
              "st.volatile.global.u32", "st.relaxed.gpu.global.u32", "st.release.gpu.global.u32",
              "st.release.sys.global.u32"]
    body = "".join(f"    ld.global.u32 %t{i}, [%ga+{4 * i}];\n    xor.b32 %t{i}, %t{i}, {i};\n"
                   for i in range(len(stores)))
    body += "".join(f"    {op} [%gb+{4 * i}], %t{i};\n" for i, op in enumerate(stores))
    out.append(_copy_case("st_qualifiers", w, "uint32", 8 * N, 32, 32, body))
    body = ("    cvta.global.u64 %w0, %ga;\n    ld.u32 %t0, [%w0];\n    cvta.global.u64 %w1, %gb;\n"
            "    isspacep.global %q0, %w1;\n    selp.u32 %t1, 0x100, 0, %q0;\n    or.b32 %t0, %t0, %t1;\n"
            "    st.u32 [%w1], %t0;")
    out.append(_copy_case("generic_ld_st_global", w[:N] & 0xFF, "uint32", N, 4, 4, body,
                          note="generic addressing of global memory; isspacep.global on the generic address"))
    return out


def _shared_local() -> list[Case]:
    out = []
    w = V.random_bits("u32", N, salt=10)
    decl = ".shared .align 16 .b32 sm[128];\n"
    # Static shared, written through a generic (cvta) address, read back with ld.shared by a neighbour.
    body = ("    mov.u32 %t0, %tid.x;\n    ld.global.u32 %t1, [%ga];\n    mul.lo.u32 %t1, %t1, 3;\n"
            "    mov.u64 %w0, sm;\n    cvta.shared.u64 %w1, %w0;\n    mul.wide.u32 %w2, %t0, 4;\n"
            "    add.u64 %w3, %w1, %w2;\n    st.u32 [%w3], %t1;\n    bar.sync 0;\n"
            "    add.u32 %t2, %t0, 1;\n    and.b32 %t2, %t2, 127;\n    mul.wide.u32 %w4, %t2, 4;\n"
            "    add.u64 %w5, %w0, %w4;\n    ld.shared.u32 %t3, [%w5];\n"
            "    isspacep.shared %q0, %w3;\n    isspacep.global %q1, %w3;\n    cvta.to.shared.u64 %w6, %w3;\n"
            "    setp.eq.u64 %q2, %w6, %w0;\n    selp.u32 %t6, 1, 0, %q0;\n    selp.u32 %t7, 2, 0, %q1;\n"
            "    or.b32 %t6, %t6, %t7;\n    st.global.v2.u32 [%gb], {%t3, %t6};")
    out.append(_copy_case("shared_static_via_cvta", w, "uint32", 2 * N, 4, 8, body, module_decls=decl,
                          note="dst[2i] = 3*src[(i+1)%128]; dst[2i+1] = isspacep.shared | isspacep.global<<1"))
    decl = ".extern .shared .align 16 .b8 dyn[];\n"
    w64 = V.random_bits("u64", N, salt=11)
    body = ("    mov.u32 %t0, %tid.x;\n    ld.global.u64 %w0, [%ga];\n    mov.u64 %w1, dyn;\n"
            "    mul.wide.u32 %w2, %t0, 8;\n    add.u64 %w3, %w1, %w2;\n    st.shared.u64 [%w3], %w0;\n"
            "    bar.sync 0;\n    mov.u32 %t1, 127;\n    sub.u32 %t1, %t1, %t0;\n    mul.wide.u32 %w4, %t1, 8;\n"
            "    add.u64 %w5, %w1, %w4;\n    ld.shared.u64 %w6, [%w5];\n    st.global.u64 [%gb], %w6;")
    out.append(_copy_case("shared_dynamic_reverse_u64", w64, "uint64", N, 8, 8, body, module_decls=decl,
                          shared_bytes=8 * N, note="block-wide reverse through dynamic shared memory"))
    body = ("    ld.global.u32 %t0, [%ga];\n    mov.u64 %w0, lbuf;\n    mov.u32 %t1, 0;\n"
            "$Lfill:\n    mad.lo.u32 %t2, %t1, %t1, %t0;\n    mul.wide.u32 %w1, %t1, 4;\n    add.u64 %w2, %w0, %w1;\n"
            "    st.local.u32 [%w2], %t2;\n    add.u32 %t1, %t1, 1;\n    setp.lt.u32 %q0, %t1, 16;\n"
            "    @%q0 bra $Lfill;\n"
            "    and.b32 %t3, %t0, 15;\n    mul.wide.u32 %w3, %t3, 4;\n    add.u64 %w4, %w0, %w3;\n"
            "    ld.local.u32 %t4, [%w4];\n    cvta.local.u64 %w5, %w0;\n    ld.u32 %t5, [%w5+60];\n"
            "    isspacep.local %q1, %w5;\n    selp.u32 %t6, 1, 0, %q1;\n"
            "    st.global.v4.u32 [%gb], {%t4, %t5, %t6, %t3};")
    out.append(_copy_case("local_array_dynamic_index", w, "uint32", 4 * N, 4, 16, body,
                          note="per-thread .local array indexed by data; generic access via cvta.local"))
    # .local declared inside the kernel body: patch it in after the scratch declarations.
    last = out[-1]
    ptx = last.ptx.replace("    .reg .b64 %w<8>;\n", "    .reg .b64 %w<8>;\n    .local .align 4 .b32 lbuf[16];\n", 1)
    out[-1] = Case(last.name, FAM, ptx, last.kernel, last.grid, last.block, last.params, note=last.note)
    decl = (".global .align 4 .u32 gtab[8] = {1, 2, 3, 0xFFFFFFFF, 0x80000000, 5, 6, 7};\n"
            ".const .align 8 .u64 ctab[4] = {0x0123456789ABCDEF, 0xFFFFFFFFFFFFFFFF, 0, 42};\n")
    body = ("    ld.global.u32 %t0, [%ga];\n    and.b32 %t1, %t0, 7;\n    mov.u64 %w0, gtab;\n"
            "    mul.wide.u32 %w1, %t1, 4;\n    add.u64 %w2, %w0, %w1;\n    ld.global.u32 %t2, [%w2];\n"
            "    shr.u32 %t3, %t0, 8;\n    and.b32 %t3, %t3, 3;\n    mov.u64 %w3, ctab;\n    mul.wide.u32 %w4, %t3, 8;\n"
            "    add.u64 %w5, %w3, %w4;\n    ld.const.u64 %w6, [%w5];\n    cvt.u64.u32 %w7, %t2;\n"
            "    add.u64 %w7, %w7, %w6;\n    st.global.u64 [%gb], %w7;")
    out.append(_copy_case("module_global_and_const_tables", w, "uint64", N, 4, 8, body, module_decls=decl))
    return out


def cases() -> list[Case]:
    return _vectors() + _extension() + _qualifiers() + _shared_local()

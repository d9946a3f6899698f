"""PTX fetch kernels for the texture tests: one thread per coordinate (x, y, z, layer as f32 in a
16-byte record), four 32-bit result words out, as the golden recorder's kernels do."""

from __future__ import annotations

_HEAD = """.version 8.0
.target sm_80
.address_size 64
"""

_COORDS = {"1d": "{%f1}", "2d": "{%f1, %f2}", "3d": "{%f1, %f2, %f3, %f3}",
           "a1d": "{%r9, %f1}", "a2d": "{%r9, %f1, %f2, %f2}", "cube": "{%f1, %f2, %f3, %f3}",
           "acube": "{%r9, %f1, %f2, %f3}"}


def fetch_kernel(geom: str, dtype: str, name: str = "fetch", int_coords: bool = False) -> str:
    """``tex.<geom>.v4.<dtype>.f32`` (or ``.s32`` coordinates: the x value converted to int)."""
    coords = _COORDS[geom]
    ctype = "f32"
    if int_coords:
        coords, ctype = "{%r8}", "s32"
    return _HEAD + f""".visible .entry {name}(.param .u64 t, .param .u64 c, .param .u64 o, .param .u32 n)
{{
    .reg .pred %p<2>; .reg .f32 %f<5>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [t]; ld.param.u64 %rd2, [c]; ld.param.u64 %rd3, [o]; ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd4, %r5, 16; add.s64 %rd5, %rd2, %rd4; add.s64 %rd6, %rd3, %rd4;
    ld.global.v4.f32 {{%f1, %f2, %f3, %f4}}, [%rd5];
    cvt.rzi.s32.f32 %r9, %f4; cvt.rzi.s32.f32 %r8, %f1;
    tex.{geom}.v4.{dtype}.{ctype} {{%r4, %r5, %r6, %r7}}, [%rd1, {coords}];
    st.global.v4.b32 [%rd6], {{%r4, %r5, %r6, %r7}};
DONE:
    ret;
}}
"""


def gather_kernel(comp: str, dtype: str, name: str = "gather") -> str:
    """``tld4.<comp>.2d.v4.<dtype>.f32`` at (x, y)."""
    return fetch_kernel("2d", dtype, name).replace(f"tex.2d.v4.{dtype}.f32", f"tld4.{comp}.2d.v4.{dtype}.f32")


def surface_read_kernel(geom: str, size: int, mode: str, name: str = "sread") -> str:
    """One ``suld.b.<geom>`` of ``size`` bytes per thread at int coordinates (x bytes, y, z, layer)."""
    vec, t = {1: ("", "b8"), 2: ("", "b16"), 4: ("", "b32"), 8: (".v2", "b32"), 16: (".v4", "b32")}[size]
    n = {"": 1, ".v2": 2, ".v4": 4}[vec]
    regs = ", ".join(f"%r{20 + k}" for k in range(n))
    coords = {"1d": "{%r10}", "2d": "{%r10, %r11}", "3d": "{%r10, %r11, %r12, %r12}",
              "a2d": "{%r13, %r10, %r11, %r11}"}[geom]
    stores = "\n".join(f"    st.global.b32 [%rd6+{4 * k}], %r{20 + k};" for k in range(n))
    if size < 4:
        stores = f"    st.global.{'b8' if size == 1 else 'b16'} [%rd6], %rs1;"
        regs = "%rs1"
    return _HEAD + f""".visible .entry {name}(.param .u64 t, .param .u64 c, .param .u64 o, .param .u32 n)
{{
    .reg .pred %p<2>; .reg .b16 %rs<2>; .reg .b32 %r<30>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [t]; ld.param.u64 %rd2, [c]; ld.param.u64 %rd3, [o]; ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd4, %r5, 16; add.s64 %rd5, %rd2, %rd4;
    mul.wide.u32 %rd4, %r5, {size}; add.s64 %rd6, %rd3, %rd4;
    ld.global.v4.b32 {{%r10, %r11, %r12, %r13}}, [%rd5];
    suld.b.{geom}{vec}.{t}.{mode} {{{regs}}}, [%rd1, {coords}];
{stores}
DONE:
    ret;
}}
"""


def surface_write_kernel(size: int, mode: str, name: str = "swrite") -> str:
    """One thread writes ``n`` values (``size`` bytes each) in order with ``sust.b.2d``."""
    vec, t = {1: ("", "b8"), 2: ("", "b16"), 4: ("", "b32"), 8: (".v2", "b32"), 16: (".v4", "b32")}[size]
    n = {"": 1, ".v2": 2, ".v4": 4}[vec]
    if size < 4:
        load = f"    ld.global.{t} %rs1, [%rd6];"
        regs = "%rs1"
    else:
        load = "\n".join(f"    ld.global.b32 %r{20 + k}, [%rd6+{4 * k}];" for k in range(n))
        regs = ", ".join(f"%r{20 + k}" for k in range(n))
    return _HEAD + f""".visible .entry {name}(.param .u64 t, .param .u64 c, .param .u64 v, .param .u32 n)
{{
    .reg .pred %p<2>; .reg .b16 %rs<2>; .reg .b32 %r<30>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [t]; ld.param.u64 %rd2, [c]; ld.param.u64 %rd3, [v]; ld.param.u32 %r1, [n];
    mov.u32 %r5, 0;
LOOP:
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd4, %r5, 16; add.s64 %rd5, %rd2, %rd4;
    mul.wide.u32 %rd4, %r5, {size}; add.s64 %rd6, %rd3, %rd4;
    ld.global.v4.b32 {{%r10, %r11, %r12, %r13}}, [%rd5];
{load}
    sust.b.2d{vec}.{t}.{mode} [%rd1, {{%r10, %r11}}], {{{regs}}};
    add.u32 %r5, %r5, 1;
    bra LOOP;
DONE:
    ret;
}}
"""

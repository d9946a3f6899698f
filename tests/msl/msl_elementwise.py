"""Generate PTX kernels that apply one instruction element-wise: out[i] = op(a[i], b[i], c[i])."""

from __future__ import annotations

_REG = {"f32": ("f", ".f32", 4), "f64": ("fd", ".f64", 8), "u32": ("r", ".u32", 4), "s32": ("r", ".s32", 4),
        "b32": ("r", ".b32", 4), "u64": ("rd", ".u64", 8), "s64": ("rd", ".s64", 8), "b64": ("rd", ".b64", 8),
        "b16": ("h", ".b16", 2), "u16": ("h", ".u16", 2), "s16": ("h", ".s16", 2), "pred": ("p", ".pred", 1)}


def kernel(name: str, instr: str, out_t: str, in_ts: tuple[str, ...]) -> str:
    """``instr`` uses {d} for the result and {a} {b} {c} for the inputs."""
    regs = {
        "f": ".reg .f32 %f<8>;", "fd": ".reg .f64 %fd<8>;", "r": ".reg .b32 %r<8>;", "rd": ".reg .b64 %rd<16>;",
        "h": ".reg .b16 %h<8>;", "p": ".reg .pred %p<4>;",
    }
    lines = [f".visible .entry {name}(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pout, .param .u32 n)",
             "{"] + [f"  {r}" for r in regs.values()] + [
        "  .reg .b32 %i<4>;",
        "  mov.u32 %i0, %tid.x;", "  mov.u32 %i1, %ctaid.x;", "  mov.u32 %i2, %ntid.x;",
        "  mad.lo.u32 %i0, %i1, %i2, %i0;", "  ld.param.u32 %i3, [n];",
        "  setp.ge.u32 %p3, %i0, %i3;", "  @%p3 bra DONE;",
    ]
    names = {}
    for k, (slot, t) in enumerate(zip("abc", in_ts, strict=False)):
        prefix, ptx_t, size = _REG[t]
        lines += [f"  ld.param.u64 %rd{10 + k}, [p{slot}];", f"  mul.wide.u32 %rd13, %i0, {size};",
                  f"  add.s64 %rd{10 + k}, %rd{10 + k}, %rd13;"]
        reg = f"%{prefix}{k + 1}"
        if t == "pred":
            lines += [f"  ld.global.u8 %h7, [%rd{10 + k}];", f"  setp.ne.u16 {reg}, %h7, 0;"]
        else:
            lines.append(f"  ld.global{ptx_t} {reg}, [%rd{10 + k}];")
        names[slot] = reg
    prefix, ptx_t, size = _REG[out_t]
    d = f"%{prefix}0" if out_t != "pred" else "%p0"
    lines.append("  " + instr.format(d=d, **names) + ";")
    lines += ["  ld.param.u64 %rd14, [pout];", f"  mul.wide.u32 %rd13, %i0, {size};", "  add.s64 %rd14, %rd14, %rd13;"]
    if out_t == "pred":
        lines += ["  selp.u16 %h6, 1, 0, %p0;", "  st.global.u8 [%rd14], %h6;"]
    else:
        lines.append(f"  st.global{ptx_t} [%rd14], {d};")
    lines += ["DONE:", "  ret;", "}"]
    return "\n".join(lines) + "\n"

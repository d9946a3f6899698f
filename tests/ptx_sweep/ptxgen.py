"""Builders for the PTX text of sweep kernels.

Registers are declared with bit-size types (.b16/.b32/.b64), which PTX accepts for any
instruction type of the same width, so one declaration block serves every template.
Names reserved for templates start with %g; case bodies use:
  %a %b %c (inputs), %d %e (outputs), scratch %t0-%t15 (.b32), %w0-%w7 (.b64),
  %h0-%h7 (.b16), %q0-%q7 (.pred).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .case import Buf, Case, Scalar

DEFAULT_VERSION = "7.8"
DEFAULT_TARGET = "sm_80"

# Width in bits of a PTX type name, for register declarations and ld/st suffixes.
_BITS = {
    "pred": 1, "b8": 8, "u8": 8, "s8": 8,
    "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16,
    "b32": 32, "u32": 32, "s32": 32, "f32": 32, "f16x2": 32, "bf16x2": 32,
    "b64": 64, "u64": 64, "s64": 64, "f64": 64,
}

# numpy storage dtype and float format for a PTX value type held in a buffer.
_STORAGE = {
    "u8": ("uint8", None), "s8": ("int8", None), "b8": ("uint8", None),
    "u16": ("uint16", None), "s16": ("int16", None), "b16": ("uint16", None),
    "u32": ("uint32", None), "s32": ("int32", None), "b32": ("uint32", None),
    "u64": ("uint64", None), "s64": ("int64", None), "b64": ("uint64", None),
    "f16": ("uint16", "f16"), "bf16": ("uint16", "bf16"),
    "f16x2": ("uint32", "f16x2"), "bf16x2": ("uint32", "bf16x2"),
    "f32": ("uint32", "f32"), "f64": ("uint64", "f64"),
}

SCRATCH_DECLS = """\
    .reg .pred %gp;
    .reg .b32 %gi, %gn;
    .reg .b64 %gl, %ga, %gb;
    .reg .pred %q<8>;
    .reg .b16 %h<8>;
    .reg .b32 %t<16>;
    .reg .b64 %w<8>;"""


def bits(ptx_type: str) -> int:
    return _BITS[ptx_type]


def storage(ptx_type: str) -> tuple[str, str | None]:
    return _STORAGE[ptx_type]


def reg_type(ptx_type: str) -> str:
    """Register declaration type for a value type (8-bit values live in 16-bit registers)."""
    if ptx_type == "pred":
        return "pred"
    return f"b{max(16, bits(ptx_type))}"


def header(version: str | None = None, target: str = DEFAULT_TARGET) -> str:
    if version is None:  # sm_90-only features also need PTX ISA 8.0
        version = "8.0" if target.startswith("sm_9") else DEFAULT_VERSION
    return f".version {version}\n.target {target}\n.address_size 64\n"


def param_decl(p: Buf | Scalar) -> str:
    if isinstance(p, Buf):
        return f".param .u64 p_{p.name}"
    return f".param .{p.ptx_type} p_{p.name}"


def kernel_text(
    params: Sequence[Buf | Scalar],
    body: str,
    *,
    name: str = "k",
    version: str | None = None,
    target: str = DEFAULT_TARGET,
    decls: str = "",
    module_decls: str = "",
) -> str:
    """A module with one `.visible .entry` whose body gets the scratch registers declared."""
    plist = ",\n    ".join(param_decl(p) for p in params)
    return (
        f"{header(version, target)}{module_decls}\n"
        f".visible .entry {name}(\n    {plist}\n)\n{{\n{SCRATCH_DECLS}\n{decls}\n{body}\n}}\n"
    )


def global_index() -> str:
    """PTX computing %gi = ctaid.x * ntid.x + tid.x and %gl = (u64)%gi."""
    return (
        "    mov.u32 %gi, %ctaid.x;\n"
        "    mov.u32 %gn, %ntid.x;\n"
        "    mul.lo.u32 %gi, %gi, %gn;\n"
        "    mov.u32 %gn, %tid.x;\n"
        "    add.u32 %gi, %gi, %gn;\n"
        "    cvt.u64.u32 %gl, %gi;\n"
    )


def element_address(buf: str, elem_bytes: int, dst: str = "%ga") -> str:
    """PTX computing dst = global address of element %gl of buffer param p_<buf>."""
    return (
        f"    ld.param.u64 {dst}, [p_{buf}];\n"
        f"    cvta.to.global.u64 {dst}, {dst};\n"
        f"    mad.lo.u64 {dst}, %gl, {elem_bytes}, {dst};\n"
    )


def launch_shape(n: int, block: int = 128) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    b = min(n, block)
    return ((n + b - 1) // b, 1, 1), (b, 1, 1)


def elementwise(
    name: str,
    family: str,
    body: str,
    ins: Sequence[tuple[str, str, np.ndarray]],
    outs: Sequence[tuple[str, str]],
    *,
    rule: str = "exact",
    rules: dict[str, str] | None = None,
    version: str | None = None,
    target: str = DEFAULT_TARGET,
    note: str = "",
    out_fmt: dict[str, str | None] | None = None,
) -> Case:
    """A one-thread-per-element kernel: load inputs into registers, run `body`, store outputs.

    ins: (register name without %, PTX value type, values); outs: (register, PTX value type).
    Output buffers start as 0xCD sentinel bytes. The value types pick ld/st widths; 8-bit
    values travel in .b16 registers (ld.u8/st.u8 widen and truncate).
    """
    n = len(ins[0][2]) if ins else 1
    params: list[Buf | Scalar] = []
    for reg, ty, vals in ins:
        dt, fmt = storage(ty)
        arr = np.asarray(vals)
        if arr.dtype.kind == "f":  # float data given as numbers: store their bit patterns
            arr = arr.astype({"f32": np.float32, "f64": np.float64, "f16": np.float16}[ty]).view(dt)
        params.append(Buf(reg, dt, n, init=arr.astype(dt, copy=False), fmt=fmt))
    for reg, ty in outs:
        dt, fmt = storage(ty)
        if out_fmt and reg in out_fmt:
            fmt = out_fmt[reg]
        r = (rules or {}).get(reg, rule)
        params.append(Buf(reg, dt, n, output=True, rule=r, fmt=fmt))
    params.append(Scalar("n", "u32", n))

    decl_lines = []
    for reg, ty in [(r, t) for r, t, _ in ins] + list(outs):
        decl_lines.append(f"    .reg .{reg_type(ty)} %{reg};")
    code = [global_index(), "    ld.param.u32 %gn, [p_n];\n", "    setp.ge.u32 %gp, %gi, %gn;\n",
            "    @%gp bra $Ldone;\n"]
    for reg, ty, _ in ins:
        code.append(element_address(reg, bits(ty) // 8 if bits(ty) >= 8 else 1))
        code.append(f"    ld.global.{_ldst_type(ty)} %{reg}, [%ga];\n")
    code.append(body.rstrip() + "\n")
    for reg, ty in outs:
        code.append(element_address(reg, bits(ty) // 8))
        code.append(f"    st.global.{_ldst_type(ty)} [%ga], %{reg};\n")
    code.append("$Ldone:\n    ret;")
    ptx = kernel_text(params, "".join(code), version=version, target=target, decls="\n".join(decl_lines))
    grid, block = launch_shape(n)
    return Case(name=name, family=family, ptx=ptx, kernel="k", grid=grid, block=block,
                params=tuple(params), note=note)


def _ldst_type(ty: str) -> str:
    if ty in ("u8", "s8", "b8"):
        return ty
    return f"b{bits(ty)}"

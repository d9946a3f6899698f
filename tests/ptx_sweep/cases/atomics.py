"""Atomics: atom/red on global and shared memory with many lanes hitting few addresses.

Final memory is compared exactly (operands are chosen so every order gives the same bits: integer
ops, float sums of small multiples of 1/4). Returned old values are compared as a multiset only
where the multiset is order-independent (same operand everywhere: add-constant, inc, dec, a CAS
increment loop, exch with the final value appended); their order is hardware-dependent.
"""

from __future__ import annotations

import numpy as np

from .. import values as V
from ..case import Buf, Case
from ..ptxgen import bits, global_index, kernel_text, storage

FAM = "atomics"
THREADS = 256


def _operand(ty: str, mode: str, const: str | int | None) -> tuple[np.ndarray | None, str]:
    """(per-thread operand values or None, PTX loading them into %a)."""
    dt, _ = storage(ty)
    if mode == "const":
        return None, f"    mov.b{bits(ty)} %a, {const};\n"
    g = V.rng(bits(ty) + len(mode))
    if mode == "quarters":  # small multiples of 1/4: every summation order is exact
        vals = (g.integers(-256, 256, THREADS) / 4.0).astype({"f32": np.float32, "f64": np.float64}[ty]).view(dt)
    elif mode == "edges":
        e = V.edges(ty)
        vals = np.concatenate([e, V.random_bits(ty, THREADS - len(e), salt=31)])
    else:  # random bits
        vals = V.random_bits(ty, THREADS, salt=32)
    return vals.astype(dt), ""


def atomic_case(name: str, instr: str, ty: str, *, space: str = "global", mode: str = "const",
                const: str | int | None = 1, k: int = 4, olds: bool = True, exch_final: bool = False,
                cas_loop: bool = False, init: np.ndarray | None = None, target: str = "sm_80",
                grid: int = 4, note: str = "") -> Case:
    """instr is the full opcode ('atom.global.add.u32', 'red.shared.min.s32', ...)."""
    dt, fmt = storage(ty)
    size = bits(ty) // 8
    rt = f"b{bits(ty)}"
    if space == "shared" or exch_final:
        grid = 1
    block = THREADS // grid
    mem_init = init if init is not None else np.zeros(k, dtype=dt)
    # After exch the memory holds whichever operand came last: not fixed, so it is checked only as
    # part of the olds multiset (olds[THREADS] = final value).
    mem = Buf("mem", dt, k, init=mem_init.astype(dt), output=not exch_final, fmt=fmt)
    params: list[Buf] = [mem]
    vals, load_const = _operand(ty, mode, const)
    if vals is not None:
        params.append(Buf("vals", dt, THREADS, init=vals, fmt=fmt))
    n_olds = THREADS + (1 if exch_final else 0)
    if olds:
        params.append(Buf("olds", dt, n_olds, output=True, rule="multiset", fmt=fmt))
    decls = f"    .reg .{rt} %a, %c, %d;\n"
    mod = f".shared .align 8 .b8 smem[{k * size}];\n" if space == "shared" else ""
    code = [global_index(), "    ld.param.u64 %gb, [p_mem];\n    cvta.to.global.u64 %gb, %gb;\n",
            "    mov.u32 %t10, %tid.x;\n"]
    if vals is not None:
        code.append(f"    ld.param.u64 %ga, [p_vals];\n    cvta.to.global.u64 %ga, %ga;\n"
                    f"    mad.lo.u64 %ga, %gl, {size}, %ga;\n    ld.global.{rt} %a, [%ga];\n")
    else:
        code.append(load_const)
    code.append(f"    rem.u32 %t0, %gi, {k};\n    mul.wide.u32 %w0, %t0, {size};\n")
    if space == "shared":
        code.append(f"    mov.u64 %w1, smem;\n    setp.lt.u32 %q3, %t10, {k};\n"
                    f"    mul.wide.u32 %w2, %t10, {size};\n    add.u64 %w3, %gb, %w2;\n    add.u64 %w4, %w1, %w2;\n"
                    f"    @%q3 ld.global.{rt} %c, [%w3];\n    @%q3 st.shared.{rt} [%w4], %c;\n    bar.sync 0;\n"
                    "    add.u64 %w5, %w1, %w0;\n")
    else:
        code.append("    add.u64 %w5, %gb, %w0;\n")
    sp = "shared" if space == "shared" else "global"
    if cas_loop:
        code.append(f"    ld.volatile.{sp}.{rt} %c, [%w5];\n$Lretry:\n    add.u{bits(ty)} %a, %c, 1;\n"
                    f"    {instr} %d, [%w5], %c, %a;\n    setp.ne.b{bits(ty)} %q0, %d, %c;\n"
                    f"    mov.b{bits(ty)} %c, %d;\n    @%q0 bra $Lretry;\n")
    elif instr.startswith("red"):
        code.append(f"    {instr} [%w5], %a;\n")
    elif instr.startswith("atom") and ".cas." in instr:
        raise ValueError("cas cases use cas_loop")
    else:
        code.append(f"    {instr} %d, [%w5], %a;\n")
    if olds:
        code.append(f"    ld.param.u64 %ga, [p_olds];\n    cvta.to.global.u64 %ga, %ga;\n"
                    f"    mad.lo.u64 %ga, %gl, {size}, %ga;\n    st.global.{rt} [%ga], %d;\n")
    if space == "shared":
        code.append(f"    bar.sync 0;\n    @%q3 ld.shared.{rt} %c, [%w4];\n    @%q3 st.global.{rt} [%w3], %c;\n")
    if exch_final:
        code.append(f"    bar.sync 0;\n    setp.eq.u32 %q1, %t10, 0;\n    @!%q1 bra $Lend;\n"
                    f"    ld.volatile.{sp}.{rt} %c, [%w5];\n"
                    f"    ld.param.u64 %ga, [p_olds];\n    cvta.to.global.u64 %ga, %ga;\n"
                    f"    st.global.{rt} [%ga+{THREADS * size}], %c;\n$Lend:\n")
    code.append("    ret;")
    ptx = kernel_text(params, "".join(code), decls=decls, module_decls=mod, target=target)
    return Case(name, FAM, ptx, "k", (grid, 1, 1), (block, 1, 1), tuple(params), note=note)


def _n(instr: str) -> str:
    return instr.replace(".", "_")


def cases() -> list[Case]:
    out: list[Case] = []
    u32_init = np.array([0, 7, 100, 0xFFFFFFFF], dtype=np.uint32)
    for sp in ("global", "shared"):
        a = f"atom.{sp}"
        out += [
            atomic_case(_n(f"{a}.add.u32") + "_const", f"{a}.add.u32", "u32", space=sp, const=1),
            atomic_case(_n(f"{a}.add.u32") + "_vals", f"{a}.add.u32", "u32", space=sp, mode="random", olds=False),
            atomic_case(_n(f"{a}.add.u64") + "_const", f"{a}.add.u64", "u64", space=sp, const=3,
                        init=np.array([0, 1 << 32, (1 << 64) - 100, 5], dtype=np.uint64)),
            atomic_case(_n(f"{a}.add.f32") + "_const", f"{a}.add.f32", "f32", space=sp, const="0f3F000000"),
            atomic_case(_n(f"{a}.add.f32") + "_quarters", f"{a}.add.f32", "f32", space=sp, mode="quarters",
                        olds=False),
            atomic_case(_n(f"{a}.add.f64") + "_quarters", f"{a}.add.f64", "f64", space=sp, mode="quarters",
                        olds=False),
            atomic_case(_n(f"{a}.inc.u32"), f"{a}.inc.u32", "u32", space=sp, const=9, init=u32_init,
                        note="new = old >= 9 ? 0 : old+1"),
            atomic_case(_n(f"{a}.dec.u32"), f"{a}.dec.u32", "u32", space=sp, const=9, init=u32_init,
                        note="new = (old == 0 || old > 9) ? 9 : old-1"),
            atomic_case(_n(f"{a}.exch.b32"), f"{a}.exch.b32", "b32", space=sp, mode="random", k=1, exch_final=True,
                        note="olds[256] holds the final value so the multiset is order-independent"),
            atomic_case(_n(f"{a}.cas.b32") + "_loop", f"{a}.cas.b32", "b32", space=sp, cas_loop=True,
                        note="each thread CAS-increments until it succeeds; olds = successful old values"),
            atomic_case(_n(f"{a}.cas.b64") + "_loop", f"{a}.cas.b64", "b64", space=sp, cas_loop=True, k=2),
            atomic_case(_n(f"{a}.add.noftz.f16x2"), f"{a}.add.noftz.f16x2", "f16x2", space=sp, const="0x3C00BC00",
                        k=8, note="+1.0 in the high half, -1.0 in the low half"),
        ]
        for ty in ("u32", "s32", "u64", "s64"):
            for op in ("min", "max"):
                out.append(atomic_case(_n(f"{a}.{op}.{ty}"), f"{a}.{op}.{ty}", ty, space=sp, mode="edges", olds=False,
                                       init=np.resize(V.edges(ty), 4) if sp == "global" else None))
        for ty in ("b32", "b64"):
            for op in ("and", "or", "xor"):
                out.append(atomic_case(_n(f"{a}.{op}.{ty}"), f"{a}.{op}.{ty}", ty, space=sp, mode="random",
                                       olds=False, init=V.random_bits(ty, 4, salt=33)))
    out += [
        atomic_case("atom_global_add_s32_edges", "atom.global.add.s32", "s32", mode="edges", olds=False),
        atomic_case("atom_global_exch_b64", "atom.global.exch.b64", "b64", mode="random", k=1, exch_final=True),
        atomic_case("atom_global_add_noftz_f16", "atom.global.add.noftz.f16", "f16", const="0x3C00", k=8),
        atomic_case("atom_global_add_noftz_bf16", "atom.global.add.noftz.bf16", "bf16", const="0x3F80", k=8,
                    target="sm_90"),
        atomic_case("atom_global_add_noftz_bf16x2", "atom.global.add.noftz.bf16x2", "bf16x2", const="0x3F80BF80",
                    k=8, target="sm_90"),
        atomic_case("atom_generic_add_u32", "atom.add.u32", "u32", const=5, note="generic address of global memory"),
        atomic_case("atom_relaxed_gpu_add_u32", "atom.relaxed.gpu.global.add.u32", "u32", const=2),
        atomic_case("atom_acq_rel_sys_add_u64", "atom.acq_rel.sys.global.add.u64", "u64", const=1),
        atomic_case("atom_acquire_cta_shared_inc_u32", "atom.acquire.cta.shared.inc.u32", "u32", space="shared",
                    const=5),
        atomic_case("red_global_add_u32", "red.global.add.u32", "u32", mode="random", olds=False),
        atomic_case("red_global_add_f32_quarters", "red.global.add.f32", "f32", mode="quarters", olds=False),
        atomic_case("red_global_add_f64_quarters", "red.global.add.f64", "f64", mode="quarters", olds=False),
        atomic_case("red_global_add_u64", "red.global.add.u64", "u64", mode="random", olds=False),
        atomic_case("red_global_min_s32", "red.global.min.s32", "s32", mode="edges", olds=False),
        atomic_case("red_global_max_u64", "red.global.max.u64", "u64", mode="edges", olds=False),
        atomic_case("red_global_or_b32", "red.global.or.b32", "b32", mode="random", olds=False),
        atomic_case("red_global_xor_b64", "red.global.xor.b64", "b64", mode="random", olds=False),
        atomic_case("red_global_inc_u32", "red.global.inc.u32", "u32", const=9, olds=False, init=u32_init),
        atomic_case("red_global_dec_u32", "red.global.dec.u32", "u32", const=9, olds=False, init=u32_init),
        atomic_case("red_global_add_noftz_f16x2", "red.global.add.noftz.f16x2", "f16x2", const="0x3C003800",
                    olds=False, k=8),
        atomic_case("red_shared_add_u32", "red.shared.add.u32", "u32", space="shared", mode="random", olds=False),
        atomic_case("red_shared_max_s32", "red.shared.max.s32", "s32", space="shared", mode="edges", olds=False),
    ]
    return out

"""Launch-time specialization of texture and surface fetches on their object's descriptor.

The PTX lowering of ``tex``/``tld4``/``suld``/``sust`` (``passes/semantics/texture.py``) reads the
texture object's descriptor at run time and covers every channel format, read mode, filter mode and
address mode with selects and guarded loads: about a thousand IR operations per 2D fetch. A program
fixes those properties when it creates the object, so at launch a kernel whose texture handle comes
straight from a kernel parameter can be specialized: the descriptor fields that select the code
(``FOLDED``) are read from device memory, the marked descriptor loads (``texdesc`` attribute) are
replaced by those constants, and constant folding (``passes/fold_constants.py``, through the ops'
reference definitions, so the bits do not change) removes the code of the other formats and modes.

The specialized kernel is a copy (the original is never modified) held per kernel and per
descriptor values, so a relaunch with an object of another format or mode gets (and compiles) its
own copy, and the JIT cache key (the IR text) differs with the folded values. Sizes, pitches,
base addresses and border colors stay run-time values: a new image of the same kind reuses the
compiled code. Handles that come from memory (arrays or structs of objects), from a device
function's argument or through arithmetic keep the generic code, as does a handle whose
descriptor cannot be read or has no CuMetal magic word (the fetch then reports what it reports).
``CUMETAL_TEX_SPECIALIZE=0`` turns the specialization off (the generic code everywhere); ``=all``
folds the whole descriptor (see ``GEOMETRY_VARIANTS``).
"""

from __future__ import annotations

import dataclasses
import os
import struct
from collections import OrderedDict

from cumetal.ir.nodes import Block, Const, Function, Inst, Module, SymAddr, Var
from cumetal.ir.ops import TERMINATORS
from cumetal.passes.fold_constants import _PROPAGATE_FROM, _foldable, fold_constants
from cumetal.passes.semantics.texture import FIELDS, LEVEL_TABLE, MAGIC

# The descriptor fields that choose code paths (u32 words): always folded.
FOLDED = ("elem", "nch", "csize", "kind", "read_norm", "linear", "norm_coords", "addr0", "addr1", "addr2",
          "res_type", "magic", "levels", "mip_linear")
# With CUMETAL_TEX_SPECIALIZE=all the rest of the descriptor (base, pitches, sizes, border colors,
# level-of-detail clamps) is folded too, for the first GEOMETRY_VARIANTS objects a kernel sees (then
# only FOLDED: a program making new images must not compile per image). Not the default: measured,
# it does not make the fetch vectorize (the float/int conversions are runtime calls) and gains
# little, while its IR holds allocation addresses, so the disk cache misses in the next process.
GEOMETRY_VARIANTS = 4
_READ_BYTES = LEVEL_TABLE  # the descriptor up to its mip level table (read per launch)
_LOAD_BYTES = {"i32": 4, "f32": 4, "i64": 8, "f64": 8}
MAX_VARIANTS = 16  # specialized copies kept per kernel (oldest dropped first)
MAX_FOLD_ROUNDS = 12  # constant propagation across blocks: rounds of substitution + folding


@dataclasses.dataclass
class _Plan:
    """Which parameters of a kernel are texture handles, and its specialized copies."""

    kernel: Function
    module: Module | None
    handles: tuple[int, ...]  # parameter-buffer offsets of handles read by marked descriptor loads
    variants: OrderedDict = dataclasses.field(default_factory=OrderedDict)
    geometries: set = dataclasses.field(default_factory=set)  # whole descriptors folded so far


_plans: dict[int, _Plan] = {}
_PLANS_MAX = 256


def _single_defs(fn: Function) -> dict[int, Inst]:
    """var id -> its only defining instruction (vars written more than once are left out)."""
    defs: dict[int, Inst | None] = {}
    for b in fn.blocks:
        for inst in b.insts:
            for d in inst.dsts:
                defs[d.id] = inst if d.id not in defs else None
    return {k: v for k, v in defs.items() if v is not None}


def _handle_param(fn: Function, defs: dict[int, Inst], addr) -> tuple[int, int] | None:
    """(parameter-buffer offset of the handle, byte offset into the descriptor) of a descriptor
    load's address, when the handle is a kernel parameter read directly (through copies)."""
    offset = 0
    if isinstance(addr, Var):
        inst = defs.get(addr.id)
        if inst is not None and inst.op == "add" and inst.guard is None and isinstance(inst.args[1], Const):
            addr, offset = inst.args[0], inst.args[1].bits
    for _ in range(8):  # copies of the handle
        if not isinstance(addr, Var):
            return None
        inst = defs.get(addr.id)
        if inst is None or inst.guard is not None:
            return None
        if inst.op == "mov" and inst.args[0].__class__ is Var and addr.type == "i64":
            addr = inst.args[0]
            continue
        if inst.op == "load" and inst.attrs.get("space") == "param" and isinstance(inst.args[0], SymAddr) \
                and inst.args[0].space == "param" and addr.type in ("i64", "u64", "b64"):
            sym = inst.args[0]
            param = next((p for p in fn.params if p.name == sym.name), None)
            if param is None or param.size < sym.offset + 8:
                return None
            return param.offset + sym.offset, offset
        return None
    return None


def _marked_loads(fn: Function) -> list[tuple[Inst, int, str, int]]:
    """(load, handle parameter offset, field, byte offset in the descriptor) of every descriptor
    load of ``fn`` whose handle is a kernel parameter (level-table loads are not: their address
    depends on the level)."""
    if not any(inst.op == "load" and "texdesc" in inst.attrs for b in fn.blocks for inst in b.insts):
        return []  # (most kernels: no def-use walk)
    defs = _single_defs(fn)
    out = []
    for b in fn.blocks:
        for inst in b.insts:
            name = inst.attrs.get("texdesc") if inst.op == "load" else None
            if name is None or name not in FIELDS or defs.get(inst.dsts[0].id) is not inst:
                continue
            size = _LOAD_BYTES.get(inst.dsts[0].type)
            where = _handle_param(fn, defs, inst.args[0])
            if size is None or where is None:
                continue
            at = where[1]
            if FIELDS[name] <= at and at + size <= _READ_BYTES and (at - FIELDS[name]) % size == 0:
                out.append((inst, where[0], name, at))
    return out


def _plan(kernel: Function, module: Module) -> _Plan:
    plan = _plans.get(id(kernel))
    if plan is not None and plan.kernel is kernel:
        return plan
    if len(_plans) >= _PLANS_MAX:
        for k in list(_plans)[: _PLANS_MAX // 2]:
            del _plans[k]
    handles = tuple(sorted({off for _, off, _, _ in _marked_loads(kernel)}))
    plan = _plans[id(kernel)] = _Plan(kernel, None, handles)
    return plan


def descriptor_bytes(memory, handle: int) -> bytes | None:
    """The descriptor at ``handle`` up to its level table, or None when it is not readable or not a
    CuMetal descriptor (then the generic code runs and reports what it reports)."""
    try:
        raw = bytes(memory.read(handle, _READ_BYTES))
    except Exception:  # noqa: BLE001 - an unmapped or short address: not ours to report here
        return None
    if len(raw) < _READ_BYTES or struct.unpack_from("<I", raw, FIELDS["magic"])[0] != MAGIC:
        return None
    return raw


def _modes(raw: bytes) -> bytes:
    return b"".join(raw[FIELDS[f]: FIELDS[f] + 4] for f in FOLDED)


def for_launch(kernel: Function, module: Module, memory, params: bytes) -> tuple[Function, Module]:
    """The kernel (and module) to launch: a copy specialized on the descriptors its parameter
    handles point to, or ``kernel`` and ``module`` themselves when nothing can be specialized."""
    plan = _plan(kernel, module)
    if not plan.handles or os.environ.get("CUMETAL_TEX_SPECIALIZE", "1") == "0":
        return kernel, module
    raws = []
    for off in plan.handles:
        if len(params) < off + 8:
            return kernel, module
        raw = descriptor_bytes(memory, int.from_bytes(params[off: off + 8], "little"))
        if raw is None:
            return kernel, module
        raws.append(raw)
    whole = (id(module), True, tuple(raws))
    hit = plan.variants.get(whole)
    if hit is None:
        geometry = os.environ.get("CUMETAL_TEX_SPECIALIZE") == "all" and (
            whole[2] in plan.geometries or len(plan.geometries) < GEOMETRY_VARIANTS)
        key = whole if geometry else (id(module), False, tuple(_modes(r) for r in raws))
        hit = plan.variants.get(key)
    else:
        key, geometry = whole, True
    if hit is not None and hit[1] is module:
        try:
            plan.variants.move_to_end(key)
        except KeyError:  # dropped meanwhile by a launch on another stream's thread: still valid
            pass
        return hit[0], hit[2]
    if geometry:
        plan.geometries.add(whole[2])
    spec = specialize(kernel, dict(zip(plan.handles, raws, strict=True)), geometry=geometry)
    spec_module = dataclasses.replace(module, kernels={**module.kernels, kernel.name: spec})
    plan.variants[key] = (spec, module, spec_module)
    if len(plan.variants) > MAX_VARIANTS:
        plan.variants.popitem(last=False)
    return spec, spec_module


def specialize(kernel: Function, descriptors: dict[int, bytes], *, geometry: bool = False) -> Function:
    """A copy of ``kernel`` with the descriptor loads of the handles at these parameter offsets
    replaced by the descriptor's values (``FOLDED`` fields; every field with ``geometry``), folded
    (``kernel`` is not modified)."""
    copy = _copy_function(kernel)
    consts: dict[int, Const] = {}
    for inst, off, name, at in _marked_loads(copy):
        raw = descriptors.get(off)
        if raw is None or not (geometry or name in FOLDED):
            continue
        t = inst.dsts[0].type
        value = Const(t, int.from_bytes(raw[at: at + _LOAD_BYTES[t]], "little"))
        inst.op, inst.args, inst.attrs, inst.guard, inst.guard_negated = "mov", (value,), {}, None, False
        consts[inst.dsts[0].id] = value
    for _ in range(MAX_FOLD_ROUNDS):
        if not consts:
            break
        _substitute(copy, consts)
        fold_constants(copy)
        consts = _new_constants(copy)
    return copy


def _copy_function(fn: Function) -> Function:
    """A copy whose instructions may be rewritten in place (vars are shared: they are not mutated)."""
    blocks = [Block(b.label, [Inst(i.op, i.dsts, i.args, dict(i.attrs), i.guard, i.guard_negated, i.loc, i.text)
                              for i in b.insts]) for b in fn.blocks]
    return dataclasses.replace(fn, blocks=blocks, params=list(fn.params), calls=list(fn.calls),
                               shared_vars=dict(fn.shared_vars), local_vars=dict(fn.local_vars))


def _new_constants(fn: Function) -> dict[int, Const]:
    """Vars written once, by an unguarded copy of a constant, that some other block still reads."""
    out: dict[int, Const] = {}
    for vid, inst in _single_defs(fn).items():
        if inst.op == "mov" and inst.guard is None and isinstance(inst.args[0], Const) \
                and inst.dsts[0].type == inst.args[0].type:
            out[vid] = inst.args[0]
    used = set()
    for b in fn.blocks:
        for inst in b.insts:
            for a in _propagated_args(inst):
                if isinstance(a, Var) and a.id in out:
                    used.add(a.id)
            if inst.guard is not None and inst.guard.id in out and inst.op not in TERMINATORS:
                used.add(inst.guard.id)
    return {k: v for k, v in out.items() if k in used}


def _propagated_args(inst: Inst):
    """The arguments constant folding may replace by a constant (as fold_constants does: per-lane
    ops' operands and the value operands of stores, atomics, branches and warp ops; addresses stay)."""
    if _foldable(inst.op) and inst.dsts:
        return inst.args
    first = _PROPAGATE_FROM.get(inst.op)
    return inst.args[first:] if first is not None else ()


def _substitute(fn: Function, consts: dict[int, Const]) -> None:
    """Replace reads of the vars in ``consts`` (each written once, by that constant) with it."""
    for b in fn.blocks:
        keep = []
        for inst in b.insts:
            g = inst.guard
            if g is not None and g.id in consts and inst.op not in TERMINATORS:
                if bool(consts[g.id].bits & 1) == inst.guard_negated:
                    continue  # never executes
                inst.guard, inst.guard_negated = None, False
            if _foldable(inst.op) and inst.dsts:
                inst.args = tuple(consts.get(a.id, a) if isinstance(a, Var) else a for a in inst.args)
            else:
                first = _PROPAGATE_FROM.get(inst.op)
                if first is not None:
                    inst.args = inst.args[:first] + tuple(
                        consts.get(a.id, a) if isinstance(a, Var) else a for a in inst.args[first:])
            keep.append(inst)
        b.insts = keep

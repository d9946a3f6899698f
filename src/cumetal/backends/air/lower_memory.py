"""Memory operations of the kernel IR in AIR: address spaces, generic dispatch, atomics, printf.

IR addresses are i64. Device addresses (spaces global/const/param) become ``addrspace(1)``
pointers by ``inttoptr(address + addr_delta)`` (``addr_delta`` from launch_info: 0 where CuMetal
device pointers are GPU addresses). Shared addresses are offsets in the IR's shared window:
below the dynamic base they index the kernel's static shared global ``@cm_static_shared``, from it
on the threadgroup(0) binding (both ``addrspace(3)``; ``shared_pointer``). Local addresses are offsets into the thread's local stack (an ``alloca``,
address space 0). A generic address is dispatched at run time on the IR windows
(``SHARED_WINDOW`` / ``LOCAL_WINDOW``; anything else is a device address).

Atomics are ``air.atomic.{global,local}.*`` calls (Apple never emits atomicrmw/cmpxchg). What AIR
lacks is expanded: exch of a float and narrow words as a compare-and-swap loop on
``air.atomic.*.cmpxchg.weak.i32`` (inc/dec and float add/min/max arrive as an IR compare-and-swap
loop: the legalizer's atomic.inc_dec and atomic.float rules); 64-bit atomics as a critical section under a lock word of
launch_info (each lane takes and releases the lock within one loop iteration, so SIMD-lockstep
execution cannot deadlock).
"""

from __future__ import annotations

from collections.abc import Callable

from cumetal.backends.air import bitcode as bc
from cumetal.backends.air.abi import metal_abi
from cumetal.backends.air.lower_context import FnLowerer, llty
from cumetal.ir import nodes as N
from cumetal.ir import types as T
from cumetal.ir.ops import LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE

DEVICE_SPACES = ("global", "const", "param")


def mem_type(t: str) -> bc.Type:
    return bc.I8 if t == "i1" else llty(t)


def pointer(k: FnLowerer, space: str, addr: bc.Value, elem: bc.Type) -> bc.Value:
    """A typed pointer for IR address ``addr`` in ``space`` (not generic)."""
    b = k.b
    if space in DEVICE_SPACES:
        return b.inttoptr(b.add(addr, k.ctx.delta), bc.ptr(elem, 1))
    if space == "shared":
        return b.bitcast(shared_pointer(k, addr), bc.ptr(elem, 3))
    if space == "local":
        p = b.gep(bc.I8, k.ctx.local, [addr])
        return b.bitcast(p, bc.ptr(elem, 0))
    raise k.error(f"no pointer for space {space!r}")


def shared_pointer(k: FnLowerer, off: bc.Value) -> bc.Value:
    """``i8 addrspace(3)*`` for shared-window offset ``off``: ``off < dyn_base`` addresses the static
    global, the rest the threadgroup(0) binding at ``off - dyn_base``. Decided at compile time for a
    constant offset (a shared variable's address), and for any offset when the kernel has only one of
    the two parts; a computed offset that may reach either part gets a run-time select."""
    b = k.b
    lay = k.shared_layout
    g = k.static_shared

    def static(o: bc.Value) -> bc.Value:
        assert g is not None
        return b.gep(bc.array(bc.I8, lay.static_size), g, [k.i64(0), o])

    def dynamic(o: bc.Value) -> bc.Value:
        return b.gep(bc.I8, k.ctx.shared, [o])

    if g is None:  # no static part: the dynamic base is 0, the whole window is the binding
        return dynamic(off)
    if isinstance(off, bc.ConstantInt):
        # unsigned, as the run-time compare: a "negative" offset lands past the dynamic part
        return static(off) if off.value < lay.dyn_base else dynamic(k.i64(off.value - lay.dyn_base))
    if not lay.uses_dynamic:
        return static(off)
    in_static = b.icmp("ult", off, k.i64(lay.dyn_base))
    return b.select(in_static, static(off), dynamic(b.sub(off, k.i64(lay.dyn_base))))


def in_window(k: FnLowerer, addr: bc.Value, window: int) -> bc.Value:
    return k.b.icmp("ult", k.b.sub(addr, k.i64(window)), k.i64(WINDOW_SIZE))


def by_space(k: FnLowerer, space: str, addr: bc.Value, body: Callable[[str, bc.Value], bc.Value | None],
             result: bc.Type | None) -> bc.Value | None:
    """Run ``body(space, space_address)`` for ``addr``; a generic address is dispatched at run time
    into shared, local or device code, joined by a phi when there is a ``result``."""
    if space != "generic":
        return body(space, addr)
    b = k.b
    is_shared = in_window(k, addr, SHARED_WINDOW)
    is_local = in_window(k, addr, LOCAL_WINDOW)
    s_bb, not_s = k.new_block("gen.shared"), k.new_block("gen.notshared")
    l_bb, g_bb, join = k.new_block("gen.local"), k.new_block("gen.global"), k.new_block("gen.join")
    b.cond_br(is_shared, s_bb, not_s)
    k.goto(not_s)
    b.cond_br(is_local, l_bb, g_bb)
    incoming = []
    for bb, sp, base in ((s_bb, "shared", SHARED_WINDOW), (l_bb, "local", LOCAL_WINDOW), (g_bb, "global", 0)):
        k.goto(bb)
        v = body(sp, b.sub(addr, k.i64(base)) if base else addr)
        incoming.append((v, k.b.block))
        b.br(join)
    k.goto(join)
    if result is None:
        return None
    return b.phi(result, incoming)


def lower_load(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    t = inst.dsts[0].type
    elem = mem_type(t)
    space = inst.attrs["space"]
    volatile = bool(inst.attrs.get("volatile"))
    align = inst.attrs.get("align") or T.bytes_of(t)
    fast = k.param_pointer(inst.args[0], elem) if space == "param" else None

    def body(sp: str, addr: bc.Value) -> bc.Value:
        p = fast if fast is not None else pointer(k, sp, addr, elem)
        return k.b.load(elem, p, align=align, volatile=volatile)

    v = by_space(k, space, a[0], body, elem)
    return k.b.trunc(v, bc.I1) if t == "i1" else v


def lower_store(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> None:
    t = inst.args[1].type
    elem = mem_type(t)
    value = k.b.zext(a[1], bc.I8) if t == "i1" else a[1]
    space = inst.attrs["space"]
    volatile = bool(inst.attrs.get("volatile"))
    align = inst.attrs.get("align") or T.bytes_of(t)
    fast = k.param_pointer(inst.args[0], elem) if space == "param" else None

    def body(sp: str, addr: bc.Value) -> None:
        p = fast if fast is not None else pointer(k, sp, addr, elem)
        k.b.store(value, p, align=align, volatile=volatile)

    by_space(k, space, a[0], body, None)


def lower_memcpy(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> None:
    size = int(inst.attrs["size"])
    dst_space, src_space = inst.attrs["dst_space"], inst.attrs["src_space"]
    for i in range(size):  # cp.async sizes are 4, 8 or 16 bytes
        off = k.i64(i)
        byte = by_space(k, src_space, k.b.add(a[1], off),
                        lambda sp, ad: k.b.load(bc.I8, pointer(k, sp, ad, bc.I8), align=1), bc.I8)
        by_space(k, dst_space, k.b.add(a[0], off),
                 lambda sp, ad, byte=byte: k.b.store(byte, pointer(k, sp, ad, bc.I8), align=1), None)


# ------------------------------------------------------------------------------- address casts
def lower_cvta_to_generic(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    space = inst.attrs["space"]
    base = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW}.get(space, 0)
    return k.b.add(a[0], k.i64(base)) if base else a[0]


def lower_cvta_from_generic(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    space = inst.attrs["space"]
    base = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW}.get(space, 0)
    return k.b.sub(a[0], k.i64(base)) if base else a[0]


def lower_isspacep(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    space = inst.attrs["space"]
    if space == "shared":
        return in_window(k, a[0], SHARED_WINDOW)
    if space == "local":
        return in_window(k, a[0], LOCAL_WINDOW)
    # global/const/param: any address outside the shared and local windows
    either = k.b.or_(in_window(k, a[0], SHARED_WINDOW), in_window(k, a[0], LOCAL_WINDOW))
    return k.b.xor(either, bc.const_int(bc.I1, 1))


# ------------------------------------------------------------------------------------- atomics
ORDER_RELAXED = 0
SCOPE = {"global": 2, "shared": 1}
AIR_SPACE = {"global": "global", "shared": "local"}
TRUE = bc.const_int(bc.I1, 1)


def _native_name(aop: str, t: str) -> str | None:
    """The air.atomic operation suffix for a native 32-bit RMW, or None (needs a CAS loop)."""
    if t == "i32":
        return {"add": "add.u.i32", "min": "min.s.i32", "max": "max.s.i32", "umin": "min.u.i32",
                "umax": "max.u.i32", "and": "and.u.i32", "or": "or.u.i32", "xor": "xor.u.i32",
                "exch": "xchg.i32"}.get(aop)
    return None


def rmw_value(k: FnLowerer, aop: str, t: str, old: bc.Value, v: bc.Value) -> bc.Value:
    """The value an RMW stores given the old one, per cumetal.ir.ops (integers as bits)."""
    b = k.b
    if aop in ("add", "and", "or", "xor"):
        return b.binop(aop, old, v)
    if aop == "exch":
        return v
    if aop in ("min", "max", "umin", "umax"):
        pred = {"min": "slt", "max": "sgt", "umin": "ult", "umax": "ugt"}[aop]
        return b.select(b.icmp(pred, old, v), old, v)
    raise k.error(f"atomic operation {aop!r} on {t} has no AIR lowering")


def _cas32(k: FnLowerer, sp: str, p: bc.Value, expected: bc.Value, desired: bc.Value) -> bc.Value:
    """air.atomic.<sp>.cmpxchg.weak.i32: returns the value found; ``expected`` travels in an alloca."""
    slot = k.entry_alloca(bc.I32, "cas.expected")
    k.b.store(expected, slot, align=4)
    name = f"air.atomic.{AIR_SPACE[sp]}.cmpxchg.weak.i32"
    pty = bc.ptr(bc.I32, 1 if sp == "global" else 3)
    return k.air(name, bc.I32, [p, slot, desired, k.i32(ORDER_RELAXED), k.i32(ORDER_RELAXED), k.i32(SCOPE[sp]), TRUE],
                 kind="atomic", params=[pty, bc.ptr(bc.I32, 0), bc.I32, bc.I32, bc.I32, bc.I32, bc.I1])


def _atomic_load32(k: FnLowerer, sp: str, p: bc.Value) -> bc.Value:
    return k.air(f"air.atomic.{AIR_SPACE[sp]}.load.i32", bc.I32, [p, k.i32(ORDER_RELAXED), k.i32(SCOPE[sp]), TRUE],
                 kind="atomic")


def _cas_loop(k: FnLowerer, sp: str, addr: bc.Value, t: str, update: Callable[[bc.Value], bc.Value],
              sub_word: bool = False) -> bc.Value:
    """Old value of a 32-bit (or narrower, inside its aligned word) RMW done by a CAS loop."""
    b = k.b
    bits = T.bits(t)
    word_addr = b.and_(addr, k.i64(~3)) if sub_word else addr
    p = pointer(k, sp, word_addr, bc.I32)
    shift = b.trunc(b.shl(b.and_(addr, k.i64(3)), k.i64(3)), bc.I32) if sub_word else None
    first = _atomic_load32(k, sp, p)
    pre = b.block
    loop, done = k.new_block("cas.loop"), k.new_block("cas.done")
    b.br(loop)
    k.goto(loop)
    cur = b.phi(bc.I32, [(first, pre)])
    if sub_word:
        old = b.trunc(b.lshr(cur, shift), llty(T.int_type(bits)))
        new_part = b.zext(update(old), bc.I32)
        mask = b.shl(k.i32((1 << bits) - 1), shift)
        new = b.or_(b.and_(cur, b.xor(mask, k.i32(-1))), b.shl(new_part, shift))
    else:
        old = cur
        new = update(old)
    seen = _cas32(k, sp, p, cur, new)
    cur.add_incoming(seen, k.b.block)
    b.cond_br(b.icmp("eq", seen, cur), done, loop)
    k.goto(done)
    return old


def _locked64(k: FnLowerer, sp: str, addr: bc.Value, update: Callable[[bc.Value], bc.Value]) -> bc.Value:
    """64-bit RMW in a critical section under launch_info lock word hash(addr)."""
    b = k.b
    ctx = k.ctx
    locks = metal_abi.INFO_HEADER_WORDS + 2 * len(k.irm.globals)
    idx = b.and_(b.lshr(addr, k.i64(3)), k.i64(metal_abi.DEFAULT_LOCKS - 1))
    lock = b.gep(bc.I32, ctx.info, [b.add(idx, k.i64(locks))])
    p = pointer(k, sp, addr, bc.I64)
    result = k.entry_alloca(bc.I64, "locked.old")
    loop, crit, latch, done = (k.new_block("lock.try"), k.new_block("lock.held"), k.new_block("lock.retry"),
                               k.new_block("lock.done"))
    b.br(loop)
    k.goto(loop)
    got = b.icmp("eq", _cas32(k, "global", lock, k.i32(0), k.i32(1)), k.i32(0))
    b.cond_br(got, crit, latch)
    k.goto(crit)
    old = b.load(bc.I64, p, align=8, volatile=True)
    b.store(update(old), p, align=8, volatile=True)
    b.store(old, result, align=8)
    k.air("air.atomic.global.store.i32", bc.VOID, [lock, k.i32(0), k.i32(ORDER_RELAXED), k.i32(SCOPE["global"]), TRUE],
          kind="atomic")
    b.br(done)
    k.goto(latch)
    b.br(loop)
    k.goto(done)
    return b.load(bc.I64, result, align=8)


def atomic_rmw(k: FnLowerer, sp: str, addr: bc.Value, t: str, aop: str, v: bc.Value,
               cmp: bc.Value | None = None) -> bc.Value:
    """Old value of an RMW (``aop`` 'cas' with ``cmp``) at ``addr`` in global or shared space."""
    b = k.b
    from cumetal.backends.air import lower_float as F

    it = T.int_type(T.bits(t))
    vb = F.to_bits(k, t, v) if T.is_float(t) else v
    if aop == "cas":
        cb = F.to_bits(k, t, cmp) if T.is_float(t) else cmp

        def update(old: bc.Value) -> bc.Value:
            return b.select(b.icmp("eq", old, cb), vb, old)
    else:
        def update(old: bc.Value) -> bc.Value:
            return rmw_value(k, aop, t, old, vb)

    if sp == "local":  # thread-private memory: a plain read-modify-write is atomic
        p = pointer(k, sp, addr, llty(it))
        old = b.load(llty(it), p, align=T.bytes_of(t))
        b.store(update(old), p, align=T.bytes_of(t))
        res = old
    elif T.bits(t) == 64:
        res = _locked64(k, sp, addr, update)
    elif aop == "cas" and T.bits(t) == 32:
        p = pointer(k, sp, addr, bc.I32)
        res = _cas32(k, sp, p, cb, vb)
    elif (native := _native_name(aop, t)) is not None:
        elem = bc.FLOAT if t == "f32" else bc.I32
        p = pointer(k, sp, addr, elem)
        r = k.air(f"air.atomic.{AIR_SPACE[sp]}.{native}", elem,
                  [p, v if t == "f32" else vb, k.i32(ORDER_RELAXED), k.i32(SCOPE[sp]), TRUE], kind="atomic")
        return r
    else:
        res = _cas_loop(k, sp, addr, it, update, sub_word=T.bits(t) < 32)
    return F.from_bits(k, t, res) if T.is_float(t) else res


def lower_atomic(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    t = inst.dsts[0].type
    aop = inst.attrs["aop"]
    space = inst.attrs["space"]
    space = "global" if space in DEVICE_SPACES else space
    return by_space(k, space, a[0], lambda sp, ad: atomic_rmw(k, sp, ad, t, aop, a[1]), llty(t))


def lower_atomic_cas(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    t = inst.dsts[0].type
    space = inst.attrs["space"]
    space = "global" if space in DEVICE_SPACES else space
    return by_space(k, space, a[0], lambda sp, ad: atomic_rmw(k, sp, ad, t, "cas", a[2], a[1]), llty(t))


# ------------------------------------------------------------------------------------- printf
def lower_printf(k: FnLowerer, inst: N.Inst, a: list[bc.Value]) -> bc.Value:
    """Append a record to the printf ring (buffer 2) in the ABI's format (apple/printf_ring.py):
    ``{u32 format id + 1, u32 argument bytes, vprintf argument bytes padded to 8}`` after the
    16-byte header ``{used, capacity, dropped, 0}``. The format must be a module string known at
    compile time (its id indexes ``printf_formats(module)``); d = number of arguments, or -1 when
    the record does not fit (it is then counted as dropped)."""
    from cumetal.backends.apple.printf_ring import PrintfError, printf_formats, record_layout, resolve_format

    b = k.b
    ctx = k.ctx
    if ctx.printf is None:
        raise k.error("printf needs the printf binding (internal ABI mismatch)")
    try:
        fmt = resolve_format(k.irfn, k.irm, inst)
        fmt_id = printf_formats(k.irm).index(fmt)
    except PrintfError as exc:
        raise k.error(str(exc)) from None
    nbytes, nargs = record_layout(fmt)
    total = 8 + (nbytes + 7) // 8 * 8
    ring = ctx.printf
    off = k.air("air.atomic.global.add.u.i32", bc.I32, [ring, k.i32(total), k.i32(0), k.i32(2), TRUE], kind="atomic")
    cap = b.load(bc.I32, b.gep(bc.I32, ring, [1]), align=4)
    end = b.add(off, k.i32(total))
    fits = b.and_(b.icmp("ule", end, cap), b.icmp("uge", end, off))
    ok_bb, drop_bb, join = k.new_block("printf.write"), k.new_block("printf.drop"), k.new_block("printf.join")
    b.cond_br(fits, ok_bb, drop_bb)
    k.goto(drop_bb)
    k.air("air.atomic.global.add.u.i32", bc.I32, [b.gep(bc.I32, ring, [2]), k.i32(1), k.i32(0), k.i32(2), TRUE],
          kind="atomic")
    b.br(join)
    k.goto(ok_bb)
    rec = b.gep(bc.I32, ring, [b.zext(b.add(b.lshr(off, k.i32(2)), k.i32(metal_abi.PRINTF_HEADER_BYTES // 4)),
                                      bc.I64)])
    b.store(k.i32(fmt_id + 1), rec, align=4)
    b.store(k.i32(nbytes), b.gep(bc.I32, rec, [1]), align=4)
    for i in range(nbytes // 4):  # the vprintf buffer, 4 bytes at a time, from wherever it lives
        word = by_space(k, "generic", b.add(a[1], k.i64(4 * i)),
                        lambda sp, ad: k.b.load(bc.I32, pointer(k, sp, ad, bc.I32), align=4), bc.I32)
        b.store(word, b.gep(bc.I32, rec, [2 + i]), align=4)
    done = b.block
    b.br(join)
    k.goto(join)
    return b.phi(bc.I32, [(k.i32(nargs), done), (k.i32(-1), drop_bb)])


HANDLERS = {
    "load": lower_load, "store": lower_store, "memcpy": lower_memcpy, "atomic": lower_atomic,
    "atomic_cas": lower_atomic_cas, "cvta_to_generic": lower_cvta_to_generic,
    "cvta_from_generic": lower_cvta_from_generic, "isspacep": lower_isspacep, "printf": lower_printf,
}

"""Prepare an AIR module (the bitcode that goes into the .metallib) for execution on the host.

The module is read back with llvmlite and changed only where the host needs it:

* the triple and datalayout become the host's (the AIR code itself is target-neutral LLVM);
* every load and store through an ``addrspace(1)`` (device) or ``addrspace(3)`` (threadgroup)
  pointer is preceded by an inline check (``__sim_chk1/3``): the address must lie in the window
  (one allocation or threadgroup region) that the same access site hit last and be aligned; on a
  miss the runtime's ``sim_slow1/3`` checks the allocation table and moves the site's window, or
  faults. Every private (address space 0) access that is not to an alloca itself (an IR register)
  is preceded by ``sim_check0``, checked against the thread's local-memory stack that
  ``sim_local`` registers; a bad access faults instead of touching host memory;
* loop headers (targets of back edges) count a tick (``__sim_tick``); every 65536th calls the
  runtime's watchdog;
* threadgroup (``addrspace(3)``) globals -- a kernel's static shared memory -- lose their
  ``internal`` linkage and ``undef`` initializer (``threadgroup_global``): the optimizer must not
  fold loads of memory that other threads of the threadgroup write, nor split the global into
  pieces; the runtime zeroes each one before every threadgroup (``as3_ranges``);
* an entry wrapper ``__sim_entry(ptr slots)`` loads each kernel argument from a 16-byte slot and
  calls the kernel, so the C scheduler needs no knowledge of vector calling conventions.

* every SIMD-group call is preceded by a store of its place in program order to ``__sim_order``
  (``order.py``): the runtime resolves, among the sites the lanes of a warp wait at, the earliest
  one first (min-PC reconvergence, as the numpy engine); loops that hold SIMD-group calls get a
  warp step before their back edge (``_latch_steps``), where lanes wait for the rest of the warp;
* the scheduling point of a legalized wait (``wait_points``: an mbarrier wait, a named barrier's
  wait) becomes a call of the runtime's ``sim_wait_point``, which parks the thread until no other
  thread of the threadgroup can run, instead of a SIMD-group operation it would spin at.

Everything else (the air.* calls, barriers, SIMD-group operations, atomics) runs as written,
against the C runtime's implementations.
"""

from __future__ import annotations

import re

from cumetal.backends.air.sim.grid import instrument_grid_barriers
from cumetal.backends.air.sim.order import block_order, loop_latches
from cumetal.backends.common.codes import SimArgKind, WaitKind

_DEFINE = re.compile(r"^define .*@(\"[^\"]+\"|[\w.$-]+)\(")
_LABEL = re.compile(r"^(\"[^\"]+\"|[\w.$-]+):")
_TARGETS = re.compile(r"label %(\"[^\"]+\"|[\w.$-]+)")
_LOAD = re.compile(r"^\s*%[\w.$-]+ = load (?:volatile )?(.+?), ptr (?:addrspace\(([13])\) )?(%[\w.$-]+|@[\w.$-]+)"
                   r"(?:, align (\d+))?")
_STORE = re.compile(r"^\s*store (?:volatile )?(.+), ptr (?:addrspace\(([13])\) )?(%[\w.$-]+|@[\w.$-]+)"
                    r"(?:, align (\d+))?")
_VOLATILE = re.compile(r"^\s*(?:%[\w.$-]+ = )?(?:load|store) volatile ")
_VOLATILE_AS3_LOAD = re.compile(r"^\s*%[\w.$-]+ = load volatile .*, ptr addrspace\(3\) ")
_WRITES = re.compile(r"^\s*(?:store |fence |(?:%[\w.$-]+ = )?(?:tail |musttail |notail )?call |"
                     r"%[\w.$-]+ = (?:atomicrmw|cmpxchg|invoke) )")
_AS3_GLOBAL = re.compile(r"^(@(?:\"[^\"]+\"|[\w.$-]+)) = (?:(?:internal|private) )?((?:local_)?unnamed_addr )?"
                         r"addrspace\(3\) global (.+?) undef(, align \d+)?$")
_ALLOCA = re.compile(r"^\s*(%[\w.$-]+) = alloca ")
_LOCAL_STACK = re.compile(r"^\s*%local_stack = alloca \[(\d+) x i8\]")
_SCALAR_BYTES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "half": 2, "bfloat": 2, "float": 4,
                 "double": 8, "ptr": 8}
_VECTOR = re.compile(r"^<(\d+) x ([\w]+)>")

DECLS = """
declare void @sim_check0(ptr, i64, i64)
declare void @sim_slow1(ptr addrspace(1), i64, i64, ptr)
declare void @sim_slow3(ptr addrspace(3), i64, i64, ptr)
declare void @sim_local(ptr, i64)
declare void @sim_watchdog()
declare void @sim_volatile_step()
declare void @sim_wait_point(i32, i32, ptr addrspace(3))
declare void @sim_enter(i32)
declare void @sim_leave()
declare i64 @sim_clock64()
declare i64 @sim_globaltimer()
"""
ORDER = "__sim_order"  # program order of the SIMD-group call about to be made (a global per engine)
# The inline check of a device (1) or threadgroup (3) access: [site] = window base, [site+8] = the
# number of valid start addresses from it for this site's access size (runtime.c set_window).
# The window loads are marked invariant so that LLVM hoists them out of loops (the work-group
# loop, a thread's loops): a window read before the slow path moved it is still a window the
# runtime validated for this launch (allocations do not change during a launch), so a stale copy
# only sends more accesses to the slow path, which checks them in full.
_CHECK_FN = """
define internal void @__sim_chk{sp}(ptr addrspace({sp}) %p, i64 %n, i64 %al, ptr %site) alwaysinline {{
entry:
  %a = ptrtoint ptr addrspace({sp}) %p to i64
  %lo = load i64, ptr %site, align 8, !invariant.load !{{}}
  %limp = getelementptr i64, ptr %site, i64 1
  %lim = load i64, ptr %limp, align 8, !invariant.load !{{}}
  %off = sub i64 %a, %lo
  %in = icmp ult i64 %off, %lim
  %m = sub i64 %al, 1
  %mis = and i64 %a, %m
  %aligned = icmp eq i64 %mis, 0
  %ok = and i1 %in, %aligned
  br i1 %ok, label %done, label %slow, !prof !{{!"branch_weights", i32 1000000, i32 1}}
slow:
  call void @sim_slow{sp}(ptr addrspace({sp}) %p, i64 %n, i64 %al, ptr %site)
  br label %done
done:
  ret void
}}
"""
# With one threadgroup global of known size (a kernel's static shared memory), a threadgroup
# access is first compared with that global's bounds: its address is a link-time constant, so the
# test needs no window loads (which a coroutine would otherwise keep in its frame and reload in
# every region); an access outside it (dynamic shared memory) goes on to the site's window.
# The static-global part of the test (also the vectorization probe's, wivector.py): %goff, the
# access's offset in the global, and %glim, the offsets an access of %n bytes may start at.
STATIC3_TEST = """  %g = ptrtoint ptr addrspace(3) {glob} to i64
  %goff = sub i64 %a, %g
  %big = icmp ugt i64 %n, {size}
  %room = sub i64 {size_plus_1}, %n
  %glim = select i1 %big, i64 0, i64 %room
"""
_CHECK3_STATIC = """
define internal void @__sim_chk3(ptr addrspace(3) %p, i64 %n, i64 %al, ptr %site) alwaysinline {{
entry:
  %a = ptrtoint ptr addrspace(3) %p to i64
""" + STATIC3_TEST + """  %gin = icmp ult i64 %goff, %glim
  %m = sub i64 %al, 1
  %mis = and i64 %a, %m
  %aligned = icmp eq i64 %mis, 0
  %gok = and i1 %gin, %aligned
  br i1 %gok, label %done, label %window, !prof !{{!"branch_weights", i32 1000000, i32 1}}
window:
  %lo = load i64, ptr %site, align 8, !invariant.load !{{}}
  %limp = getelementptr i64, ptr %site, i64 1
  %lim = load i64, ptr %limp, align 8, !invariant.load !{{}}
  %off = sub i64 %a, %lo
  %in = icmp ult i64 %off, %lim
  %ok = and i1 %in, %aligned
  br i1 %ok, label %done, label %slow, !prof !{{!"branch_weights", i32 1000000, i32 1}}
slow:
  call void @sim_slow3(ptr addrspace(3) %p, i64 %n, i64 %al, ptr %site)
  br label %done
done:
  ret void
}}
"""
_ARRAY = re.compile(r"^\[(\d+) x (i8|i16|i32|i64|float|double|half)\]$")


def _check3_fn(lines: list[str]) -> str:
    """``__sim_chk3``: with the static-global test when the module has exactly one threadgroup
    global whose size the text states (``[N x T]``), else the window test alone."""
    found = [m for line in lines if (m := _AS3_GLOBAL.match(line))]
    if len(found) == 1:
        name, _unnamed, ty, _align = found[0].groups()
        arr = _ARRAY.match(ty.strip())
        if arr:
            size = int(arr.group(1)) * _SCALAR_BYTES[arr.group(2)]
            return _CHECK3_STATIC.format(glob=name, size=size, size_plus_1=size + 1)
    return _CHECK_FN.format(sp=3)


_TICK_FN = """
define internal void @__sim_tick(ptr %c) alwaysinline {
entry:
  %t = load i64, ptr %c, align 8
  %t1 = add i64 %t, 1
  store i64 %t1, ptr %c, align 8
  %m = and i64 %t1, 65535
  %z = icmp eq i64 %m, 0
  br i1 %z, label %slow, label %done, !prof !{!"branch_weights", i32 1, i32 65535}
slow:
  call void @sim_watchdog()
  br label %done
done:
  ret void
}
"""
# The tick counter is a local of each function (an alloca that LLVM keeps in a register): a
# global would be reloaded and stored around every call and chains the threads of a work-group
# loop through memory. Every loop header of an activation ticks its own counter, so a thread that
# loops forever still reaches the watchdog; the runtime also checks it between threadgroups.
SITES = "__sim_sites"  # [2 x i64] per check site (a global of the JIT module: one per engine)


# air.* functions whose meaning is exactly an LLVM intrinsic's (IEEE correctly rounded, no
# rounding-mode or NaN-payload difference from the C runtime's implementation): called as the
# intrinsic, they compile to an instruction inline (vfmadd, roundss, ...) instead of a call. Not
# sqrt: LLVM treats llvm.sqrt of a negative operand as free to fold, and the NaN then differs
# from the one the lowering's NaN rules expect (sweep case sqrt_rn_f32).
_INTRINSICS = {
    **{f"air.{op}.{t}": f"llvm.{op}.{t}" for op in ("fma", "fabs", "floor", "ceil", "rint")
       for t in ("f32", "f64")},
    **{f"air.{m}.{s}.i{w}": f"llvm.{s}{m}.i{w}" for m in ("min", "max") for s in ("s", "u")
       for w in (16, 32, 64)},
    "air.popcount.i32": "llvm.ctpop.i32",
}
_DECLARE = re.compile(r"^declare .*@(\"[^\"]+\"|[\w.$-]+)\(")
_CALLEE = re.compile(r"@(air\.[\w.]+)\(")


def _intrinsic_line(line: str) -> str | None:
    """The line with air.* callees that are LLVM intrinsics renamed; None for their declarations."""
    m = _DECLARE.match(line)
    if m and m.group(1) in _INTRINSICS:
        return None
    if "@air." not in line:
        return line
    return _CALLEE.sub(lambda c: f"@{_INTRINSICS.get(c.group(1), c.group(1))}(", line)


def _intrinsic_declarations(text: str) -> str:
    """Declarations of the intrinsics the renamed calls use (types from the air.* declarations)."""
    out = []
    for line in text.splitlines():
        m = _DECLARE.match(line)
        if m and m.group(1) in _INTRINSICS:
            ret_and_args = line[len("declare "):].split(" #")[0]
            out.append("declare " + ret_and_args.replace(f"@{m.group(1)}(", f"@{_INTRINSICS[m.group(1)]}("))
    return "\n".join(out) + "\n"


# The lowering's clock functions (lower_warp.py CLOCK_FUNCTIONS: 0 on Metal) become the runtime's
# clocks on the host: the definitions go, the calls go to runtime.c's sim_clock64/sim_globaltimer.
_CLOCKS = {"cm.sreg.clock64": "sim_clock64", "cm.sreg.globaltimer": "sim_globaltimer"}
_CLOCK_CALL = re.compile(r'@"?(cm\.sreg\.(?:clock64|globaltimer))"?\(')


def host_clocks(lines: list[str]) -> list[str]:
    """The module's lines with the clock functions' definitions dropped and their calls renamed."""
    out: list[str] = []
    skipping = False
    for line in lines:
        if skipping:
            skipping = line != "}"
            continue
        m = _DEFINE.match(line)
        if m and m.group(1).strip('"') in _CLOCKS:
            skipping = True
            continue
        if "@cm.sreg." in line or '@"cm.sreg.' in line:
            line = _CLOCK_CALL.sub(lambda c: f"@{_CLOCKS[c.group(1)]}(", line)
        out.append(line)
    return out


# printf records are appended by an atomic add on the ring's used-bytes word (lower_memory.py
# lower_printf) in the block that branches to printf.write / printf.drop
_PRINTF_BRANCH = re.compile(r"^\s*br i1 %[\w.$-]+, label %\"?printf\.write\d*\"?, label %\"?printf\.drop\d*\"?$")
_RING_RESERVE = re.compile(r"^\s*%[\w.$-]+ = (?:tail )?call i32 @\"?air\.atomic\.global\.add\.u\.i32\"?\(")


def printf_steps(lines: list[str]) -> list[str]:
    """A warp step before every printf: the lanes of a warp then append their records together,
    lane by lane, as a GPU's warp executes the call (lane 0..31 of one printf, then the next
    printf), instead of each thread printing all its lines before the next thread starts."""
    blocks = _blocks(lines)
    changed = False
    for bi, (name, body) in enumerate(blocks):
        end = next((j for j in range(len(body) - 1, -1, -1) if body[j].strip()), None)
        if end is None or not _PRINTF_BRANCH.match(body[end]):
            continue
        at = next((j for j in range(end - 1, -1, -1) if _RING_RESERVE.match(body[j])), None)
        if at is not None:
            body.insert(at, "  call void @sim_volatile_step()")
            blocks[bi] = (name, body)
            changed = True
    return [line for _, body in blocks for line in body] if changed else lines


class InstrumentError(ValueError):
    """The module text has a shape the instrumentation does not understand."""


def type_bytes(ty: str) -> int:
    ty = ty.strip()
    m = _VECTOR.match(ty)
    if m:
        return int(m.group(1)) * _SCALAR_BYTES[m.group(2)]
    base = ty.split()[0]
    if base.startswith("ptr"):
        return 8
    if base not in _SCALAR_BYTES:
        raise InstrumentError(f"air-sim: cannot size memory access of type {ty!r}")
    return _SCALAR_BYTES[base]


def _store_type(operand: str) -> str:
    operand = operand.strip()
    if operand.startswith("<"):
        return operand[: operand.index(">") + 1]
    if operand.startswith("ptr addrspace("):
        return "ptr"
    return operand.split()[0]


_BITCAST = re.compile(r"^\s*(%[\w.$-]+) = bitcast ptr addrspace\(1\) (%[\w.$-]+) to ptr addrspace\(1\)$")
_GEP_CONST = re.compile(r"^\s*(%[\w.$-]+) = getelementptr (?:inbounds )?(i8|i16|i32|i64), ptr addrspace\(1\) "
                        r"(%[\w.$-]+), i64 (-?\d+)$")
_GEP_BYTES = {"i8": 1, "i16": 2, "i32": 4, "i64": 8}


def _const_offsets(lines: list[str], bases: dict[str, list[tuple[int, int]]]) -> dict[str, tuple[str, int]]:
    """SSA pointers that are a kernel argument in ``bases`` plus a constant: name -> (base, offset)."""
    known: dict[str, tuple[str, int]] = {b: (b, 0) for b in bases}
    for line in lines:
        m = _BITCAST.match(line)
        if m and m.group(2) in known:
            known[m.group(1)] = known[m.group(2)]
            continue
        m = _GEP_CONST.match(line)
        if m and m.group(3) in known:
            base, off = known[m.group(3)]
            known[m.group(1)] = (base, off + int(m.group(4)) * _GEP_BYTES[m.group(2)])
    return known


class _Sites:
    """Numbers the inline check sites of a module (and its SIMD-group calls, in program order)."""

    def __init__(self) -> None:
        self.count = 0
        self.sync_fns: set[str] = set()  # defined functions that make SIMD-group calls (or call such)

    def next(self) -> str:
        self.count += 1
        return f"ptr getelementptr (i8, ptr @{SITES}, i64 {16 * (self.count - 1)})"


def _check_line(line: str, allocas: set[str], sites: _Sites, steps: bool = True, checks: bool = True) -> str | None:
    """The check call for a load/store: device and threadgroup accesses against their memory,
    private accesses (not to an alloca itself: those are IR registers) against the thread's local
    memory stack. ``checks=False``: no device/threadgroup check (only the warp step, if any)."""
    m = _LOAD.match(line)
    if m:
        size = type_bytes(m.group(1))
    else:
        m = _STORE.match(line)
        if not m:
            return None
        size = type_bytes(_store_type(m.group(1)))
    space, ptr, align = m.group(2), m.group(3), m.group(4)
    step = ""
    if steps and space == "3" and _VOLATILE.match(line):
        # warp-synchronous code (volatile shared memory without __syncwarp) relies on the lanes of
        # a warp executing each such access together: the lanes step through it as a SIMD-group
        step = "  call void @sim_volatile_step()\n"
    if space is not None and not checks:  # CUMETAL_JIT_CHECKS=0: the warp step stays (semantics)
        return step.rstrip("\n") or None
    if space is None:
        if ptr in allocas:
            return None
        return f"  call void @sim_check0(ptr {ptr}, i64 {size}, i64 {align or size})"
    return (f"{step}  call void @__sim_chk{space}(ptr addrspace({space}) {ptr}, i64 {size}, i64 {align or size}, "
            f"{sites.next()})")


def threadgroup_global(line: str) -> str:
    """An ``addrspace(3)`` global definition as the host JIT must see it: external linkage (no
    whole-module assumptions about who writes it) and zero-initialized; other lines unchanged."""
    m = _AS3_GLOBAL.match(line)
    if not m:
        return line
    name, unnamed, ty, align = m.groups()
    return f"{name} = {unnamed or ''}addrspace(3) global {ty} zeroinitializer{align or ''}"


def _invariant_load(line: str, known: dict[str, tuple[str, int]],
                    bases: dict[str, list[tuple[int, int]]]) -> str | None:
    """A load of a read-only launch word (a kernel parameter, launch_info's constant words) at a
    constant offset that is always in bounds: no check, and marked invariant so that LLVM hoists
    it out of the work-group loop."""
    m = _LOAD.match(line)
    if not m or m.group(2) != "1" or m.group(3) not in known or "volatile" in line or "!" in line:
        return None
    base, off = known[m.group(3)]
    size = type_bytes(m.group(1))
    if not any(lo <= off and off + size <= hi for lo, hi in bases[base]):
        return None
    return line + ", !invariant.load !{}"


def _instrument_function(lines: list[str], sites: _Sites,
                         bases: dict[str, list[tuple[int, int]]] | None = None, checks: bool = True) -> list[str]:
    """``lines``: a function body (between ``{`` and ``}``); ``bases``: read-only argument
    buffers of this function and their always-valid byte ranges; ``checks``: see ``instrument``."""
    bases = bases or {}
    lines = printf_steps(wait_points(lines))
    known = _const_offsets(lines, bases) if bases else {}
    blocks = _blocks(lines)
    order = {name: i for i, (name, _) in enumerate(blocks)}
    headers = set()
    for i, (_, body) in enumerate(blocks):
        for line in body:
            for t in _TARGETS.findall(line):
                if t in order and order[t] <= i:
                    headers.add(t)
    allocas = {m.group(1) for line in lines if (m := _ALLOCA.match(line))}
    out: list[str] = []
    for bi, (name, body) in enumerate(blocks):
        tick_pending = name in headers
        loads_only = False  # a warp step happened in this block and since then only loads
        if bi == 0 and headers:  # the activation's tick counter, in the entry block
            lead = 1 if body and _LABEL.match(body[0]) else 0
            out.extend(body[:lead])
            out += ["  %__sim_tc = alloca i64, align 8", "  store i64 0, ptr %__sim_tc, align 8"]
            body = body[lead:]
        for j, line in enumerate(body):
            stripped = line.strip()
            is_phi = " = phi " in line
            if tick_pending and j > 0 and stripped and not is_phi and not _LABEL.match(line):
                out.append("  call void @__sim_tick(ptr %__sim_tc)")
                tick_pending = False
            inv = _invariant_load(line, known, bases) if known else None
            if inv is not None:
                out.append(inv)
                continue
            # the lowering's own volatile accesses inside a 64-bit atomic's critical section
            # (lower_memory.py, block "lock.held") must not wait for the warp: the lanes that
            # did not get the lock spin outside it
            steps = not name.strip('"').startswith("lock.held")
            if steps and loads_only and _VOLATILE_AS3_LOAD.match(line):
                # no store, call or atomic since this block's last warp step, and only loads
                # since: running the lanes one after another up to this load reads what running
                # them together would (loads commute), so the step before it is not needed
                steps = False
            chk = _check_line(line, allocas, sites, steps=steps, checks=checks)
            if _VOLATILE_AS3_LOAD.match(line):
                loads_only = loads_only or steps
            elif _WRITES.search(line) or _LABEL.match(line):
                loads_only = False
            if chk:
                out.append(chk)
            out.append(line)
            stack = _LOCAL_STACK.match(line)
            if stack:  # the kernel's local memory: what private (AS 0) accesses may touch
                out.append(f"  call void @sim_local(ptr %local_stack, i64 {stack.group(1)})")
    return _program_order(out, sites.sync_fns)


# The legalization rules for targets without mbarriers or counted named barriers
# (passes/legalize/rules/async_*.py) wait in loops whose scheduling point is an ``activemask``
# (``air.simd_sum.u.i32(1 << lane)``) followed by an atomic read (``or`` 0) of the word waited on;
# their blocks keep the rules' names (``$lg.mbwait3`` -> ``L_lg.mbwait3``). A rule's expansion has
# no other activemask, and the instructions after the expanded one continue in ``$lg.join`` blocks.
_WAIT_BLOCK = re.compile(r'^"?L_lg\.(?!join\d|body\d|nbred)([a-z]+?)\d+"?$')
_WAIT_KINDS = {"mbwait": WaitKind.MBARRIER, "nbwait": WaitKind.NAMED}  # by the rule's block name; else OTHER
_ACTIVEMASK = re.compile(r"^\s*(%[\w.$-]+) = (?:tail )?call i32 @\"?air\.simd_sum\.u\.i32\"?\(i32 (%[\w.$-]+)\)")
_LANE_BIT = re.compile(r"^\s*(%[\w.$-]+) = shl i32 1, %")
_READ_WORD = re.compile(r"^\s*%[\w.$-]+ = (?:tail )?call i32 @\"?air\.atomic\.local\.or\.u\.i32\"?\("
                        r"ptr addrspace\(3\) (%[\w.$-]+), i32 0,")
_BR_COND = re.compile(r"^\s*br i1 (%[\w.$-]+), label %[^,]+, label %(\"[^\"]+\"|[\w.$-]+)$")
_ICMP_EQ = re.compile(r"^\s*(%[\w.$-]+) = icmp eq i32 %[\w.$-]+, (-?\d+|%[\w.$-]+)$")


def wait_points(lines: list[str]) -> list[str]:
    """A legalized wait's scheduling point becomes ``sim_wait_point(kind, count, word)`` right
    before the read of the word it waits on (the activemask's value becomes the lane's own bit, a
    nonzero mask, which is all the rules use it for). ``count``: a named barrier's thread count, read
    from the comparison that decides whether the arrival must wait (0 when not found: the deadlock
    report then leaves it out)."""
    blocks = _blocks(lines)
    changed = False
    for bi, (name, body) in enumerate(blocks):
        m = _WAIT_BLOCK.match(name)
        if not m:
            continue
        bits = {b.group(1) for line in body if (b := _LANE_BIT.match(line))}
        at = next((j for j, line in enumerate(body) if (a := _ACTIVEMASK.match(line)) and a.group(2) in bits), None)
        read = next((j for j in range(at + 1, len(body)) if _READ_WORD.match(body[j])), None) if at is not None \
            else None
        if read is None:
            continue
        kind = _WAIT_KINDS.get(m.group(1), WaitKind.OTHER)
        count = _named_count(blocks, name) if kind == WaitKind.NAMED else "0"
        mask, bit = _ACTIVEMASK.match(body[at]).groups()
        word = _READ_WORD.match(body[read]).group(1)
        body[read:read] = [f"  call void @sim_wait_point(i32 {int(kind)}, i32 {count}, ptr addrspace(3) {word})"]
        body[at] = f"  {mask} = or i32 {bit}, 0"
        blocks[bi] = (name, body)
        changed = True
    return [line for _, body in blocks for line in body] if changed else lines


def _named_count(blocks: list[tuple[str, list[str]]], wait: str) -> str:
    """The thread count of a named barrier's wait block: the arrival's block ends with
    ``br i1 %c, label %done, label %<wait>`` where ``%c = icmp eq i32 %arrived, <count>``."""
    for name, body in blocks:
        last = next((line for line in reversed(body) if line.strip()), "")
        br = _BR_COND.match(last) if name != wait else None
        if br and br.group(2) == wait:
            for line in body:
                c = _ICMP_EQ.match(line)
                if c and c.group(1) == br.group(1):
                    return c.group(2)
    return "0"


_ORDERED = re.compile(r'^\s*(?:%[\w.$-]+ = )?(?:tail |notail )?call [^@]*@"?(?:air\.simd_|air\.simdgroup\.barrier|'
                      r'sim_volatile_step|sim_wait_point)')


def _blocks(lines: list[str]) -> list[tuple[str, list[str]]]:
    """(label, lines) of each block of a function body; the entry block may have no label ("")."""
    blocks: list[tuple[str, list[str]]] = [("", [])]
    for line in lines:
        lab = _LABEL.match(line)
        if lab:
            blocks.append((lab.group(1), [line]))
        else:
            blocks[-1][1].append(line)
    if not blocks[0][1]:
        blocks.pop(0)
    return blocks


_TERMINATOR = re.compile(r"^\s*(?:br|switch|indirectbr) ")


_CALLEE_NAME = re.compile(r'^\s*(?:%[\w.$-]+ = )?(?:tail |notail |musttail )?call [^@]*@("[^"]+"|[\w.$-]+)\(')


def _sync_call(line: str, sync_fns: set[str]) -> bool:
    """A call of a defined function that makes SIMD-group calls (directly or further down)."""
    m = _CALLEE_NAME.match(line)
    return bool(m) and m.group(1).strip('"') in sync_fns


def sync_functions(text: str) -> set[str]:
    """Names of the module's defined functions that make SIMD-group calls or call such functions."""
    bodies: dict[str, list[str]] = {}
    name = None
    for line in text.splitlines():
        m = _DEFINE.match(line)
        if m:
            name = m.group(1).strip('"')
            bodies[name] = []
        elif line == "}":
            name = None
        elif name is not None:
            bodies[name].append(line)
    found = {n for n, body in bodies.items() if any(_ORDERED.match(line) for line in body)}
    while True:
        more = {n for n, body in bodies.items() if n not in found and any(_sync_call(line, found) for line in body)}
        if not more:
            return found
        found |= more


def _latch_steps(blocks: list[tuple[str, list[str]]], succ: dict[str, list[str]], sync_fns: set[str]) -> None:
    """A warp step before the back edge of every loop that holds a SIMD-group call. The numpy
    engine keeps the lanes of a warp together at every join; the runtime only where they wait at a
    SIMD-group call, so without it the lanes that finish one side of a branch in a loop would go
    round the loop (back to calls earlier in program order) ahead of the lanes still in the other
    side. At the latch they wait for those lanes, as at the numpy engine's join."""
    bodies = dict(blocks)

    def ordered(b: str) -> bool:
        return any(_ORDERED.match(line) or _sync_call(line, sync_fns) for line in bodies.get(b, ()))

    # a latch that makes a SIMD-group call itself already is such a meeting point (every lane
    # going round passes it, after the calls earlier in the loop): no step needed there
    latches = {latch for latch, loop in loop_latches(blocks[0][0], succ)
               if not ordered(latch) and any(ordered(b) for b in loop)}
    for name in latches:
        body = bodies[name]
        end = next((j for j in range(len(body) - 1, -1, -1) if _TERMINATOR.match(body[j])), None)
        if end is not None:
            body.insert(end, "  call void @sim_volatile_step()")


def _program_order(lines: list[str], sync_fns: set[str]) -> list[str]:
    """Precede every SIMD-group call with ``store i32 <n>, ptr @__sim_order``: n numbers the
    function's SIMD-group calls, and its calls of functions that make some, by their block's place
    in ``order.block_order`` (then by position in the block), so a smaller n is earlier in program
    order (what the runtime resolves first). A call of such a function is wrapped in
    ``sim_enter(n)`` / ``sim_leave()``: the callee's places count as the call's (runtime.c
    order_key)."""
    blocks = _blocks(lines)
    if not any(_ORDERED.match(line) or _sync_call(line, sync_fns) for _, body in blocks for line in body):
        return lines
    succ = {name: [t for line in body for t in _TARGETS.findall(line)] for name, body in blocks}
    _latch_steps(blocks, succ, sync_fns)
    ranked = block_order(blocks[0][0], succ)
    ranked += [name for name, _ in blocks if name not in set(ranked)]
    number: dict[tuple[str, int], int] = {}
    bodies = dict(blocks)
    for name in ranked:
        for j, line in enumerate(bodies[name]):
            if _ORDERED.match(line) or _sync_call(line, sync_fns):
                number[(name, j)] = len(number) + 1
    if len(number) > 0xFFFF:
        raise InstrumentError(f"air-sim: {len(number)} SIMD-group calls in one function (at most 65535)")
    out = []
    for name, body in blocks:
        for j, line in enumerate(body):
            n = number.get((name, j))
            if n is not None and not _ORDERED.match(line):
                out += [f"  call void @sim_enter(i32 {n})", line, "  call void @sim_leave()"]
                continue
            if n is not None:
                out.append(f"  store i32 {n}, ptr @{ORDER}, align 4")
            out.append(line)
    return out


def instrument(text: str, triple: str, datalayout: str, kernel: str | None = None,
               read_only: dict[str, list[tuple[int, int]]] | None = None, checks: bool = True) -> tuple[str, int]:
    """The instrumented module text (see the module docstring) and its number of check sites.

    ``read_only``: arguments of ``kernel`` (``%name``) whose listed byte ranges are always
    allocated and never written during a launch (parameters, launch_info's constant words).
    ``checks=False`` (``CUMETAL_JIT_CHECKS=0``, the documented opt-out): device and threadgroup
    accesses are not checked at all (no bounds, no alignment); an out-of-bounds access then touches
    whatever host memory lies there or kills the process."""
    intrinsic_decls = _intrinsic_declarations(text)
    src = [ln for ln in map(_intrinsic_line, host_clocks(instrument_grid_barriers(text.splitlines())))
           if ln is not None]
    sites = _Sites()
    sites.sync_fns = sync_functions("\n".join(src))
    out: list[str] = []
    i = 0
    while i < len(src):
        line = src[i]
        if line.startswith("target triple"):
            out.append(f'target triple = "{triple}"')
        elif line.startswith("target datalayout"):
            out.append(f'target datalayout = "{datalayout}"')
        elif _DEFINE.match(line):
            out.append(line)
            body = []
            i += 1
            while i < len(src) and src[i] != "}":
                body.append(src[i])
                i += 1
            is_kernel = kernel is not None and _DEFINE.match(line).group(1).strip('"') == kernel
            out.extend(_instrument_function(body, sites, read_only if is_kernel else None, checks))
            out.append("}")
        else:
            out.append(threadgroup_global(line))
        i += 1
    if not any(line.startswith("  call void @sim_check0(") for line in out):
        # no checked private access anywhere: the local-memory bounds are never read (and
        # registering them per thread costs more than the rest of a small kernel)
        out = [line for line in out if not line.startswith("  call void @sim_local(")]
    helpers = intrinsic_decls + DECLS + _CHECK_FN.format(sp=1) + _check3_fn(src) + _TICK_FN
    helpers += f"@{SITES} = global [{2 * max(sites.count, 1)} x i64] zeroinitializer, align 16\n"
    helpers += f"@{ORDER} = global i32 0, align 4\n"
    return "\n".join(out) + helpers, sites.count


def entry_wrapper(kernel: str, arg_types: list[str]) -> str:
    """``__sim_entry(ptr slots)``: argument i is loaded from ``slots + 16*i``."""
    body = ["define void @__sim_entry(ptr %slots) {"]
    names = []
    for i, ty in enumerate(arg_types):
        body.append(f"  %p{i} = getelementptr i8, ptr %slots, i64 {16 * i}")
        body.append(f"  %a{i} = load {ty}, ptr %p{i}, align 4")
        names.append(f"{ty} %a{i}")
    body.append(f"  call void @\"{kernel}\"({', '.join(names)})")
    body.append("  ret void")
    body.append("}")
    return "\n".join(body) + "\n"


# Argument kinds (compile.py K_*): which the work-group loop computes per thread
_K_TID, _K_TINDEX, _K_LANE, _K_WARP = (int(SimArgKind.TID), int(SimArgKind.TINDEX), int(SimArgKind.LANE),
                                    int(SimArgKind.WARP))  # codes.py


def thread_arguments(arg_types: list[str], kinds: list[int], uniform: dict[int, str], prefix: str,
                     x: str, y: str, z: str, t: str) -> tuple[list[str], list[str]]:
    """The kernel call's arguments for one thread of a loop over the threadgroup: the uniform ones
    as given, the thread-position ones (thread position, flat index, lane, SIMD-group) computed
    from the loop's ``x``/``y``/``z`` and flat index ``t`` into values named ``{prefix}{i}``;
    returns (instructions, arguments). One definition for every generated thread loop."""
    lines: list[str] = []
    args: list[str] = []
    for i, (ty, kind) in enumerate(zip(arg_types, kinds, strict=True)):
        v = f"{prefix}{i}"
        if i in uniform:
            args.append(uniform[i])
        elif kind == _K_TID:
            lines += [f"  {v}a = insertelement <3 x i32> zeroinitializer, i32 {x}, i32 0",
                      f"  {v}b = insertelement <3 x i32> {v}a, i32 {y}, i32 1",
                      f"  {v} = insertelement <3 x i32> {v}b, i32 {z}, i32 2"]
            args.append(f"{ty} {v}")
        elif kind == _K_TINDEX:
            args.append(f"{ty} {t}")
        elif kind == _K_LANE:
            lines.append(f"  {v} = and i32 {t}, 31")
            args.append(f"{ty} {v}")
        else:
            lines.append(f"  {v} = lshr i32 {t}, 5")
            args.append(f"{ty} {v}")
    return lines, args


def workgroup_function(kernel: str, arg_types: list[str], kinds: list[int], nargs: int) -> str:
    """``__sim_wg(ptr slots)``: every thread of one threadgroup, as a loop nest (z, y, x) around the
    kernel, inlined. Uniform arguments come from the slots (as for ``__sim_entry``); the thread's
    position, index, lane and SIMD-group index come from the loop counters; the threadgroup's size
    is in slot ``nargs``. Kernels without barrier or SIMD-group calls only: each thread runs to its
    end before the next starts, which is what the fiber scheduler does for them too."""
    b = ["define void @__sim_wg(ptr %slots) {", "entry:"]
    b.append(f"  %dimp = getelementptr i8, ptr %slots, i64 {16 * nargs}")
    b.append("  %dims = load <3 x i32>, ptr %dimp, align 4")
    for i, axis in enumerate("xyz"):
        b.append(f"  %n{axis} = extractelement <3 x i32> %dims, i32 {i}")
    uniform = {}
    for i, (ty, kind) in enumerate(zip(arg_types, kinds, strict=True)):
        if kind in (_K_TID, _K_TINDEX, _K_LANE, _K_WARP):
            continue
        b.append(f"  %p{i} = getelementptr i8, ptr %slots, i64 {16 * i}")
        b.append(f"  %a{i} = load {ty}, ptr %p{i}, align 4")
        uniform[i] = f"{ty} %a{i}"
    b += ["  br label %zl", "zl:", "  %tz = phi i32 [ 0, %entry ], [ %tz1, %zn ]", "  br label %yl", "yl:",
          "  %ty = phi i32 [ 0, %zl ], [ %ty1, %yn ]", "  %zy = mul i32 %tz, %ny", "  %zy1 = add i32 %zy, %ty",
          "  %row = mul i32 %zy1, %nx", "  br label %xl", "xl:", "  %tx = phi i32 [ 0, %yl ], [ %tx1, %xl ]",
          "  %t = add i32 %row, %tx"]
    lines, args = thread_arguments(arg_types, kinds, uniform, "%v", "%tx", "%ty", "%tz", "%t")
    b += lines
    b += [f"  call void @\"{kernel}\"({', '.join(args)}) alwaysinline",
          "  %tx1 = add i32 %tx, 1", "  %cx = icmp ult i32 %tx1, %nx", "  br i1 %cx, label %xl, label %yn", "yn:",
          "  %ty1 = add i32 %ty, 1", "  %cy = icmp ult i32 %ty1, %ny", "  br i1 %cy, label %yl, label %zn", "zn:",
          "  %tz1 = add i32 %tz, 1", "  %cz = icmp ult i32 %tz1, %nz", "  br i1 %cz, label %zl, label %done", "done:",
          "  ret void", "}"]
    return "\n".join(b) + "\n"

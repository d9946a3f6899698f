"""Barrier kernels as work-item loops (PoCL's work-group functions, written for our AIR text).

A kernel whose only synchronisation is threadgroup barriers and SIMD-group steps in its own body
(what coroutine mode accepts) is cut at each of them into *regions*: the code from one resume
point (the kernel's start, or just after a barrier or step) to the next barrier, step or return.
Each region becomes a function ``__sim_r<k>`` (a copy of the kernel entered at resume point k, with
every barrier/step turned into ``ret i32 <exit code>``), and ``__sim_wr(slots, ctx, k, t0, t1,
state)`` runs region k for the threads ``t0 .. t1-1`` in a loop nest (z, y, x; x innermost) with
the region inlined, storing each thread's exit code in ``state[t]`` and returning the code they
all exited with (-1 when they differ). The C scheduler
(``workitem.c``) calls it for runs of consecutive threads waiting at the same point: in a
uniform kernel one call runs a whole region for the whole threadgroup, with no per-thread
resume, switch or frame.

Per-thread values that live across a cut stay in the kernel's allocas (the lowering keeps PTX
registers there): a region's copy reloads the allocas live at its resume point from a per-thread
context array and stores the ones live at the point it exits to (liveness of the allocas' loads
and stores); inside a region they are ordinary allocas that LLVM promotes to registers. Allocas
whose address escapes (local memory) live in the context array itself. SSA values live across a
cut must be recomputable from the kernel's arguments (launch words, parameter loads, addresses of
allocas): they are recomputed at every region's start; any other one sends the kernel back to
coroutine mode (``None``).

Value-carrying SIMD-group operations of the kernel's body (shuffles and integer reductions: the
runtime's ``air_simd_*``) are steps too, *exchanges*: before the cut a thread stores its operand
and argument in its slot of the context (16 bytes: value, argument), the scheduler computes the
group's results when the warp's lanes resume there (workitem.c ``wi_exchange``: the fiber
scheduler's rule, runtime.c ``simd_result``) into the same slot, and the region after the cut
loads its result from it. A shuffle inside a loop thus costs a region call per warp, not a
stack switch per lane.

Semantics are coroutine mode's (runtime.c ``run_coro``), exactly: each round runs every thread
that can run, in thread order (warp by warp when the kernel has steps, the lanes at the earliest
step first), each from its own resume point to its next barrier/step/return; a barrier releases
when every unfinished thread waits at one. The scheduler batches only threads that wait at the
same point and are consecutive, so the order of execution is the coroutine scheduler's even when
threads diverge (divergent barriers, early returns); uniform control flow is the fast case, not an
assumption.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cumetal.backends.air.sim.coroutine import (
    _BARRIER,
    _DEFINE,
    _LABEL,
    _ORDER_STORE,
    _STEP,
    _functions,
    eligible,
)
from cumetal.backends.air.sim.grid import GRID_BARRIER
from cumetal.backends.air.sim.instrument import InstrumentError, thread_arguments, type_bytes
from cumetal.backends.common.codes import SimArgKind

WR = "__sim_wr"
WRM = "__sim_rm"  # a merged kernel's body (_merged)
REACHES_STEP = "__sim_wi_rs"  # [nres x i8]: 1 when region k may reach a SIMD-group step (workitem.c)
EXCHANGE_OPS = "__sim_wi_xop"  # [nres x i8]: the operation of the exchange resume point k ends (0: none)
EXCHANGE_OFFSET = "__sim_wi_xoff"  # i64: where the exchange slots start in the context (per thread: 16 bytes)
# the runtime's value-carrying SIMD-group functions and their operation codes (runtime.c enum OP_*;
# tests/cpu_jit/test_warp_loops.py compares the two)
EXCHANGES = {"air.simd_shuffle.u.i32": 1, "air.simd_shuffle.u.v2i32": 2, "air.simd_sum.u.i32": 3,
             "air.simd_sum.s.i32": 3, "air.simd_min.s.i32": 4, "air.simd_min.u.i32": 5, "air.simd_max.s.i32": 6,
             "air.simd_max.u.i32": 7, "air.simd_and.u.i32": 8, "air.simd_or.u.i32": 9, "air.simd_xor.u.i32": 10}
_XCALL = re.compile(r"^\s*(%[\w.$-]+|%\"[^\"]+\") = (?:tail )?call (i32|<2 x i32>) @\"?(air\.simd_[\w.]+?)\"?\("
                    r"(i32|<2 x i32>) ([^,()]+?)(?:, (i16|i32) ([^,()]+?))?\)(?: #\d+)?\s*$")
EXCHANGE_MAX_LINES = 40_000  # the largest region text of a kernel with exchanges (compile time)
MERGED_MAX_LINES = 400_000  # the largest merged text (_merged: one body copy, a switch over the resume points)
_XV, _XA = "%__wx.wp", "%__wxa.wp"  # this thread's exchange slot (value/result, argument): region headers
OP_GRID = 32  # EXCHANGE_OPS' mark of the resume point after a grid barrier (runtime.c OP_GRID)
S_BAR, S_STEP, S_DONE = 1, 2, 3  # exit codes: kind | resume id << 2 (runtime.c S_BAR/S_SIMD/S_DONE)
_K_TID, _K_TINDEX, _K_LANE, _K_WARP = (int(SimArgKind.TID), int(SimArgKind.TINDEX), int(SimArgKind.LANE),
                                    int(SimArgKind.WARP))  # codes.py
_NAME = r'%("[^"]+"|[\w.$-]+)'
_TOKEN = re.compile(_NAME)
_DEF = re.compile(r"^\s*" + _NAME + r" = ")
_PLAIN_NAME = re.compile(r"[A-Za-z._-][A-Za-z0-9._-]*\Z")  # a local name LLVM prints unquoted ($ is quoted)
_ALLOCA = re.compile(r"^\s*" + _NAME + r" = alloca ([^,]+?)(?:, align (\d+))?$")
_LOAD_OF = re.compile(r"^\s*" + _NAME + r" = load (.+?), ptr " + _NAME + r"(?:, align \d+)?$")
_STORE_TO = re.compile(r"^\s*store (.+?) (%\"[^\"]+\"|%[\w.$-]+|[-+\w.]+), ptr " + _NAME + r"(?:, align \d+)?$")
_LABEL_REF = re.compile(r"label " + _NAME)
_PHI = re.compile(r"^\s*" + _NAME + r" = phi ")
_PHI_ENTRY = re.compile(r"\[ ([^\[\]]*?), %(\"[^\"]+\"|[\w.$-]+) \]")
_TYPE_DEF = re.compile(r"^" + _NAME + r" = type ")
_TERMINATOR = re.compile(r"^\s*(?:br|switch|indirectbr|ret|unreachable)\b")
_RET = re.compile(r"^\s*ret void\s*$")
_PURE = re.compile(r"^\s*%[\w.$\"-]+ = (?:getelementptr|bitcast|extractelement|insertelement|add|sub|mul|shl|lshr|"
                   r"ashr|and|or|xor|zext|sext|trunc|inttoptr|ptrtoint|addrspacecast|icmp|select) ")
_INVARIANT_LOAD = re.compile(r"^\s*%[\w.$\"-]+ = load .*!invariant\.load ")
_SIM_LOCAL = re.compile(r"^\s*call void @sim_local\(")
_TICK = "__sim_tc"  # instrument.py's per-activation watchdog counter: local to each region
_ARRAY = re.compile(r"^\[(\d+) x (.+)\]$")


@dataclass
class _Piece:
    name: str
    lines: list[str]  # instructions (no label)
    exit: tuple[int, int] | None = None  # (kind, resume id) of the barrier/step that ends it
    grid: bool = False  # the barrier that ends it is a grid barrier (grid.py: a cooperative launch's)
    succ: list[str] = field(default_factory=list)


def _size(ty: str) -> int:
    m = _ARRAY.match(ty.strip())
    if m:
        return int(m.group(1)) * _size(m.group(2))
    return type_bytes(ty)


def _uses(line: str, labels: set[str], types: set[str]) -> list[str]:
    d = _DEF.match(line)
    skip = {m.group(1) for m in _LABEL_REF.finditer(line)}
    found = [m.group(1) for m in _TOKEN.finditer(line[d.end():] if d else line)]
    return [n for n in found if n not in labels and n not in types and n not in skip]


class _Unsupported(Exception):
    """The kernel has a shape the work-item transform does not handle (coroutine mode then)."""


class _TooLarge(_Unsupported):
    """The region copies would pass EXCHANGE_MAX_LINES (workitem_kernel then tries _merged)."""


def _split(body: list[str]) -> tuple[list[_Piece], dict[int, str], int]:
    """The body's blocks cut after every barrier and step: pieces, the piece each resume id starts
    (0: the entry), and the number of resume ids."""
    pieces: list[_Piece] = []
    body = [ln for ln in body if ln.strip()]
    if not body or not _LABEL.match(body[0]):
        body = ["__wi_e:"] + body
    starts: dict[int, str] = {}
    last_piece: dict[str, str] = {}
    site = None
    nsync = 0
    cur: _Piece | None = None
    block = ""
    for line in body:
        if not line.strip() or line.lstrip().startswith(";"):
            continue
        lab = _LABEL.match(line)
        if lab:
            block = lab.group(1)
            cur = _Piece(block, [])
            pieces.append(cur)
            continue
        if cur is None:
            raise _Unsupported("instruction before the first label")
        order = _ORDER_STORE.match(line)
        if order:
            site = int(order.group(1))
            continue
        barrier, step = _BARRIER.match(line), _STEP.match(line)
        if barrier or step:
            nsync += 1
            if step:
                if site is None:
                    raise _Unsupported("a SIMD-group step without its program order")
                cur.exit = (S_STEP, site)
            site = None
            cont = _Piece(f"__wi_c{nsync}", [])
            cur.succ = [cont.name]
            if step:
                starts[cur.exit[1]] = cont.name
            else:
                cur.exit = (S_BAR, -nsync)  # barriers are numbered after the steps (below)
                cur.grid = GRID_BARRIER in line
                starts[-nsync] = cont.name
            pieces.append(cont)
            last_piece[block] = cont.name
            cur = cont
            continue
        cur.lines.append(line)
    steps = [s for s in starts if s > 0]
    if len(set(steps)) != len(steps):
        raise _Unsupported("two steps share a program order")
    base = max(steps, default=0) + 1
    for p in pieces:
        if p.exit and p.exit[0] == S_BAR:
            rid = base + (-p.exit[1] - 1)
            starts[rid] = starts.pop(p.exit[1])
            p.exit = (S_BAR, rid)
    starts[0] = pieces[0].name
    labels = {p.name for p in pieces}
    for p in pieces:
        if p.exit is None:
            term = p.lines[-1] if p.lines else ""
            if not _TERMINATOR.match(term):
                raise _Unsupported(f"block {p.name} has no terminator")
            p.succ = [t for t in (m.group(1) for m in _LABEL_REF.finditer(term)) if t in labels]
    if last_piece:  # a phi's incoming block is now the last piece of the block that was cut
        for p in pieces:
            for i, line in enumerate(p.lines):
                if _PHI.match(line):
                    p.lines[i] = _PHI_ENTRY.sub(
                        lambda m: f"[ {m.group(1)}, %{last_piece.get(m.group(2), m.group(2))} ]", line)
    return pieces, starts, max(starts) + 1


def _liveness(pieces: list[_Piece], gen_kill) -> dict[str, set[str]]:
    """Backward liveness over the pieces (a barrier's cut is an edge here): live-in per piece.
    ``gen_kill(piece)``: (upward-exposed uses, names defined) of the piece, plus per successor the
    names its phis read from this piece."""
    info = {p.name: gen_kill(p) for p in pieces}
    live_in: dict[str, set[str]] = {p.name: set() for p in pieces}
    changed = True
    while changed:
        changed = False
        for p in reversed(pieces):
            gen, kill, phi_out = info[p.name]
            out: set[str] = set(phi_out)
            for s in p.succ:
                out |= live_in[s]
            new = gen | (out - kill)
            if new != live_in[p.name]:
                live_in[p.name] = new
                changed = True
    return live_in


def _ssa_gen_kill(pieces: list[_Piece], labels: set[str], types: set[str]):
    phi_reads: dict[str, set[str]] = {p.name: set() for p in pieces}
    for p in pieces:
        for line in p.lines:
            if _PHI.match(line):
                for m in _PHI_ENTRY.finditer(line):
                    phi_reads.setdefault(m.group(2), set()).update(_uses(f"  {m.group(1)}", labels, types))

    def gen_kill(p: _Piece):
        gen: set[str] = set()
        kill: set[str] = set()
        for line in p.lines:
            d = _DEF.match(line)
            if not _PHI.match(line):
                gen |= {u for u in _uses(line, labels, types) if u not in kill}
            if d:
                kill.add(d.group(1))
        return gen, kill, phi_reads.get(p.name, set())
    return gen_kill


def _alloca_gen_kill(slots: set[str]):
    def gen_kill(p: _Piece):
        gen: set[str] = set()
        kill: set[str] = set()
        for line in p.lines:
            ld = _LOAD_OF.match(line)
            if ld and ld.group(3) in slots and ld.group(3) not in kill:
                gen.add(ld.group(3))
            st = _STORE_TO.match(line)
            if st and st.group(3) in slots:
                kill.add(st.group(3))
        return gen, kill, set()
    return gen_kill


@dataclass
class WorkItemKernel:
    text: str  # the region functions and __sim_wr, to append to the module
    nres: int  # resume ids (0: the start)
    ctx_bytes: int  # per-thread context bytes
    steps: bool  # the kernel has SIMD-group steps (the scheduler runs it warp by warp)


def workitem_kernel(text: str, kernel: str, arg_types: list[str], kinds: list[int],
                    merged: bool = True) -> WorkItemKernel | None:
    """The kernel (instrumented module text) as region functions and ``__sim_wr``; None when it
    cannot be (not coroutine-eligible, or a shape this transform does not handle). ``merged=False``:
    None instead of one body copy (_merged) when the region copies would be too large."""
    plain = text
    text, ops = _exchanges(text, kernel)
    if not eligible(text, kernel):
        return None
    try:
        try:
            wk = _transform(text, kernel, arg_types, kinds, ops, plain)
        except _TooLarge:
            wk = None
        # each exchange is a cut, and each cut a region copy of what follows it: a kernel with many
        # warp operations (a random warp program's dozens) made modules LLVM took minutes and GBs
        # to compile (the jacobi kernel: 27k lines); those get one copy of the body (_merged)
        if ops and (wk is None or wk.text.count("\n") > EXCHANGE_MAX_LINES):
            if not merged:
                return None
            wk = _transform(text, kernel, arg_types, kinds, ops, plain, merged=True)
            if wk.text.count("\n") > MERGED_MAX_LINES:
                return None
        return wk
    except (_Unsupported, InstrumentError, KeyError):
        return None


def _exchanges(text: str, kernel: str) -> tuple[str, dict[int, int]]:
    """The module text with each value-carrying SIMD-group call of the kernel's body that the
    runtime implements turned into an exchange (module docstring): operand and argument stored in
    the thread's slot, a warp step (``sim_volatile_step``, at the call's program order), the result
    loaded from the slot. Also {program order: operation code} of the exchanges."""
    lines = text.splitlines()
    found = [(a, b) for a, b in _functions(lines) if (m := _DEFINE.match(lines[a])) and m.group(1).strip('"') == kernel]
    if not found:
        return text, {}
    start, end = found[0]
    out: list[str] = []
    ops: dict[int, int] = {}
    site = None
    for k, line in enumerate(lines[start + 1:end]):
        order = _ORDER_STORE.match(line)
        if order:
            site = int(order.group(1))
        x = _XCALL.match(line)
        if not x or x.group(3) not in EXCHANGES or x.group(2) != x.group(4) or site is None:
            out.append(line)  # an operation without its program order or runtime function: fibers then
            continue
        res, ty, fn, _vt, val, at, arg = x.groups()
        widen = "bitcast" if ty.startswith("<") else "zext"
        out += [f"  %__wxv.{k} = {widen} {ty} {val.strip()} to i64", f"  store i64 %__wxv.{k}, ptr {_XV}, align 8"]
        if at:
            out += [f"  %__wxl.{k} = zext {at} {arg.strip()} to i64", f"  store i64 %__wxl.{k}, ptr {_XA}, align 8"]
        out += ["  call void @sim_volatile_step()", f"  %__wxr.{k} = load i64, ptr {_XV}, align 8",
                f"  {res} = {'bitcast' if ty.startswith('<') else 'trunc'} i64 %__wxr.{k} to {ty}"]
        ops[site] = EXCHANGES[fn]
        site = None
    if not ops:
        return text, {}
    new = lines[:start + 1] + out + lines[end:]
    if not re.search(r"(?m)^declare void @sim_volatile_step\(\)", text):
        new.append("declare void @sim_volatile_step()")
    return "\n".join(new) + "\n", ops


def _transform(text: str, kernel: str, arg_types: list[str], kinds: list[int],
               ops: dict[int, int] | None = None, plain: str | None = None, merged: bool = False) -> WorkItemKernel:
    """``plain``: the module before _exchanges (LLVM reads the values' types there: the exchanges'
    own values never live across a cut). ``merged``: one copy of the body for all regions."""
    lines = text.splitlines()
    types = {m.group(1) for ln in lines if (m := _TYPE_DEF.match(ln))}
    for start, end in _functions(lines):
        m = _DEFINE.match(lines[start])
        if m and m.group(1).strip('"') == kernel:
            params, body = m.group(2), lines[start + 1:end]
            break
    else:
        raise _Unsupported("kernel not found")
    arg_names = [a.split()[-1] for a in _split_params(params)]
    if len(arg_names) != len(arg_types) or not all(a.startswith("%") for a in arg_names):
        raise _Unsupported("unnamed kernel arguments")
    args = {a[1:].strip('"') for a in arg_names}
    if ops:  # the exchange slot's pointers: defined at every region's start (_region)
        args |= {_XV[1:], _XA[1:]}
    pieces, starts, nres = _split(body)
    labels = {p.name for p in pieces}
    by_name = {p.name: p for p in pieces}
    entry = pieces[0]

    # allocas: promotable ones (only loaded/stored through) are saved/restored at cuts; the others live in the context
    allocas: dict[str, tuple[str, int, int]] = {}
    for p in pieces:
        for line in p.lines:
            a = _ALLOCA.match(line)
            if a:
                if p is not entry:
                    raise _Unsupported("an alloca outside the entry block")
                ty = a.group(2).strip()
                allocas[a.group(1)] = (ty, _size(ty), int(a.group(3) or 1))
    escaping: set[str] = set()
    for p in pieces:
        for line in p.lines:
            if _ALLOCA.match(line):
                continue
            ld, st = _LOAD_OF.match(line), _STORE_TO.match(line)
            used = set(_uses(line, labels, types)) & set(allocas)
            if ld and ld.group(3) in allocas and ld.group(2).strip() == allocas[ld.group(3)][0]:
                used.discard(ld.group(3))
            if st and st.group(3) in allocas and st.group(2) != f"%{st.group(3)}" \
                    and st.group(1).strip() == allocas[st.group(3)][0]:
                used.discard(st.group(3))
            escaping |= used
    escaping.discard(_TICK)
    promotable = set(allocas) - escaping - {_TICK}

    # SSA values live at a resume point must be recomputable at a region's start
    remat: dict[str, str] = {}
    known = set(args) | set(allocas)
    for line in entry.lines:
        d = _DEF.match(line)
        if d and not _ALLOCA.match(line) and (_PURE.match(line) or _INVARIANT_LOAD.match(line)) \
                and all(u in known for u in _uses(line, labels, types)):
            remat[d.group(1)] = line
            known.add(d.group(1))
    reach = {rid: _reach(by_name, start) for rid, start in starts.items()}
    if not merged and ops and sum(len(by_name[n].lines) for seen in reach.values() for n in seen) > EXCHANGE_MAX_LINES:
        # every region copies the lines of the pieces it reaches: the text would exceed the limit
        # workitem_kernel takes, so it is refused before the analyses (a merged body then)
        raise _TooLarge("the region copies would exceed EXCHANGE_MAX_LINES")
    live = _liveness(pieces, _ssa_gen_kill(pieces, labels, types))
    across: set[str] = set()
    for rid, name in starts.items():
        if rid:
            across |= live[name] - args - set(allocas) - set(remat)
    # values live across a cut: recomputed at the regions' starts when they are pure functions of
    # the thread's position and the launch, not redefined inside a region that needs them (a loop);
    # the others are kept in allocas of their own, saved and restored like the registers
    purity = _Purity(pieces, promotable, args, remat, allocas, labels, types)
    home = {name: p.name for p in pieces for line in p.lines if (d := _DEF.match(line)) for name in [d.group(1)]}
    recomputed: dict[str, str] = {}
    for v in [] if merged else sorted(across):  # merged: no region start to recompute them at
        if purity.pure("%" + v)[0] and not any(v in live[starts[r]] and home.get(v) in reach[r] for r in starts if r):
            ld = _LOAD_OF.match(purity.defs[v][2]) if v in purity.defs else None
            recomputed[v] = ld.group(2).strip() if ld else ""
    demote = across - set(recomputed)
    if demote:
        tys = value_types(plain or text, kernel)
        _demote(pieces, demote, tys, labels, types)
        for name in demote:
            allocas[_wd(name)] = (tys[name], _size(tys[name]), 16)
        promotable |= {_wd(name) for name in demote}
    alive = _liveness(pieces, _alloca_gen_kill(promotable))
    fixed = {} if merged else _fixed_allocas(pieces, allocas, promotable, args, remat, starts, alive, labels, types)
    saved = promotable - set(fixed)

    # context layout: one array of n elements per saved alloca and per escaping alloca
    offsets: dict[str, int] = {}
    off = 0
    for name in sorted(saved | escaping):
        ty, size, align = allocas[name]
        off = -(-off // max(align, 1)) * max(align, 1)
        offsets[name] = off
        off += -(-size // max(align, 1)) * max(align, 1)
    if merged:  # one record per thread, its size a multiple of every register's alignment (≤ 64: wi_alloc's)
        unit = max([16] + [min(max(allocas[name][2], 1), 64) for name in offsets])
        off = -(-off // unit) * unit
    xoff = -(-off // 16) * 16 if ops else -1  # the exchange slots: value/result (8 bytes), argument (8)
    ctx_bytes = -(-off // 16) * 16 + (16 if ops else 0)

    reach_step = []
    out: list[str] = []
    for rid in range(nres):
        start = starts.get(rid)
        if start is None:
            reach_step.append(0)
            continue
        seen = reach[rid]
        reach_step.append(int(any(by_name[n].exit and by_name[n].exit[0] == S_STEP for n in seen)))
        if merged:
            continue
        out += _region(rid, start, seen, pieces, params, entry, allocas, escaping, saved, remat,
                       offsets, alive, starts, fixed, sorted(live[start] & set(recomputed)), recomputed, purity, xoff)
        if ops and len(out) > EXCHANGE_MAX_LINES:  # refused by workitem_kernel: stop building (CCCL's
            raise _TooLarge("regions over EXCHANGE_MAX_LINES")  # set-operation kernels: 0.4-1.2M lines)
    if merged:
        out += _merged(pieces, params, entry, allocas, escaping, saved, remat, offsets, alive, starts, xoff,
                       -(-off // 16) * 16, reach)
        out += _wr_merged(arg_types, kinds)
    else:
        out += _wr(nres, starts, arg_types, kinds)
    if not re.search(r"(?m)^declare .*@llvm\.assume\(", text):
        out.append("declare void @llvm.assume(i1 noundef)")
    out.append(f"@{REACHES_STEP} = constant [{nres} x i8] [{', '.join(f'i8 {r}' for r in reach_step)}]")
    xop = [(ops or {}).get(rid, 0) if rid in starts and rid > 0 else 0 for rid in range(nres)]
    for p in pieces:  # a grid barrier's resume point: workitem.c run_grid lets the grid meet there
        if p.grid and p.exit and p.exit[0] == S_BAR:
            xop[p.exit[1]] = OP_GRID
    out.append(f"@{EXCHANGE_OPS} = constant [{nres} x i8] [{', '.join(f'i8 {o}' for o in xop)}]")
    out.append(f"@{EXCHANGE_OFFSET} = constant i64 {xoff}")
    steps = any(p.exit and p.exit[0] == S_STEP for p in pieces)
    return WorkItemKernel("\n".join(out) + "\n", nres, ctx_bytes, steps)


def _reach(by_name: dict[str, _Piece], start: str) -> set[str]:
    """The pieces of the region that starts at ``start`` (a barrier/step ends it)."""
    seen, todo = set(), [start]
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            if by_name[n].exit is None:
                todo.extend(by_name[n].succ)
    return seen


def _dominators(pieces: list[_Piece]) -> list[set[int]]:
    """Dominator sets of the pieces (index 0: the entry; a barrier's cut is an edge here)."""
    index = {p.name: i for i, p in enumerate(pieces)}
    preds: list[list[int]] = [[] for _ in pieces]
    for i, p in enumerate(pieces):
        for sname in p.succ:
            preds[index[sname]].append(i)
    every = set(range(len(pieces)))
    dom = [{0}] + [set(every) for _ in pieces[1:]]
    changed = True
    while changed:
        changed = False
        for i in range(1, len(pieces)):
            new = set(every)
            for q in preds[i]:
                new &= dom[q]
            new = (new if preds[i] else set()) | {i}
            if new != dom[i]:
                dom[i] = new
                changed = True
    return dom


class _Purity:
    """Which SSA values are pure functions of the thread's position and the launch: computed from
    arguments, constants and pure instructions, reading registers only where a single store
    reaches the read (the last one before it in its piece, or in the chain of single predecessors
    leading there). ``pure(v)``: (yes, the lines that compute it, loads to read as the value their
    store stored) -- a computation that needs nothing of the thread's state, so it can be redone
    at any region's start."""

    def __init__(self, pieces, promotable, args, remat, allocas, labels, types) -> None:
        self.pieces, self.promotable, self.labels, self.types = pieces, promotable, labels, types
        self.roots = set(args) | set(remat) | set(allocas)
        index = {p.name: i for i, p in enumerate(pieces)}
        self.preds: list[list[int]] = [[] for _ in pieces]
        for i, p in enumerate(pieces):
            for sname in p.succ:
                self.preds[index[sname]].append(i)
        self.defs: dict[str, tuple[int, int, str]] = {}
        for pi, p in enumerate(pieces):
            for li, line in enumerate(p.lines):
                d = _DEF.match(line)
                if d:
                    self.defs[d.group(1)] = (pi, li, line)
        self.memo: dict[str, tuple[bool, list[str], dict[str, str]]] = {}
        # registers with one store besides constant ones in the entry piece that precede it: a
        # read that this store dominates reads its value
        stores: dict[str, list[tuple[int, int, str]]] = {}
        for pi, p in enumerate(pieces):
            for li, line in enumerate(p.lines):
                st = _STORE_TO.match(line)
                if st and st.group(3) in promotable:
                    stores.setdefault(st.group(3), []).append((pi, li, st.group(2)))
        self.single: dict[str, tuple[int, int, str]] = {}
        for name, found in stores.items():
            main = [x for x in found if not (x[0] == 0 and not x[2].startswith("%"))]
            if len(main) == 1 and not any(x[0] == 0 and main[0][0] == 0 and x[1] > main[0][1] for x in found):
                self.single[name] = main[0]
        self.dom = _dominators(pieces)

    def reaching(self, pi: int, li: int, z: str) -> str | None:
        one = self.single.get(z)
        if one and ((one[0] == pi and one[1] < li) or (one[0] != pi and one[0] in self.dom[pi])):
            return one[2]
        seen: set[int] = set()
        while True:
            for k in range(li - 1, -1, -1):
                st = _STORE_TO.match(self.pieces[pi].lines[k])
                if st and st.group(3) == z:
                    return st.group(2)
            if len(self.preds[pi]) != 1 or self.preds[pi][0] in seen:
                return None
            seen.add(pi)
            pi = self.preds[pi][0]
            li = len(self.pieces[pi].lines)

    def pure(self, v: str) -> tuple[bool, list[str], dict[str, str]]:
        if not v.startswith("%"):
            return True, [], {}  # a constant
        v = v[1:]
        if v in self.roots:
            return True, [], {}
        if v in self.memo:
            return self.memo[v]
        self.memo[v] = (False, [], {})  # cycles (phis) are not pure
        if v not in self.defs:
            return self.memo[v]
        pi, li, line = self.defs[v]
        ld = _LOAD_OF.match(line)
        if ld and ld.group(3) in self.promotable:
            value = self.reaching(pi, li, ld.group(3))
            if value is not None:
                ok, lines, alias = self.pure(value)
                if ok:
                    self.memo[v] = (True, lines, {**alias, v: value})
            return self.memo[v]
        if not (_PURE.match(line) or _INVARIANT_LOAD.match(line)):
            return self.memo[v]
        lines: list[str] = []
        alias: dict[str, str] = {}
        for u in dict.fromkeys(_uses(line, self.labels, self.types)):
            ok, more, al = self.pure("%" + u)
            if not ok:
                return self.memo[v]
            lines += [m for m in more if m not in lines]
            alias.update(al)
        self.memo[v] = (True, lines + [line], alias)
        return self.memo[v]


def _fixed_allocas(pieces, allocas, promotable, args, remat, starts, alive, labels, types) -> dict:
    """Registers whose value wherever a region starts is a pure function of the thread's position
    and the launch (stored once, by a store that dominates every such start, with a pure value):
    a region recomputes them instead of restoring them from the context, which keeps a thread's
    addresses affine in its position (the loop over the threads then reads consecutive or uniform
    addresses). name -> (lines that compute the value, loads read as their store's value, value)."""
    index = {p.name: i for i, p in enumerate(pieces)}
    stores: dict[str, list[tuple[int, int, str]]] = {}
    for pi, p in enumerate(pieces):
        for li, line in enumerate(p.lines):
            st = _STORE_TO.match(line)
            if st and st.group(3) in promotable:
                stores.setdefault(st.group(3), []).append((pi, li, st.group(2)))
    dom = _dominators(pieces)
    purity = _Purity(pieces, promotable, args, remat, allocas, labels, types)
    result = {}
    for name in sorted(promotable):
        found = stores.get(name, [])
        main = [s for s in found if not (s[0] == 0 and not s[2].startswith("%"))]
        if len(main) != 1:
            continue
        pi, li, value = main[0]
        if any(s[0] == 0 and pi == 0 and s[1] > li for s in found):
            continue
        if not all(pi in dom[index[starts[r]]] for r in starts if r and name in alive[starts[r]]):
            continue
        ok, lines, alias = purity.pure(value)
        if ok:
            result[name] = (lines, alias, value)
    return result


def _recomputed(v: str) -> str:
    """The name a recomputed SSA value has in a region (numbered names must stay in order)."""
    return f'%"{v.strip(chr(34))}.wv"'


def _rename(lines: list[str], alias: dict[str, str], keep: str | None = None):
    """A ``re.sub`` function for a recomputation's lines: its names suffixed ``.wm`` (the originals
    may be in the region too; ``keep`` becomes ``_recomputed(keep)``), loads replaced by the value
    their store stored."""
    local = {_DEF.match(ln).group(1) for ln in lines} - {keep}

    def rename(m: re.Match) -> str:
        name, tok = m.group(1), m.group(0)
        if name == keep:
            return _recomputed(name)
        while name in alias:
            tok = alias[name]
            t = _TOKEN.fullmatch(tok)
            if not t:
                return tok
            name = t.group(1)
        return f'%"{name.strip(chr(34))}.wm"' if name in local else tok
    return rename


def _recompute(names: list[str], fixed: dict, allocas: dict, values: list[str], recomputed: dict,
               purity: _Purity | None) -> list[str]:
    """Lines that store the recomputed value of each fixed register in ``names`` and define each
    SSA value of ``values`` (recomputed, under its own name)."""
    defined: set[str] = set()
    out: list[str] = []
    for n in names:
        lines, alias, value = fixed[n]
        rename = _rename(lines, alias)
        for ln in lines:
            d = _DEF.match(ln).group(1)
            if d not in defined:
                defined.add(d)
                out.append(_TOKEN.sub(rename, ln))
        ty, _s, align = allocas[n]
        out.append(f"  store {ty} {_TOKEN.sub(rename, value)}, ptr %{n}, align {align}")
    for v in values:
        _ok, lines, alias = purity.pure("%" + v)
        rename = _rename(lines, alias, keep=v)
        for ln in lines:
            d = _DEF.match(ln).group(1)
            if d == v:
                out.append(_TOKEN.sub(rename, ln))
            elif d not in defined:
                defined.add(d)
                out.append(_TOKEN.sub(rename, ln))
        if v in alias:  # a register's load: its store's value, under the load's name
            tok = _TOKEN.sub(_rename(lines, alias), f"%{v}")
            ty = recomputed[v]
            out.append(f"  {_recomputed(v)} = select i1 true, {ty} {tok}, {ty} {tok}")
    return out


_TYPES: dict[tuple[int, str], dict[str, str]] = {}


def value_types(text: str, kernel: str) -> dict[str, str]:
    """Type of every named value of ``kernel`` (llvmlite reads the module; cached per text)."""
    key = (hash(text), kernel)
    if key not in _TYPES:
        import llvmlite.binding as llvm

        # a context of its own: compiles also run on the tiering's background thread (compile.py)
        fn = llvm.parse_assembly(text, context=llvm.create_context()).get_function(kernel)
        # names as LLVM prints them, without printing each instruction (every str(ins) numbers the
        # whole function again: quadratic, 42 s for a CUB radix-sort kernel): a named value's name,
        # quoted unless plain; unnamed arguments, blocks and values take the numbers 0, 1, ... in order
        found = {}
        slot = sum(1 for a in fn.arguments if not a.name)
        for block in fn.blocks:
            if not block.name:
                slot += 1
            for ins in block.instructions:
                ty = str(ins.type)
                if ty == "void":
                    continue
                name = ins.name
                if not name:
                    name, slot = str(slot), slot + 1
                elif not _PLAIN_NAME.match(name):
                    name = '"' + name + '"'
                found[name] = ty
        _TYPES.clear()
        _TYPES[key] = found
    return _TYPES[key]


def _demote(pieces: list[_Piece], names: set[str], tys: dict[str, str], labels: set[str], types: set[str]) -> None:
    """Keep each SSA value of ``names`` in an alloca ``<name>.wd`` too: stored after its definition,
    and every use outside its defining piece reads the alloca (a phi's in the incoming piece)."""
    entry = pieces[0]
    home: dict[str, str] = {}
    for p in pieces:
        last_phi = -1
        for i, line in enumerate(p.lines):
            if _PHI.match(line):
                last_phi = i
        inserts: list[tuple[int, str]] = []
        for i, line in enumerate(p.lines):
            d = _DEF.match(line)
            if d and d.group(1) in names:
                home[d.group(1)] = p.name
                n = d.group(1)
                at = last_phi if _PHI.match(line) else i
                inserts.append((at, f"  store {tys[n]} %{n}, ptr %{_wd(n)}, align 16"))
        for at, store in sorted(inserts, key=lambda x: -x[0]):
            p.lines.insert(at + 1, store)
    count = 0
    for p in pieces:
        new: list[str] = []
        for line in p.lines:
            if _PHI.match(line):
                new.append(line)
                continue
            used = [u for u in dict.fromkeys(_uses(line, labels, types)) if u in names and home.get(u) != p.name]
            for u in used:
                count += 1
                v = f'%"{u.strip(chr(34))}.wr{count}"'
                new.append(f"  {v} = load {tys[u]}, ptr %{_wd(u)}, align 16")
                line = re.sub(rf"%{re.escape(u)}(?![\w.$-])", v, line)
            new.append(line)
        p.lines = new
    for p in pieces:  # phi entries: a load at the end of the incoming piece
        for i, line in enumerate(p.lines):
            if not _PHI.match(line):
                continue
            def sub(m: re.Match) -> str:
                nonlocal count
                val, pred = m.group(1), m.group(2)
                tok = _TOKEN.fullmatch(val.strip())
                if not tok or tok.group(1) not in names or home.get(tok.group(1)) == pred:
                    return m.group(0)
                u = tok.group(1)
                count += 1
                v = f'%"{u.strip(chr(34))}.wr{count}"'
                src = next(q for q in pieces if q.name == pred)
                at = len(src.lines) - 1 if src.exit is None else len(src.lines)
                src.lines.insert(at, f"  {v} = load {tys[u]}, ptr %{_wd(u)}, align 16")
                return f"[ {v}, %{pred} ]"
            p.lines[i] = _PHI_ENTRY.sub(sub, line)
    for n in sorted(names):  # sorted: the same text in every process
        entry.lines.insert(0, f"  %{_wd(n)} = alloca {tys[n]}, align 16")


def _wd(name: str) -> str:
    return f'"{name.strip(chr(34))}.wd"'  # quoted: a numbered value's name plus a suffix needs it


def _split_params(params: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in params:
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _derived(name: str, suffix: str) -> str:
    return f'%"{name.strip(chr(34))}.{suffix}"'


def _slot_ptr(name: str, offset: int, size: int) -> list[str]:
    """This thread's element of the context array at ``offset`` (n elements of ``size`` bytes)."""
    o, t, x = _derived(name, "wo"), _derived(name, "wt"), _derived(name, "wx")
    return [f"  {o} = mul i64 %__wi_n, {offset}", f"  {t} = mul i64 %__wi_t, {size}", f"  {x} = add i64 {o}, {t}",
            f"  {_derived(name, 'wp')} = getelementptr inbounds i8, ptr %__wi_ctx, i64 {x}"]


def _prune_phi(line: str, reach: set[str]) -> str:
    """A phi without the entries of predecessors that are not in this region's copy."""
    head = line[:line.index("[")].rstrip()
    kept = [m.group(0) for m in _PHI_ENTRY.finditer(line) if m.group(2) in reach]
    if not kept:
        raise _Unsupported("a phi with no predecessor left")
    return f"{head} {', '.join(kept)}"


def _region(rid, start, reach, pieces, params, entry, allocas, escaping, promotable, remat, offsets, alive,
            starts, fixed, values, recomputed, purity, xoff: int = -1) -> list[str]:
    """``__sim_r<rid>``: the kernel entered at resume point ``rid``; returns its exit code."""
    header = entry.name if rid == 0 else "__wi_entry"
    # a register this region neither reads nor writes keeps its context value: no restore, no save
    read, written = set(), set()
    for p in pieces:
        if p.name in reach:
            for line in p.lines:
                ld, st = _LOAD_OF.match(line), _STORE_TO.match(line)
                if ld:
                    read.add(ld.group(3))
                if st:
                    written.add(st.group(3))
    saved_here = promotable & written
    out = [f"define internal i32 @__sim_r{rid}({params}, ptr noalias %__wi_ctx, i64 %__wi_n, i64 %__wi_t) {{",
           f"{header}:"]
    for name, (ty, _nbytes, align) in allocas.items():
        if name not in escaping:
            out.append(f"  %{name} = alloca {ty}, align {align}")
    for name in sorted(offsets):
        out += _slot_ptr(name, offsets[name], _elem(allocas[name]))
    for name in sorted(escaping):
        out.append(f"  %{name} = getelementptr inbounds i8, ptr {_derived(name, 'wp')}, i64 0")
    if xoff >= 0:  # this thread's exchange slot (16 bytes per thread at xoff: _exchanges)
        out += [f"  %__wx.o = mul i64 %__wi_n, {xoff}", "  %__wx.t = mul i64 %__wi_t, 16",
                "  %__wx.x = add i64 %__wx.o, %__wx.t", f"  {_XV} = getelementptr inbounds i8, ptr %__wi_ctx, i64 %__wx.x",
                f"  {_XA} = getelementptr inbounds i8, ptr {_XV}, i64 8"]
    if _TICK in allocas:
        out.append(f"  store i64 0, ptr %{_TICK}, align 8")
    if rid == 0:  # the entry block itself, without its allocas (above)
        for line in entry.lines:
            if _ALLOCA.match(line) or line.strip().startswith(f"store i64 0, ptr %{_TICK},"):
                continue
            out.append("  ret i32 3" if _RET.match(line) else line)
        if entry.exit:
            out += _exit(entry, starts, alive, saved_here, allocas)
    else:
        checks_local = _checks_local(pieces, reach)
        for line in entry.lines:  # what a region may need of the entry block: recomputed
            d = _DEF.match(line)
            if (d and d.group(1) in remat) or (_SIM_LOCAL.match(line) and checks_local):
                out.append(line)
        for name in sorted(alive[start] & promotable & (read | written)):
            ty, _s, align = allocas[name]
            v = _derived(name, "wl")
            out.append(f"  {v} = load {ty}, ptr {_derived(name, 'wp')}, align {align}")
            out.append(f"  store {ty} {v}, ptr %{name}, align {align}")
        out += _recompute(sorted(alive[start] & set(fixed)), fixed, allocas, values, recomputed, purity)
        out.append(f"  br label %{start}")
    own = set(values)

    def own_name(m: re.Match) -> str:
        return _recomputed(m.group(1)) if m.group(1) in own else m.group(0)
    for p in pieces:
        if p is entry or p.name not in reach:
            continue
        out.append(f"{p.name}:")
        for line in p.lines:
            if own:
                line = _TOKEN.sub(own_name, line)
            if _PHI.match(line):
                line = _prune_phi(line, reach)
            out.append("  ret i32 3" if _RET.match(line) else line)
        if p.exit:
            out += _exit(p, starts, alive, saved_here, allocas)
    out.append("}")
    return out


def _merged(pieces, params, entry, allocas, escaping, saved, remat, offsets, alive, starts, xoff: int,
            record: int, reach: dict[int, set[str]]) -> list[str]:
    """``__sim_rm``: the kernel's body once, entered at resume point ``%__wi_r`` by a switch (for
    kernels whose per-region copies would be too large: hundreds of warp operations, CUB's onesweep
    radix sort). Values live across a cut are all in allocas here (demoted, none recomputed); each
    resume point's block reloads the registers live there, each exit saves those live where the
    thread resumes, as the region copies do. The context is one record of ``record`` bytes per
    thread (the registers at ``offsets`` in it: each access is the record's address plus a
    constant, with nothing computed per register at the start), then the exchange slots at
    ``xoff`` = ``record`` (16 bytes per thread, workitem.c wi_exchange's layout).

    A register that one run from a resume point to the next cut (``reach``) neither reads nor
    writes keeps its context value, as in the region copies: an exit saves the registers live where
    the thread resumes that some run reaching it writes (``keep``), and a resume point reloads the
    live registers its run reads or writes or that an exit it reaches saves (a stored register
    must hold the thread's value: loaded, or written on the way)."""
    rw: dict[str, tuple[set[str], set[str]]] = {}
    for p in pieces:
        read, written = set(), set()
        for line in p.lines:
            ld, st = _LOAD_OF.match(line), _STORE_TO.match(line)
            if ld:
                read.add(ld.group(3))
            if st:
                written.add(st.group(3))
        rw[p.name] = (read, written)
    writes_reaching: dict[str, set[str]] = {p.name: set() for p in pieces}
    for r, seen in reach.items():
        if r in starts:
            w = set().union(*(rw[n][1] for n in seen)) & saved
            for n in seen:
                writes_reaching[n] |= w
    keep = {p.name: alive[starts[p.exit[1]]] & writes_reaching[p.name] for p in pieces if p.exit}
    out = [f"define internal i32 @{WRM}({params}, ptr noalias %__wi_ctx, i64 %__wi_n, i64 %__wi_t, i32 %__wi_r) {{",
           "__wi_h:"]
    for name, (ty, _nbytes, align) in allocas.items():
        if name not in escaping:
            out.append(f"  %{name} = alloca {ty}, align {align}")
    out += [f"  %__wi_ro = mul i64 %__wi_t, {record}", "  %__wi_rec = getelementptr inbounds i8, ptr %__wi_ctx, i64 %__wi_ro"]
    for name in sorted(offsets):
        out.append(f"  {_derived(name, 'wp')} = getelementptr inbounds i8, ptr %__wi_rec, i64 {offsets[name]}")
    for name in sorted(escaping):
        out.append(f"  %{name} = getelementptr inbounds i8, ptr {_derived(name, 'wp')}, i64 0")
    if xoff >= 0:
        out += [f"  %__wx.o = mul i64 %__wi_n, {xoff}", "  %__wx.t = mul i64 %__wi_t, 16",
                "  %__wx.x = add i64 %__wx.o, %__wx.t", f"  {_XV} = getelementptr inbounds i8, ptr %__wi_ctx, i64 %__wx.x",
                f"  {_XA} = getelementptr inbounds i8, ptr {_XV}, i64 8"]
    if _TICK in allocas:
        out.append(f"  store i64 0, ptr %{_TICK}, align 8")
    hoisted = []
    local = []  # the local-memory registration: at the resume points whose run checks local memory
    for i, line in enumerate(entry.lines):  # the entry block's pure values, for every resume point
        d = _DEF.match(line)
        if d and d.group(1) in remat:
            out.append(line)
            hoisted.append(i)
        elif _SIM_LOCAL.match(line):
            local.append(line)
    cases = " ".join(f"i32 {r}, label %__wi_p{r}" for r in sorted(starts) if r)
    out.append(f"  switch i32 %__wi_r, label %{entry.name} [ {cases} ]")
    for r in sorted(starts):
        if not r:
            continue
        out.append(f"__wi_p{r}:")
        seen = reach[r]
        if local and _checks_local(pieces, seen):
            out += local
        used = set().union(*(rw[n][0] | rw[n][1] | keep.get(n, set()) for n in seen))
        for name in sorted(alive[starts[r]] & saved & used):
            ty, _s, align = allocas[name]
            v = _derived(name, f"wl{r}")
            out.append(f"  {v} = load {ty}, ptr {_derived(name, 'wp')}, align {align}")
            out.append(f"  store {ty} {v}, ptr %{name}, align {align}")
        out.append(f"  br label %{starts[r]}")
    skip = set(hoisted)
    for p in pieces:
        out.append(f"{p.name}:")
        for i, line in enumerate(p.lines):
            if p is entry and (i in skip or _ALLOCA.match(line) or line.strip().startswith(f"store i64 0, ptr %{_TICK},")):
                continue
            out.append("  ret i32 3" if _RET.match(line) else line)
        if p.exit:
            out += _exit(p, starts, alive, keep[p.name], allocas)
    out.append("}")
    return out


def _checks_local(pieces: list[_Piece], reach: set[str]) -> bool:
    """A run through the pieces ``reach`` may check a private access (``sim_check0``, here or in a
    called device function, reads the bounds that the entry block's ``sim_local`` registers). Only
    such runs register them again: the
    call per thread and resume point was 28 % of Thrust inclusive_scan's kernel time (CUB's
    look-back scan resumes each thread at ~100 exchanges)."""
    return any(any(k in line for k in _LOCAL_USERS) for p in pieces if p.name in reach for line in p.lines)


_LOCAL_USERS = ("@sim_check0(", " fastcc ", "@cm.", '@"cm.')  # a check, or a call of a device function


def _exit(p: _Piece, starts, alive, promotable, allocas) -> list[str]:
    """Leave at the barrier/step that ends ``p``: save the allocas live where the thread resumes."""
    kind, rid = p.exit
    out = []
    for name in sorted(alive[starts[rid]] & promotable):
        ty, _s, align = allocas[name]
        v = _derived(name, f"ws{rid}")
        out.append(f"  {v} = load {ty}, ptr %{name}, align {align}")
        out.append(f"  store {ty} {v}, ptr {_derived(name, 'wp')}, align {align}")
    out.append(f"  ret i32 {kind | rid << 2}")
    return out


def _elem(a: tuple[str, int, int]) -> int:
    """Bytes per thread of an alloca's context array: its size rounded up to its alignment."""
    _ty, size, align = a
    return -(-size // max(align, 1)) * max(align, 1)


def loop_entry(arg_types: list[str], kinds: list[int]) -> tuple[list[str], dict[int, str]]:
    """The entry block's lines of a loop over the threads t0..t1-1 of a threadgroup (``__sim_wr``
    and wivector.py's loops: ``%slots``, ``%t0`` in scope): the block's sizes, the first thread's
    position, the uniform arguments; and {argument index: its typed value} of those."""
    nargs = len(arg_types)
    # the block's sizes are 1..1024 (sim/__init__.py refuses more threads per block): with the
    # range known, a thread's 32-bit index arithmetic provably does not wrap, so LLVM's scalar
    # evolution sees addresses affine in the thread loop's counter (consecutive accesses)
    b = [f"  %dimp = getelementptr i8, ptr %slots, i64 {16 * nargs}"]
    for i, axis in enumerate("xyz"):
        b.append(f"  %n{axis}p = getelementptr i8, ptr %dimp, i64 {4 * i}")
        b.append(f"  %n{axis} = load i32, ptr %n{axis}p, align 4, !range !{{i32 1, i32 1025}}")
    b += ["  %nxy = mul i32 %nx, %ny", "  %nall = mul i32 %nxy, %nz", "  %n = zext i32 %nall to i64",
          "  %x0 = urem i32 %t0, %nx", "  %q0 = udiv i32 %t0, %nx", "  %y0 = urem i32 %q0, %ny", "  %z0 = udiv i32 %q0, %ny"]
    uniform = {}
    for i, (ty, kind) in enumerate(zip(arg_types, kinds, strict=True)):
        if kind in (_K_TID, _K_TINDEX, _K_LANE, _K_WARP):
            continue
        b.append(f"  %p{i} = getelementptr i8, ptr %slots, i64 {16 * i}")
        b.append(f"  %a{i} = load {ty}, ptr %p{i}, align 4")
        uniform[i] = f"{ty} %a{i}"
    return b, uniform


def thread_loop(R: str, accs: list[tuple[str, str, str]], arg_types: list[str], kinds: list[int],
                uniform: dict[int, str], assume_md: str = "") -> tuple[list[str], list[str]]:
    """The head of the loop nest (z, y, x; x innermost) over threads t0..t1-1 for region block
    ``R`` (entered from block ``R``; the tail, thread_loop_tail, branches back): the thread's
    position and index (``%R.tt``, ``%R.t64``), and per accumulator (name, type, initial value) the
    phis ``%R.<name>o`` (outer) and ``%R.<name>`` (inner) of its next value ``%R.<name>n``.
    Returns the lines and the region's call arguments (the kernel's, then ctx, n, t)."""
    b = [f"  br label %{R}.o", f"{R}.o:", f"  %{R}.t = phi i32 [ %t0, %{R} ], [ %{R}.tn, %{R}.on ]"]
    b += [f"  %{R}.{a}o = phi {ty} [ {init}, %{R} ], [ %{R}.{a}n, %{R}.on ]" for a, ty, init in accs]
    b += [f"  %{R}.xs = phi i32 [ %x0, %{R} ], [ 0, %{R}.on ]",
          f"  %{R}.y = phi i32 [ %y0, %{R} ], [ %{R}.yn, %{R}.on ]",
          f"  %{R}.z = phi i32 [ %z0, %{R} ], [ %{R}.zn, %{R}.on ]",
          f"  %{R}.left = sub i32 %t1, %{R}.t", f"  %{R}.room = sub i32 %nx, %{R}.xs",
          f"  %{R}.lt = icmp ult i32 %{R}.left, %{R}.room",
          f"  %{R}.cnt = select i1 %{R}.lt, i32 %{R}.left, i32 %{R}.room",
          f"  %{R}.xe = add i32 %{R}.xs, %{R}.cnt", f"  %{R}.row = sub i32 %{R}.t, %{R}.xs",
          f"  br label %{R}.i", f"{R}.i:",
          f"  %{R}.x = phi i32 [ %{R}.xs, %{R}.o ], [ %{R}.x1, %{R}.i ]"]
    b += [f"  %{R}.{a} = phi {ty} [ %{R}.{a}o, %{R}.o ], [ %{R}.{a}n, %{R}.i ]" for a, ty, _init in accs]
    b += [f"  %{R}.tt = add i32 %{R}.row, %{R}.x", f"  %{R}.t64 = zext i32 %{R}.tt to i64",
          # the same ranges for the position itself (known bits let LLVM drop masks of zexts)
          f"  %{R}.ax = icmp ult i32 %{R}.x, 1024", f"  call void @llvm.assume(i1 %{R}.ax){assume_md}",
          f"  %{R}.ay = icmp ult i32 %{R}.y, 1024", f"  call void @llvm.assume(i1 %{R}.ay){assume_md}",
          f"  %{R}.az = icmp ult i32 %{R}.z, 64", f"  call void @llvm.assume(i1 %{R}.az){assume_md}",
          f"  %{R}.at = icmp ult i32 %{R}.tt, 1024", f"  call void @llvm.assume(i1 %{R}.at){assume_md}"]
    lines, call = thread_arguments(arg_types, kinds, uniform, f"%{R}.v", f"%{R}.x", f"%{R}.y", f"%{R}.z", f"%{R}.tt")
    return b + lines, call + ["ptr %ctx", "i64 %n", f"i64 %{R}.t64"]


def thread_loop_tail(R: str, exit_label: str, loop_md: str = "") -> list[str]:
    """The end of thread_loop's nest: the next thread, row and plane; ``exit_label`` after the last."""
    return [f"  %{R}.x1 = add i32 %{R}.x, 1", f"  %{R}.ci = icmp ult i32 %{R}.x1, %{R}.xe",
            f"  br i1 %{R}.ci, label %{R}.i, label %{R}.on{loop_md}", f"{R}.on:",
            f"  %{R}.tn = add i32 %{R}.t, %{R}.cnt", f"  %{R}.y1 = add i32 %{R}.y, 1",
            f"  %{R}.wy = icmp eq i32 %{R}.y1, %ny", f"  %{R}.yn = select i1 %{R}.wy, i32 0, i32 %{R}.y1",
            f"  %{R}.zi = zext i1 %{R}.wy to i32", f"  %{R}.zn = add i32 %{R}.z, %{R}.zi",
            f"  %{R}.co = icmp ult i32 %{R}.tn, %t1", f"  br i1 %{R}.co, label %{R}.o, label %{exit_label}"]


def _wr_merged(arg_types: list[str], kinds: list[int]) -> list[str]:
    """``__sim_wr`` of a merged kernel (_merged): one loop over the threads, each entering the body
    at resume point r."""
    entry, uniform = loop_entry(arg_types, kinds)
    head, call = thread_loop("R", [("s", "i32", "-2")], arg_types, kinds, uniform)
    return [f"define i32 @{WR}(ptr %slots, ptr %ctx, i32 %r, i32 %t0, i32 %t1, ptr %st) {{", "entry:", *entry,
            "  br label %R", "R:", *head,
            f"  %R.c = call i32 @{WRM}({', '.join(call + ['i32 %r'])})",
            "  %R.sp = getelementptr inbounds i32, ptr %st, i64 %R.t64", "  store i32 %R.c, ptr %R.sp, align 4",
            "  %R.s0 = icmp eq i32 %R.s, -2", "  %R.s1 = icmp eq i32 %R.s, %R.c", "  %R.s2 = or i1 %R.s0, %R.s1",
            "  %R.sn = select i1 %R.s2, i32 %R.c, i32 -1", *thread_loop_tail("R", "done"),
            "done:", "  ret i32 %R.sn", "}"]


def _wr(nres: int, starts: dict[int, str], arg_types: list[str], kinds: list[int]) -> list[str]:
    """``__sim_wr(slots, ctx, r, t0, t1, state)``: region r for threads t0..t1-1 (x innermost)."""
    entry, uniform = loop_entry(arg_types, kinds)
    b = [f"define i32 @{WR}(ptr %slots, ptr %ctx, i32 %r, i32 %t0, i32 %t1, ptr %st) {{", "entry:", *entry]
    cases = " ".join(f"i32 {r}, label %R{r}" for r in range(nres) if r in starts)
    rets: list[str] = []
    b += [f"  switch i32 %r, label %done [ {cases} ]"]
    for r in range(nres):
        if r not in starts:
            continue
        R = f"R{r}"
        # the summary: the exit code common to every thread run (-2: none yet, -1: they differ)
        head, call = thread_loop(R, [("s", "i32", "-2")], arg_types, kinds, uniform)
        b += [f"{R}:", *head,
              f"  %{R}.c = call i32 @__sim_r{r}({', '.join(call)}) alwaysinline",
              f"  %{R}.sp = getelementptr inbounds i32, ptr %st, i64 %{R}.t64",
              f"  store i32 %{R}.c, ptr %{R}.sp, align 4",
              f"  %{R}.s0 = icmp eq i32 %{R}.s, -2", f"  %{R}.s1 = icmp eq i32 %{R}.s, %{R}.c",
              f"  %{R}.s2 = or i1 %{R}.s0, %{R}.s1", f"  %{R}.sn = select i1 %{R}.s2, i32 %{R}.c, i32 -1",
              *thread_loop_tail(R, "done")]
        rets.append(f"[ %{R}.sn, %{R}.on ]")
    b += ["done:", f"  %sum = phi i32 [ -1, %entry ], {', '.join(rets)}", "  ret i32 %sum", "}"]
    return b

"""A vectorizable work-group function for barrier-free kernels, with the bounds checks kept exact.

The checked work-group loop (``instrument.workgroup_function``) cannot be vectorized: every
device access has an inline window check whose miss calls the runtime (a call on a path inside
the loop), and a kernel's own loop (the grid-stride loop) makes the loop over the threads an
outer loop. Per threadgroup, ``__sim_wgv`` instead runs:

1. ``__sim_probe``: a loop over the threads running a copy of the kernel with every device and
   threadgroup store removed and every check turned into a branch-free test that ORs a miss
   (outside the site's window, or misaligned) into a flag; a thread that would take a retreating
   edge (go round a loop, layout order: every cycle has one) also sets it. Nothing is written,
   nothing calls the runtime: the loop vectorizes.
2. flag clear: ``__sim_wgf``, the same loop over a copy of the kernel without checks, whose
   retreating edges return (never taken: the probe said so), every memory access in one access
   group and the thread loop marked parallel (``llvm.loop.parallel_accesses``: threads of a
   barrier-free kernel have no ordering among themselves a correct CUDA program may rely on, as
   PoCL marks its work-item loops), so LLVM's loop vectorizer runs it as vectors;
   flag set: the checked work-group loop, exactly as before (it moves the windows or faults at
   the exact access, before the faulting thread's store).

Why the probe is exact: it is used only when, after optimization, it reads no memory but
read-only launch words (``!invariant.load``), its own slots and the check windows, and calls
nothing (``probe_is_pure``). Then no checked address and no branch of the kernel's first trip
depends on memory the kernel reads (a load feeding one would still be in the probe), so the
probe computes exactly the addresses and the path the fast copy takes: every access of the fast
run lies in a window the runtime validated for this launch, aligned. A kernel whose addresses
depend on loaded values (a gather through an index array), with calls (atomics, math functions
of the runtime), private memory or local-memory checks keeps the checked loop.
"""

from __future__ import annotations

import re
from itertools import pairwise

from cumetal.backends.air.sim.instrument import (
    _DEFINE,
    _K_LANE,
    _K_TID,
    _K_TINDEX,
    _K_WARP,
    _LABEL,
    _STORE,
    _TARGETS,
    InstrumentError,
    _blocks,
    thread_arguments,
    type_bytes,
)
from cumetal.backends.common.codes import SimArgKind

PROBE, FAST, VECTOR, DEFER, RESUME = "__sim_probe", "__sim_wgf", "__sim_wgv", "__sim_wgd", "__sim_wgr"
RANGE, PROBE_RANGE = "__sim_wgvn", "__sim_probe_r"  # a range of threadgroups in one call (_range_function)
PATH, PATH_GROUPS = "__sim_wgs", "__sim_path_groups"  # the main path's copy (_main_path) and its count
_K_CTAID, _K_NCTAID = int(SimArgKind.CTAID), int(SimArgKind.NCTAID)
_CHECK = re.compile(r"^\s*call void @__sim_chk([13])\((.*)\)\s*$")
_MEMORY = re.compile(r"^\s*(?:%[\w.$-]+ = load |store )")
_RET = re.compile(r"^\s*ret void\s*$")
_PHI = re.compile(r"^\s*%[\w.$-]+ = phi ")
_ALLOCA_LINE = re.compile(r"^\s*%[\w.$-]+ = alloca ")
_MD_NUM = re.compile(r"!(\d+)")
_CHECK_PTR = re.compile(r"^ptr addrspace\([13]\) (%[\w.$-]+|%\"[^\"]+\")")
_ANY_LOAD_PTR = re.compile(r"^\s*%[\w.$-]+ = load .*, ptr (?:addrspace\(\d+\) )?(%[\w.$-]+|%\"[^\"]+\")")
_ANY_DEVICE_LOAD = re.compile(r"^\s*%[\w.$-]+ = load .*ptr addrspace\([13]\) ")
_PLAIN_LOAD = re.compile(r"^\s*(%[\w.$-]+) = load (?:volatile )?([^,]+), ptr addrspace\(([13])\) "
                         r"(%[\w.$-]+|@[\w.$-]+|@\"[^\"]+\")(?:, align \d+)?\s*$")
# A device address made from an integer (the lowering's registers are integers): as an offset
# from null instead, which LLVM's scalar evolution follows (it cannot see through inttoptr), so
# that consecutive threads' accesses become wide loads and stores instead of gathers/scatters.
# Null is an ordinary address in addrspace(1); alias analysis treats every such pointer as based
# on the same object, so none is assumed apart from another.
_INTTOPTR = re.compile(r"^(\s*%[\w.$-]+) = inttoptr i64 (%[\w.$-]+) to ptr addrspace\((1)\)\s*$")

# The probe's check: the inline check's test (instrument._CHECK_FN) as 64-bit integer arithmetic
# ORed into *bad, no compare per access (compares become mask registers, whose ORs were most of
# the probe's time): bit 63 is set when the address is outside the window -- off = a - lo is
# outside [0, lim) exactly when off or ~(off - lim) has bit 63 set, as lim < 2^63 (a window is
# at most one allocation) -- and bits 60-63 hold the misaligned low bits of the address (an
# alignment of at most 16: a larger one keeps the compare, _PCHK_WIDE). A miss: *bad >= 2^60.
_PCHK = """
define internal void @__sim_pchk{sp}(ptr addrspace({sp}) %p, i64 %n, i64 %al, ptr %site, ptr %bad) alwaysinline {{
entry:
  %a = ptrtoint ptr addrspace({sp}) %p to i64
  %lo = load i64, ptr %site, align 8, !invariant.load !{{}}
  %limp = getelementptr i64, ptr %site, i64 1
  %lim = load i64, ptr %limp, align 8, !invariant.load !{{}}
  %off = sub i64 %a, %lo
  %d = sub i64 %off, %lim
  %nd = xor i64 %d, -1
  %r = or i64 %off, %nd
  %out = and i64 %r, -9223372036854775808
  %m = sub i64 %al, 1
  %low = and i64 %a, %m
  %mis = shl i64 %low, 60
  %c = or i64 %out, %mis
  %b = load i64, ptr %bad, align 8
  %b1 = or i64 %b, %c
  store i64 %b1, ptr %bad, align 8
  ret void
}}
define internal void @__sim_pchkw{sp}(ptr addrspace({sp}) %p, i64 %n, i64 %al, ptr %site, ptr %bad) alwaysinline {{
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
  %c = select i1 %ok, i64 0, i64 -1
  %b = load i64, ptr %bad, align 8
  %b1 = or i64 %b, %c
  store i64 %b1, ptr %bad, align 8
  ret void
}}
"""
_ALIGN_ARG = re.compile(r", i64 (\d+), i64 (\d+), ptr ")
_SITE_OFFSET = re.compile(r"@__sim_sites, i64 (\d+)\)")

# The range probe's check (_range_probe): the lowest and highest address of the site over the
# threadgroup's threads (mm[0], mm[1]: compare and select, which LLVM vectorizes as min/max
# reductions), and the misaligned low bits ORed into *bad as in _PCHK. The window test is made
# once per site after the loop: the window of valid start addresses is an interval, so every
# address lies in it exactly when the lowest and the highest do -- the same answer as testing
# each one. The range [lowest, highest] is also what the runtime prefetches.
_PMM = """
define internal void @__sim_pmm{sp}(ptr addrspace({sp}) %p, i64 %n, i64 %al, ptr %site, ptr %bad, ptr %mm) alwaysinline {{
entry:
  %a = ptrtoint ptr addrspace({sp}) %p to i64
  %mn = load i64, ptr %mm, align 8
  %lt = icmp ult i64 %a, %mn
  %mn1 = select i1 %lt, i64 %a, i64 %mn
  store i64 %mn1, ptr %mm, align 8
  %mxp = getelementptr i64, ptr %mm, i64 1
  %mx = load i64, ptr %mxp, align 8
  %gt = icmp ugt i64 %a, %mx
  %mx1 = select i1 %gt, i64 %a, i64 %mx
  store i64 %mx1, ptr %mxp, align 8
  %m = sub i64 %al, 1
  %low = and i64 %a, %m
  %mis = shl i64 %low, 60
  %b = load i64, ptr %bad, align 8
  %b1 = or i64 %b, %mis
  store i64 %b1, ptr %bad, align 8
  ret void
}}
"""
PREFETCH_SPAN = 16384  # bytes: a site whose threadgroup range is wider is not prefetched
# the range function and the main path's copy: 512-bit vectors where the CPU has them (LLVM's
# default for AVX-512 Intel CPUs is 256 bits). The range probe's 64-bit address arithmetic was
# most of vector add's time at 4 threads an iteration (a profile, 2026-11-25: 19.0 -> 16.0 ms of
# CPU per 2^24 launch on one worker); elsewhere (no AVX-512, other targets) a no-op.
_WIDE = ' "prefer-vector-width"="512"'


def _split_define(line: str) -> tuple[str, str, str] | None:
    """(name, argument list text, text before the name) of a ``define`` line."""
    m = _DEFINE.match(line)
    if not m:
        return None
    start = m.end() - 1  # the "(" after the name
    depth = 0
    for i in range(start, len(line)):
        if line[i] == "(":
            depth += 1
        elif line[i] == ")":
            depth -= 1
            if depth == 0:
                return m.group(1), line[start + 1:i], line[:m.start(1) - 1]
    return None


def _kernel_body(text: str, kernel: str) -> tuple[str, list[str]] | None:
    """The kernel's argument list text and body lines in the instrumented module."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        parts = _split_define(line)
        if parts and parts[0].strip('"') == kernel:
            end = lines.index("}", i)
            return parts[1], lines[i + 1:end]
    return None


def _back_edges(blocks: list[tuple[str, list[str]]]) -> set[tuple[int, str]]:
    """The retreating edges (source block index, target label) of a depth-first search from the
    entry block: an edge to a block on the search's stack. Removing them leaves no cycle among the
    blocks the entry reaches (a path of the rest visits each block at most once)."""
    order = {name: i for i, (name, _) in enumerate(blocks)}
    succ = [[t for line in lines if not _PHI.match(line) for t in _TARGETS.findall(line) if t in order]
            for _name, lines in blocks]
    back: set[tuple[int, str]] = set()
    state = [0] * len(blocks)  # 0 unvisited, 1 on the stack, 2 done
    state[0] = 1
    stack = [(0, iter(succ[0]))] if blocks else []
    while stack:
        i, it = stack[-1]
        t = next(it, None)
        if t is None:
            state[i] = 2
            stack.pop()
            continue
        j = order[t]
        if state[j] == 1:
            back.add((i, t))
        elif state[j] == 0:
            state[j] = 1
            stack.append((j, iter(succ[j])))
    return back


def _retarget(body: list[str], label_of, dfs: bool = False) -> tuple[list[str], list[str]] | None:
    """The body with every retreating edge (to a block at or before its source, in layout order:
    every cycle has one) going to the new block ``label_of(target)`` instead, and the targets in
    order of first appearance; None when a retreating edge's target has a phi.

    ``dfs``: the retreating edges of a depth-first search from the entry instead (_back_edges).
    A work-item region (workitem.py) is the kernel entered in the middle, at its resume point: a
    loop's back edge that leads from there to the region's next barrier (a tile loop's latch, back
    to the next tile's loads) is backwards in layout but on no cycle of the region."""
    blocks = _blocks(body)
    order = {name: i for i, (name, _) in enumerate(blocks)}
    back = _back_edges(blocks) if dfs else None
    out: list[str] = []
    targets_seen: list[str] = []
    for i, (_name, lines) in enumerate(blocks):
        for line in lines:
            targets = [t for t in _TARGETS.findall(line) if t in order
                       and ((i, t) in back if back is not None else order[t] <= i)]
            if targets and not _PHI.match(line):
                for t in dict.fromkeys(targets):
                    if any(_PHI.match(x) for x in blocks[order[t]][1]):
                        return None
                    if t not in targets_seen:
                        targets_seen.append(t)
                    line = re.sub(rf"label %{re.escape(t)}(?=$|[\s,\]])", f"label %{label_of(t)}", line)
            out.append(line)
    return out, targets_seen


def _entry_insert(body: list[str], extra: list[str]) -> list[str]:
    """``extra`` placed at the top of the entry block (after its label, with the allocas)."""
    lead = 1 if body and _LABEL.match(body[0]) else 0
    return body[:lead] + extra + body[lead:]


def _probe_clone(name: str, args: str, body: list[str], loaders: dict[str, str],
                 mm_sites: list[tuple[int, str, int, bool]] | None = None,
                 path: dict[str, str] | None = None, store_only: set[int] | None = None,
                 dfs: bool = False, mm_spaces: tuple[str, ...] = ("1",)) -> str | None:
    """The kernel as a probe (module docstring), returning an i64 whose bits 60-63 are set when an
    access missed its window or is misaligned (_PCHK) and whose bit 0 is set when the thread goes
    round a loop (takes a retreating edge). ``loaders``
    collects the declarations of the ``__sim_ld.*`` functions its device/threadgroup loads
    become: a load is a call of one, which LLVM deletes when its value is unused (``memory(read)
    nounwind willreturn``) and which otherwise stays a call, so that ``probe_is_pure`` sees that
    an address or branch needs it.

    ``mm_sites`` (the range probe, _range_probe_epilogue): each check site's lowest and highest
    address instead of a test per access, collected as (site offset, space, access bytes, True);
    compiled without checks (CUMETAL_JIT_CHECKS=0) there are no sites, and every device load and
    store's range is collected instead (key < 0, False: for the prefetch only).

    ``path`` (block label -> the successor the main path takes, _main_path): a thread that leaves
    the main path (a conditional branch of one of those blocks going the other way) sets bit 2.
    ``store_only`` collects the indices of ``mm_sites`` whose accesses are all stores (their
    prefetch would read the lines that the main path's non-temporal stores are to write unread).
    ``dfs``: _retarget's. ``mm_spaces``: the address spaces whose check sites get the lowest and
    highest address (threadgroup sites too for work-item regions: _range_probe_epilogue's ``static3``)."""
    got = _retarget(body, lambda _t: "__sim_defer", dfs)
    if got is None:
        return None
    out = []
    block = ""
    untracked = mm_sites is not None and not any(_CHECK.match(line) for line in got[0])

    # the pointers the body loads from (a check site whose pointer is one of them is not store-only)
    loaded = {m.group(4) for line in got[0] if (m := _PLAIN_LOAD.match(line))}
    loaded |= {m.group(1) for line in got[0] if (m := _ANY_LOAD_PTR.match(line))}
    site_loaded: dict[int, bool] = {}

    def track(j: int, ptr: str, ty: str, stored: bool = False) -> None:  # checks off: an access's range
        size = _type_size(ty)
        if size is None or mm_sites is None:
            return
        if stored and store_only is not None:
            store_only.add(len(mm_sites))
        mm_sites.append((-1 - len(mm_sites), "1", size, False))
        out.extend([f"  %__sim_mmp{j} = getelementptr i8, ptr %__sim_mm, i64 {16 * (len(mm_sites) - 1)}",
                    f"  call void @__sim_pmm1(ptr addrspace(1) {ptr}, i64 {size}, i64 1, ptr null, ptr %__sim_bad, "
                    f"ptr %__sim_mmp{j})"])

    for j, line in enumerate(got[0]):
        lab = _LABEL.match(line)
        if lab:
            block = lab.group(1)
        cond = _COND_BR.match(line) if path and block in path else None
        if cond and cond.group(2) != cond.group(3) and path[block] in (cond.group(2), cond.group(3)):
            off = f"xor i1 {cond.group(1)}, true" if path[block] == cond.group(2) else f"or i1 {cond.group(1)}, false"
            out += [f"  %__sim_po{j} = {off}", f"  %__sim_pz{j} = zext i1 %__sim_po{j} to i64",
                    f"  %__sim_ps{j} = shl i64 %__sim_pz{j}, 2", f"  %__sim_pb{j} = load i64, ptr %__sim_bad, align 8",
                    f"  %__sim_pn{j} = or i64 %__sim_pb{j}, %__sim_ps{j}", f"  store i64 %__sim_pn{j}, ptr %__sim_bad, align 8"]
        if _ANY_DEVICE_LOAD.match(line) and "!invariant.load" not in line:
            ld = _PLAIN_LOAD.match(line)
            if not ld:
                return None  # an atomic or otherwise unusual load: no probe
            res, ty, sp, ptr = ld.groups()
            if untracked and sp == "1":
                track(j, ptr, ty)
            fn = f"__sim_ld.{sp}.{re.sub(r'[^A-Za-z0-9]', '_', ty)}"
            # declared, not defined: LLVM must not see (and inline) a body; the symbol is the
            # runtime's sim_probe_load, which faults (never called: an impure probe is not used)
            loaders[fn] = f"declare {ty} @\"{fn}\"(ptr addrspace({sp})) nounwind willreturn memory(read)\n"
            out.append(f"  {res} = call {ty} @\"{fn}\"(ptr addrspace({sp}) {ptr})")
            continue
        chk = _CHECK.match(line)
        if chk:
            al = _ALIGN_ARG.search(chk.group(2))
            wide = "" if al and int(al.group(2)) <= 16 else "w"
            site = _SITE_OFFSET.search(chk.group(2))
            if mm_sites is not None and not wide and al and site and chk.group(1) in mm_spaces:
                # the range probe: the site's lowest and highest address (one pair per site)
                off = int(site.group(1))
                if not any(o == off for o, _, _, _ in mm_sites):
                    mm_sites.append((off, chk.group(1), int(al.group(1)), True))
                slot = next(i for i, (o, _, _, _) in enumerate(mm_sites) if o == off)
                cptr = _CHECK_PTR.match(chk.group(2))
                site_loaded[slot] = site_loaded.get(slot, False) or not cptr or cptr.group(1) in loaded
                out += [f"  %__sim_mmp{j} = getelementptr i8, ptr %__sim_mm, i64 {16 * slot}",
                        f"  call void @__sim_pmm{chk.group(1)}({chk.group(2)}, ptr %__sim_bad, ptr %__sim_mmp{j})"]
                continue
            out.append(f"  call void @__sim_pchk{wide}{chk.group(1)}({chk.group(2)}, ptr %__sim_bad)")
            continue
        st = _STORE.match(line)
        if st and st.group(2) in ("1", "3"):
            if untracked and st.group(2) == "1":
                track(j, st.group(3), st.group(1).rsplit(" ", 1)[0], stored=True)
            continue  # the probe writes nothing
        if _RET.match(line):
            out += [f"  %__sim_b{j} = load i64, ptr %__sim_bad, align 8", f"  ret i64 %__sim_b{j}"]
            continue
        out.append(line)
    out = _entry_insert(out, ["  %__sim_bad = alloca i64, align 8", "  store i64 0, ptr %__sim_bad, align 8"])
    if store_only is not None:
        store_only.update(i for i, was in site_loaded.items() if not was)
    extra = ", ptr %__sim_mm" if mm_sites is not None else ""
    return (f"define internal i64 @\"{name}\"({args}{extra}) alwaysinline nounwind {{\n" + "\n".join(out)
            + "\n__sim_defer:\n  %__sim_db = load i64, ptr %__sim_bad, align 8\n"
            + "  %__sim_d = or i64 %__sim_db, 1\n  ret i64 %__sim_d\n}\n")


def _unchecked(line: str, group: int | None) -> str | None:
    """A line of a copy of the kernel that runs without checks (accesses the probe verified)."""
    if _CHECK.match(line):
        return None
    if group is not None and _MEMORY.match(line):
        line += f", !llvm.access.group !{group}"
    return _INTTOPTR.sub(r"\1 = getelementptr i8, ptr addrspace(\3) null, i64 \2", line)


def _fast_clone(name: str, args: str, body: list[str], group: int) -> str | None:
    """The kernel without checks, every memory access in the access group ``group``; its
    retreating edges return (the probe made sure no thread takes one)."""
    got = _retarget(body, lambda _t: "__sim_defer")
    if got is None:
        return None
    out = [u for line in got[0] if (u := _unchecked(line, group)) is not None]
    return (f"define internal void @\"{name}\"({args}) alwaysinline nounwind {{\n" + "\n".join(out)
            + "\n__sim_defer:\n  ret void\n}\n")


# ------------------------------------------------------------------ the main path (full vectors)
# The kernel's `if (i < n)` makes the vectorized loop's device accesses masked: x86 has no masked
# non-temporal store, and a masked store still reads its line before writing it (write-allocate).
# Most threadgroups of such a kernel take one path through it, every thread the same way. The
# main path (the path with the most device stores, of a kernel with at most PATH_BRANCHES
# conditional branches and PATH_PATHS paths, retreating edges excluded) gets a copy of its own:
# its blocks in a line, no branch left, so the loop over the threads has no mask. The range probe
# sets bit 2 when a thread leaves the path (a branch of the path going the other way); a clean
# threadgroup whose threads all stay on it runs the copy (``__sim_wgs``), the others the fast loop
# as before. After optimization (``after_optimization``) the copy's vector device stores become
# non-temporal where their address is aligned (a test per store: MOVNT needs alignment), so a
# large launch writes its output without reading it first.
PATH_BRANCHES, PATH_PATHS, PATH_BLOCKS = 8, 64, 400
# the copy runs (non-temporal stores) for launches whose main path stores at least this many bytes
# over the grid: smaller outputs are likely re-read from the cache (measured: see docs/cpu-backend.md)
NT_MIN_BYTES = 8 << 20
_COND_BR = re.compile(r"^\s*br i1 ([^,]+), label %(\"[^\"]+\"|[\w.$-]+), label %(\"[^\"]+\"|[\w.$-]+)")
_UNCOND_BR = re.compile(r"^\s*br label %(\"[^\"]+\"|[\w.$-]+)\s*(?:,.*)?$")
_PHI_PARTS = re.compile(r"^(\s*%[\w.$-]+ = phi [^\[]+?)\s*((?:\[[^\[\]]+\],?\s*)+)$")
_PHI_IN = re.compile(r"\[\s*([^\[\]]+?),\s*%(\"[^\"]+\"|[\w.$-]+)\s*\]")
_IMPURE = re.compile(r"= (?:atomicrmw|cmpxchg) |^\s*fence ")
_PURE_CALLS = ("llvm.", "__sim_chk", "__sim_tick")
_DEVICE_STORE = re.compile(r"^\s*store (.+), ptr addrspace\(1\) ")


def _main_path(body: list[str]) -> tuple[list[int], dict[str, str], int] | None:
    """(the blocks of the main path, in order; per path block ending in a conditional branch, the
    successor the path takes; the bytes the path stores to device memory) for the fast copy's body
    (retreating edges retargeted), or None: no device store on it, more than PATH_BRANCHES
    conditional branches, PATH_PATHS paths or PATH_BLOCKS blocks, a switch, an atomic or a call
    that leaves the probe impure."""
    blocks = _blocks(body)
    if len(blocks) > PATH_BLOCKS:
        return None
    # an atomic, or a call other than the checks, the watchdog tick and LLVM's intrinsics (a math
    # function of the runtime), keeps the probe impure: the vectorized loops would never run
    if any(_IMPURE.search(x) or ((c := _OPT_CALL.search(x)) and not c.group(1).startswith(_PURE_CALLS))
           for x in body):
        return None
    index = {name: i for i, (name, _) in enumerate(blocks)}
    succ: list[list[str]] = []
    nbranch = 0
    for _name, lines in blocks:
        term = next((x for x in reversed(lines) if x.strip() and not x.strip().startswith(";")), "")
        if _RET.match(term):
            succ.append([])
        elif (c := _COND_BR.match(term)):
            nbranch += 1
            succ.append([t for t in (c.group(2), c.group(3)) if t in index])
        elif (u := _UNCOND_BR.match(term)):
            succ.append([u.group(1)] if u.group(1) in index else [None])
        else:
            return None  # switch, unreachable, ...
    if nbranch > PATH_BRANCHES:
        return None
    paths: list[list[int]] = []

    def walk(i: int, acc: list[int]) -> bool:
        if len(paths) > PATH_PATHS:
            return False
        if not succ[i]:
            if _RET.match(next(x for x in reversed(blocks[i][1]) if x.strip())):
                paths.append(acc + [i])
            return True
        return all(t is None or walk(index[t], acc + [i]) for t in dict.fromkeys(succ[i]))

    if not walk(0, []) or not paths or len(paths) > PATH_PATHS:
        return None

    def stores(path: list[int]) -> tuple[int, int]:
        return (sum(1 for i in path for x in blocks[i][1] if _DEVICE_STORE.match(x)),
                sum(len(blocks[i][1]) for i in path))

    best = max(paths, key=stores)
    nbytes = 0
    for i in best:
        for x in blocks[i][1]:
            st = _DEVICE_STORE.match(x)
            if st:
                size = _type_size(st.group(1).rsplit(" ", 1)[0])
                if size is None:
                    return None
                nbytes += size
    if nbytes == 0:
        return None
    taken = {}
    for a, b in pairwise(best):
        if len(succ[a]) == 2 and succ[a][0] != succ[a][1]:
            taken[blocks[a][0]] = blocks[b][0]
    return best, taken, nbytes


def _path_clone(name: str, args: str, body: list[str], path: list[int], group: int) -> str | None:
    """The fast copy of the main path alone: its blocks in order, each ending in a branch to the
    next (a phi keeps the incoming value of the path's edge)."""
    got = _retarget(body, lambda _t: "__sim_defer")
    if got is None:
        return None
    blocks = _blocks(got[0])
    out: list[str] = []
    for k, i in enumerate(path):
        name_i, lines = blocks[i]
        prev = blocks[path[k - 1]][0] if k else None
        term = max(j for j, x in enumerate(lines) if x.strip() and not x.strip().startswith(";"))
        for j, line in enumerate(lines):
            if j == term:
                out.append(f"  br label %{blocks[path[k + 1]][0]}" if k + 1 < len(path) else line)
                continue
            if _PHI.match(line):
                m = _PHI_PARTS.match(line)
                ins = dict((blk, v) for v, blk in _PHI_IN.findall(m.group(2))) if m else {}
                if prev not in ins:
                    return None
                line = f"{m.group(1)} [ {ins[prev]}, %{prev} ]"
            u = _unchecked(line, group)
            if u is not None:
                out.append(u)
    return f"define internal void @\"{name}\"({args}) alwaysinline nounwind {{\n" + "\n".join(out) + "\n}\n"


# ------------------------------------------------------------------ deferral (grid-stride loops)
# A thread that goes round a loop (a grid-stride loop over more elements than the grid has
# threads) stops at its first retreating edge in ``.fastd`` (the unchecked copy, up to there
# verified by the probe): it saves its registers (the entry block's allocas: the lowering keeps
# every value that lives across blocks in one) and the edge's target in its spill record, and the
# loop over the threads goes on. Afterwards ``.resume`` (the checked kernel, entered at that
# target with the registers restored) runs the rest of each such thread, with exact checks.
_SPILL_MAX = 512  # bytes per thread (a threadgroup's records are on the worker's stack)
_SSA_DEF = re.compile(r"^\s*(%[\w.$-]+) = ")
_SSA_USE = re.compile(r"%[\w.$-]+|%\"[^\"]+\"")
_ALLOCA_DEF = re.compile(r"^\s*(%[\w.$-]+) = alloca (.+?)(?:, align \d+)?\s*$")
_VOLATILE = re.compile(r"\b(?:load|store) volatile\b")
_ARRAY_TY = re.compile(r"^\[(\d+) x (.+)\]$")


def _type_size(ty: str) -> int | None:
    ty = ty.strip()
    arr = _ARRAY_TY.match(ty)
    if arr:
        inner = _type_size(arr.group(2))
        return None if inner is None else int(arr.group(1)) * inner
    try:
        return type_bytes(ty)
    except InstrumentError:
        return None


def _spill_layout(body: list[str], entry_end: int) -> tuple[list[tuple[str, str, int]], int] | None:
    """(alloca name, type, offset) of every register of the kernel and the record size (the
    first 16 bytes: the resume target), or None when the kernel's shape does not allow deferral:
    a value used outside the block that defines it other than the entry block's, a phi in the
    entry block's successor, or more than ``_SPILL_MAX`` bytes of registers."""
    regs, off = [], 16
    for line in body[:entry_end]:
        m = _ALLOCA_DEF.match(line)
        if m:
            size = _type_size(m.group(2))
            if size is None:
                return None
            regs.append((m.group(1), m.group(2).strip(), off))
            off += (size + 15) // 16 * 16
    if off > _SPILL_MAX:
        return None
    blocks = _blocks(body)
    where: dict[str, int] = {}
    for i, (_n, lines) in enumerate(blocks):
        for line in lines:
            d = _SSA_DEF.match(line)
            if d:
                where[d.group(1)] = i
    for i, (_n, lines) in enumerate(blocks):
        for line in lines:
            if _PHI.match(line):  # an incoming edge from the entry block: resuming skips that edge
                if blocks[0][0] and re.search(rf"%{re.escape(blocks[0][0])}\s*\]", line):
                    return None
                continue
            for name in _SSA_USE.findall(re.sub(r"label %\S+", "", line)):
                d = where.get(name)
                if d is not None and d not in (0, i):
                    return None
    return regs, off


def _defer_clone(name: str, args: str, body: list[str], regs: list[tuple[str, str, int]]) -> tuple[str, list[str]] | None:
    """``.fastd``: the unchecked kernel whose retreating edges save the thread (module comment
    above); a thread that finishes writes resume target 0. Also the targets, in tag order."""
    got = _retarget(body, lambda t: f"__sim_defer.{re.sub(r'[^A-Za-z0-9_.]', '_', t)}")
    if got is None:
        return None
    lines, targets = got
    out = []
    for line in lines:
        if _RET.match(line):
            out += ["  store i32 0, ptr %__sim_spill, align 16", line]
            continue
        u = _unchecked(line, None)
        if u is not None:
            out.append(u)
    for k, t in enumerate(targets):
        out.append(f"__sim_defer.{re.sub(r'[^A-Za-z0-9_.]', '_', t)}:")
        for j, (reg, ty, off) in enumerate(regs):
            out += [f"  %__sim_sv{k}.{j} = load {ty}, ptr {reg}", f"  %__sim_sp{k}.{j} = getelementptr i8, ptr %__sim_spill, i64 {off}",
                    f"  store {ty} %__sim_sv{k}.{j}, ptr %__sim_sp{k}.{j}"]
        out += [f"  store i32 {k + 1}, ptr %__sim_spill, align 16", "  ret void"]
    return (f"define internal void @\"{name}\"({args}, ptr %__sim_spill) nounwind {{\n" + "\n".join(out) + "\n}\n",
            targets)


def _resume_clone(name: str, args: str, body: list[str], entry_end: int, regs: list[tuple[str, str, int]],
                  targets: list[str]) -> str | None:
    """``.resume``: the checked kernel entered at a saved thread's resume target, its registers
    restored from the record."""
    term = next((j for j in range(entry_end - 1, -1, -1) if re.match(r"^\s*br ", body[j])), None)
    if term is None or not body or not _LABEL.match(body[0]):
        return None
    restore = ["  %__sim_tag = load i32, ptr %__sim_spill, align 16"]
    for j, (reg, ty, off) in enumerate(regs):
        restore += [f"  %__sim_rp{j} = getelementptr i8, ptr %__sim_spill, i64 {off}",
                    f"  %__sim_rv{j} = load {ty}, ptr %__sim_rp{j}", f"  store {ty} %__sim_rv{j}, ptr {reg}"]
    cases = " ".join(f"i32 {k + 1}, label %{t}" for k, t in enumerate(targets))
    restore.append(f"  switch i32 %__sim_tag, label %__sim_nothing [ {cases} ]")
    out = body[:term] + restore + body[term + 1:]
    return (f"define internal void @\"{name}\"({args}, ptr %__sim_spill) noinline nounwind {{\n" + "\n".join(out)
            + "\n__sim_nothing:\n  ret void\n}\n")


def _thread_loops(fn: str, callee: str, arg_types: list[str], kinds: list[int], nargs: int,
                  deref: dict[int, int], *, mode: str, loop_md: int | None, stride: int = 0,
                  mm_sites: list[tuple[int, str, int, bool]] | None = None, path_bit: bool = False,
                  usepath: str = "", store_only: set[int] | None = None) -> str:
    """A loop nest (z, y, x) over the threadgroup's threads calling ``callee`` (inlined) for each.
    ``mode``: "probe" (the callee returns i64 flags, ORed, then the function's i32 result),
    "plain", "spill" (the callee also gets the thread's spill record: ``%spill`` + t * ``stride``)
    or "resume" (the same, called only for threads whose record holds a resume target).
    Parameter buffers in ``deref`` (argument index -> bytes) are marked dereferenceable, so that
    the kernel's reads of its launch words are hoisted out of the loop."""
    ret = "i32" if mode in ("probe", "probe_mm") else "void"
    extra = ", ptr %spill" if mode in ("spill", "resume") else ""
    # the probe and the plain loop are inlined into both callers (__sim_wgv, the range function)
    # (the main path's copy is not: after optimization its vector stores are found by its name)
    inline = " alwaysinline" if mode in ("probe", "probe_mm", "plain") else f" noinline{_WIDE}" if mode == "path" else ""
    b = [f"define {ret} @{fn}(ptr %slots{extra}){inline} {{", "entry:"]
    if mode in ("probe", "probe_mm"):
        b.append("  %acc = alloca i64, align 8")
        b.append("  store i64 0, ptr %acc, align 8")
    if mode == "probe_mm":  # per site: lowest address (from all ones down), highest (from 0 up)
        b.append(f"  %mm = alloca [{2 * max(len(mm_sites), 1)} x i64], align 8")
        for j in range(len(mm_sites)):
            b += [f"  %mmi{j} = getelementptr i8, ptr %mm, i64 {16 * j}", f"  store i64 -1, ptr %mmi{j}, align 8",
                  f"  %mmx{j} = getelementptr i8, ptr %mm, i64 {16 * j + 8}", f"  store i64 0, ptr %mmx{j}, align 8"]
    if usepath:  # the main path's launch test (_usepath), for the range probe's prefetch
        b.append(usepath)
    b.append(f"  %dimp = getelementptr i8, ptr %slots, i64 {16 * nargs}")
    b.append("  %dims = load <3 x i32>, ptr %dimp, align 4")
    for i, axis in enumerate("xyz"):
        b.append(f"  %n{axis} = extractelement <3 x i32> %dims, i32 {i}")
    uniform = {}
    for i, (ty, kind) in enumerate(zip(arg_types, kinds, strict=True)):
        if kind in (_K_TID, _K_TINDEX, _K_LANE, _K_WARP):
            continue
        b.append(f"  %p{i} = getelementptr i8, ptr %slots, i64 {16 * i}")
        md = f", !dereferenceable !{{i64 {deref[i]}}}, !align !{{i64 16}}" if i in deref and ty.startswith("ptr") else ""
        b.append(f"  %a{i} = load {ty}, ptr %p{i}, align 4{md}")
        uniform[i] = f"{ty} %a{i}"
    b += ["  br label %zl", "zl:", "  %tz = phi i32 [ 0, %entry ], [ %tz1, %zn ]", "  br label %yl", "yl:",
          "  %ty = phi i32 [ 0, %zl ], [ %ty1, %yn ]", "  %zy = mul i32 %tz, %ny", "  %zy1 = add i32 %zy, %ty",
          "  %row = mul i32 %zy1, %nx", "  br label %xl", "xl:", "  %tx = phi i32 [ 0, %yl ], [ %tx1, %xnext ]",
          "  %t = add i32 %row, %tx"]
    lines, args = thread_arguments(arg_types, kinds, uniform, "%v", "%tx", "%ty", "%tz", "%t")
    b += lines
    if extra:
        b += ["  %t64 = zext i32 %t to i64", f"  %soff = mul i64 %t64, {stride}",
              "  %rec = getelementptr i8, ptr %spill, i64 %soff"]
        args.append("ptr %rec")
    if mode == "probe_mm":
        args.append("ptr %mm")
    call = f"@\"{callee}\"({', '.join(args)})"
    if mode in ("probe", "probe_mm"):
        b += [f"  %bad = call i64 {call}", "  %old = load i64, ptr %acc, align 8", "  %new = or i64 %old, %bad",
              "  store i64 %new, ptr %acc, align 8", "  br label %xnext"]
    elif mode == "resume":
        b += ["  %tag = load i32, ptr %rec, align 16", "  %go = icmp ne i32 %tag, 0",
              "  br i1 %go, label %xcall, label %xnext", "xcall:", f"  call void {call}", "  br label %xnext"]
    else:
        b += [f"  call void {call}", "  br label %xnext"]
    md = f", !llvm.loop !{loop_md}" if loop_md is not None else ""
    b += ["xnext:", "  %tx1 = add i32 %tx, 1", "  %cx = icmp ult i32 %tx1, %nx", f"  br i1 %cx, label %xl, label %yn{md}",
          "yn:", "  %ty1 = add i32 %ty, 1", "  %cy = icmp ult i32 %ty1, %ny", "  br i1 %cy, label %yl, label %zn", "zn:",
          "  %tz1 = add i32 %tz, 1", "  %cz = icmp ult i32 %tz1, %nz", "  br i1 %cz, label %zl, label %done", "done:"]
    if mode == "probe_mm":
        b += _range_probe_epilogue(mm_sites, path_bit=path_bit, store_only=store_only if usepath else None) + ["}"]
    elif mode == "probe":
        # bit 0: a miss (bits 60-63 of the threads' OR), bit 1: a thread goes round a loop
        b += ["  %r = load i64, ptr %acc, align 8", "  %miss = icmp uge i64 %r, 1152921504606846976",
              "  %mi = zext i1 %miss to i32", "  %dl = and i64 %r, 1", "  %d32 = trunc i64 %dl to i32",
              "  %d2 = shl i32 %d32, 1", "  %ri = or i32 %mi, %d2", "  ret i32 %ri", "}"]
    else:
        b += ["  ret void", "}"]
    return "\n".join(b) + "\n"


def _range_probe_epilogue(mm_sites: list[tuple[int, str, int, bool]], p: str = "", acc: str = "%acc",
                          mm: str = "%mm", done: str = "  ret i32 %ri", path_bit: bool = False,
                          store_only: set[int] | None = None, static3: tuple[str, int] | None = None) -> list[str]:
    """After the range probe's loop (``_thread_loops`` mode "probe_mm"): each site's window test
    on its lowest and highest address (a site no thread reached has lowest > highest), the result
    as the probe's (bit 0: a miss, bit 1: a thread goes round a loop), and, when clean, a prefetch
    of every cache line of each device site's range up to ``PREFETCH_SPAN`` bytes: the vectorized
    loop's masked loads (a guarded access: ``if (i < n)``) do not start the hardware prefetcher's
    streams, and a threadgroup's misses then come one after another (measured on this machine's
    EPYC: vector add 2^24 at 0.69 ns per element against 0.29 unmasked; 0.29 with the lines
    prefetched first). ``path_bit``: bit 2 of the result is bit 2 of the threads' flags (a thread
    left the main path, _main_path); it does not stop the prefetch. ``store_only`` (the sites that
    are only stored to): not prefetched when the threadgroup will run the main path's copy with
    non-temporal stores (no thread left the path and ``%usepath``, _usepath, holds).

    ``static3`` (the kernel's static threadgroup global and its size, when the checked
    ``__sim_chk3`` first accepts an access inside it, instrument._CHECK3_STATIC): a threadgroup
    site is clean when its lowest and highest address both lie in the static global, or both in
    the site's window. The checked code accepts the union of the two intervals, a superset: a
    site whose threads straddle them (or a threadgroup site without ``static3``: the window alone)
    only runs checked."""
    if path_bit:
        done = "  %pb = and i64 %r, 4\n  %pb32 = trunc i64 %pb to i32\n  %rp = or i32 %ri, %pb32\n  ret i32 %rp"
    lines = _range_probe_epilogue_plain(mm_sites, acc, mm, done, store_only or set(), static3)
    if not p:
        return lines
    def rename(line: str) -> str:  # every local name and label of the epilogue, prefixed
        line = re.sub(r"%(?!acc\b|mm\b)([A-Za-z_][\w]*)", lambda m: f"%{p}{m.group(1)}", line)
        return re.sub(r"^(pf\w*|pfend):", lambda m: f"{p}{m.group(1)}:", line)
    keep = {acc, mm}
    out = []
    for line in lines:
        for k in keep:
            line = line.replace(k + ",", "\0" + k[1:] + ",").replace(k + " ", "\0" + k[1:] + " ")
        line = rename(line).replace("\0", "%")
        out.append(line)
    return out


def _range_probe_epilogue_plain(mm_sites, acc, mm, done, store_only=frozenset(), static3=None) -> list[str]:
    b = [f"  %r = load i64, ptr {acc}, align 8", "  %miss0 = icmp uge i64 %r, 1152921504606846976", "  %all_ = and i1 true, true"]

    def loads(j: int) -> list[str]:
        return [f"  %mnp{j} = getelementptr i8, ptr {mm}, i64 {16 * j}", f"  %mn{j} = load i64, ptr %mnp{j}, align 8",
                f"  %mxp{j} = getelementptr i8, ptr {mm}, i64 {16 * j + 8}", f"  %mx{j} = load i64, ptr %mxp{j}, align 8"]

    def test(j: int, off: int, prev: str) -> list[str]:
        t = [f"  %lo{j} = load i64, ptr getelementptr (i8, ptr @__sim_sites, i64 {off}), align 8",
             f"  %lim{j} = load i64, ptr getelementptr (i8, ptr @__sim_sites, i64 {off + 8}), align 8",
             f"  %used{j} = icmp ule i64 %mn{j}, %mx{j}", f"  %o1_{j} = sub i64 %mn{j}, %lo{j}",
             f"  %i1_{j} = icmp ult i64 %o1_{j}, %lim{j}", f"  %o2_{j} = sub i64 %mx{j}, %lo{j}",
             f"  %i2_{j} = icmp ult i64 %o2_{j}, %lim{j}", f"  %in{j} = and i1 %i1_{j}, %i2_{j}"]
        return t + [f"  %ok{j} = select i1 %used{j}, i1 %in{j}, i1 true", f"  %all{j} = and i1 {prev}, %ok{j}"]

    prev = "%all_"
    static_sites = []
    for j, (off, sp, _n, checked) in enumerate(mm_sites):
        if not checked:
            continue
        if sp == "3" and static3 is not None:
            static_sites.append(j)
            continue
        b += loads(j) + test(j, off, prev)
        prev = f"%all{j}"
    if static_sites:
        # the threadgroup sites together: clean when the lowest and the highest address over all of
        # them lie in the static global (with the largest access's bound) -- then every site does;
        # otherwise not clean (the checked code then decides, exactly). wivector.py takes
        # threadgroup sites by range only in regions that do not use dynamic shared memory: a test
        # per site against its window as well was ~15 % more compile time for the tiled matmul
        glob, size = static3
        nmax = max(mm_sites[j][2] for j in static_sites)
        glim = size + 1 - nmax if nmax <= size else 0
        lo, hi = "-1", "0"
        for j in static_sites:
            b += loads(j)
            b += [f"  %s3l{j} = icmp ult i64 %mn{j}, {lo}", f"  %s3lo{j} = select i1 %s3l{j}, i64 %mn{j}, i64 {lo}",
                  f"  %s3h{j} = icmp ugt i64 %mx{j}, {hi}", f"  %s3hi{j} = select i1 %s3h{j}, i64 %mx{j}, i64 {hi}"]
            lo, hi = f"%s3lo{j}", f"%s3hi{j}"
        b += [f"  %s3none = icmp ugt i64 {lo}, {hi}", f"  %s3g = ptrtoint ptr addrspace(3) {glob} to i64",
              f"  %s3o1 = sub i64 {lo}, %s3g", f"  %s3i1 = icmp ult i64 %s3o1, {glim}", f"  %s3o2 = sub i64 {hi}, %s3g",
              f"  %s3i2 = icmp ult i64 %s3o2, {glim}", "  %s3in = and i1 %s3i1, %s3i2", "  %s3ok = or i1 %s3in, %s3none",
              f"  %alls3 = and i1 {prev}, %s3ok"]
        prev = "%alls3"
    b += [f"  %inall = xor i1 {prev}, true", "  %miss = or i1 %miss0, %inall", "  %mi = zext i1 %miss to i32",
          "  %dl = and i64 %r, 1", "  %d32 = trunc i64 %dl to i32", "  %d2 = shl i32 %d32, 1", "  %ri = or i32 %mi, %d2",
          "  %clean = icmp eq i32 %ri, 0"]
    if store_only:  # the main path's copy writes these sites with non-temporal stores: no prefetch
        b += ["  %offp = and i64 %r, 4", "  %onp = icmp eq i64 %offp, 0", "  %ntrun = and i1 %onp, %usepath",
              "  %pfst = xor i1 %ntrun, true"]
    device = [j for j, (_o, sp, _n, _c) in enumerate(mm_sites) if sp == "1"]
    labels = [f"pf{j}" for j in device] + ["pfend"]
    b.append(f"  br i1 %clean, label %{labels[0]}, label %pfend")
    for k, j in enumerate(device):
        n = mm_sites[j][2]
        if not mm_sites[j][3]:  # the lowest and highest address, not loaded above
            b += [f"pf{j}:", f"  %mnp{j} = getelementptr i8, ptr {mm}, i64 {16 * j}", f"  %mn{j} = load i64, ptr %mnp{j}, align 8",
                  f"  %mxp{j} = getelementptr i8, ptr {mm}, i64 {16 * j + 8}", f"  %mx{j} = load i64, ptr %mxp{j}, align 8",
                  f"  %used{j} = icmp ule i64 %mn{j}, %mx{j}"]
        else:
            b.append(f"pf{j}:")
        b += [f"  %s{j} = and i64 %mn{j}, -64", f"  %e{j} = add i64 %mx{j}, {n}", f"  %span{j} = sub i64 %e{j}, %s{j}",
              f"  %small{j} = icmp ule i64 %span{j}, {PREFETCH_SPAN}",
              f"  %go{j} = and i1 %small{j}, %used{j}" if j not in store_only else
              f"  %go0_{j} = and i1 %small{j}, %used{j}\n  %go{j} = and i1 %go0_{j}, %pfst",
              f"  br i1 %go{j}, label %pfl{j}, label %{labels[k + 1]}", f"pfl{j}:",
              f"  %pa{j} = phi i64 [ %s{j}, %pf{j} ], [ %pn{j}, %pfl{j} ]", f"  %pp{j} = inttoptr i64 %pa{j} to ptr",
              f"  call void @llvm.prefetch.p0(ptr %pp{j}, i32 0, i32 3, i32 1)", f"  %pn{j} = add i64 %pa{j}, 64",
              f"  %pm{j} = icmp ult i64 %pn{j}, %e{j}", f"  br i1 %pm{j}, label %pfl{j}, label %{labels[k + 1]}"]
    b += ["pfend:", done]
    return b


def _usepath(kinds: list[int], nargs: int, path_bytes: int) -> str:
    """IR computing ``%usepath`` from ``%slots``: whether the launch's grid stores at least
    ``NT_MIN_BYTES`` on the main path (``path_bytes`` a thread); "" when the kernel has no main
    path's copy or no grid size among its arguments."""
    if not path_bytes or _K_NCTAID not in kinds:
        return ""
    k = kinds.index(_K_NCTAID)
    return (f"  %ncp = getelementptr i8, ptr %slots, i64 {16 * k}\n  %nc = load <3 x i32>, ptr %ncp, align 4\n"
            f"  %bdp = getelementptr i8, ptr %slots, i64 {16 * nargs}\n  %bd = load <3 x i32>, ptr %bdp, align 4\n"
            "  %nc64 = zext <3 x i32> %nc to <3 x i64>\n  %bd64 = zext <3 x i32> %bd to <3 x i64>\n"
            "  %dm64 = mul <3 x i64> %nc64, %bd64\n"
            "  %dmx = extractelement <3 x i64> %dm64, i32 0\n  %dmy = extractelement <3 x i64> %dm64, i32 1\n"
            "  %dmz = extractelement <3 x i64> %dm64, i32 2\n  %dxy = mul i64 %dmx, %dmy\n"
            f"  %dxyz = mul i64 %dxy, %dmz\n  %foot = mul i64 %dxyz, {path_bytes}\n"
            f"  %usepath = icmp uge i64 %foot, {NT_MIN_BYTES}")


def _range_function(kinds: list[int], nargs: int = 0, path_bytes: int = 0) -> str:
    """``__sim_wgvn(slots, g0, g1, gx, gy)``: threadgroups g0..g1-1 (linear ids in a grid of gx x gy
    x ... groups) in one call, each probed and, when its probe is clean, run by the vectorized loop;
    returns the first threadgroup whose probe is not clean (not run: the runtime runs it through
    ``__sim_wgv``, which moves the windows, faults or defers), or g1. One call per chunk of
    threadgroups instead of one per threadgroup: the runtime's per-threadgroup work (slots, the
    fault handler's setjmp, the watchdog clock) is done once per range. The probe and the loop
    read the threadgroup position from its slots, stored here; ``noalias``: no device address
    points into the worker's slots, so the launch words stay hoisted. Never calls the runtime
    (the probe is pure, the loop has no checks): it cannot fault. Only for launches without
    threadgroup memory (each threadgroup's starts zeroed by the runtime).

    ``path_bytes`` (the kernel has a main path, _main_path, storing that many bytes per thread):
    a threadgroup whose probe is clean and whose threads all stay on the path runs ``__sim_wgs``
    when the launch's grid stores at least ``NT_MIN_BYTES`` on that path (its non-temporal
    stores), then a fence orders those stores before the range returns."""
    use = _usepath(kinds, nargs, path_bytes)
    b = [f"define i64 @{RANGE}(ptr noalias %slots, i64 %g0, i64 %g1, i32 %gx, i32 %gy){_WIDE} {{", "entry:",
         "  %gx64 = zext i32 %gx to i64", "  %gy64 = zext i32 %gy to i64", "  %gxy = mul i64 %gx64, %gy64",
         *([use] if use else []),
         "  br label %head", "head:", "  %g = phi i64 [ %g0, %entry ], [ %gn, %next ]",
         "  %more = icmp ult i64 %g, %g1", "  br i1 %more, label %body, label %out", "body:",
         "  %row = udiv i64 %g, %gx64", "  %cx64 = urem i64 %g, %gx64", "  %cy64 = urem i64 %row, %gy64",
         "  %cz64 = udiv i64 %g, %gxy", "  %cx = trunc i64 %cx64 to i32", "  %cy = trunc i64 %cy64 to i32",
         "  %cz = trunc i64 %cz64 to i32", "  %c0 = insertelement <3 x i32> zeroinitializer, i32 %cx, i32 0",
         "  %c1 = insertelement <3 x i32> %c0, i32 %cy, i32 1", "  %c = insertelement <3 x i32> %c1, i32 %cz, i32 2"]
    for i, kind in enumerate(kinds):
        if kind == _K_CTAID:
            b += [f"  %cp{i} = getelementptr i8, ptr %slots, i64 {16 * i}", f"  store <3 x i32> %c, ptr %cp{i}, align 4"]
    b.append(f"  %flags = call i32 @{PROBE_RANGE}(ptr %slots)")
    if use:  # 0: clean and on the main path, 4: clean, off it
        b += ["  switch i32 %flags, label %out [ i32 0, label %clean\n    i32 4, label %fast ]", "clean:",
              "  br i1 %usepath, label %onpath, label %fast", "onpath:", f"  call void @{PATH}(ptr %slots)",
              f"  %pg = load i64, ptr @{PATH_GROUPS}, align 8", "  %pg1 = add i64 %pg, 1",
              f"  store i64 %pg1, ptr @{PATH_GROUPS}, align 8", "  br label %next"]
    else:
        b += ["  %clean = icmp eq i32 %flags, 0", "  br i1 %clean, label %fast, label %out"]
    b += ["fast:", f"  call void @{FAST}(ptr %slots)", "  br label %next", "next:",
          "  %gn = add i64 %g, 1", "  br label %head", "out:"]
    if use:  # the non-temporal stores are weakly ordered: visible before the worker reports the range done
        b += ["  br i1 %usepath, label %fence, label %done", "fence:", "  fence seq_cst", "  br label %done", "done:"]
    b += ["  ret i64 %g", "}"]
    if use:
        b.append(f"@{PATH_GROUPS} = global i64 0, align 8")
    return "\n".join(b) + "\n"


def vector_functions(text: str, kernel: str, arg_types: list[str], kinds: list[int], nargs: int,
                     deref: dict[int, int]) -> str | None:
    """``__sim_probe``, ``__sim_wgf`` (and, where the kernel's shape allows deferral,
    ``__sim_wgd``/``__sim_wgr``) and ``__sim_wgv`` for the instrumented module ``text`` (which
    already holds the checked ``__sim_wg``), or None when the kernel's shape does not allow them
    (a phi at a loop header, an alloca outside the entry block)."""
    found = _kernel_body(text, kernel)
    if found is None:
        return None
    args, body = found
    entry_end = next((j for j, line in enumerate(body) if j > 0 and _LABEL.match(line)), len(body))
    if any(_ALLOCA_LINE.match(line) for line in body[entry_end:]):
        return None
    # a volatile access must happen once per thread, in order: never vectorized (and LLVM's loop
    # vectorizer, built with assertions in llvmlite, aborts the process on one in a parallel loop)
    if any(_VOLATILE.search(line) for line in body):
        return None
    nums = [int(n) for n in _MD_NUM.findall(text)]
    group = max(nums, default=0) + 1000
    loop, parallel, probe_md, once = group + 1, group + 2, group + 3, group + 4
    pgroup, ploop, pparallel, nounroll = group + 5, group + 6, group + 7, group + 8
    loaders: dict[str, str] = {}
    probe = _probe_clone(f"{kernel}.probe", args, body, loaders)
    fast = _fast_clone(f"{kernel}.fast", args, body, group)
    if probe is None or fast is None:
        return None
    parts = [probe, fast, *loaders.values(), _PCHK.format(sp=1), _PCHK.format(sp=3),
             _thread_loops(PROBE, f"{kernel}.probe", arg_types, kinds, nargs, deref, mode="probe", loop_md=probe_md),
             _thread_loops(FAST, f"{kernel}.fast", arg_types, kinds, nargs, deref, mode="plain", loop_md=loop)]
    # bit 0 of the probe: a miss (the checked loop); bit 1 alone: threads go round a loop (the
    # deferring copy and the resumed rest when the kernel allows it, else the checked loop)
    deferral = "  br label %slow\n"
    layout = _spill_layout(body, entry_end)
    if layout is not None:
        regs, stride = layout
        dclone = _defer_clone(f"{kernel}.fastd", args, body, regs)
        rclone = _resume_clone(f"{kernel}.resume", args, body, entry_end, regs, dclone[1]) if dclone else None
        if dclone is not None and rclone is not None and dclone[1]:
            parts += [dclone[0], rclone,
                      _thread_loops(DEFER, f"{kernel}.fastd", arg_types, kinds, nargs, deref, mode="spill",
                                    loop_md=None, stride=stride),
                      _thread_loops(RESUME, f"{kernel}.resume", arg_types, kinds, nargs, deref, mode="resume",
                                    loop_md=None, stride=stride)]
            deferral = (f"  %dimp = getelementptr i8, ptr %slots, i64 {16 * nargs}\n"
                        "  %dims = load <3 x i32>, ptr %dimp, align 4\n"
                        "  %nx = extractelement <3 x i32> %dims, i32 0\n  %ny = extractelement <3 x i32> %dims, i32 1\n"
                        "  %nz = extractelement <3 x i32> %dims, i32 2\n  %nxy = mul i32 %nx, %ny\n"
                        "  %nt = mul i32 %nxy, %nz\n  %nt64 = zext i32 %nt to i64\n"
                        f"  %bytes = mul i64 %nt64, {stride}\n  %spill = alloca i8, i64 %bytes, align 16\n"
                        f"  call void @{DEFER}(ptr %slots, ptr %spill)\n  call void @{RESUME}(ptr %slots, ptr %spill)\n"
                        "  ret i32 1\n")
    mm_sites: list[tuple[int, str, int, bool]] = []
    # the main path (full vectors, non-temporal stores): only where it can help, a kernel with a
    # device store, few branches and the grid size in its arguments (each copy costs compile time)
    main = _main_path(_retarget(body, lambda _t: "__sim_defer")[0]) if _K_NCTAID in kinds else None
    pclone = _path_clone(f"{kernel}.path", args, body, main[0], pgroup) if main else None
    store_only: set[int] = set()
    probe_r = _probe_clone(f"{kernel}.probe_r", args, body, loaders, mm_sites, path=main[1] if pclone else None,
                           store_only=store_only)
    if probe_r is not None:
        parts += [probe_r, _PMM.format(sp=1), _PMM.format(sp=3),
                  _thread_loops(PROBE_RANGE, f"{kernel}.probe_r", arg_types, kinds, nargs, deref, mode="probe_mm",
                                loop_md=probe_md, mm_sites=mm_sites, path_bit=bool(pclone),
                                usepath=_usepath(kinds, nargs, main[2]) if pclone else "", store_only=store_only),
                  _range_function(kinds, nargs, main[2] if pclone else 0)]
        if pclone:
            parts += [pclone, _thread_loops(PATH, f"{kernel}.path", arg_types, kinds, nargs, deref, mode="path",
                                            loop_md=ploop),
                      # interleaved once and not unrolled (a loop at memory speed; each copy costs
                      # compile time): no vectorized epilogue, no unrolled remainder
                      f"!{pgroup} = distinct !{{}}\n!{ploop} = distinct !{{!{ploop}, !{pparallel}, !{once}, !{nounroll}}}\n"
                      f"!{pparallel} = !{{!\"llvm.loop.parallel_accesses\", !{pgroup}}}\n"
                      f"!{nounroll} = !{{!\"llvm.loop.unroll.disable\"}}\n"]
        if not re.search(r"^declare void @llvm\.prefetch\.p0\(", text, re.M):
            parts.append("declare void @llvm.prefetch.p0(ptr, i32, i32, i32)\n")
    parts += [f"define i32 @{VECTOR}(ptr %slots) {{\nentry:\n  %flags = call i32 @{PROBE}(ptr %slots)\n"
              "  switch i32 %flags, label %slow [ i32 0, label %fast\n    i32 2, label %defer ]\nslow:\n"
              f"  call void @__sim_wg(ptr %slots)\n  ret i32 0\nfast:\n  call void @{FAST}(ptr %slots)\n"
              f"  ret i32 1\ndefer:\n{deferral}}}\n",
              f"!{group} = distinct !{{}}\n!{loop} = distinct !{{!{loop}, !{parallel}}}\n"
              # no vectorizer hints (width, enable): where LLVM then cannot vectorize a loop it
              # prints a warning on stderr (a kernel with control flow it cannot if-convert)
              f"!{parallel} = !{{!\"llvm.loop.parallel_accesses\", !{group}}}\n"
              # the probe's loop interleaved once: left alone LLVM interleaves its 64-bit
              # arithmetic 4 times (registers spilled), at 2.5 times the time
              f"!{probe_md} = distinct !{{!{probe_md}, !{once}}}\n!{once} = !{{!\"llvm.loop.interleave.count\", i32 1}}\n"]
    return "\n".join(parts)


_OPT_CALL = re.compile(r"\bcall\b[^@]*@\"?([\w.$-]+)")


def probe_is_pure(fn_text: str) -> bool:
    """Whether the optimized ``__sim_probe`` calls nothing but LLVM intrinsics (none of its
    ``__sim_ld`` loads of device or threadgroup memory is left: no address or branch depends on
    one; the loads that are left read launch words, constant memory, its slots and the check
    windows, none of which a launch writes) and writes no memory: then its result is exact."""
    for line in fn_text.splitlines():
        if line.startswith("define") or line.startswith("declare"):
            continue
        c = _OPT_CALL.search(line)
        if c and not c.group(1).startswith("llvm."):
            return False
        if re.match(r"^\s*(?:store|%[\w.$-]+ = (?:atomicrmw|cmpxchg))\b", line) or re.match(r"^\s*fence\b", line):
            if "ptr %acc" not in line:  # only the probe's own flag (promoted to a register anyway)
                return False
    return True


def no_threadgroup_access(fn_text: str) -> bool:
    """Whether the optimized range function touches no threadgroup memory (no ``addrspace(3)``
    left in it): then the runtime need not zero a threadgroup's memory before it runs, and
    consecutive threadgroups can run in one call."""
    return "addrspace(3)" not in fn_text


def vectorized(fn_text: str) -> bool:
    """Whether the optimized ``__sim_wgf`` holds vector memory accesses (the loop vectorized)."""
    return bool(re.search(r"= load <\d+ x |store <\d+ x |@llvm\.masked\.(?:load|store|gather|scatter)", fn_text))


# ------------------------------------------------------------------ non-temporal stores
_VSTORE = re.compile(r"^(\s*)store <(\d+) x (float|double|half|bfloat|i8|i16|i32|i64|ptr)> (.+?), "
                     r"ptr addrspace\(1\) (%[\w.$-]+|%\"[^\"]+\")(, align \d+)?(.*)$")
_ELEM = {"float": 4, "double": 8, "half": 2, "bfloat": 2, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "ptr": 8}
_OPT_LABEL = re.compile(r"^(\"[^\"]+\"|[\w.$-]+):")


def nontemporal_stores(text: str) -> str | None:
    """The optimized module ``text`` with every vector device store of ``__sim_wgs`` (the main
    path's copy) of 16, 32 or 64 bytes split on its address: aligned to its size, a non-temporal
    store (``!nontemporal``: MOVNTPS and kin, which fault when misaligned); else the store as it
    was. None when there is no such store. The block holding a store is cut there: its head keeps
    the label, the rest goes to a new block, whose successors' phis are renamed to it."""
    lines = text.split("\n")
    start = next((i for i, x in enumerate(lines) if x.startswith("define") and f"@{PATH}(" in x), None)
    if start is None:
        return None
    end = lines.index("}", start)
    if any("!nontemporal" in x for x in lines[start:end]):
        return None  # already rewritten
    body = _blocks(lines[start + 1:end])
    nt = max((int(n) for n in _MD_NUM.findall(text)), default=0) + 1
    renamed: dict[str, str] = {}  # a block's label -> the label of the block that now ends it
    out_blocks: list[tuple[str, list[str]]] = []
    k = 0
    for name, blines in body:
        cur_name, cur = name, []
        for line in blines:
            m = _VSTORE.match(line)
            width = int(m.group(2)) * _ELEM[m.group(3)] if m else 0
            if width not in (16, 32, 64):
                cur.append(line)
                continue
            ind, p = m.group(1), m.group(5)
            nt_line = f"{ind}store <{m.group(2)} x {m.group(3)}> {m.group(4)}, ptr addrspace(1) {p}, align {width}" \
                      f"{m.group(7)}, !nontemporal !{nt}"
            t = f"__sim_nt{k}"
            cur += [f"  %{t}.a = ptrtoint ptr addrspace(1) {p} to i64", f"  %{t}.m = and i64 %{t}.a, {width - 1}",
                    f"  %{t}.ok = icmp eq i64 %{t}.m, 0", f"  br i1 %{t}.ok, label %{t}.nt, label %{t}.st"]
            out_blocks.append((cur_name, cur))
            out_blocks.append((f"{t}.nt", [f"{t}.nt:", nt_line, f"  br label %{t}.j"]))
            out_blocks.append((f"{t}.st", [f"{t}.st:", line, f"  br label %{t}.j"]))
            cur_name, cur = f"{t}.j", [f"{t}.j:"]
            k += 1
        out_blocks.append((cur_name, cur))
        if cur_name != name:
            renamed[name] = cur_name
    if not k:
        return None
    new_body: list[str] = []
    for _name, blines in out_blocks:
        for line in blines:
            if _PHI.match(line):
                line = _PHI_IN.sub(lambda m: f"[ {m.group(1)}, %{renamed.get(m.group(2), m.group(2))} ]", line)
            new_body.append(line)
    return "\n".join(lines[:start + 1] + new_body + lines[end:]) + f"\n!{nt} = !{{i32 1}}\n"


def after_optimization(host, ctx):
    """The optimized module ``host`` with non-temporal stores in the main path's copy
    (``nontemporal_stores``), parsed again in ``ctx``; ``host`` itself when the kernel has no such
    copy (no cost) or the rewritten module does not verify. compile.py calls it between the
    optimization pipeline and code generation."""
    import llvmlite.binding as llvm

    if not any(f.name == PATH for f in host.functions):
        return host
    text = nontemporal_stores(str(host))
    if text is None:
        return host
    try:
        new = llvm.parse_assembly(text, context=ctx)
        new.verify()
    except RuntimeError:
        return host
    return new

"""Vectorized work-item regions (opt-in, ``CUMETAL_JIT_WIVECTOR=1``; experimental).

The work-item mode (workitem.py) runs a barrier kernel's region r for threads t0..t1-1 as a loop
over the threads with the region inlined (``__sim_wr``); its inline checks (a call on each slow
path) and the possible aliasing between threads keep LLVM from vectorizing that loop. This module
gives each region the barrier-free kernels' treatment (vectorize.py): ``__sim_wrv`` first runs
``__sim_wrp``, a loop over the threads through a probe copy of the region (device and threadgroup
stores and context stores removed, checks turned into ORed tests, loads that no address or branch
needs deleted), and when it is clean ``__sim_wrf``, the same loop over a check-free copy whose
memory accesses are one access group of a loop marked ``llvm.loop.parallel_accesses`` (threads of
one region run between the same two barriers: a race-free program cannot order them, PoCL marks
its work-item loops the same way); otherwise the checked ``__sim_wr``, exactly as before. The
exit codes are stored per thread as ``__sim_wr`` does and summarized by their minimum and maximum.

Exactness: as vectorize.py's, per region: the probe is only used when, optimized, it calls
nothing and stores nothing (``vectorize.probe_is_pure`` on ``__sim_wrp``, all regions at once),
so every address and branch of the fast copy is the probe's, each access in a window validated
for the launch. A region with a volatile access (a warp step's neighbour) or a retreating edge
that a thread takes (its probe sets bit 0) runs checked.
"""

from __future__ import annotations

import re

from cumetal.backends.air.sim import vectorize, workitem
from cumetal.backends.air.sim.instrument import STATIC3_TEST

WRV, WRP, WRF = "__sim_wrv", "__sim_wrp", "__sim_wrf"
FAST_COUNT = "__sim_wiv_fast"  # region calls that ran vectorized, per worker's copy (tests read it)
SKIP = 15  # calls of a region not probed after its probe did not pass (__sim_wrv)
_RET_I32 = re.compile(r"^\s*ret i32 (.+?)\s*$")
_QUOTED_MEMORY = re.compile(r"^\s*(?:%(?:\"[^\"]+\"|[\w.$-]+) = load |store )")
_CTX_STORE = re.compile(r"^\s*store [^,]+, ptr (%\"[^\"]+\"|%[\w.$-]+)")
_REGION = re.compile(r"^define internal i32 @__sim_r(\d+)\(", re.M)
_CHK3_SITE = re.compile(r"call void @__sim_chk3\(.*@__sim_sites, i64 (\d+)\)")
# threadgroup check sites of a region from which its probe takes them by range (lowest and highest
# address per site, all of them tested together against the static shared global after the loop:
# vectorize._range_probe_epilogue's ``static3``) instead of a test per access -- in regions that do
# not use dynamic shared memory. Measured on one worker, the tiled matmul's FMA region (32 sites)
# 113.9 -> 59.1 ms a launch with ranges, while the shared tree reduction's regions (1-3 sites, half
# the threads masked off) went 48-51 -> 57-60 ms
RANGE3_SITES = 8


# The probe's threadgroup test when the checked code first compares an access with the kernel's
# static shared memory (instrument._CHECK3_STATIC: a link-time constant, which the checked code
# accepts without ever filling the site's window): outside exactly when outside both the static
# global and the window (bit 63 of each branch-free test, ANDed), as the checked code decides.
_STATIC3 = re.compile(r"%g = ptrtoint ptr addrspace\(3\) (@[\w.$\"-]+) to i64\n  %goff = sub i64 %a, %g\n"
                      r"  %big = icmp ugt i64 %n, (\d+)\n")


def _pchk3(text: str) -> str:
    """The probe's threadgroup tests matching the module's ``__sim_chk3``: vectorize._PCHK's, with
    the static-global test in front of the narrow one's window test when the module has it."""
    plain = vectorize._PCHK.format(sp=3)
    m = _STATIC3.search(text)
    if m is None:
        return plain
    size = int(m.group(2))
    wide_at = plain.index("define internal void @__sim_pchkw3(")  # the wide test: window only (stricter)
    narrow, wide = plain[:wide_at], plain[wide_at:]
    at = "  %a = ptrtoint ptr addrspace(3) %p to i64\n"
    test = STATIC3_TEST.format(glob=m.group(1), size=size, size_plus_1=size + 1)
    narrow = narrow.replace(at, at + test + "  %gd = sub i64 %goff, %glim\n  %gnd = xor i64 %gd, -1\n"
                            "  %gr = or i64 %goff, %gnd\n", 1)
    out = "  %out = and i64 %r, -9223372036854775808\n"
    if out not in narrow:  # vectorize._PCHK reworded: the window test alone (stricter, so still exact)
        return plain
    return narrow.replace(out, "  %both = and i64 %gr, %r\n" + out.replace("%r,", "%both,"), 1) + wide


def _region_probe(name: str, args: str, body: list[str], loaders: dict[str, str],
                  mm_sites: list[tuple[int, str, int, bool]]) -> str | None:
    """The region as a probe (vectorize._probe_clone) with its ``ret i32`` exits returning the
    flags, and its context stores (plain ``store`` to addrspace 0) removed."""
    out = []
    for line in body:
        if _RET_I32.match(line):
            out.append("  ret void")
            continue
        ctx = _CTX_STORE.match(line)
        if ctx and ctx.group(1).endswith(('.wp"', ".wp")):
            continue  # a store of a live value to the thread's context
        out.append(line)
    sites3 = len({m.group(1) for line in out if (m := _CHK3_SITE.search(line))})
    dynamic = any("%cm_shared" in line for line in out)  # the dynamic shared memory's base (abi.py's name)
    spaces = ("1", "3") if sites3 >= RANGE3_SITES and not dynamic else ("1",)
    return vectorize._probe_clone(name, args, out, loaders, mm_sites, dfs=True, mm_spaces=spaces)


def _region_fast(name: str, args: str, body: list[str], group: int) -> str | None:
    got = vectorize._retarget(body, lambda _t: "__sim_defer", dfs=True)
    if got is None:
        return None
    out = []
    for line in got[0]:
        u = vectorize._unchecked(line, group)
        if u is None:
            continue
        if _QUOTED_MEMORY.match(u) and "!llvm.access.group" not in u:
            u += f", !llvm.access.group !{group}"  # the context's loads and stores (quoted names)
        out.append(u)
    # without the context's noalias: inlined, it leaves a noalias.scope.decl call in the loop over
    # the threads, which keeps LLVM's loop vectorizer off it (the loop's accesses are marked
    # parallel anyway)
    args = args.replace("ptr noalias %__wi_ctx", "ptr %__wi_ctx")
    return (f"define internal i32 @\"{name}\"({args}) alwaysinline nounwind {{\n" + "\n".join(out)
            + "\n__sim_defer:\n  ret i32 0\n}\n")


def _loops(fn: str, regions: list[int], arg_types: list[str], kinds: list[int], mode: str, group: int,
           loop_md: int | None, mm: dict[int, list[tuple[int, str, int, bool]]] | None = None,
           static3: tuple[str, int] | None = None) -> list[str]:
    """``fn(slots, ctx, r, t0, t1[, st])``: region r's probe ("probe": returns the ORed flags, 0
    clean) or fast copy ("fast": stores each thread's exit code, returns their common code or -1)
    for threads t0..t1-1, the loop nest of workitem._wr."""
    extra = ", ptr %st" if mode == "fast" else ""
    entry, uniform = workitem.loop_entry(arg_types, kinds)
    b = [f"define i32 @{fn}(ptr noalias %slots, ptr noalias %ctx, i32 %r, i32 %t0, i32 %t1{extra}) {{", "entry:",
         *entry]
    if mode == "probe":  # in the entry block, where LLVM promotes them to registers
        for r in regions:
            b += [f"  %R{r}.mm = alloca [{2 * max(len(mm[r]) if mm else 0, 1)} x i64], align 8",
                  f"  %R{r}.accp = alloca i64, align 8"]
    cases = " ".join(f"i32 {r}, label %R{r}" for r in regions)
    rets: list[str] = []
    b += [f"  switch i32 %r, label %done [ {cases} ]"]
    acc0 = "0" if mode == "probe" else "-1"  # probe: OR of flags; fast: min code (max starts at 0)
    # fast: an assume may write memory for LLVM: in the group, or the loop is not parallel
    assume_md = f", !llvm.access.group !{group}" if mode == "fast" else ""
    for r in regions:
        R = f"R{r}"
        b.append(f"{R}:")
        if mode == "probe":  # the sites' lowest (from all ones) and highest (from 0) addresses
            sites = mm[r] if mm else []
            for j in range(len(sites)):
                b += [f"  %{R}.ml{j} = getelementptr i8, ptr %{R}.mm, i64 {16 * j}", f"  store i64 -1, ptr %{R}.ml{j}, align 8",
                      f"  %{R}.mh{j} = getelementptr i8, ptr %{R}.mm, i64 {16 * j + 8}", f"  store i64 0, ptr %{R}.mh{j}, align 8"]
        head, call = workitem.thread_loop(R, [("a", "i64", acc0), ("b", "i32", "0")], arg_types, kinds, uniform,
                                          assume_md)
        b += head
        if mode == "probe":
            b += [f"  %{R}.c = call i64 @\"__sim_r{r}.probe\"({', '.join(call + [f'ptr %{R}.mm'])})",
                  f"  %{R}.an = or i64 %{R}.a, %{R}.c", f"  %{R}.bn = add i32 %{R}.b, 0"]
        else:
            b += [f"  %{R}.c = call i32 @\"__sim_r{r}.fast\"({', '.join(call)})",
                  f"  %{R}.sp = getelementptr inbounds i32, ptr %st, i64 %{R}.t64",
                  f"  store i32 %{R}.c, ptr %{R}.sp, align 4, !llvm.access.group !{group}",
                  f"  %{R}.c64 = zext i32 %{R}.c to i64", f"  %{R}.lo = icmp ult i64 %{R}.c64, %{R}.a",
                  f"  %{R}.an = select i1 %{R}.lo, i64 %{R}.c64, i64 %{R}.a",
                  f"  %{R}.hi = icmp ugt i32 %{R}.c, %{R}.b", f"  %{R}.bn = select i1 %{R}.hi, i32 %{R}.c, i32 %{R}.b"]
        md = f", !llvm.loop !{loop_md}" if loop_md is not None else ""
        b += workitem.thread_loop_tail(R, f"{R}.end", md) + [f"{R}.end:"]
        if mode == "probe":  # window tests of the lowest and highest addresses, then the prefetch
            b.append(f"  store i64 %{R}.an, ptr %{R}.accp, align 8")
            b += vectorize._range_probe_epilogue(mm[r] if mm else [], p=f"{R}.", acc=f"%{R}.accp", mm=f"%{R}.mm",
                                                 done="  br label %out", static3=static3)
            b += [f"{R}.out:", f"  %{R}.res = add i32 %{R}.ri, 0", f"  br label %{R}.end2", f"{R}.end2:", "  br label %done"]
        else:
            b += [f"  %{R}.lo32 = trunc i64 %{R}.an to i32", f"  %{R}.same = icmp eq i32 %{R}.lo32, %{R}.bn",
                  f"  %{R}.res = select i1 %{R}.same, i32 %{R}.bn, i32 -1", "  br label %done"]
        rets.append(f"[ %{R}.res, %{R}.end2 ]" if mode == "probe" else f"[ %{R}.res, %{R}.end ]")
    b += ["done:", f"  %sum = phi i32 [ 1, %entry ], {', '.join(rets)}", "  ret i32 %sum", "}"]
    return b


def region_vector_functions(text: str, arg_types: list[str], kinds: list[int]) -> str | None:
    """The probe and fast copies of every region of the work-item module ``text`` (instrumented
    kernel + workitem.py's regions and ``__sim_wr``), ``__sim_wrp``, ``__sim_wrf`` and
    ``__sim_wrv``; None when no region qualifies."""
    nums = [int(n) for n in re.findall(r"!(\d+)", text)]
    group = max(nums, default=0) + 2000
    loop, parallel, probe_md, once = group + 1, group + 2, group + 3, group + 4
    loaders: dict[str, str] = {}
    parts: list[str] = []
    regions: list[int] = []
    mm: dict[int, list[tuple[int, str, int, bool]]] = {}
    for r in sorted({int(m.group(1)) for m in _REGION.finditer(text)}):
        found = vectorize._kernel_body(text, f"__sim_r{r}")
        if found is None:
            continue
        args, body = found
        if any(vectorize._VOLATILE.search(line) for line in body):
            continue
        mm[r] = []
        probe = _region_probe(f"__sim_r{r}.probe", args, body, loaders, mm[r])
        fast = _region_fast(f"__sim_r{r}.fast", args, body, group)
        if probe is None or fast is None:
            continue
        parts += [probe, fast]
        regions.append(r)
    if not regions:
        return None
    if "define internal void @__sim_pchk1(" not in text:
        parts += [vectorize._PCHK.format(sp=1), _pchk3(text)]
    parts += [vectorize._PMM.format(sp=1), vectorize._PMM.format(sp=3)]
    m3 = _STATIC3.search(text)
    static3 = (m3.group(1), int(m3.group(2))) if m3 else None
    if not re.search(r"^declare void @llvm\.prefetch\.p0\(", text, re.M):
        parts.append("declare void @llvm.prefetch.p0(ptr, i32, i32, i32)\n")
    parts += list(loaders.values())
    parts.append("\n".join(_loops(WRP, regions, arg_types, kinds, "probe", group, probe_md, mm, static3)) + "\n")
    parts.append("\n".join(_loops(WRF, regions, arg_types, kinds, "fast", group, loop)) + "\n")
    # a region whose threads went round a loop (probe bit 1) is not probed for its next SKIP calls
    # on this worker (a region most of whose runs take a loop's back edge before the next barrier,
    # as a tile loop's, would pay a probe for nothing each time); a speed heuristic only: either
    # path is exact
    nmax = max(regions) + 1
    parts.append(f"@__sim_wiv_skip = internal global [{nmax} x i8] zeroinitializer\n@{FAST_COUNT} = global i64 0\n"
                 f"define i32 @{WRV}(ptr %slots, ptr %ctx, i32 %r, i32 %t0, i32 %t1, ptr %st) {{\nentry:\n"
                 f"  %in = icmp ult i32 %r, {nmax}\n  br i1 %in, label %look, label %slow\nlook:\n"
                 f"  %sp = getelementptr [{nmax} x i8], ptr @__sim_wiv_skip, i32 0, i32 %r\n"
                 "  %sk = load i8, ptr %sp, align 1\n  %wait = icmp ne i8 %sk, 0\n"
                 "  br i1 %wait, label %count, label %probe\ncount:\n  %sk1 = sub i8 %sk, 1\n"
                 "  store i8 %sk1, ptr %sp, align 1\n  br label %slow\nprobe:\n"
                 f"  %f = call i32 @{WRP}(ptr %slots, ptr %ctx, i32 %r, i32 %t0, i32 %t1)\n"
                 "  %clean = icmp eq i32 %f, 0\n  br i1 %clean, label %fast, label %notclean\nfast:\n"
                 f"  %a = call i32 @{WRF}(ptr %slots, ptr %ctx, i32 %r, i32 %t0, i32 %t1, ptr %st)\n"
                 f"  %nf = load i64, ptr @{FAST_COUNT}, align 8\n  %nf1 = add i64 %nf, 1\n"
                 f"  store i64 %nf1, ptr @{FAST_COUNT}, align 8\n  ret i32 %a\nnotclean:\n"
                 "  %loops = and i32 %f, 2\n  %goes = icmp ne i32 %loops, 0\n  br i1 %goes, label %miss, label %slow\nmiss:\n"
                 f"  store i8 {SKIP}, ptr %sp, align 1\n  br label %slow\nslow:\n"
                 "  %b = call i32 @__sim_wr(ptr %slots, ptr %ctx, i32 %r, i32 %t0, i32 %t1, ptr %st)\n  ret i32 %b\n}\n")
    parts.append(f"!{group} = distinct !{{}}\n!{loop} = distinct !{{!{loop}, !{parallel}}}\n"
                 f"!{parallel} = !{{!\"llvm.loop.parallel_accesses\", !{group}}}\n"
                 f"!{probe_md} = distinct !{{!{probe_md}, !{once}}}\n!{once} = !{{!\"llvm.loop.interleave.count\", i32 1}}\n")
    return "\n".join(parts)

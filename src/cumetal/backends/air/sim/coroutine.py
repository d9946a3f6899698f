"""Barrier regions without stacks: the kernel as an LLVM switch-resumed coroutine.

A kernel whose only synchronisation is threadgroup barriers and SIMD-group barriers (including
the warp steps ``instrument.py`` puts before volatile threadgroup accesses) is copied into
``__sim_coro``, a coroutine that suspends at each of them. LLVM's coroutine passes (part of the
O3 pipeline) split it into a ramp (the thread's start) and a resume function; the values live
across a suspension move into a frame the runtime provides per thread. The runtime then runs a
threadgroup as rounds of plain calls (start or resume each thread up to its next barrier) instead
of switching stacks between fibers: no stack per thread, no setjmp/longjmp per switch.

Before suspending, the thread tells the runtime what it waits for (``sim_coro_barrier``,
``sim_coro_step(site)``); ``sim_coro_end`` marks its end. Scheduling, SIMD-group resolution and
the semantics are the fiber scheduler's (runtime.c). Kernels with value-carrying SIMD-group
operations (shuffles, reductions) or synchronisation inside called functions keep fibers.
"""

from __future__ import annotations

import re

from cumetal.backends.air.sim.instrument import ORDER
from cumetal.backends.common.codes import SimArgKind

_DEFINE = re.compile(r'^define [^@]*@("[^"]+"|[\w.$-]+)\((.*)\)[^()]*\{$')
_LABEL = re.compile(r"^(\"[^\"]+\"|[\w.$-]+):")
_BARRIER = re.compile(r'^\s*(?:tail )?call void @"?air\.wg\.barrier"?\(')
_STEP = re.compile(r'^\s*(?:tail )?call void @(?:"?air\.simdgroup\.barrier"?\(|sim_volatile_step\(\))')
_CONVERGENT = re.compile(r'@"?(?:air\.wg\.barrier|air\.simdgroup\.barrier|air\.simd_|sim_volatile_step)')
_WAIT_POINT = re.compile(r"@sim_wait_point\(")  # parks until the threadgroup stalls: fibers only
_VALUE_SIMD = re.compile(r'@"?air\.simd_')
_PHI = re.compile(r"^(\s*%[\w.$-]+ = phi .*)$")
_ORDER_STORE = re.compile(rf"^\s*store i32 (\d+), ptr @{ORDER}, align 4$")

DECLS = """
declare token @llvm.coro.id(i32, ptr, ptr, ptr)
declare i64 @llvm.coro.size.i64()
declare ptr @llvm.coro.begin(token, ptr)
declare i8 @llvm.coro.suspend(token, i1)
declare void @llvm.coro.end(ptr, i1, token)
declare void @llvm.coro.resume(ptr)
declare ptr @sim_coro_frame(i64)
@__sim_susp = global i32 0, align 4
define void @__sim_cresume(ptr %h) {
  call void @llvm.coro.resume(ptr %h)
  ret void
}
"""
_K_TID, _K_TINDEX, _K_LANE, _K_WARP = (int(SimArgKind.TID), int(SimArgKind.TINDEX), int(SimArgKind.LANE),
                                    int(SimArgKind.WARP))  # codes.py
RUNTIME_SYMBOLS = ("sim_coro_frame",)
SUSP = "__sim_susp"  # what a suspending thread waits for: S_BAR 1, S_SIMD 2 | site << 2, S_DONE 3 (runtime.c)


def _functions(lines: list[str]) -> list[tuple[int, int]]:
    """(index of the define line, index of its closing brace) for every function definition."""
    out, i = [], 0
    while i < len(lines):
        if lines[i].startswith("define "):
            j = i + 1
            while lines[j] != "}":
                j += 1
            out.append((i, j))
            i = j
        i += 1
    return out


def eligible(text: str, kernel: str) -> bool:
    """Can ``kernel`` (instrumented module text) run as a coroutine: its synchronisation is only
    barriers (no value-carrying SIMD-group operation) and all of it in the kernel's own body."""
    lines = text.splitlines()
    found = False
    for start, end in _functions(lines):
        m = _DEFINE.match(lines[start])
        name = m.group(1).strip('"') if m else ""
        body = lines[start + 1:end]
        if any((_VALUE_SIMD.search(ln) or _WAIT_POINT.search(ln)) and "call" in ln for ln in body):
            return False
        sync = any(_CONVERGENT.search(ln) and "call" in ln for ln in body)
        if name == kernel:
            found = sync
        elif sync:
            return False
    return found


def coroutine_kernel(text: str, kernel: str, arg_types: list[str], kinds: list[int]) -> str:
    """``__sim_coro`` (the kernel as a coroutine returning its handle) and ``__sim_cstart(ptr slots,
    i32 t)`` (starts thread ``t``: uniform arguments from the slots like ``__sim_entry``, the
    thread's position from ``t`` and the threadgroup size in slot ``len(arg_types)``), to append to
    the module text. ``kinds``: the arguments' K_* kinds (compile.py)."""
    lines = text.splitlines()
    for start, end in _functions(lines):
        m = _DEFINE.match(lines[start])
        if m and m.group(1).strip('"') == kernel:
            params, body = m.group(2), lines[start + 1:end]
            break
    else:
        raise ValueError(f"kernel {kernel} not found")
    out = [f"define ptr @__sim_coro({params}) presplitcoroutine {{"]
    setup = ["  %__coro_id = call token @llvm.coro.id(i32 16, ptr null, ptr null, ptr null)",
             "  %__coro_size = call i64 @llvm.coro.size.i64()",
             "  %__coro_mem = call ptr @sim_coro_frame(i64 %__coro_size)",
             "  %__coro_hdl = call ptr @llvm.coro.begin(token %__coro_id, ptr %__coro_mem)"]
    if body and _LABEL.match(body[0]):
        out.append(body[0])
        out.extend(setup)
        body = body[1:]
    else:
        out.extend(setup)
    current = "entry"  # LLVM's name for an unlabeled entry block never appears in a phi
    last_piece: dict[str, str] = {}
    n = site = 0
    for line in body:
        lab = _LABEL.match(line)
        if lab:
            current = lab.group(1)
            out.append(line)
            continue
        order = _ORDER_STORE.match(line)
        if order:  # the fiber runtime's program order of the next step: here it is the step's site
            site = int(order.group(1))
            continue
        barrier, step = _BARRIER.match(line), _STEP.match(line)
        if barrier or step:
            n += 1
            out.append(f"  store i32 {1 if barrier else 2 | site << 2}, ptr @{SUSP}, align 4")
            out.append(f"  %__coro_s{n} = call i8 @llvm.coro.suspend(token none, i1 false)")
            out.append(f"  switch i8 %__coro_s{n}, label %__coro_suspend [ i8 0, label %__coro_r{n} "
                       f"i8 1, label %__coro_cleanup ]")
            out.append(f"__coro_r{n}:")
            last_piece[current] = f"__coro_r{n}"
            continue
        if line.strip().startswith("ret void"):
            out.append("  br label %__coro_final")
            continue
        out.append(line)
    if last_piece:  # a phi's incoming block is now the last piece of the block that was split
        for i, line in enumerate(out):
            if _PHI.match(line):
                for old, new in last_piece.items():
                    out[i] = re.sub(rf"(\[[^\[\]]*, )%{re.escape(old)}( \])", rf"\g<1>%{new}\g<2>", out[i])
    out += ["__coro_final:",
            f"  store i32 3, ptr @{SUSP}, align 4",
            "  %__coro_f = call i8 @llvm.coro.suspend(token none, i1 true)",
            "  switch i8 %__coro_f, label %__coro_suspend [ i8 0, label %__coro_trap i8 1, label %__coro_cleanup ]",
            "__coro_trap:", "  unreachable",
            "__coro_cleanup:", "  br label %__coro_suspend",
            "__coro_suspend:",
            "  call void @llvm.coro.end(ptr %__coro_hdl, i1 false, token none)",
            "  ret ptr %__coro_hdl", "}"]
    start_fn = ["define ptr @__sim_cstart(ptr %slots, i32 %t) {",
                f"  %dimp = getelementptr i8, ptr %slots, i64 {16 * len(arg_types)}",
                "  %dims = load <3 x i32>, ptr %dimp, align 4",
                "  %nx = extractelement <3 x i32> %dims, i32 0", "  %ny = extractelement <3 x i32> %dims, i32 1",
                "  %tx = urem i32 %t, %nx", "  %txy = udiv i32 %t, %nx", "  %ty = urem i32 %txy, %ny",
                "  %tz = udiv i32 %txy, %ny"]
    names = []
    for i, (ty, kind) in enumerate(zip(arg_types, kinds, strict=True)):
        if kind == _K_TID:
            start_fn += [f"  %v{i}a = insertelement <3 x i32> zeroinitializer, i32 %tx, i32 0",
                         f"  %v{i}b = insertelement <3 x i32> %v{i}a, i32 %ty, i32 1",
                         f"  %a{i} = insertelement <3 x i32> %v{i}b, i32 %tz, i32 2"]
        elif kind == _K_TINDEX:
            start_fn.append(f"  %a{i} = add i32 %t, 0")
        elif kind == _K_LANE:
            start_fn.append(f"  %a{i} = and i32 %t, 31")
        elif kind == _K_WARP:
            start_fn.append(f"  %a{i} = lshr i32 %t, 5")
        else:
            start_fn.append(f"  %p{i} = getelementptr i8, ptr %slots, i64 {16 * i}")
            start_fn.append(f"  %a{i} = load {ty}, ptr %p{i}, align 4")
        names.append(f"{ty} %a{i}")
    start_fn += [f"  %h = call ptr @__sim_coro({', '.join(names)})", "  ret ptr %h", "}"]
    return "\n".join(out + start_fn) + "\n" + DECLS

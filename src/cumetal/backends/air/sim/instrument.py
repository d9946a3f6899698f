"""Prepare an AIR module (the bitcode that goes into the .metallib) for execution on the host.

The module is read back with llvmlite and changed only where the host needs it:

* the triple and datalayout become the host's (the AIR code itself is target-neutral LLVM);
* every load and store through an ``addrspace(1)`` (device) or ``addrspace(3)`` (threadgroup)
  pointer is preceded by ``sim_check1/3(ptr, size, align)``, and every private (address space 0)
  access that is not to an alloca itself (an IR register) by ``sim_check0``, checked against the
  thread's local-memory stack that ``sim_local`` registers; a bad access faults instead of
  touching host memory;
* loop headers (targets of back edges) call ``sim_tick()`` for the watchdog;
* threadgroup (``addrspace(3)``) globals -- a kernel's static shared memory -- lose their
  ``internal`` linkage and ``undef`` initializer (``threadgroup_global``): the optimizer must not
  fold loads of memory that other threads of the threadgroup write, nor split the global into
  pieces; the runtime zeroes each one before every threadgroup (``as3_ranges``);
* an entry wrapper ``__sim_entry(ptr slots)`` loads each kernel argument from a 16-byte slot and
  calls the kernel, so the C scheduler needs no knowledge of vector calling conventions.

Everything else (the air.* calls, barriers, SIMD-group operations, atomics) runs as written,
against the C runtime's implementations.
"""

from __future__ import annotations

import re

_DEFINE = re.compile(r"^define .*@(\"[^\"]+\"|[\w.$-]+)\(")
_LABEL = re.compile(r"^(\"[^\"]+\"|[\w.$-]+):")
_TARGETS = re.compile(r"label %(\"[^\"]+\"|[\w.$-]+)")
_LOAD = re.compile(r"^\s*%[\w.$-]+ = load (?:volatile )?(.+?), ptr (?:addrspace\(([13])\) )?(%[\w.$-]+|@[\w.$-]+)"
                   r"(?:, align (\d+))?")
_STORE = re.compile(r"^\s*store (?:volatile )?(.+), ptr (?:addrspace\(([13])\) )?(%[\w.$-]+|@[\w.$-]+)"
                    r"(?:, align (\d+))?")
_AS3_GLOBAL = re.compile(r"^(@(?:\"[^\"]+\"|[\w.$-]+)) = (?:(?:internal|private) )?((?:local_)?unnamed_addr )?"
                         r"addrspace\(3\) global (.+?) undef(, align \d+)?$")
_ALLOCA = re.compile(r"^\s*(%[\w.$-]+) = alloca ")
_LOCAL_STACK = re.compile(r"^\s*%local_stack = alloca \[(\d+) x i8\]")
_SCALAR_BYTES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "half": 2, "bfloat": 2, "float": 4,
                 "double": 8, "ptr": 8}
_VECTOR = re.compile(r"^<(\d+) x ([\w]+)>")

DECLS = """
declare void @sim_check0(ptr, i64, i64)
declare void @sim_check1(ptr addrspace(1), i64, i64)
declare void @sim_check3(ptr addrspace(3), i64, i64)
declare void @sim_local(ptr, i64)
declare void @sim_tick()
"""


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


def _check_line(line: str, allocas: set[str]) -> str | None:
    """The check call for a load/store: device and threadgroup accesses against their memory,
    private accesses (not to an alloca itself: those are IR registers) against the thread's local
    memory stack."""
    m = _LOAD.match(line)
    if m:
        size = type_bytes(m.group(1))
    else:
        m = _STORE.match(line)
        if not m:
            return None
        size = type_bytes(_store_type(m.group(1)))
    space, ptr, align = m.group(2), m.group(3), m.group(4)
    if space is None:
        if ptr in allocas:
            return None
        return f"  call void @sim_check0(ptr {ptr}, i64 {size}, i64 {align or size})"
    return f"  call void @sim_check{space}(ptr addrspace({space}) {ptr}, i64 {size}, i64 {align or size})"


def threadgroup_global(line: str) -> str:
    """An ``addrspace(3)`` global definition as the host JIT must see it: external linkage (no
    whole-module assumptions about who writes it) and zero-initialized; other lines unchanged."""
    m = _AS3_GLOBAL.match(line)
    if not m:
        return line
    name, unnamed, ty, align = m.groups()
    return f"{name} = {unnamed or ''}addrspace(3) global {ty} zeroinitializer{align or ''}"


def _instrument_function(lines: list[str]) -> list[str]:
    """``lines``: a function body (between ``{`` and ``}``)."""
    blocks: list[tuple[str, list[str]]] = [("", [])]
    for line in lines:
        lab = _LABEL.match(line)
        if lab:
            blocks.append((lab.group(1), [line]))
        else:
            blocks[-1][1].append(line)
    if not blocks[0][1]:
        blocks.pop(0)
    order = {name: i for i, (name, _) in enumerate(blocks)}
    headers = set()
    for i, (_, body) in enumerate(blocks):
        for line in body:
            for t in _TARGETS.findall(line):
                if t in order and order[t] <= i:
                    headers.add(t)
    allocas = {m.group(1) for line in lines if (m := _ALLOCA.match(line))}
    out: list[str] = []
    for name, body in blocks:
        tick_pending = name in headers
        for j, line in enumerate(body):
            stripped = line.strip()
            is_phi = " = phi " in line
            if tick_pending and j > 0 and stripped and not is_phi and not _LABEL.match(line):
                out.append("  call void @sim_tick()")
                tick_pending = False
            chk = _check_line(line, allocas)
            if chk:
                out.append(chk)
            out.append(line)
            stack = _LOCAL_STACK.match(line)
            if stack:  # the kernel's local memory: what private (AS 0) accesses may touch
                out.append(f"  call void @sim_local(ptr %local_stack, i64 {stack.group(1)})")
    return out


def instrument(text: str, triple: str, datalayout: str) -> str:
    """The instrumented module text (see the module docstring)."""
    src = text.splitlines()
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
            out.extend(_instrument_function(body))
            out.append("}")
        else:
            out.append(threadgroup_global(line))
        i += 1
    return "\n".join(out) + DECLS


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

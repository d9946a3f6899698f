"""Small, line-based edits of LLVM IR text that llvmlite's binding cannot make on a module.

Each function takes and returns the text of one module as LLVM 22 prints it (one instruction,
one ``define`` and one ``attributes #N`` group per line), so the edits stay simple and exact.
"""

from __future__ import annotations

import re

# LLVM 3.5-era metadata syntax (``!0 = metadata !{… metadata !"kernel" …}``), still seen in old
# NVVM IR samples; LLVM 22 only reads the modern form. Only metadata lines are touched.
_OLD_METADATA = re.compile(r"\bmetadata\s+(?=[!@%\[<{]|i\d|float|double|void|null)")


def modernize_metadata(text: str) -> str:
    """Drop the ``metadata`` keyword from metadata definitions (a no-op for modern IR)."""
    if "metadata !" not in text:
        return text
    out = []
    for line in text.splitlines():
        if line.lstrip().startswith("!"):
            line = _OLD_METADATA.sub("", line)
        out.append(line)
    return "\n".join(out) + "\n"


_FP_OP = re.compile(r"(= (?:fadd|fsub|fmul)) ((?:(?:nnan|ninf|nsz|arcp|contract|afn|reassoc|fast) )*)")
_FAST = "nnan ninf nsz arcp afn reassoc"


def set_contraction(text: str, allow: bool) -> str:
    """``-fma=1``: mark every fadd/fsub/fmul ``contract`` (LLVM 22's NVPTX back end only fuses
    flagged operations, libNVVM fuses by default); ``-fma=0``: remove the flag everywhere."""

    def edit(m: re.Match[str]) -> str:
        flags = m.group(2).split()
        if "fast" in flags:
            flags = [f for f in flags if f != "fast"] + _FAST.split() + ["contract"]
        flags = [f for f in dict.fromkeys(flags) if f != "contract"]
        if allow:
            flags.append("contract")
        return m.group(1) + " " + "".join(f + " " for f in flags)

    return _FP_OP.sub(edit, text)


_ATTR_GROUP = re.compile(r"^attributes #(\d+) = \{(.*)\}\s*$")
_DEFINE_TAIL = re.compile(r"^(define\b.*\))([^)]*?)(\s!.*)?\{\s*$")


def set_function_attributes(text: str, attrs: dict[str, str]) -> str:
    """Give every function the string attributes ``attrs`` (replacing values it already has): each
    ``attributes #N`` group gets them, and definitions without a group get a new one."""
    if not attrs:
        return text
    strip = [re.compile(rf'\s*"{re.escape(k)}"="[^"]*"') for k in attrs]
    added = " ".join(f'"{k}"="{v}"' for k, v in attrs.items())
    lines = text.splitlines()
    groups = [int(m.group(1)) for line in lines if (m := _ATTR_GROUP.match(line))]
    new_group = max(groups, default=-1) + 1
    used_new = False
    out = []
    for line in lines:
        m = _ATTR_GROUP.match(line)
        if m:
            body = m.group(2)
            for pattern in strip:
                body = pattern.sub("", body)
            line = f"attributes #{m.group(1)} = {{ {body.strip()} {added} }}"
        elif line.startswith("define "):
            d = _DEFINE_TAIL.match(line)
            if d and not re.search(r"#\d+", d.group(2)):
                line = f"{d.group(1)}{d.group(2)} #{new_group}{d.group(3) or ''} {{"
                used_new = True
        out.append(line)
    if used_new:
        out.append(f"attributes #{new_group} = {{ {added} }}")
    return "\n".join(out) + "\n"


FTZ_ATTRIBUTES = {"denormal-fp-math-f32": "preserve-sign,preserve-sign"}
# CuMetal's PTX front end has no brx.idx (indirect branch through a label table): switches are
# lowered to compare-and-branch chains instead.
CODEGEN_ATTRIBUTES = {"no-jump-tables": "true"}


def set_ftz(text: str) -> str:
    """Flush single-precision denormals in every function (``-ftz=1``): NVPTX emits ``.ftz``
    forms for functions whose ``denormal-fp-math-f32`` output mode is ``preserve-sign``."""
    return set_function_attributes(text, FTZ_ATTRIBUTES)


_MODULE_FLAGS = re.compile(r"^!llvm\.module\.flags = !\{(.*)\}\s*$", re.M)
_METADATA_ID = re.compile(r"^!(\d+) = ", re.M)


def add_module_flag(text: str, key: str, value: int) -> str:
    """Set module flag ``key`` to ``value``: an existing ``!{i32 B, !"key", i32 V}`` gets the value,
    otherwise ``!{i32 4, !"key", i32 value}`` (behaviour: override) is added."""
    existing = re.compile(rf'^(!\d+ = !\{{i32 \d+, !"{re.escape(key)}", i32 )-?\d+\}}', re.M)
    if existing.search(text):
        return existing.sub(rf"\g<1>{value}}}", text)
    ids = [int(i) for i in _METADATA_ID.findall(text)]
    node = max(ids, default=-1) + 1
    entry = f'!{node} = !{{i32 4, !"{key}", i32 {value}}}'
    m = _MODULE_FLAGS.search(text)
    if m:
        inner = m.group(1).strip()
        joined = f"{inner}, !{node}" if inner else f"!{node}"
        text = text[:m.start()] + f"!llvm.module.flags = !{{{joined}}}" + text[m.end():]
        return text.rstrip("\n") + "\n" + entry + "\n"
    return text.rstrip("\n") + f"\n!llvm.module.flags = !{{!{node}}}\n{entry}\n"


_TARGET_ATTRS = re.compile(r'\s*"target-(?:cpu|features)"="[^"]*"')


def strip_target_attributes(text: str) -> str:
    """Remove per-function ``target-cpu`` / ``target-features`` (our libdevice is built for
    sm_50), so its functions inline into code built for any architecture."""
    return "\n".join(_TARGET_ATTRS.sub("", line) if line.startswith("attributes #") else line
                     for line in text.splitlines()) + "\n"


_KERNEL_DEF = re.compile(r'^define\b[^@]*\bptx_kernel\b[^@]*@("(?:[^"\\]|\\.)*"|[-\w$.]+)\(', re.M)


def kernel_names(text: str) -> set[str]:
    """Names of the functions defined with the ``ptx_kernel`` calling convention."""
    return {n.strip('"') for n in _KERNEL_DEF.findall(text)}


_VERSION_REF = re.compile(r"^!nvvmir\.version = !\{(.*)\}\s*$", re.M)


def nvvmir_versions(text: str) -> list[tuple[int, ...]]:
    """The ``!nvvmir.version`` tuples of a module (empty when it has none)."""
    m = _VERSION_REF.search(text)
    if not m:
        return []
    versions = []
    for ref in re.findall(r"!(\d+)", m.group(1)):
        node = re.search(rf"^!{ref} = !\{{(.*)\}}\s*$", text, re.M)
        if node:
            versions.append(tuple(int(v) for v in re.findall(r"i32 (\d+)", node.group(1))))
    return versions


_EMISSION = re.compile(r"(!DICompileUnit\([^\n]*?emissionKind: )(\w+)")
_EMISSION_KIND = re.compile(r"(!DICompileUnit\()(?![^\n]*emissionKind)")


def set_debug_emission(text: str, kind: str) -> str:
    """Set every compile unit's ``emissionKind`` (``FullDebug`` for -g, ``LineTablesOnly`` for
    -generate-line-info, ``NoDebug`` otherwise: libNVVM ignores debug metadata without them)."""
    if "!DICompileUnit(" not in text:
        return text
    text = _EMISSION.sub(lambda m: m.group(1) + kind, text)
    return _EMISSION_KIND.sub(lambda m: f"{m.group(1)}emissionKind: {kind}, ", text)


# LLVM's generic math intrinsics NVPTX cannot lower (the NVVM IR spec lists them as unsupported,
# but optimisers emit them): routed to libdevice, like clang does for CUDA code.
_MATH_TO_LIBDEVICE = {
    "sin": "sin", "cos": "cos", "tan": "tan", "exp": "exp", "exp10": "exp10", "log": "log",
    "log2": "log2", "log10": "log10", "pow": "pow", "asin": "asin", "acos": "acos", "atan": "atan",
    "atan2": "atan2", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "powi": "powi",
}
_MATH_CALL = re.compile(r"@llvm\.(" + "|".join(_MATH_TO_LIBDEVICE) + r")\.(f32|f64)\b")


def math_intrinsics_to_libdevice(text: str) -> str:
    """``@llvm.sin.f32`` → ``@__nv_sinf``, ``@llvm.exp.f64`` → ``@__nv_exp`` … (scalar forms)."""
    if not _MATH_CALL.search(text):
        return text

    def target(m: re.Match[str]) -> str:
        base = _MATH_TO_LIBDEVICE[m.group(1)]
        return f"@__nv_{base}{'f' if m.group(2) == 'f32' else ''}"

    out = []
    declared = set(re.findall(r"^declare\b[^@]*(@__nv_\w+)\(", text, re.M))
    for line in text.splitlines():
        if line.startswith("declare") and _MATH_CALL.search(line):
            name = target(_MATH_CALL.search(line))
            if name in declared:
                continue  # the libdevice function is declared already
            declared.add(name)
        out.append(_MATH_CALL.sub(target, line))
    return "\n".join(out) + "\n"


# Pre-Volta warp intrinsics without a member mask: sm_70+ PTX has only the .sync forms. Old
# warp-synchronous code means "the whole warp", i.e. mask 0xffffffff.
_OLD_SHFL = re.compile(r"@llvm\.nvvm\.shfl\.(down|up|bfly|idx)\.(i32|f32)\(")
_OLD_VOTE = re.compile(r"@llvm\.nvvm\.vote\.(all|any|uni|ballot)\(")


# libNVVM's one shuffle intrinsic, which numba-cuda emits: shfl.sync.i32(mask, mode, value, b, c) -> {i32, i1}
# with a constant mode (0 idx, 1 up, 2 down, 3 bfly); LLVM spells each mode as its own intrinsic.
_NVVM_SHFL_CALL = re.compile(r'@"?llvm\.nvvm\.shfl\.sync\.i32"?\((i32 [^,]+), i32 ([0-3]), ')
_NVVM_SHFL_DECL = re.compile(r'^declare [^@]*@"?llvm\.nvvm\.shfl\.sync\.i32"?\(.*$', re.M)
_SHFL_MODES = ("idx", "up", "down", "bfly")


def _upgrade_nvvm_shfl(text: str) -> str:
    decls = "\n".join(f"declare {{i32, i1}} @llvm.nvvm.shfl.sync.{m}.i32p(i32, i32, i32, i32)" for m in _SHFL_MODES)
    text = _NVVM_SHFL_DECL.sub(decls, text)
    return _NVVM_SHFL_CALL.sub(lambda m: f"@llvm.nvvm.shfl.sync.{_SHFL_MODES[int(m.group(2))]}.i32p({m.group(1)}, ",
                               text)


# libNVVM's vote and match intrinsics, which numba-cuda emits: vote.sync(mask, mode, pred) -> {i32, i1}
# (mode 0 all, 1 any, 2 uni, 3 ballot) becomes a small inlinable function over LLVM's per-mode
# intrinsics; match.all.sync.i32/.i64 are LLVM's match.all.sync.i32p/.i64p.
_NVVM_VOTE = re.compile(r'@"?llvm\.nvvm\.vote\.sync"?\(')
_NVVM_VOTE_DECL = re.compile(r'^declare [^@]*@"?llvm\.nvvm\.vote\.sync"?\(.*$', re.M)
_NVVM_MATCH_ALL = re.compile(r'@"?llvm\.nvvm\.match\.all\.sync\.(i32|i64)"?\(')
_VOTE_HELPER = """
define linkonce_odr hidden {i32, i1} @__cumetal_nvvm_vote_sync(i32 %mask, i32 %mode, i1 %pred) alwaysinline {
entry:
  switch i32 %mode, label %ballot [i32 0, label %all
                                   i32 1, label %any
                                   i32 2, label %uni]
all:
  %a = call i1 @llvm.nvvm.vote.all.sync(i32 %mask, i1 %pred)
  %ra = insertvalue {i32, i1} zeroinitializer, i1 %a, 1
  ret {i32, i1} %ra
any:
  %y = call i1 @llvm.nvvm.vote.any.sync(i32 %mask, i1 %pred)
  %ry = insertvalue {i32, i1} zeroinitializer, i1 %y, 1
  ret {i32, i1} %ry
uni:
  %u = call i1 @llvm.nvvm.vote.uni.sync(i32 %mask, i1 %pred)
  %ru = insertvalue {i32, i1} zeroinitializer, i1 %u, 1
  ret {i32, i1} %ru
ballot:
  %b = call i32 @llvm.nvvm.vote.ballot.sync(i32 %mask, i1 %pred)
  %rb = insertvalue {i32, i1} zeroinitializer, i32 %b, 0
  ret {i32, i1} %rb
}
"""
_VOTE_INTRINSICS = {"all": "i1", "any": "i1", "uni": "i1", "ballot": "i32"}


def _upgrade_nvvm_vote_match(text: str) -> str:
    text = _NVVM_MATCH_ALL.sub(lambda m: f"@llvm.nvvm.match.all.sync.{m.group(1)}p(", text)
    if not _NVVM_VOTE.search(text):
        return text
    text = _NVVM_VOTE_DECL.sub("", text)
    text = _NVVM_VOTE.sub("@__cumetal_nvvm_vote_sync(", text)
    decls = [f"declare {t} @llvm.nvvm.vote.{m}.sync(i32, i1)" for m, t in _VOTE_INTRINSICS.items()
             if f"@llvm.nvvm.vote.{m}.sync(" not in text]
    return text + "\n" + "\n".join(decls) + "\n" + _VOTE_HELPER


def upgrade_warp_intrinsics(text: str) -> str:
    """``shfl.down.i32(v, d, c)`` → ``shfl.sync.down.i32(-1, v, d, c)``; ``vote.any(p)`` →
    ``vote.any.sync(-1, p)`` … (declarations get the extra ``i32`` parameter); libNVVM's
    ``shfl.sync.i32(mask, mode, …)`` → ``shfl.sync.<mode>.i32p(mask, …)``, its ``vote.sync`` and
    ``match.all.sync`` → LLVM's forms."""
    if _NVVM_SHFL_CALL.search(text):
        text = _upgrade_nvvm_shfl(text)
    if _NVVM_VOTE.search(text) or _NVVM_MATCH_ALL.search(text):
        text = _upgrade_nvvm_vote_match(text)
    if not (_OLD_SHFL.search(text) or _OLD_VOTE.search(text)):
        return text
    out = []
    for line in text.splitlines():
        extra = "i32, " if line.startswith("declare") else "i32 -1, "
        line = _OLD_SHFL.sub(lambda m, x=extra: f"@llvm.nvvm.shfl.sync.{m.group(1)}.{m.group(2)}({x}", line)
        line = _OLD_VOTE.sub(lambda m, x=extra: f"@llvm.nvvm.vote.{m.group(1)}.sync({x}", line)
        out.append(line)
    return "\n".join(out) + "\n"


# NVVM IR's calls are convergent (libNVVM assumes it: SIMT code must not be merged across divergent
# paths); upstream LLVM needs the attribute written. numba-cuda emits warp queries such as
# activemask as inline asm, which LLVM would otherwise hoist out of both arms of a branch.
_ASM_CALL = re.compile(r'\bcall [^=\n]*?\basm\b(?: sideeffect)?(?: alignstack)?(?: inteldialect)? "')


def mark_inline_asm_convergent(text: str) -> str:
    """Add ``convergent`` to every inline-asm call site (after its argument list). LLVM IR strings
    escape quotes as ``\\22``, so the asm and constraint strings end at the next quote."""
    out = []
    for line in text.splitlines():
        m = _ASM_CALL.search(line)
        if m:
            asm_end = line.find('"', m.end())
            constraints_end = line.find('"', line.find('"', asm_end + 1) + 1)
            depth, j = 0, line.find("(", constraints_end)
            while 0 <= j < len(line):
                depth += {"(": 1, ")": -1}.get(line[j], 0)
                if depth == 0 and line[j] == ")":
                    if not line[j + 1:].lstrip().startswith("convergent"):
                        line = line[:j + 1] + " convergent" + line[j + 1:]
                    break
                j += 1
        out.append(line)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")

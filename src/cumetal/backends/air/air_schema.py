"""AIR metadata schema of one ``.metallib`` module, checked against what Apple's compiler writes.

Every rule here holds for all 17,418 modules of the six public Apple-built libraries examined
(docs/metallib-container.md); the argument schema covers buffers and the thread-position builtins,
the only argument kinds seen there. The bitcode is read with llvmlite, which upgrades Apple's
LLVM-14 typed-pointer bitcode (so pointers print as ``ptr addrspace(N)`` here).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from cumetal.backends.air.air_schema_metadata import (
    GlobalOp,
    IntOp,
    ModuleMetadata,
    Operand,
    Ref,
    parse_module_metadata,
)
from cumetal.backends.air.metallib_problem import Problem

AIR_DATALAYOUT = (
    "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v24:32:32"
    "-v32:32:32-v48:64:64-v64:64:64-v96:128:128-v128:128:128-v192:256:256-v256:256:256-v512:512:512"
    "-v1024:1024:1024-n8:16:32"
)
TRIPLE_RE = re.compile(r"^air64(?:_v(\d)(\d+))?-apple-macosx(\d+)\.(\d+)(?:\.\d+)?$")
# Module flags every Apple module carries (behaviour 7 = Max); the driver may size tables by them.
REQUIRED_MAX_FLAGS = (
    "air.max_device_buffers",
    "air.max_constant_buffers",
    "air.max_threadgroup_buffers",
    "air.max_textures",
    "air.max_read_write_textures",
    "air.max_samplers",
)
BUILTIN_ARGUMENTS = frozenset(
    {
        "air.thread_position_in_grid",
        "air.threads_per_grid",
        "air.thread_position_in_threadgroup",
        "air.thread_index_in_threadgroup",
        "air.threadgroup_position_in_grid",
        "air.threads_per_threadgroup",
        "air.threadgroups_per_grid",
        "air.thread_index_in_simdgroup",
        "air.simdgroup_index_in_threadgroup",
        "air.simdgroups_per_threadgroup",
        "air.threads_per_simdgroup",
        "air.thread_index_in_quadgroup",
        "air.quadgroup_index_in_threadgroup",
    }
)
# MSL type name of a builtin argument -> LLVM parameter type (both widths seen in Apple files).
BUILTIN_TYPES = {
    "uint": "i32",
    "uint2": "<2 x i32>",
    "uint3": "<3 x i32>",
    "ushort": "i16",
    "ushort2": "<2 x i16>",
    "ushort3": "<3 x i16>",
}
BUFFER_ACCESS = ("air.read", "air.read_write", "air.write")
_PTR_TYPE = re.compile(r"^ptr(?: addrspace\((\d+)\))?$")

Report = Callable[[str, str], None]


def _key_value(tup: tuple, key: str, count: int = 1) -> tuple[Operand, ...] | None:
    """Operands following the string ``key`` in a flat key/value tuple, or None if key is absent."""
    for i, op in enumerate(tup):
        if op == key and isinstance(op, str):
            values = tup[i + 1 : i + 1 + count]
            return values if len(values) == count else ()
    return None


def _is_i32(op: Operand) -> bool:
    return isinstance(op, IntOp) and op.bits == 32


def _check_versions(md: ModuleMetadata, air: tuple[int, int], msl: tuple[int, int], report: Report) -> None:
    versions = md.named_tuples("air.version")
    if (
        len(versions) != 1
        or versions[0] is None
        or len(versions[0]) != 3
        or not all(map(_is_i32, versions[0]))
    ):
        report("air.version", "!air.version must be one tuple of three i32 (major, minor, patch)")
    else:
        got = (versions[0][0].value, versions[0][1].value)
        if got != air:
            report("air.version", f"!air.version is {got[0]}.{got[1]} but VERS says AIR {air[0]}.{air[1]}")
    langs = md.named_tuples("air.language_version")
    lang = langs[0] if len(langs) == 1 else None
    if lang is None or len(lang) != 4 or lang[0] != "Metal" or not all(map(_is_i32, lang[1:])):
        report("air.language_version", '!air.language_version must be one tuple !{!"Metal", i32, i32, i32}')
    else:
        got = (lang[1].value, lang[2].value)
        if got != msl:
            report(
                "air.language_version",
                f"!air.language_version is {got[0]}.{got[1]} but VERS says MSL {msl[0]}.{msl[1]}",
            )


def _check_module_level(md: ModuleMetadata, report: Report) -> None:
    options = md.named_tuples("air.compile_options")
    if not options:
        report("air.compile_options", "!air.compile_options is missing or empty")
    for opt in options:
        if (
            opt is None
            or len(opt) != 1
            or not isinstance(opt[0], str)
            or not opt[0].startswith("air.compile.")
        ):
            report("air.compile_options", f"compile option {opt!r} is not one 'air.compile.*' string")
    flags = {}
    for flag in md.named_tuples("llvm.module.flags"):
        if flag and len(flag) == 3 and isinstance(flag[1], str):
            flags[flag[1]] = flag
    for name in REQUIRED_MAX_FLAGS:
        flag = flags.get(name)
        if flag is None:
            report("air.module_flags", f"module flag {name} is missing")
        elif not (isinstance(flag[0], IntOp) and flag[0].value == 7 and _is_i32(flag[2])):
            report("air.module_flags", f'module flag {name} must be !{{i32 7, !"{name}", i32 N}}')


def _check_buffer(index: int, tup: tuple, param: str, report: Report) -> None:
    where = f"argument {index} (air.buffer)"
    loc = _key_value(tup, "air.location_index", 2)
    if not loc or not all(map(_is_i32, loc)):
        report("air.kernel.buffer", f"{where}: needs 'air.location_index', i32 index, i32 1")
    access = [a for a in BUFFER_ACCESS if a in tup]
    if len(access) != 1:
        report("air.kernel.buffer", f"{where}: needs exactly one of {', '.join(BUFFER_ACCESS)}")
    space = _key_value(tup, "air.address_space")
    ptr = _PTR_TYPE.match(param)
    if not space or not _is_i32(space[0]):
        report("air.kernel.buffer", f"{where}: needs 'air.address_space', i32")
    elif ptr is None:
        report("air.kernel.buffer", f"{where}: LLVM parameter is {param}, not a pointer")
    elif int(ptr.group(1) or 0) != space[0].value or space[0].value not in (1, 2, 3):
        report(
            "air.kernel.buffer",
            f"{where}: air.address_space {space[0].value} does not match parameter type {param} (must be 1, 2 or 3)",
        )
    for key in ("air.arg_type_size", "air.arg_type_align_size"):
        value = _key_value(tup, key)
        if not value or not _is_i32(value[0]):
            report("air.kernel.buffer", f"{where}: needs '{key}', i32")
    size = _key_value(tup, "air.buffer_size")
    if size is not None and (not size or not _is_i32(size[0])):
        report("air.kernel.buffer", f"{where}: 'air.buffer_size' must be followed by i32")
    _check_names(where, tup, report)


def _check_names(where: str, tup: tuple, report: Report) -> None:
    for key in ("air.arg_type_name", "air.arg_name"):
        value = _key_value(tup, key)
        if not value or not isinstance(value[0], str):
            report("air.kernel.arg_name", f"{where}: needs '{key}' followed by a string")


def _check_builtin(index: int, kind: str, tup: tuple, param: str, report: Report) -> None:
    where = f"argument {index} ({kind})"
    _check_names(where, tup, report)
    type_name = _key_value(tup, "air.arg_type_name")
    if type_name and isinstance(type_name[0], str):
        expected = BUILTIN_TYPES.get(type_name[0])
        if expected is None:
            report(
                "air.kernel.builtin",
                f"{where}: type {type_name[0]!r} is not one of {', '.join(BUILTIN_TYPES)}",
            )
        elif expected != param:
            report(
                "air.kernel.builtin",
                f"{where}: type {type_name[0]} needs LLVM type {expected}, parameter is {param}",
            )


def _check_argument(md: ModuleMetadata, index: int, ref: Operand, param: str, report: Report) -> None:
    tup = md.node(ref)
    if tup is None or len(tup) < 2 or not isinstance(tup[0], IntOp) or tup[0].value != index:
        report("air.kernel.arg", f"argument {index}: tuple must start with i32 {index}")
        return
    rest = tup[1:]
    if rest[0] == "air.function_constant":  # conditional argument: !"air.function_constant", !N, <kind>...
        rest = rest[2:]
    kind = rest[0] if rest else None
    if kind == "air.buffer":
        _check_buffer(index, rest, param, report)
    elif kind in BUILTIN_ARGUMENTS:
        _check_builtin(index, kind, rest, param, report)
    else:
        report(
            "air.kernel.arg",
            f"argument {index}: kind {kind!r} is not in the schema (buffers and thread builtins)",
        )


def _check_kernel(md: ModuleMetadata, module, kernel: str, report: Report) -> None:
    entries = md.named_tuples("air.kernel")
    mine = [e for e in entries if e and isinstance(e[0], GlobalOp) and e[0].name == kernel]
    if not mine:
        report("air.kernel.missing", f"!air.kernel does not list function @{kernel}")
        return
    entry = mine[0]
    if len(entry) < 3 or not isinstance(entry[1], (Ref, tuple)) or md.node(entry[2]) is None:
        report(
            "air.kernel.entry", "!air.kernel entry must be !{ptr @kernel, !{...}, !{argument tuples...}, ...}"
        )
        return
    for extra in entry[3:]:
        node = md.node(extra)
        if node is None or not node or not isinstance(node[0], str) or not node[0].startswith("air."):
            report(
                "air.kernel.entry",
                "extra !air.kernel operands must be tuples starting with an 'air.*' string",
            )
    try:
        fn = module.get_function(kernel)
    except NameError:
        report("air.kernel.function", f"module has no function @{kernel}")
        return
    if fn.is_declaration:
        report("air.kernel.function", f"@{kernel} is only declared, not defined")
    if not str(fn.global_value_type).startswith("void ("):
        report("air.kernel.function", f"@{kernel} must return void, its type is {fn.global_value_type}")
    params = [str(a.type) for a in fn.arguments]
    args = md.node(entry[2]) or ()
    if len(args) != len(params):
        report("air.kernel.args", f"{len(args)} argument tuples for {len(params)} parameters of @{kernel}")
    for index, (ref, param) in enumerate(zip(args, params, strict=False)):
        _check_argument(md, index, ref, param, report)


def check_module_schema(
    raw_bitcode: bytes,
    *,
    kernel: str,
    is_kernel: bool = True,
    air_version: tuple[int, int],
    language_version: tuple[int, int],
    os_version: tuple[int, int],
    module_offset: int | None = None,
) -> list[Problem]:
    """Check one module (raw bitcode, wrapper removed) against Apple's AIR schema and the container's
    versions (``VERS`` and the header's target OS). Returns the problems found, each naming ``kernel``."""
    import llvmlite.binding as llvm  # imported here: reading containers must not need llvmlite

    found: list[Problem] = []

    def report(rule: str, message: str) -> None:
        found.append(Problem(rule, message, module_offset, kernel))

    try:
        module = llvm.parse_bitcode(raw_bitcode)
    except RuntimeError as exc:
        report("bitcode.parse", f"LLVM cannot read the module: {str(exc).strip()}")
        return found
    triple = TRIPLE_RE.match(module.triple)
    if triple is None:
        report("air.triple", f"triple {module.triple!r} is not air64[_vNN]-apple-macosxM.m[.p]")
    else:
        if triple.group(1) is not None:
            arch = (int(triple.group(1)), int(triple.group(2)))
            if arch != air_version:
                report(
                    "air.triple",
                    f"triple {module.triple} names AIR {arch[0]}.{arch[1]}, VERS says {air_version[0]}.{air_version[1]}",
                )
        os_triple = (int(triple.group(3)), int(triple.group(4)))
        if os_triple != os_version:
            report(
                "air.triple",
                f"triple {module.triple} targets macOS {os_triple[0]}.{os_triple[1]}, the header says "
                f"{os_version[0]}.{os_version[1]}",
            )
    if module.data_layout != AIR_DATALAYOUT:
        report("air.datalayout", f"datalayout {module.data_layout!r} is not Apple's AIR datalayout")
    md = parse_module_metadata(str(module))
    _check_versions(md, air_version, language_version, report)
    _check_module_level(md, report)
    if is_kernel:
        _check_kernel(md, module, kernel, report)
    return found

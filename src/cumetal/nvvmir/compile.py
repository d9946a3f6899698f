"""NVVM IR → PTX with llvmlite (LLVM 22's NVPTX back end), the way libNVVM does it.

Steps: read each module (text or bitcode; typed or opaque pointers; LLVM's auto-upgrade turns
``!nvvm.annotations`` kernels into ``ptx_kernel`` functions and ``maxntidx``/``reqntidx``/
``minctasm``/``maxnreg`` into ``nvvm.*`` attributes and old intrinsics into current ones) → check it
is NVVM (64-bit NVPTX triple, ``!nvvmir.version`` major ≤ ours) → apply the floating-point options
(``-fma``, ``-ftz``) → link the modules (lazy ones contribute only what is used) → link CuMetal's
libdevice bitcode when ``__nv_*`` functions are called → optimise (``-opt``) → emit PTX, which then
goes through CuMetal's PTX pipeline like any other.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from cumetal.nvvmir import ir_text
from cumetal.nvvmir.options import NvvmOptionError, NvvmOptions, parse_nvvm_options
from cumetal.nvvmir.worker import CodegenCrash, CodegenRequest, run_codegen

# The NVVM IR version this front end reads (libNVVM 13's nvvmIRVersion answers 2.0 / debug 3.2).
IR_VERSION = (2, 0, 3, 2)
BITCODE_MAGICS = (b"BC\xc0\xde", b"\xde\xc0\x17\x0b")
NVPTX_TRIPLE = "nvptx64-nvidia-cuda"

# One compile at a time: llvmlite's binding is not thread-safe.
_LOCK = threading.Lock()


class NvvmError(Exception):
    """A failed NVVM compilation. ``kind`` is one of ``invalid_input``, ``invalid_ir``,
    ``invalid_option``, ``ir_version_mismatch``, ``no_module``, ``compilation``; ``log`` is what
    ``nvvmGetProgramLog`` shows (every line names the module)."""

    def __init__(self, kind: str, log: str) -> None:
        super().__init__(log)
        self.kind = kind
        self.log = log


@dataclass
class NvvmModule:
    """One input module: NVVM IR text (str or bytes) or bitcode (bytes starting ``BC\\xc0\\xde``)."""

    data: bytes | str
    name: str = "<unnamed>"
    lazy: bool = False


@dataclass
class NvvmOutput:
    ptx: str | None                      # None with -gen-lto
    bitcode: bytes | None                # the linked, optimised module with -gen-lto
    log: str = ""                        # warnings
    kernels: list[str] = field(default_factory=list)


def _llvm():  # noqa: ANN202 - the llvmlite.binding module
    import llvmlite.binding as llvm  # noqa: PLC0415 - heavy import, only when compiling

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    return llvm


def _as_text(mod: NvvmModule) -> str | None:
    if isinstance(mod.data, str):
        return mod.data
    data = bytes(mod.data)
    if data.startswith(BITCODE_MAGICS):
        return None
    data = data.rstrip(b"\0")  # C callers often pass the NUL terminator in the size
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise NvvmError("invalid_ir", f"{mod.name}: not NVVM IR: neither LLVM bitcode (no 'BC' magic) "
                                      f"nor UTF-8 text (byte {e.start} is 0x{data[e.start]:02x})") from None


_LOC = re.compile(r"^<string>:(\d+):(\d+): (error|warning): (.*)$")


def _parse_error(name: str, message: str) -> str:
    """llvmlite's '<string>:L:C: error: …' (plus source line and caret) → 'name:L:C: error: …'."""
    lines = [ln for ln in message.splitlines() if ln.strip() and ln != "LLVM IR parsing error"]
    out = []
    for ln in lines:
        m = _LOC.match(ln)
        out.append(f"{name}:{m.group(1)}:{m.group(2)}: {m.group(3)}: {m.group(4)}" if m else f"    {ln}")
    return "\n".join(out) if out else f"{name}: error: {message.strip()}"


def _read(llvm, ctx, mod: NvvmModule):  # noqa: ANN001, ANN202
    text = _as_text(mod)
    try:
        if text is None:
            return llvm.parse_bitcode(bytes(mod.data), context=ctx)
        return llvm.parse_assembly(ir_text.modernize_metadata(text), context=ctx)
    except RuntimeError as e:
        if text is None:
            raise NvvmError("invalid_ir", f"{mod.name}: error: malformed LLVM bitcode: "
                                          f"{str(e).replace('LLVM bitcode parsing error', '').strip()}") from None
        raise NvvmError("invalid_ir", _parse_error(mod.name, str(e))) from None


def _check_nvvm(mod: NvvmModule, module, text: str) -> None:  # noqa: ANN001
    triple = module.triple
    if triple and not triple.startswith("nvptx64-"):
        why = "32-bit NVPTX is not supported" if triple.startswith("nvptx-") else "not an NVPTX triple"
        raise NvvmError("invalid_ir", f"{mod.name}: error: target triple '{triple}': {why} "
                                      "(NVVM IR uses nvptx64-nvidia-cuda or nvptx64-unknown-cuda)")
    for version in ir_text.nvvmir_versions(text):
        if len(version) < 2:
            raise NvvmError("invalid_ir", f"{mod.name}: error: !nvvmir.version needs two or four i32 values")
        if version[0] > IR_VERSION[0]:
            raise NvvmError("ir_version_mismatch",
                            f"{mod.name}: error: NVVM IR version {version[0]}.{version[1]} is newer than "
                            f"the supported {IR_VERSION[0]}.{IR_VERSION[1]}")
    try:
        module.verify()
    except RuntimeError as e:
        detail = "\n".join("    " + ln for ln in str(e).strip().splitlines())
        raise NvvmError("invalid_ir", f"{mod.name}: error: the module is not valid LLVM IR:\n{detail}") from None


@lru_cache(maxsize=8)
def _libdevice_variant(path: str, mtime: float, ftz: bool) -> bytes:
    """CuMetal's libdevice made linkable here (no per-function target attributes, no jump tables,
    the -ftz variant), kept as bitcode: reading bitcode is much faster than reading text."""
    with _Session() as session:
        llvm = _llvm()
        module = session.keep(llvm.parse_bitcode(Path(path).read_bytes(), context=session.ctx))
        text = ir_text.strip_target_attributes(str(module))
        attrs = dict(ir_text.CODEGEN_ATTRIBUTES)
        if ftz:
            attrs |= ir_text.FTZ_ATTRIBUTES
            text = ir_text.add_module_flag(text, "nvvm-reflect-ftz", 1)
        prepared = session.keep(llvm.parse_assembly(ir_text.set_function_attributes(text, attrs),
                                                    context=session.ctx))
        return prepared.as_bitcode()


@lru_cache(maxsize=64)
def _libdevice_subset(path: str, mtime: float, ftz: bool, wanted: frozenset[str]) -> bytes:
    """Only the ``wanted`` functions and what they use: linking and optimising the whole library
    for every compile costs more than the kernel itself; programs tend to use the same few."""
    with _Session() as session:
        llvm = _llvm()
        module = session.keep(llvm.parse_bitcode(_libdevice_variant(path, mtime, ftz), context=session.ctx))
        for fn in module.functions:
            if not fn.is_declaration and fn.name not in wanted:
                fn.linkage = llvm.Linkage.internal
        for gv in module.global_variables:
            if not gv.is_declaration:
                gv.linkage = llvm.Linkage.internal
        mpm = llvm.create_new_module_pass_manager()
        mpm.add_global_dead_code_eliminate_pass()
        mpm.add_strip_dead_prototype_pass()
        tm = llvm.Target.from_triple(NVPTX_TRIPLE).create_target_machine()
        mpm.run(module, llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=0)))
        return module.as_bitcode()


def _libdevice(ftz: bool, wanted: frozenset[str]) -> tuple[bytes | None, str]:
    """(bitcode of the part of CuMetal's libdevice that defines ``wanted``, prepared for these
    options, or None; why it is missing)."""
    try:
        from cumetal import libdevice  # noqa: PLC0415

        path = Path(libdevice.bitcode_path())
    except Exception as e:  # noqa: BLE001 - the math library is optional here; say why it is missing
        first = str(e).splitlines()[0] if str(e) else ""
        return None, f"CuMetal's libdevice is not available ({type(e).__name__}: {first})"
    if not path.is_file():
        return None, f"CuMetal's libdevice bitcode {path} does not exist"
    return _libdevice_subset(str(path), path.stat().st_mtime, ftz, wanted), ""


def _prepare_text(text: str, opts: NvvmOptions) -> str:
    text = ir_text.set_contraction(text, opts.fma)
    text = ir_text.upgrade_warp_intrinsics(ir_text.math_intrinsics_to_libdevice(text))
    text = ir_text.mark_inline_asm_convergent(text)
    text = ir_text.set_debug_emission(
        text, "FullDebug" if opts.debug else "LineTablesOnly" if opts.lineinfo else "NoDebug")
    attrs = dict(ir_text.CODEGEN_ATTRIBUTES)
    if opts.ftz:
        attrs |= ir_text.FTZ_ATTRIBUTES
        text = ir_text.add_module_flag(text, "nvvm-reflect-ftz", 1)
    return ir_text.set_function_attributes(text, attrs)


_DECLARE = re.compile(r'^declare\b[^@]*@("(?:[^"\\]|\\.)*"|[-\w$.]+)\(', re.M)


def _declared(text: str) -> list[str]:
    return [n.strip('"') for n in _DECLARE.findall(text)]


def _drop_unused_declarations(llvm, module, tm) -> None:  # noqa: ANN001
    mpm = llvm.create_new_module_pass_manager()
    mpm.add_strip_dead_prototype_pass()
    mpm.run(module, llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=0)))


def _drop_unused_definitions(llvm, module, tm) -> None:  # noqa: ANN001
    mpm = llvm.create_new_module_pass_manager()
    mpm.add_global_dead_code_eliminate_pass()
    mpm.add_strip_dead_prototype_pass()
    mpm.run(module, llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=0)))


def compile_nvvm(modules: Sequence[NvvmModule], options: NvvmOptions | Iterable[str] | None = None) -> NvvmOutput:
    """Compile NVVM IR modules (libNVVM's ``nvvmCompileProgram``); raises ``NvvmError``."""
    try:
        opts = options if isinstance(options, NvvmOptions) else parse_nvvm_options(options)
    except NvvmOptionError as e:
        raise NvvmError("invalid_option", f"error: {e}") from None
    if not any(not m.lazy for m in modules):
        raise NvvmError("no_module", "error: the program has no module (or only lazily added ones)")
    # A lazily added copy of CuMetal's own libdevice (numba-cuda adds "the libdevice" this way) is
    # what step 3 links anyway, as the subset the program calls: skip linking all of it.
    modules = [m for m in modules if not (m.lazy and _is_our_libdevice(m.data))]
    with _LOCK, _Session() as session:
        return _compile_locked(_llvm(), session, list(modules), opts)


@lru_cache(maxsize=4)
def _libdevice_digest(path: str, mtime: float) -> tuple[int, str]:
    data = Path(path).read_bytes()
    return len(data), hashlib.sha256(data).hexdigest()


def _is_our_libdevice(data: bytes | str) -> bool:
    if not isinstance(data, bytes | bytearray) or not bytes(data[:4]) == b"BC\xc0\xde":
        return False
    try:
        from cumetal import libdevice  # noqa: PLC0415

        path = Path(libdevice.bitcode_path())
        size, digest = _libdevice_digest(str(path), path.stat().st_mtime)
    except Exception:  # noqa: BLE001 - no libdevice: nothing to compare with
        return False
    return len(data) == size and hashlib.sha256(bytes(data)).hexdigest() == digest


class _Session:
    """One LLVM context and the modules made in it, freed in a safe order (modules first) even
    when an exception's traceback keeps them alive: a context freed before its modules crashes."""

    def __enter__(self) -> _Session:
        self.ctx = _llvm().create_context()
        self.modules: list = []
        return self

    def keep(self, module):  # noqa: ANN001, ANN201
        self.modules.append(module)
        return module

    def __exit__(self, *exc: object) -> None:
        for module in self.modules:
            module.close()
        self.modules.clear()
        self.ctx.close()


def _compile_locked(llvm, session: _Session, modules: list[NvvmModule], opts: NvvmOptions) -> NvvmOutput:  # noqa: ANN001, C901
    ctx = session.ctx
    tm = llvm.Target.from_triple(NVPTX_TRIPLE).create_target_machine(
        cpu=opts.cpu, features=opts.ptx_feature, opt=min(opts.opt_level, 3))
    layout = str(tm.target_data)

    # 1. read, check, apply the FP options (each module as text once: LLVM's printed form)
    prepared: list[tuple[NvvmModule, object, str]] = []
    for mod in modules:
        parsed = session.keep(_read(llvm, ctx, mod))
        text = str(parsed)
        _check_nvvm(mod, parsed, text)
        text = _prepare_text(text, opts)
        try:
            module = session.keep(llvm.parse_assembly(text, context=ctx))
        except RuntimeError as e:  # an edit of ours went wrong: say so, it is not the user's IR
            raise NvvmError("compilation", f"{mod.name}: internal error after applying options:\n"
                                           + _parse_error(mod.name, str(e))) from None
        module.triple = NVPTX_TRIPLE
        module.data_layout = layout
        prepared.append((mod, module, text))

    # 2. link: eager modules first, then lazy ones (whose definitions are dropped when unused)
    prepared.sort(key=lambda p: p[0].lazy)
    main_mod, main, _ = prepared[0]
    kernels = set(ir_text.kernel_names(prepared[0][2]))
    discardable: set[str] = set()
    for mod, module, text in prepared[1:]:
        defined = {f.name for f in module.functions if not f.is_declaration}
        module_kernels = ir_text.kernel_names(text)
        kernels |= module_kernels
        if mod.lazy:
            discardable |= defined - module_kernels
        try:
            main.link_in(module)
        except RuntimeError as e:
            raise NvvmError("compilation", f"{mod.name}: error: cannot link with {main_mod.name}: "
                                           f"{str(e).strip()}") from None

    # 3. libdevice for the __nv_* functions still undefined
    log: list[str] = []
    _drop_unused_declarations(llvm, main, tm)
    wanted = sorted({f.name for f in main.functions if f.is_declaration and f.name.startswith("__nv_")})
    if wanted:
        lib_bitcode, why = _libdevice(opts.ftz, frozenset(wanted))
        if lib_bitcode is not None:
            lib = session.keep(llvm.parse_bitcode(lib_bitcode, context=ctx))
            lib.triple = NVPTX_TRIPLE
            lib.data_layout = layout
            discardable |= {f.name for f in lib.functions if not f.is_declaration}
            main.link_in(lib)
        missing = sorted({f.name for f in main.functions if f.is_declaration and f.name.startswith("__nv_")}
                         & set(wanted))
        if missing:
            origin = why or "CuMetal's libdevice does not define them"
            raise NvvmError("compilation",
                            f"{main_mod.name}: error: undefined libdevice function(s) {', '.join(missing)}: {origin}")
    for fn in main.functions:
        if fn.name in discardable and not fn.is_declaration:
            fn.linkage = llvm.Linkage.internal

    # 4. optimise and emit, in the worker process (unused libdevice/lazy definitions dropped first)
    _drop_unused_definitions(llvm, main, tm)
    try:
        main.verify()
    except RuntimeError as e:
        raise NvvmError("compilation", f"{main_mod.name}: internal error: the linked module is invalid: {e}") from None
    request = CodegenRequest(
        bitcode=main.as_bitcode(), cpu=opts.cpu, features=opts.ptx_feature, opt_level=opts.opt_level,
        # -prec-div=0 gives div.full.f32 (nvcc's non-IEEE division, 2 ulp); 2 is IEEE div.rn
        prec_div=2 if opts.prec_div else 1, prec_sqrt=1 if opts.prec_sqrt else 0,
        fma_level=2 if opts.fma else 0, emit_bitcode=opts.gen_lto)
    try:
        result = run_codegen(request)
    except CodegenCrash as e:
        raise NvvmError("compilation", f"{main_mod.name}: error: LLVM's NVPTX back end cannot compile this "
                                       f"program:\n" + "\n".join("    " + ln for ln in str(e).splitlines())) from None
    except RuntimeError as e:
        raise NvvmError("compilation", f"{main_mod.name}: error: PTX code generation failed: {e}") from None
    if opts.gen_lto:
        assert isinstance(result, bytes)
        return NvvmOutput(ptx=None, bitcode=result, log="\n".join(log), kernels=sorted(kernels))
    assert isinstance(result, str)
    return NvvmOutput(ptx=result, bitcode=None, log="\n".join(log), kernels=sorted(kernels))


def verify_nvvm(modules: Sequence[NvvmModule], options: NvvmOptions | Iterable[str] | None = None) -> None:
    """libNVVM's ``nvvmVerifyProgram``: read and check every module; raises ``NvvmError``."""
    try:
        if not isinstance(options, NvvmOptions):
            parse_nvvm_options(options)
    except NvvmOptionError as e:
        raise NvvmError("invalid_option", f"error: {e}") from None
    if not any(not m.lazy for m in modules):
        raise NvvmError("no_module", "error: the program has no module (or only lazily added ones)")
    with _LOCK, _Session() as session:
        for mod in modules:
            parsed = session.keep(_read(_llvm(), session.ctx, mod))
            _check_nvvm(mod, parsed, str(parsed))


def compile_nvvm_to_ptx(modules: Sequence[bytes | str | NvvmModule], options: Iterable[str] | NvvmOptions | None = None,
                        *, names: Sequence[str] | None = None) -> str:
    """Compile NVVM IR to PTX that ``cumetal.driver.cuModuleLoadData`` (and ``cumetalc``) accept.

    ``modules``: NVVM IR as text (``str``/``bytes``, LLVM 7-style typed pointers such as
    ``float addrspace(1)*`` or opaque ``ptr addrspace(1)``) or bitcode (``bytes``), or
    ``NvvmModule`` objects (to name them or add them lazily). ``options``: libNVVM's strings
    (``-arch=compute_80``, ``-opt=3``, ``-ftz=1``, ``-prec-sqrt=0``, ``-prec-div=0``, ``-fma=0``,
    ``-g``, ``-generate-line-info``). ``names`` names the modules in diagnostics (default
    ``<module N>``). Kernels are marked by ``!nvvm.annotations`` (``kernel``) or the ``ptx_kernel``
    calling convention; ``__nv_*`` calls are resolved from CuMetal's libdevice bitcode.

    Raises ``NvvmError`` (``.kind``, ``.log``: diagnostics naming the module, line and column).
    """
    mods = []
    for i, m in enumerate(modules):
        if isinstance(m, NvvmModule):
            mods.append(m)
        else:
            name = names[i] if names is not None and i < len(names) else f"<module {i}>"
            mods.append(NvvmModule(m, name))
    out = compile_nvvm(mods, options)
    assert out.ptx is not None, "-gen-lto produces bitcode: call compile_nvvm"
    return out.ptx

"""An NVRTC program: source, in-memory headers, name expressions, and what one compile produced.

Compilation goes through CuMetal's CUDA C++ front end (``cumetal.cudacxx.compile``: clang 22 →
PTX). Name expressions are lowered the way NVRTC does it: each expression is taken by address in
one device-side array appended to the source, which instantiates the templates it names; the
mangled names are read back from that array's initializer in the PTX, and the array is removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cumetal.nvrtc.default_device import default_device_source
from cumetal.nvrtc.enums import nvrtcResult
from cumetal.nvrtc.options import NvrtcOptionError, parse_nvrtc_options

NAME_ARRAY = "__cumetal_nvrtc_name_expressions"


class NvrtcFailure(Exception):
    def __init__(self, result: nvrtcResult, log: str = "") -> None:
        super().__init__(log or result.name)
        self.result = result
        self.log = log


@dataclass
class Program:
    source: str
    name: str
    headers: dict[str, str]
    name_expressions: list[str] = field(default_factory=list)
    compiled: bool = False
    ptx: bytes = b""          # NUL-terminated, as nvrtcGetPTX hands it out
    cubin: bytes = b""        # for sm_XX: the same PTX (what cuModuleLoadData accepts), else empty
    ltoir: bytes = b""        # -dlto: NVPTX LLVM bitcode
    optixir: bytes = b""      # never produced (no OptiX on Apple GPUs)
    tileir: bytes = b""       # never produced (no CUDA Tile IR back end)
    log: str = ""
    lowered: dict[str, str] = field(default_factory=dict)

    def compile(self, raw_options: list[str | bytes]) -> None:
        self.compiled = False
        self.ptx = self.cubin = self.ltoir = b""
        self.lowered = {}
        try:
            opts = parse_nvrtc_options(raw_options)
        except NvrtcOptionError as e:
            self.log = f"{e}\n"
            raise NvrtcFailure(nvrtcResult.NVRTC_ERROR_INVALID_OPTION, self.log) from None
        try:
            from cumetal.cudacxx.compile import CudaCompileError, compile_to_bitcode, compile_to_ptx  # noqa: PLC0415
        except ImportError as e:  # pragma: no cover - the front end ships with CuMetal
            self.log = f"nvrtc: error: CuMetal's CUDA C++ front end is unavailable: {e}\n"
            raise NvrtcFailure(nvrtcResult.NVRTC_ERROR_INTERNAL_ERROR, self.log) from None

        source, headers = self.source, self.headers
        if opts.default_device:
            # clang's closest equivalent: unannotated functions become __host__ __device__
            # (library includes excepted: nvrtc/default_device.py)
            names = frozenset(headers)
            source = default_device_source(source, names)
            headers = {n: default_device_source(t, names, wrap=False) for n, t in headers.items()}
        source += _name_expression_array(self.name_expressions)
        try:
            result = _compile_keeping_statics(compile_to_ptx, CudaCompileError, source, self.name, opts,
                                              headers or None)
            if opts.dlto:
                self.ltoir = compile_to_bitcode(source, self.name, opts.cuda, headers=headers or None).bitcode
        except CudaCompileError as e:
            self.log = _log_text(e.log or str(e), opts.disable_warnings)
            raise NvrtcFailure(nvrtcResult.NVRTC_ERROR_COMPILATION, self.log) from None
        except Exception as e:  # noqa: BLE001 - a bug of ours must not reach the caller as a traceback
            self.log = f"nvrtc: internal error: {type(e).__name__}: {e}\n"
            raise NvrtcFailure(nvrtcResult.NVRTC_ERROR_INTERNAL_ERROR, self.log) from None
        ptx, lowered = _take_name_array(result.ptx, self.name_expressions)
        ptx, renamed = unmangle_internal_globals(ptx)
        lowered = {expr: renamed.get(sym, sym) for expr, sym in lowered.items()}
        self.log = _log_text(result.log, opts.disable_warnings)
        self.lowered = lowered
        self.ptx = ptx.encode() + b"\0"
        self.cubin = self.ptx if opts.real_arch else b""
        self.compiled = True


# The front end writes in-memory headers under a private temporary directory; NVRTC names them by
# their include name.
_TEMP_HEADER_ROOT = re.compile(r"[^\s:'\"]*cumetal-cu-[^/\\\s]+[/\\]headers[/\\]")


def _log_text(log: str, quiet: bool) -> str:
    log = _TEMP_HEADER_ROOT.sub("", log)
    if quiet:
        log = "\n".join(ln for ln in log.splitlines() if "error" in ln or not ln.strip().endswith("]"))
    return log if not log or log.endswith("\n") else log + "\n"


def _name_expression_array(expressions: list[str]) -> str:
    if not expressions:
        return ""
    # one expression per line: a bad one gets a diagnostic pointing at it
    body = "".join(f"  (void *)({expr}),\n" for expr in expressions)
    return f"\n__device__ void *{NAME_ARRAY}[] = {{\n{body}}};\n"


_ARRAY_LINE = re.compile(rf"^[^\n]*\b{NAME_ARRAY}\[\d+\]\s*=\s*\{{(.*?)\}};[^\n]*\n?", re.M)
_ENTRY = re.compile(r"^(?:generic\()?\s*([\w$.]+)\s*\)?(?:\s*\+\s*\d+)?$")


def _take_name_array(ptx: str, expressions: list[str]) -> tuple[str, dict[str, str]]:
    """Remove the name-expression array from the PTX and map each expression to its symbol."""
    if not expressions:
        return ptx, {}
    m = _ARRAY_LINE.search(ptx)
    if not m:
        raise NvrtcFailure(nvrtcResult.NVRTC_ERROR_INTERNAL_ERROR,
                           "nvrtc: internal error: the name-expression table is missing from the PTX\n")
    entries = [e.strip() for e in m.group(1).split(",")]
    lowered = {}
    for expr, entry in zip(expressions, entries, strict=False):
        em = _ENTRY.match(entry)
        if em:
            lowered[expr] = em.group(1)
    ptx = ptx[:m.start()] + ptx[m.end():]
    # its forward declaration too (".extern"/".visible" lines naming the array), if any
    ptx = re.sub(rf"^[^\n]*\b{NAME_ARRAY}\b[^\n]*\n", "", ptx, flags=re.M)
    return ptx, lowered


# A namespace-scope ``static __device__``/``__constant__`` variable: clang names it ``_ZL<len><name>``
# in PTX, NVIDIA's NVRTC writes the plain name (so the host finds it with cuModuleGetGlobal("name"),
# as NVIDIA's binomialOptions_nvrtc sample does; scripts/check_nvrtc_static_globals.py on the H100).
_INTERNAL_GLOBAL = re.compile(r"^[ \t]*(?:\.(?:weak|visible)\s+)?\.(?:global|const)\b[^;\n]*?\b_ZL(\d+)([A-Za-z_]\w*)\b", re.M)


def unmangle_internal_globals(ptx: str) -> tuple[str, dict[str, str]]:
    """Rename internal-linkage globals ``_ZL<n><name>`` to ``<name>`` where that name is free.

    Returns the new PTX and {old symbol: new symbol}."""
    renamed: dict[str, str] = {}
    for m in _INTERNAL_GLOBAL.finditer(ptx):
        length, rest = int(m.group(1)), m.group(2)
        if len(rest) < length:
            continue
        name = rest[:length]
        if len(rest) != length:  # more follows the name: not the plain ``_ZL<n><name>`` form
            continue
        if re.search(rf"(?<![\w$.]){re.escape(name)}(?![\w$])", ptx):
            continue  # the plain name is taken (another variable, a function): keep clang's name
        renamed[f"_ZL{length}{name}"] = name
    for old, new in renamed.items():
        ptx = re.sub(rf"(?<![\w$.]){re.escape(old)}(?![\w$])", new, ptx)
    return ptx, renamed


# ``static __constant__ T name[...];`` / ``static __device__ T name;`` starting a line or following
# ``;``/``{``/``}``, no
# parentheses (so not a function); group 1 holds the declarators.
_STATIC_DEVICE_VAR = re.compile(
    r"(?:^|(?<=[;{}]))[ \t]*(?=[^;(){}]*\bstatic\b)(?=[^;(){}]*\b__(?:constant|device)__\b)([^;(){}=]*?)(?:=[^;]*)?;", re.M)


def static_device_variables(source: str) -> list[str]:
    """Names of namespace-scope ``static __constant__``/``static __device__`` variables, qualified
    by their named namespaces (``ns::inner::x``; an anonymous namespace adds nothing)."""
    text = _blank_comments_and_strings(source)
    openers = _brace_scopes(text)
    names = []
    for m in _STATIC_DEVICE_VAR.finditer(text):
        scope = _scope_at(openers, m.start())
        if scope is None:  # inside a function, class or initializer: not a namespace-scope variable
            continue
        prefix = "".join(f"{n}::" for n in scope if n)
        decl = re.sub(r"\[[^\]]*\]", "", m.group(1))
        while re.search(r"<[^<>]*>", decl):  # template arguments hold commas that separate no declarators
            decl = re.sub(r"<[^<>]*>", "", decl)
        for part in decl.split(","):  # ``static __constant__ float a[4], b;`` declares a and b
            last = re.search(r"([A-Za-z_]\w*)\s*$", part.strip())
            if last and last.group(1) not in ("__constant__", "__device__", "static", "const", "volatile"):
                names.append(prefix + last.group(1))
    return list(dict.fromkeys(names))


_COMMENT_OR_STRING = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)
_NAMESPACE_OPENER = re.compile(r"\bnamespace\s*([A-Za-z_][\w:]*)?\s*(?:__attribute__\s*\(\(.*?\)\)\s*)?$", re.S)


def _blank_comments_and_strings(source: str) -> str:
    """``source`` with comments and literals replaced by spaces (newlines kept): positions stay."""
    return _COMMENT_OR_STRING.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), source)


def _brace_scopes(text: str) -> list[tuple[int, int, str | None]]:
    """(open, close, namespace name or None) for every brace pair; '' names an anonymous namespace."""
    out, stack = [], []
    for m in re.finditer(r"[{}]", text):
        if m.group(0) == "{":
            head = _NAMESPACE_OPENER.search(text, max(0, m.start() - 200), m.start())
            stack.append((m.start(), None if head is None else (head.group(1) or "")))
        elif stack:
            start, name = stack.pop()
            out.append((start, m.start(), name))
    out.extend((start, len(text), name) for start, name in stack)
    return out


def _scope_at(scopes: list[tuple[int, int, str | None]], pos: int) -> list[str] | None:
    """The namespaces enclosing ``pos`` (outermost first), or None when a non-namespace brace does."""
    enclosing = sorted((o, name) for o, c, name in scopes if o < pos < c)
    if any(name is None for _, name in enclosing):
        return None
    return [part for _, name in enclosing for part in name.split("::")]


def _compile_keeping_statics(compile_to_ptx, error_type, source: str, name: str, opts, headers):
    """Compile ``source``, keeping its ``static`` device variables as NVIDIA's NVRTC does.

    clang drops (or folds the loads of) an internal-linkage variable that device code never writes,
    so the host could not reach it with cuModuleGetGlobal. A host function that takes each one's
    address makes clang keep it as a module global (clang externalizes device variables that host
    code uses). When a guessed name is not visible at file scope (a static inside a namespace), that
    addition does not compile: the source is then compiled as it is."""
    names = static_device_variables(source)
    if names:
        refs = " ".join(f"(void)&{n};" for n in names)
        keeper = f"\nstatic void __cumetal_keep_static_device_vars(void) {{ {refs} }}\n"
        try:
            return compile_to_ptx(source + keeper, name, opts.cuda, headers=headers)
        except error_type:
            pass
    return compile_to_ptx(source, name, opts.cuda, headers=headers)

"""cumetalc's command line: nvcc's flag spellings (and CuMetal's own), parsed into ``Settings``.

nvcc's syntax is not argparse's: single-dash long options (``-ptx``, ``-rdc=true``), values joined
or separate (``-Ifoo``, ``-I foo``, ``-I=foo``), long aliases (``--gpu-architecture``), repeated
``-Xcompiler a,b``. This parser is a table of spellings. An nvcc option that means nothing for CuMetal
(``-Xptxas``, ``-maxrregcount``, …) is a one-line warning; an unknown option, or one whose effect
CuMetal cannot give (``-cubin``, ``-dlink``, …), is a one-line error (exit status 2), as in nvcc.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cumetal.cudacxx.options import CudaOptions, OptionError, normalize_arch


class UsageError(Exception):
    """A command line that cannot be obeyed (exit status 2)."""


@dataclass
class Settings:
    inputs: list[tuple[str, str]] = field(default_factory=list)  # (path, language) ; language: ptx|cu|ll|host
    output: str | None = None
    options: CudaOptions = field(default_factory=CudaOptions)
    # what to produce
    ptx: bool = False               # -ptx
    emit: str | None = None         # --emit=ir|msl|metallib
    compile_only: bool = False      # -c / -dc
    preprocess: bool = False        # -E
    deps_only: str | None = None    # -M / -MM: "M" or "MM"
    parse_only: bool = False
    coverage: bool = False
    # dependency files written beside the compile
    dep_file: bool = False          # -MD / -MMD
    dep_nonsystem: bool = False     # -MM / -MMD: leave out system headers
    dep_file_name: str | None = None  # -MF
    dep_target: str | None = None   # -MT
    dep_phony: bool = False         # -MP
    # CuMetal's own options
    air_versions: str | None = None
    fp64: str = "emulate"  # Apple GPUs reject double (docs/fp64-policy.md)
    ptx_strict: bool = False
    version: bool = False
    help: bool = False
    list_arch: bool = False         # --list-gpu-arch / --list-gpu-code
    print_dir: str | None = None    # --print-include-dir / --print-cuda-path
    verbose: bool = False
    # linking (build_program)
    libraries: list[str] = field(default_factory=list)
    library_dirs: list[str] = field(default_factory=list)
    linker_args: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


_BOOL = {"true": True, "false": False, "1": True, "0": False, "yes": True, "no": False, "on": True, "off": False}

# Options that take a value: every spelling -> canonical name.
_VALUED = {
    "-o": "o", "--output-file": "o",
    "-I": "I", "--include-path": "I", "-isystem": "I",
    "-D": "D", "--define-macro": "D",
    "-U": "U", "--undefine-macro": "U",
    "-include": "include", "--pre-include": "include",
    "-std": "std", "--std": "std",
    "-arch": "arch", "--gpu-architecture": "arch",
    "-code": "code", "--gpu-code": "code",
    "-gencode": "gencode", "--generate-code": "gencode",
    "-ftz": "ftz", "--ftz": "ftz",
    "-prec-div": "prec-div", "--prec-div": "prec-div",
    "-prec-sqrt": "prec-sqrt", "--prec-sqrt": "prec-sqrt",
    "-fmad": "fmad", "--fmad": "fmad",
    "-rdc": "rdc", "--relocatable-device-code": "rdc",
    "-Xcompiler": "Xcompiler", "--compiler-options": "Xcompiler",
    "-Xlinker": "Xlinker", "--linker-options": "Xlinker",
    "-Xptxas": "ignored", "--ptxas-options": "ignored",
    "-Xnvlink": "ignored", "--nvlink-options": "ignored",
    "-Xcudafe": "ignored", "-Xarchive": "ignored", "--archive-options": "ignored",
    "-x": "x", "--x": "x",
    "-MF": "MF", "--dependency-output": "MF",
    "-MT": "MT", "--dependency-target-name": "MT",
    "-l": "l", "--library": "l",
    "-L": "L", "--library-path": "L",
    "-O": "O", "--optimize": "O",
    "-ccbin": "ignored", "--compiler-bindir": "ignored",
    "-cudart": "ignored", "--cudart": "ignored", "-cudadevrt": "ignored", "--cudadevrt": "ignored",
    "-t": "ignored", "--threads": "ignored", "-maxrregcount": "ignored", "--maxrregcount": "ignored",
    "--default-stream": "default-stream", "-default-stream": "default-stream",
    "-diag-suppress": "ignored", "--diag-suppress": "ignored", "--diag_suppress": "ignored",
    "-keep-dir": "ignored", "--keep-dir": "ignored", "-odir": "odir", "--output-directory": "odir",
    "--emit": "emit", "--air-versions": "air-versions", "--fp64": "fp64",
    "-Werror": "ignored", "--Werror": "ignored", "-Xclang": "Xclang",
}

# Flags without a value.
_FLAGS = {
    "-ptx": "ptx", "--ptx": "ptx",
    "-c": "c", "--compile": "c",
    "-dc": "dc", "--device-c": "dc",
    "-E": "E", "--preprocess": "E",
    "-M": "M", "--generate-dependencies": "M",
    "-MM": "MM", "--generate-nonsystem-dependencies": "MM",
    "-MD": "MD", "--generate-dependencies-with-compile": "MD",
    "-MMD": "MMD", "--generate-nonsystem-dependencies-with-compile": "MMD",
    "-MP": "MP", "--generate-dependency-targets": "MP",
    "-g": "g", "--debug": "g",
    "-G": "G", "--device-debug": "G",
    "-lineinfo": "lineinfo", "--generate-line-info": "lineinfo",
    "-use_fast_math": "fast", "--use_fast_math": "fast", "--use-fast-math": "fast",
    "-expt-relaxed-constexpr": "relaxed", "--expt-relaxed-constexpr": "relaxed",
    "-extended-lambda": "lambda", "--extended-lambda": "lambda", "-expt-extended-lambda": "lambda",
    "--expt-extended-lambda": "lambda",
    "-w": "w", "--disable-warnings": "w",
    "-v": "v", "--verbose": "v",
    "-V": "version", "--version": "version",
    "-h": "help", "--help": "help",
    "--parse-only": "parse-only", "--coverage": "coverage", "--ptx-strict": "ptx-strict",
    "-m64": "quiet", "--machine": "quiet", "-Wno-deprecated-gpu-targets": "quiet",
    "--Wno-deprecated-gpu-targets": "quiet", "-Wno-deprecated-declarations": "quiet",
    "--print-include-dir": "print-include-dir", "--print-cuda-path": "print-cuda-path",
    "--list-gpu-arch": "list-arch", "-arch-ls": "list-arch", "--list-gpu-code": "list-arch", "-code-ls": "list-arch",
    "-keep": "ignored", "--keep": "ignored", "-res-usage": "ignored", "--resource-usage": "ignored",
    "-dryrun": "ignored", "--dryrun": "ignored", "-src-in-ptx": "ignored", "--source-in-ptx": "ignored",
    "-restrict": "ignored", "--restrict": "ignored", "-forward-unknown-to-host-compiler": "ignored",
    "--forward-unknown-to-host-compiler": "ignored", "-allow-unsupported-compiler": "ignored",
    "--allow-unsupported-compiler": "ignored", "-Wreorder": "ignored", "-Wno-deprecated-gpu-targets=": "quiet",
    "-dlto": "ignored", "--dlto": "ignored", "-link": "quiet", "--link": "quiet",
}

# Ignoring these would silently produce something other than what was asked: refuse.
_REFUSED = {
    "-cubin": "NVIDIA machine code (cubin) cannot be produced; use -ptx or --emit=metallib",
    "--cubin": "NVIDIA machine code (cubin) cannot be produced; use -ptx or --emit=metallib",
    "-fatbin": "fatbins of NVIDIA machine code cannot be produced; use -ptx or --emit=metallib",
    "--fatbin": "fatbins of NVIDIA machine code cannot be produced; use -ptx or --emit=metallib",
    "-dlink": "separate device linking (-dlink) is not supported; link with -rdc=true and several inputs",
    "--device-link": "separate device linking (-dlink) is not supported; link with -rdc=true and several inputs",
    "-lib": "building static libraries (-lib) is not supported",
    "--lib": "building static libraries (-lib) is not supported",
    "-optix-ir": "OptiX IR output is not supported", "--optix-ir": "OptiX IR output is not supported",
    "-ltoir": "LTO IR output is not supported", "--ltoir": "LTO IR output is not supported",
    "-cuda": "host-code translation (-cuda) is not supported", "--cuda": "host-code translation (-cuda) is not supported",
    "-run": "-run is not supported; run the executable yourself",
    "--run": "-run is not supported; run the executable yourself",
}

_LANG_BY_SUFFIX = {".ptx": "ptx", ".cu": "cu", ".ll": "ll", ".bc": "ll", ".c": "host", ".cc": "host",
                   ".cpp": "host", ".cxx": "host", ".o": "host", ".obj": "host", ".a": "host", ".so": "host"}
_X_LANG = {"cu": "cu", "cuda": "cu", "c++": "host", "c": "host", "ptx": "ptx"}
_JOINABLE = ("-I", "-D", "-U", "-l", "-L", "-O", "-x")  # -Ifoo, -DX=1, -lm, -O3


def _value_bool(name: str, value: str) -> bool:
    try:
        return _BOOL[value.lower()]
    except KeyError:
        raise UsageError(f"option '{name}' expects true or false, got '{value}'") from None


def _arch_of_gencode(value: str) -> str:
    m = re.search(r"arch\s*=\s*([A-Za-z_0-9]+)", value)
    if not m:
        raise UsageError(f"-gencode expects arch=compute_XX,code=sm_XX, got '{value}'")
    return m.group(1)


def parse_args(argv: list[str]) -> Settings:
    s = Settings()
    o = s.options
    archs: list[str] = []
    lang_override: str | None = None
    opt_level_seen = False
    i = 0
    while i < len(argv):
        tok = argv[i]
        i += 1
        if tok == "-" or not tok.startswith("-"):
            lang = lang_override or _LANG_BY_SUFFIX.get(_suffix(tok), "ptx" if tok == "-" else None)
            if lang is None:
                s.warnings.append(f"'{tok}': unknown file type, treated as PTX (use -x cu for CUDA C++)")
                lang = "ptx"
            s.inputs.append((tok, lang))
            continue
        name, value = tok, None
        if tok in _FLAGS:
            kind = _FLAGS[tok]
        elif tok in _REFUSED:
            raise UsageError(f"{tok}: {_REFUSED[tok]}")
        else:
            if "=" in tok and tok.split("=", 1)[0] in _VALUED:
                name, value = tok.split("=", 1)
            elif "=" in tok and tok.split("=", 1)[0] in _FLAGS:  # -Wno-deprecated-gpu-targets=…
                continue
            elif tok not in _VALUED:
                joined = next((p for p in _JOINABLE if tok.startswith(p) and len(tok) > len(p)), None)
                if joined is None:
                    if tok.split("=", 1)[0] in _REFUSED:
                        raise UsageError(f"{tok}: {_REFUSED[tok.split('=', 1)[0]]}")
                    raise UsageError(f"unknown option '{tok}' (host compiler options go after -Xcompiler)")
                name, value = joined, tok[len(joined):]
            kind = _VALUED[name]
            if value is None:
                if kind == "O" and (i >= len(argv) or not argv[i].isdigit()):
                    value = "3"  # bare -O
                elif i >= len(argv):
                    raise UsageError(f"option '{name}' needs a value")
                else:
                    value = argv[i]
                    i += 1
        _apply(s, kind, name, value, archs)
        if kind == "x":
            lang_override = None if value == "none" else _X_LANG.get(value)
            if value != "none" and lang_override is None:
                raise UsageError(f"-x {value}: unknown language (cumetalc knows cu, c++, c, ptx)")
        opt_level_seen |= kind == "O"
    if archs:
        try:
            o.arch = max((normalize_arch(a) for a in archs), key=_arch_rank)
        except OptionError as e:
            raise UsageError(str(e)) from None
    if s.emit is not None and s.emit not in ("ir", "msl", "metallib"):
        raise UsageError(f"--emit expects ir, msl or metallib, got '{s.emit}'")
    if s.fp64 not in ("native", "emulate", "warn"):
        raise UsageError(f"--fp64 expects native, emulate or warn, got '{s.fp64}'")
    del opt_level_seen
    return s


def _list(value: str) -> list[str]:
    """nvcc's list options (-I, -L, -l, -U) take comma-separated values. -D does not split here:
    -DLIST=a,b keeps its comma (nvcc would split it, a classic surprise)."""
    return [v for v in value.split(",") if v]


def _words(value: str) -> list[str]:
    """-Xcompiler/-Xlinker: a comma-separated list whose items may hold several shell words
    (nvcc hands the text to a shell: -Xcompiler "-Wall -fPIC" works there)."""
    import shlex

    out: list[str] = []
    for part in value.split(","):
        try:
            out.extend(shlex.split(part) if part.strip() else [])
        except ValueError as e:
            raise UsageError(f"cannot split host compiler/linker options '{value}': {e}") from None
    return out


def _arch_rank(a: str) -> tuple[int, int]:
    return int(a[3:].rstrip("a")), a.endswith("a")


def _suffix(path: str) -> str:
    dot = path.rfind(".")
    return path[dot:].lower() if dot > path.rfind("/") else ""


def _apply(s: Settings, kind: str, name: str, value: str | None, archs: list[str]) -> None:  # noqa: C901, PLR0912
    o = s.options
    match kind:
        case "ptx":
            s.ptx = True
        case "c":
            s.compile_only = True
        case "dc":
            s.compile_only, o.rdc = True, True
        case "E":
            s.preprocess = True
        case "M" | "MM":
            s.deps_only = kind
            s.dep_nonsystem = kind == "MM"
        case "MD" | "MMD":
            s.dep_file = True
            s.dep_nonsystem = kind == "MMD"
        case "MP":
            s.dep_phony = True
        case "MF":
            s.dep_file_name = value
        case "MT":
            s.dep_target = value
        case "g":
            o.host_debug = True
        case "G":
            o.debug = True
        case "lineinfo":
            o.lineinfo = True
        case "fast":
            o.fast_math = True
        case "relaxed":
            o.relaxed_constexpr = True
        case "lambda":
            o.extended_lambda = True
        case "w":
            o.extra_clang_args.append("-w")
        case "v":
            s.verbose = True
        case "version":
            s.version = True
        case "help":
            s.help = True
        case "parse-only":
            s.parse_only = True
        case "coverage":
            s.coverage = True
        case "ptx-strict":
            s.ptx_strict = True
        case "quiet":
            pass
        case "ignored":
            s.warnings.append(f"'{name}' has no effect with CuMetal; ignored")
        case "o":
            s.output = value
        case "I":
            o.include_dirs.extend(_list(value))
        case "D":
            o.defines.append(value)
        case "U":
            o.undefines.extend(_list(value))
        case "include":
            o.pre_includes.append(value)
        case "std":
            if not re.fullmatch(r"(c|gnu)\+\+\d\w", value):
                raise UsageError(f"-std={value}: expected c++11, c++14, c++17, c++20 (or gnu++NN)")
            o.std = value
        case "arch":
            if value not in ("native", "all", "all-major"):
                archs.extend(a for a in value.split(",") if a)
        case "code":
            pass  # the real-architecture list nvcc embeds; -arch/-gencode set the level
        case "gencode":
            archs.append(_arch_of_gencode(value))
        case "ftz":
            o.ftz = _value_bool(name, value)
        case "prec-div":
            o.prec_div = _value_bool(name, value)
        case "prec-sqrt":
            o.prec_sqrt = _value_bool(name, value)
        case "fmad":
            o.fmad = _value_bool(name, value)
        case "rdc":
            o.rdc = _value_bool(name, value)
        case "Xcompiler":
            for word in _words(value):
                if word == "-fopenmp" or word.startswith(("-fopenmp=", "-fopenmp-")):
                    s.warnings.append(f"'{word}': CuMetal's host compiler has no OpenMP runtime; '#pragma omp' "
                                      "is ignored and <omp.h> is a serial one (one thread)")
                else:
                    o.host_args.append(word)
        case "Xlinker":
            s.linker_args.extend(_words(value))
        case "Xclang":
            o.extra_clang_args.append(value)
        case "x":
            pass
        case "l":
            s.libraries.extend(_list(value))
        case "L":
            s.library_dirs.extend(_list(value))
        case "O":
            if value not in ("0", "1", "2", "3"):
                raise UsageError(f"-O{value}: optimisation level must be 0, 1, 2 or 3")
            o.host_opt_level = int(value)
        case "default-stream":
            if value == "per-thread":
                o.defines.append("CUDA_API_PER_THREAD_DEFAULT_STREAM=1")
        case "odir":
            raise UsageError(f"{name} is not supported; name the output with -o")
        case "list-arch":
            s.list_arch = True
        case "print-include-dir" | "print-cuda-path":
            s.print_dir = kind
        case "emit":
            s.emit = value
        case "air-versions":
            s.air_versions = value
        case "fp64":
            s.fp64 = value
        case _:
             # pragma: no cover - table and match out of step
            raise UsageError(f"internal: unhandled option '{name}'")

"""NVRTC's compile options (``nvrtcCompileProgram``) → ``CudaOptions`` plus NVRTC-only switches.

Each option is one string, ``--long-name=value`` or ``-short=value``; options that take a value
also accept it as the next string (``"-I", "dir"``) and the one-letter ones glued (``-Idir``,
``-DN=4``). Unknown options are refused (``NVRTC_ERROR_INVALID_OPTION``) with a log line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from cumetal.cudacxx.options import CudaOptions, OptionError, normalize_arch

DEFAULT_ARCH = "compute_75"  # NVRTC 13's default virtual architecture
STANDARDS = ("c++03", "c++11", "c++14", "c++17", "c++20")


class NvrtcOptionError(ValueError):
    """An option NVRTC would refuse; the message is the log line."""


@dataclass
class NvrtcOptions:
    cuda: CudaOptions = field(default_factory=CudaOptions)
    arch: str = DEFAULT_ARCH           # as given (compute_XX: PTX only; sm_XX: a "CUBIN" too)
    dlto: bool = False                 # -dlto: LTO IR (LLVM bitcode) instead of PTX
    default_device: bool = False       # -default-device: unannotated functions are __device__
    disable_warnings: bool = False     # -w

    @property
    def real_arch(self) -> bool:
        return self.arch.startswith("sm_")


# name (long and short spellings) -> handler key. "value" options take an argument.
_BOOL_SWITCHES = {
    "ftz": "ftz", "prec-sqrt": "prec_sqrt", "prec-div": "prec_div", "fmad": "fmad",
}
_VALUE = {
    "gpu-architecture": "arch", "arch": "arch",
    "include-path": "include", "I": "include",
    "define-macro": "define", "D": "define",
    "undefine-macro": "undefine", "U": "undefine",
    "pre-include": "pre_include", "include": "pre_include",
    "std": "std",
    "relocatable-device-code": "rdc", "rdc": "rdc",
    "dopt": "dopt", "ftz": "ftz", "prec-sqrt": "prec_sqrt", "prec-div": "prec_div", "fmad": "fmad",
    "maxrregcount": "ignored", "ptxas-options": "ignored", "Xptxas": "ignored",
    "modify-stack-limit": "ignored", "optimization-info": "ignored", "opt-info": "ignored",
    "diag-error": "ignored", "diag-suppress": "ignored", "diag-warn": "ignored",
    "split-compile": "ignored", "split-compile-extended": "ignored", "time": "ignored",
    "jump-table-density": "ignored", "device-stack-protector": "ignored", "pch-dir": "ignored",
    "use-pch": "ignored", "create-pch": "ignored", "pch-messages": "ignored",
    "fdevice-time-trace": "ignored", "minimal": "ignored_flag_or_value", "Ofast-compile": "ignored",
}
_FLAGS = {
    "device-c": "rdc_on", "dc": "rdc_on", "device-w": "rdc_off", "dw": "rdc_off",
    "extensible-whole-program": "ewp", "ewp": "ewp",
    "device-debug": "debug", "G": "debug",
    "generate-line-info": "lineinfo", "lineinfo": "lineinfo",
    "use_fast_math": "fast_math", "use-fast-math": "fast_math",
    "dlink-time-opt": "dlto", "dlto": "dlto", "gen-opt-lto": "ignored",
    "default-device": "default_device", "device-as-default-execution-space": "default_device",
    "disable-warnings": "w", "w": "w",
    "expt-relaxed-constexpr": "relaxed_constexpr", "expt-extended-lambda": "extended_lambda",
    "extended-lambda": "extended_lambda",
    # accepted, no effect in CuMetal (NVIDIA code-generator or diagnostic-format knobs)
    "extra-device-vectorization": "ignored", "restrict": "ignored", "device-int128": "ignored",
    "device-float128": "ignored", "builtin-move-forward": "ignored",
    "builtin-initializer-list": "ignored", "no-source-include": "ignored",
    "display-error-number": "ignored", "err-no": "ignored", "no-display-error-number": "ignored",
    "no-err-no": "ignored", "brief-diagnostics": "ignored", "brief-diag": "ignored",
    "pch": "ignored", "pch-verbose": "ignored", "instantiate-templates-in-pch": "ignored",
    "fdevice-syntax-only": "ignored", "optix-ir": "ignored", "Wreorder": "ignored",
    "Wno-deprecated-declarations": "ignored", "Wno-deprecated-gpu-targets": "ignored",
    "minimal": "ignored", "device-stack-protector": "ignored", "no-cache": "ignored",
    "Wext-lambda-captures-this": "ignored",
}
_GLUED = ("I", "D", "U")  # -Idir, -DNAME=1, -UNAME


def _truth(name: str, value: str) -> bool:
    v = value.strip().lower()
    if v in ("true", "1", "on", "yes"):
        return True
    if v in ("false", "0", "off", "no"):
        return False
    raise NvrtcOptionError(f"nvrtc: error: invalid value '{value}' for option '{name}' (expected true or false)")


def _text(opt: str | bytes) -> str:
    return opt.decode("utf-8", "replace") if isinstance(opt, bytes | bytearray) else str(opt)


def parse_nvrtc_options(raw: Sequence[str | bytes]) -> NvrtcOptions:
    """Parse NVRTC option strings; raises ``NvrtcOptionError`` with NVRTC-style log text."""
    items = [_text(o).strip() for o in raw]
    out = NvrtcOptions()
    out.cuda.arch = normalize_arch(DEFAULT_ARCH)
    out.cuda.defines.append("__CUDACC_RTC__")
    # What NVRTC's built-in environment provides without an #include, and NVIDIA's own cuda_fp16.h
    # and cuda_bf16.h (numba-cuda ships them) use under __CUDACC_RTC__: the NV_IF_TARGET macros and
    # std::move.
    out.cuda.pre_includes += ["nv/target", "utility"]
    i = 0
    while i < len(items):
        opt = items[i]
        i += 1
        if not opt:
            continue
        if not opt.startswith("-"):
            raise NvrtcOptionError(f"nvrtc: error: unrecognized option '{opt}' (options start with '-')")
        body = opt[2:] if opt.startswith("--") else opt[1:]
        name, eq, value = body.partition("=")
        if (not opt.startswith("--") and body[:1] in _GLUED and len(body) > 1
                and name not in _FLAGS and name not in _VALUE):
            name, value, eq = body[0], body[1:], "="  # -Idir, -DNAME=1
        if name in _FLAGS and not eq:
            _apply_flag(out, _FLAGS[name])
            continue
        if name in _FLAGS and name not in _VALUE:  # NVRTC's boolean spelling: --builtin-move-forward=false
            if _truth(name, value):
                _apply_flag(out, _FLAGS[name])
            continue
        if name in _VALUE:
            if not eq:
                if i >= len(items):
                    raise NvrtcOptionError(f"nvrtc: error: option '{opt}' needs a value")
                value = items[i]
                i += 1
            _apply_value(out, _VALUE[name], opt if not eq else f"{opt.partition('=')[0]}", value)
            continue
        raise NvrtcOptionError(f"nvrtc: error: unrecognized option '{opt}'")
    return out


def _apply_flag(out: NvrtcOptions, key: str) -> None:
    c = out.cuda
    if key == "rdc_on":
        c.rdc = True
    elif key == "rdc_off":
        c.rdc = False
    elif key == "debug":
        c.debug = True
    elif key == "lineinfo":
        c.lineinfo = True
    elif key == "fast_math":
        c.fast_math = True
    elif key == "dlto":
        out.dlto = True
    elif key == "default_device":
        out.default_device = True
    elif key == "w":
        out.disable_warnings = True
        c.extra_clang_args.append("-w")
    elif key == "relaxed_constexpr":
        c.relaxed_constexpr = True
    elif key == "extended_lambda":
        c.extended_lambda = True
    # "ewp" (whole program with extern device functions) and "ignored" change nothing here


def _apply_value(out: NvrtcOptions, key: str, name: str, value: str) -> None:
    c = out.cuda
    if key == "arch":
        try:
            c.arch = normalize_arch(value)
        except OptionError as e:
            raise NvrtcOptionError(f"nvrtc: error: invalid value for {name}: {e}") from None
        out.arch = value.strip().lower()
    elif key == "include":
        c.include_dirs.append(value)
    elif key == "define":
        c.defines.append(value)
    elif key == "undefine":
        c.undefines.append(value)
    elif key == "pre_include":
        c.pre_includes.append(value)
    elif key == "std":
        std = value.strip().lower()
        if std not in STANDARDS:
            raise NvrtcOptionError(f"nvrtc: error: invalid value '{value}' for {name} "
                                   f"(accepted: {', '.join(STANDARDS)})")
        c.std = std
    elif key == "rdc":
        c.rdc = _truth(name, value)
    elif key == "dopt":
        if value not in ("on", "off"):
            raise NvrtcOptionError(f"nvrtc: error: invalid value '{value}' for {name} (expected on or off)")
        c.opt_level = 3 if value == "on" else 0
    elif key in ("ftz", "prec_sqrt", "prec_div", "fmad"):
        setattr(c, key, _truth(name, value))

"""libNVVM's compile options (``nvvmCompileProgram``), parsed into ``NvvmOptions``.

libNVVM takes ``-name=value`` strings: ``-arch=compute_XX``, ``-opt=0..3``, ``-ftz=0|1``,
``-prec-sqrt=0|1``, ``-prec-div=0|1``, ``-fma=0|1``, ``-g``, ``-generate-line-info``; newer releases
add ``-gen-lto``, ``-jump-table-density=N``, ``-split-compile=N`` … (accepted; meaningless here).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# libNVVM 13 defaults to compute_75; CuMetal's Apple back ends implement sm_80's feature level and
# accept code for any architecture up to sm_120 (the PTX front end reads PTX ISA up to 9.x).
DEFAULT_ARCH = "sm_75"

# The lowest PTX ISA version LLVM's NVPTX back end accepts for each architecture, floored at 7.0
# (the *.sync warp intrinsics need it).
_PTX_FOR_SM = {50: 70, 52: 70, 53: 70, 60: 70, 61: 70, 62: 70, 70: 70, 72: 70, 75: 70, 80: 70,
               86: 71, 87: 74, 89: 78, 90: 78, 100: 86, 101: 86, 103: 88, 110: 90, 120: 87, 121: 88}
_ARCH_RE = re.compile(r"^(?:compute_|sm_)?(\d+)([af]?)$")


class NvvmOptionError(ValueError):
    """An option libNVVM would refuse (``NVVM_ERROR_INVALID_OPTION``)."""


@dataclass
class NvvmOptions:
    arch: str = DEFAULT_ARCH          # sm_XX[a|f]
    opt_level: int = 3                # -opt=
    ftz: bool = False                 # -ftz=
    prec_sqrt: bool = True            # -prec-sqrt=
    prec_div: bool = True             # -prec-div=
    fma: bool = True                  # -fma=
    debug: bool = False               # -g
    lineinfo: bool = False            # -generate-line-info
    gen_lto: bool = False             # -gen-lto (result is LLVM bitcode instead of PTX)

    @property
    def cpu(self) -> str:
        return self.arch

    @property
    def ptx_feature(self) -> str:
        m = _ARCH_RE.match(self.arch)
        assert m is not None
        number, suffix = int(m.group(1)), m.group(2)
        version = _PTX_FOR_SM[number]
        if suffix:  # sm_90a needs PTX 8.0, the family/arch-specific forms of newer ones their base
            version = max(version, 80)
        return f"+ptx{version}"


def normalize_arch(value: str) -> str:
    m = _ARCH_RE.match(value.strip().lower())
    if not m or int(m.group(1)) not in _PTX_FOR_SM:
        known = ", ".join(f"compute_{n}" for n in sorted(_PTX_FOR_SM))
        raise NvvmOptionError(f"-arch: unsupported architecture '{value}' (accepted: {known})")
    return f"sm_{m.group(1)}{m.group(2)}"


def _flag(name: str, value: str) -> bool:
    if value in ("0", "1"):
        return value == "1"
    raise NvvmOptionError(f"-{name}: expected 0 or 1, got '{value}'")


# Options libNVVM documents that change nothing in CuMetal (they tune NVIDIA's own code generator).
_ACCEPTED_IGNORED = {"jump-table-density", "split-compile", "split-compile-extended", "Xopt", "Xllc",
                     "Xlnk", "opt-fdiv", "lnk-disable-lto", "lnk-discard-value-names"}


def parse_nvvm_options(options: Iterable[str | bytes] | None) -> NvvmOptions:
    """Parse libNVVM option strings; raises ``NvvmOptionError`` naming the first bad one."""
    opts = NvvmOptions()
    for raw in options or ():
        text = raw.decode() if isinstance(raw, bytes | bytearray) else str(raw)
        text = text.strip()
        if not text:
            continue
        if not text.startswith("-"):
            raise NvvmOptionError(f"unknown option '{text}' (libNVVM options start with '-')")
        name, eq, value = text.lstrip("-").partition("=")
        if name == "g" and not eq:
            opts.debug = True
        elif name == "generate-line-info" and not eq:
            opts.lineinfo = True
        elif name == "gen-lto" and not eq:
            opts.gen_lto = True
        elif name == "arch" and eq:
            opts.arch = normalize_arch(value)
        elif name == "opt" and eq:
            if value not in ("0", "1", "2", "3"):
                raise NvvmOptionError(f"-opt: expected 0..3, got '{value}'")
            opts.opt_level = int(value)
        elif name in ("ftz", "prec-sqrt", "prec-div", "fma") and eq:
            setattr(opts, name.replace("-", "_"), _flag(name, value))
        elif name in _ACCEPTED_IGNORED:
            continue
        else:
            raise NvvmOptionError(f"unknown option '{text}'")
    return opts

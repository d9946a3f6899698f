"""What nvcc / NVRTC flags mean, as data: ``CudaOptions``, and how it turns into clang arguments.

The flag spellings live in the drivers (``cumetalc``, ``cumetal.nvrtc``); this module holds the
meaning, so both drivers compile the same way. Defaults follow nvcc: C++17, device code optimised
(nvcc's ``-O`` only affects host code; ``-G`` turns device optimisation off), IEEE division and
square root, denormals kept, FMA contraction on.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

DEFAULT_ARCH = "sm_80"  # CuMetal's feature level: what the Apple back ends implement

# The lowest PTX ISA version that knows each architecture, floored at 7.0: the *_sync warp builtins
# need PTX 7.0 features in clang. Keys are the numeric part of sm_XX.
_PTX_FOR_SM = {50: 70, 52: 70, 53: 70, 60: 70, 61: 70, 62: 70, 70: 70, 72: 70, 75: 70, 80: 70,
               86: 71, 87: 74, 89: 78, 90: 78}

_ARCH_RE = re.compile(r"^(?:sm|compute|lto)_(\d+)(a?)$")


class OptionError(ValueError):
    """A flag value that has no meaning (e.g. an architecture CuMetal does not accept)."""


def supported_archs() -> list[str]:
    """Every architecture CuMetal accepts, lowest first: sm_50 … sm_90, sm_90a."""
    return [f"sm_{sm}" for sm in _PTX_FOR_SM] + ["sm_90a"]


def normalize_arch(arch: str) -> str:
    """``sm_80``, ``compute_80``, ``80`` → ``sm_80``; ``sm_90a``/``compute_90a`` → ``sm_90a``.
    Accepts the architectures CuMetal's device code level covers: sm_50 … sm_90a."""
    a = arch.strip().lower()
    if a.isdigit():
        a = "sm_" + a
    m = _ARCH_RE.match(a)
    if not m or int(m.group(1)) not in _PTX_FOR_SM or (m.group(2) and m.group(1) != "90"):
        raise OptionError(f"unsupported GPU architecture '{arch}' (CuMetal accepts sm_50 … sm_90a "
                          "and compute_50 … compute_90a)")
    return f"sm_{m.group(1)}{m.group(2)}"


def ptx_feature(arch: str) -> str:
    """The ``--cuda-feature`` clang needs for ``arch``, e.g. ``+ptx70`` for sm_80, ``+ptx80`` for sm_90a."""
    a = normalize_arch(arch)
    if a.endswith("a"):
        return "+ptx80"
    return f"+ptx{_PTX_FOR_SM[int(a[3:])]}"


@dataclass
class CudaOptions:
    """The meaning of an nvcc / NVRTC command line (device side), independent of flag spelling."""

    include_dirs: list[str] = field(default_factory=list)       # -I
    defines: list[str] = field(default_factory=list)            # -D NAME or NAME=VALUE
    undefines: list[str] = field(default_factory=list)          # -U NAME
    pre_includes: list[str] = field(default_factory=list)       # -include FILE (after cuda_runtime.h)
    std: str = "c++17"                                          # -std=
    arch: str = DEFAULT_ARCH                                    # -arch / -gencode / --gpu-architecture
    opt_level: int = 3                                          # device code optimisation (0..3)
    host_opt_level: int = 0                                     # nvcc's -O (host code; build_program)
    debug: bool = False                                         # -G: device debug info, no optimisation
    host_debug: bool = False                                    # -g (host code)
    lineinfo: bool = False                                      # -lineinfo: .loc line tables
    fast_math: bool = False                                     # --use_fast_math
    ftz: bool | None = None                                     # -ftz= (None: fast_math decides)
    prec_div: bool | None = None                                # -prec-div=
    prec_sqrt: bool | None = None                               # -prec-sqrt=
    fmad: bool | None = None                                    # -fmad=
    rdc: bool = False                                           # -rdc=true / -dc: relocatable code
    relaxed_constexpr: bool = False                             # --expt-relaxed-constexpr
    extended_lambda: bool = False                               # --extended-lambda
    force_cuda_runtime: bool = True                             # nvcc's implicit -include cuda_runtime.h
    # Standard C/C++ headers: "bundled" (libc++ and musl from the ziglang wheel: no SDK needed, same
    # PTX everywhere) or "system" (clang's default search: the host's libstdc++/glibc or SDK).
    stdlib: str = field(default_factory=lambda: os.environ.get("CUMETAL_CUDA_STDLIB", "bundled"))
    extra_clang_args: list[str] = field(default_factory=list)   # passed to clang as they are
    host_args: list[str] = field(default_factory=list)          # -Xcompiler (host compiler only)

    # --use_fast_math implies -ftz=true -prec-div=false -prec-sqrt=false -fmad=true (nvcc's rule)
    @property
    def effective_ftz(self) -> bool:
        return self.fast_math if self.ftz is None else self.ftz

    @property
    def effective_prec_div(self) -> bool:
        return (not self.fast_math) if self.prec_div is None else self.prec_div

    @property
    def effective_prec_sqrt(self) -> bool:
        return (not self.fast_math) if self.prec_sqrt is None else self.prec_sqrt

    @property
    def effective_fmad(self) -> bool:
        return True if self.fmad is None else self.fmad

    def macro_args(self) -> list[str]:
        """The macros nvcc predefines for these options (clang defines ``__CUDA_ARCH__`` itself)."""
        # The version macros and __CUDACC_RELAXED_CONSTEXPR__ / __CUDACC_EXTENDED_LAMBDA__ (always on
        # in clang) come from the headers (cumetal/config.h); only flag-dependent ones are set here.
        d = ["__CUDACC__"]
        if self.rdc:
            d.append("__CUDACC_RDC__")
        if self.fast_math:
            d.append("__USE_FAST_MATH__")
        if self.effective_ftz:
            d.append("__CUDA_FTZ=1")
        if self.effective_prec_div:
            d.append("__CUDA_PREC_DIV=1")
        if self.effective_prec_sqrt:
            d.append("__CUDA_PREC_SQRT=1")
        if self.debug:
            d.append("__CUDACC_DEBUG__")
        return ["-D" + m for m in d]

    def clang_args(self) -> list[str]:
        """Device-side clang arguments for these options (without input/output/include_dir)."""
        arch = normalize_arch(self.arch)
        if self.stdlib not in ("bundled", "system"):
            raise OptionError(f"stdlib must be 'bundled' or 'system', got '{self.stdlib}' (CUMETAL_CUDA_STDLIB)")
        if self.opt_level not in (0, 1, 2, 3):
            raise OptionError(f"optimisation level must be 0..3, got {self.opt_level}")
        args = [f"-std={self.std}", f"--cuda-gpu-arch={arch}", f"--cuda-feature={ptx_feature(arch)}"]
        if self.debug:
            # (no --cuda-noopt-device-debug: it only reaches ptxas, and a PTX-only compile warns it is unused)
            args += ["-O0", "-g"]
        else:
            args.append(f"-O{self.opt_level}")
            if self.lineinfo:
                args.append("-gline-tables-only")
        if self.effective_ftz:
            args.append("-fgpu-flush-denormals-to-zero")
        if self.fast_math:
            args.append("-fgpu-approx-transcendentals")
        if not self.effective_prec_div:
            # nvcc: -prec-div=false alone gives div.full.f32 (LLVM's level 1); under --use_fast_math,
            # div.approx.f32 (level 0)
            args += ["-mllvm", f"-nvptx-prec-divf32={0 if self.fast_math else 1}"]
        if not self.effective_prec_sqrt:
            args += ["-mllvm", "-nvptx-prec-sqrtf32=0"]
        args.append("-ffp-contract=" + ("fast" if self.effective_fmad else "off"))
        if self.rdc:
            args.append("-fgpu-rdc")
        args += self.macro_args()
        args += ["-D" + d for d in self.defines]
        args += ["-U" + u for u in self.undefines]
        for inc in self.include_dirs:
            args += ["-I", inc]
        return args + list(self.extra_clang_args)

    def cache_key_text(self) -> str:
        """Everything that changes the output, in a stable form."""
        return repr(sorted(self.__dict__.items()))

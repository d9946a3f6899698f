"""CuMetal's NVVM IR front end: NVVM IR (text or bitcode, typed or opaque pointers) → llvmlite's
NVPTX back end → PTX → CuMetal's PTX pipeline. Used by ``cumetal.nvvm`` (the libNVVM mirror) and
by ``cumetalc k.ll`` / ``k.bc``. See ``docs/python-compilers.md``."""

from __future__ import annotations

from cumetal.nvvmir.compile import (
    IR_VERSION,
    NvvmError,
    NvvmModule,
    NvvmOutput,
    compile_nvvm,
    compile_nvvm_to_ptx,
    verify_nvvm,
)
from cumetal.nvvmir.options import NvvmOptionError, NvvmOptions, parse_nvvm_options

__all__ = ["IR_VERSION", "NvvmError", "NvvmModule", "NvvmOptionError", "NvvmOptions", "NvvmOutput",
           "compile_nvvm", "compile_nvvm_to_ptx", "parse_nvvm_options", "verify_nvvm"]

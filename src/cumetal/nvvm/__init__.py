"""``cumetal.nvvm``: libNVVM for CuMetal, mirroring ``cuda.bindings.nvvm``.

Two spellings of the same API:

* ``cuda.bindings.nvvm``'s own: ``version()``, ``ir_version()``, ``create_program()``,
  ``add_module_to_program(prog, buffer, size, name)``, ``lazy_add_module_to_program``,
  ``compile_program(prog, num_options, options)``, ``verify_program``,
  ``get_compiled_result_size``/``get_compiled_result(prog, buffer)``,
  ``get_program_log_size``/``get_program_log``, ``destroy_program``, ``get_error_string``,
  ``llvm_version``; failures raise ``nvvmError`` (``.status``); the enum is ``Result``.
* The C names with cuda-python's ``(err, *values)`` convention: ``nvvmCreateProgram()`` →
  ``(nvvmResult.NVVM_SUCCESS, prog)``, ``nvvmCompileProgram(prog, n, options)`` → ``(err,)``, …

The compiled result is PTX text (NUL-terminated) that ``cumetal.driver.cuModuleLoadData`` loads;
with ``-gen-lto`` it is the linked module's LLVM bitcode. See ``docs/python-compilers.md``.
"""

from __future__ import annotations

from cumetal.nvvm.api import (
    Result,
    add_module_to_program,
    compile_program,
    create_program,
    destroy_program,
    get_compiled_result,
    get_compiled_result_size,
    get_error_string,
    get_program_log,
    get_program_log_size,
    ir_version,
    lazy_add_module_to_program,
    llvm_version,
    nvvmAddModuleToProgram,
    nvvmCompileProgram,
    nvvmCreateProgram,
    nvvmDestroyProgram,
    nvvmError,
    nvvmGetCompiledResult,
    nvvmGetCompiledResultSize,
    nvvmGetErrorString,
    nvvmGetProgramLog,
    nvvmGetProgramLogSize,
    nvvmIRVersion,
    nvvmLazyAddModuleToProgram,
    nvvmLLVMVersion,
    nvvmProgram,
    nvvmResult,
    nvvmVerifyProgram,
    nvvmVersion,
    verify_program,
    version,
)

__all__ = [
    "Result", "add_module_to_program", "compile_program", "create_program", "destroy_program",
    "get_compiled_result", "get_compiled_result_size", "get_error_string", "get_program_log",
    "get_program_log_size", "ir_version", "lazy_add_module_to_program", "llvm_version",
    "nvvmAddModuleToProgram", "nvvmCompileProgram", "nvvmCreateProgram", "nvvmDestroyProgram",
    "nvvmError", "nvvmGetCompiledResult", "nvvmGetCompiledResultSize", "nvvmGetErrorString",
    "nvvmGetProgramLog", "nvvmGetProgramLogSize", "nvvmIRVersion", "nvvmLLVMVersion",
    "nvvmLazyAddModuleToProgram", "nvvmProgram", "nvvmResult", "nvvmVerifyProgram", "nvvmVersion",
    "verify_program", "version",
]

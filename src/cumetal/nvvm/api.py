"""libNVVM's API over ``cumetal.nvvmir`` (both ``cuda.bindings.nvvm`` spellings; see ``__init__``)."""

from __future__ import annotations

import ctypes
import itertools
import threading
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from cumetal.nvrtc.buffers import BufferError_, fill_buffer
from cumetal.nvvmir import IR_VERSION, NvvmError, NvvmModule, compile_nvvm, verify_nvvm

VERSION = (2, 0)        # libNVVM 13's nvvmVersion
LLVM_VERSION = 22       # the LLVM IR version our reader accepts (llvmlite's LLVM)


class nvvmResult(IntEnum):  # noqa: N801 - libNVVM's name
    NVVM_SUCCESS = 0
    NVVM_ERROR_OUT_OF_MEMORY = 1
    NVVM_ERROR_PROGRAM_CREATION_FAILURE = 2
    NVVM_ERROR_IR_VERSION_MISMATCH = 3
    NVVM_ERROR_INVALID_INPUT = 4
    NVVM_ERROR_INVALID_PROGRAM = 5
    NVVM_ERROR_INVALID_IR = 6
    NVVM_ERROR_INVALID_OPTION = 7
    NVVM_ERROR_NO_MODULE_IN_PROGRAM = 8
    NVVM_ERROR_COMPILATION = 9
    NVVM_ERROR_CANCELLED = 10


class Result(IntEnum):
    """``cuda.bindings.nvvm.Result``: the same codes without the ``NVVM_`` prefix."""

    SUCCESS = 0
    ERROR_OUT_OF_MEMORY = 1
    ERROR_PROGRAM_CREATION_FAILURE = 2
    ERROR_IR_VERSION_MISMATCH = 3
    ERROR_INVALID_INPUT = 4
    ERROR_INVALID_PROGRAM = 5
    ERROR_INVALID_IR = 6
    ERROR_INVALID_OPTION = 7
    ERROR_NO_MODULE_IN_PROGRAM = 8
    ERROR_COMPILATION = 9
    ERROR_CANCELLED = 10


_KIND = {
    "invalid_input": nvvmResult.NVVM_ERROR_INVALID_INPUT,
    "invalid_ir": nvvmResult.NVVM_ERROR_INVALID_IR,
    "invalid_option": nvvmResult.NVVM_ERROR_INVALID_OPTION,
    "ir_version_mismatch": nvvmResult.NVVM_ERROR_IR_VERSION_MISMATCH,
    "no_module": nvvmResult.NVVM_ERROR_NO_MODULE_IN_PROGRAM,
    "compilation": nvvmResult.NVVM_ERROR_COMPILATION,
}


class nvvmError(Exception):  # noqa: N801, N818 - cuda.bindings.nvvm's name
    """Raised by the snake_case functions; ``status`` is the ``nvvmResult`` code."""

    def __init__(self, status: int) -> None:
        self.status = status
        s = Result(status)
        super().__init__(f"{s.name} ({s.value})")

    def __reduce__(self) -> tuple:
        return (type(self), (self.status,))


@dataclass
class _Program:
    modules: list[NvvmModule] = field(default_factory=list)
    result: bytes = b""
    log: str = ""


class nvvmProgram(int):  # noqa: N801 - libNVVM's name; an int handle, like cuda.bindings.nvvm
    def __repr__(self) -> str:
        return f"<nvvmProgram {hex(self)}>"


_programs: dict[int, _Program] = {}
_ids = itertools.count(0x4E56564D_0001)
_lock = threading.Lock()


def _fail(code: nvvmResult) -> nvvmError:
    return nvvmError(int(code))


def _program(prog: Any) -> _Program:
    try:
        p = _programs.get(int(prog))
    except (TypeError, ValueError):
        p = None
    if p is None:
        raise _fail(nvvmResult.NVVM_ERROR_INVALID_PROGRAM)
    return p


def _module_bytes(buffer: Any, size: int) -> bytes:
    if buffer is None:
        raise _fail(nvvmResult.NVVM_ERROR_INVALID_INPUT)
    if isinstance(buffer, int) and not isinstance(buffer, bool):
        if buffer == 0 or size <= 0:
            raise _fail(nvvmResult.NVVM_ERROR_INVALID_INPUT)
        return ctypes.string_at(buffer, size)
    if isinstance(buffer, str):
        data = buffer.encode()
    else:
        try:
            data = memoryview(buffer).cast("B").tobytes()
        except TypeError:
            raise _fail(nvvmResult.NVVM_ERROR_INVALID_INPUT) from None
    if size < 0 or size > len(data):
        raise _fail(nvvmResult.NVVM_ERROR_INVALID_INPUT)
    return data[:size] if size else data


def _options(num_options: int, options: Any) -> list[str]:
    if options is None or int(num_options) == 0:
        return []
    if isinstance(options, int):
        raise _fail(nvvmResult.NVVM_ERROR_INVALID_INPUT)  # a char** address: not supported from Python
    items = [options] if isinstance(options, str | bytes | bytearray) else list(options)
    if int(num_options) < 0 or int(num_options) > len(items):
        raise _fail(nvvmResult.NVVM_ERROR_INVALID_INPUT)
    out = []
    for o in items[:int(num_options)]:
        if isinstance(o, int):
            out.append(ctypes.string_at(o).decode())
        elif isinstance(o, bytes | bytearray):
            out.append(bytes(o).split(b"\0", 1)[0].decode())
        else:
            out.append(str(o))
    return out


# --- cuda.bindings.nvvm spelling (raises nvvmError) -------------------------------------------

def version() -> tuple[int, int]:
    return VERSION


def ir_version() -> tuple[int, int, int, int]:
    return IR_VERSION


def llvm_version(arch: str) -> int:
    if not isinstance(arch, str):
        raise TypeError("arch must be a Python str")
    return LLVM_VERSION


def get_error_string(result: int) -> str:
    try:
        return nvvmResult(int(result)).name
    except ValueError:
        return "NVVM_ERROR unknown"


def create_program() -> int:
    with _lock:
        handle = next(_ids)
        _programs[handle] = _Program()
    return nvvmProgram(handle)


def destroy_program(prog: Any) -> None:
    with _lock:
        if _programs.pop(int(prog) if prog is not None else 0, None) is None:
            raise _fail(nvvmResult.NVVM_ERROR_INVALID_PROGRAM)


def _add(prog: Any, buffer: Any, size: int, name: Any, lazy: bool) -> None:
    p = _program(prog)
    if name is not None and not isinstance(name, str | bytes):
        raise TypeError("name must be a Python str")
    label = (name.decode() if isinstance(name, bytes) else name) or "<unnamed>"
    p.modules.append(NvvmModule(_module_bytes(buffer, int(size)), label, lazy))


def add_module_to_program(prog: Any, buffer: Any, size: int, name: Any) -> None:
    """Add NVVM IR (text or bitcode) named ``name`` (used in the log)."""
    _add(prog, buffer, size, name, lazy=False)


def lazy_add_module_to_program(prog: Any, buffer: Any, size: int, name: Any) -> None:
    """Add a module whose functions are only kept when the program uses them."""
    _add(prog, buffer, size, name, lazy=True)


def _run(prog: Any, num_options: int, options: Any, verify_only: bool) -> None:
    p = _program(prog)
    opts = _options(num_options, options)
    p.log = ""
    try:
        if verify_only:
            verify_nvvm(p.modules, opts)
        else:
            p.result = b""
            out = compile_nvvm(p.modules, opts)
            p.result = out.bitcode if out.bitcode is not None else (out.ptx or "").encode() + b"\0"
            p.log = out.log
    except NvvmError as e:
        p.log = e.log if e.log.endswith("\n") else e.log + "\n"
        raise _fail(_KIND.get(e.kind, nvvmResult.NVVM_ERROR_COMPILATION)) from None
    except Exception as e:  # noqa: BLE001 - a bug of ours must not reach the caller as a traceback
        p.log = f"internal error: {type(e).__name__}: {e}\n"
        raise _fail(nvvmResult.NVVM_ERROR_COMPILATION) from None


def compile_program(prog: Any, num_options: int, options: Any) -> None:
    """Compile to PTX with libNVVM's options (``-arch=compute_XX``, ``-opt=N``, ``-ftz=``…)."""
    _run(prog, num_options, options, verify_only=False)


def verify_program(prog: Any, num_options: int, options: Any) -> None:
    _run(prog, num_options, options, verify_only=True)


def get_compiled_result_size(prog: Any) -> int:
    return len(_program(prog).result)


def get_compiled_result(prog: Any, buffer: Any) -> None:
    p = _program(prog)
    try:
        fill_buffer(buffer, p.result)
    except BufferError_:
        raise _fail(nvvmResult.NVVM_ERROR_INVALID_INPUT) from None


def get_program_log_size(prog: Any) -> int:
    return len(_program(prog).log.encode()) + 1


def get_program_log(prog: Any, buffer: Any) -> None:
    p = _program(prog)
    try:
        fill_buffer(buffer, p.log.encode() + b"\0")
    except BufferError_:
        raise _fail(nvvmResult.NVVM_ERROR_INVALID_INPUT) from None


# --- C names with cuda-python's (err, *values) returns ---------------------------------------

def _tuple(fn, n_values: int):  # noqa: ANN001, ANN202
    def call(*args: Any) -> tuple:
        try:
            value = fn(*args)
        except nvvmError as e:
            return (nvvmResult(e.status),) + (None,) * n_values
        if n_values == 0:
            return (nvvmResult.NVVM_SUCCESS,)
        if n_values == 1:
            return (nvvmResult.NVVM_SUCCESS, value)
        return (nvvmResult.NVVM_SUCCESS, *value)
    call.__doc__ = fn.__doc__
    return call


def nvvmGetErrorString(result: Any) -> tuple:  # noqa: N802
    """``(NVVM_SUCCESS, b"NVVM_ERROR_…")``."""
    return (nvvmResult.NVVM_SUCCESS, get_error_string(result).encode())


nvvmVersion = _tuple(version, 2)
nvvmIRVersion = _tuple(ir_version, 4)
nvvmLLVMVersion = _tuple(llvm_version, 1)
nvvmCreateProgram = _tuple(create_program, 1)
nvvmDestroyProgram = _tuple(destroy_program, 0)
nvvmAddModuleToProgram = _tuple(add_module_to_program, 0)
nvvmLazyAddModuleToProgram = _tuple(lazy_add_module_to_program, 0)
nvvmCompileProgram = _tuple(compile_program, 0)
nvvmVerifyProgram = _tuple(verify_program, 0)
nvvmGetCompiledResultSize = _tuple(get_compiled_result_size, 1)
nvvmGetCompiledResult = _tuple(get_compiled_result, 0)
nvvmGetProgramLogSize = _tuple(get_program_log_size, 1)
nvvmGetProgramLog = _tuple(get_program_log, 0)
for _name in [n for n in list(globals()) if n.startswith("nvvm") and callable(globals()[n])
              and not isinstance(globals()[n], type) and n != "nvvmGetErrorString"]:
    globals()[_name].__name__ = globals()[_name].__qualname__ = _name

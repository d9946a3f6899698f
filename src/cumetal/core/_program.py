"""``Program`` (CUDA C++ through ``cumetal.nvrtc``, PTX, NVVM IR through ``cumetal.nvvmir``),
``ObjectCode``, ``Kernel`` and ``Linker``, shaped like cuda.core's.

CuMetal's "cubin" is PTX (see docs/python-compilers.md), so every target type other than ``ltoir``
produces PTX text that ``cuLibraryLoadData`` accepts; ``ltoir`` is NVPTX LLVM bitcode, linked by
:class:`Linker` (``link_time_optimization=True``) or compiled when loaded.
"""

from __future__ import annotations

import dataclasses
from collections import namedtuple
from typing import Any

from cumetal import driver as cu
from cumetal.core._utils import check, ensure_init

ParamInfo = namedtuple("ParamInfo", ("offset", "size"))
MaxPotentialBlockSizeOccupancyResult = namedtuple("MaxPotentialBlockSizeOccupancyResult",
                                                  ("min_grid_size", "max_block_size"))


def _as_list(value: Any) -> list:
    if value is None:
        return []
    if isinstance(value, str | bytes):
        return [value]
    if isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, str) for v in value):
        return [value]  # one (name, value) macro
    return list(value)


@dataclasses.dataclass
class ProgramOptions:
    """NVRTC options by cuda.core's names; those without meaning for CuMetal are accepted and ignored."""

    name: str | None = "default_program"
    arch: str | None = None
    relocatable_device_code: bool | None = None
    extensible_whole_program: bool | None = None
    debug: bool | None = None
    lineinfo: bool | None = None
    device_code_optimize: bool | None = None
    ptxas_options: Any = None
    max_register_count: int | None = None
    ftz: bool | None = None
    prec_sqrt: bool | None = None
    prec_div: bool | None = None
    fma: bool | None = None
    use_fast_math: bool | None = None
    extra_device_vectorization: bool | None = None
    link_time_optimization: bool | None = None
    gen_opt_lto: bool | None = None
    define_macro: Any = None
    undefine_macro: Any = None
    include_path: Any = None
    pre_include: Any = None
    no_source_include: bool | None = None
    std: str | None = None
    builtin_move_forward: bool | None = None
    builtin_initializer_list: bool | None = None
    disable_warnings: bool | None = None
    restrict: bool | None = None
    device_as_default_execution_space: bool | None = None
    device_int128: bool | None = None
    optimization_info: str | None = None
    no_display_error_number: bool | None = None
    diag_error: Any = None
    diag_suppress: Any = None
    diag_warn: Any = None
    brief_diagnostics: bool | None = None
    time: str | None = None
    split_compile: int | None = None
    fdevice_syntax_only: bool | None = None
    minimal: bool | None = None
    numba_debug: bool | None = None
    extra: dict = dataclasses.field(default_factory=dict)

    def __init__(self, **kwargs: Any) -> None:  # accept every cuda.core field, known or not
        for f in dataclasses.fields(self):
            setattr(self, f.name, f.default if f.default is not dataclasses.MISSING else f.default_factory())
        for key, value in kwargs.items():
            setattr(self, key, value)

    def as_nvrtc(self) -> list[bytes]:
        opts: list[str] = []
        if self.arch:
            opts.append(f"-arch={self.arch}")
        if self.std:
            opts.append(f"--std={self.std}")
        flags = {"relocatable_device_code": "-rdc=true", "extensible_whole_program": "-ewp", "debug": "-G",
                 "lineinfo": "-lineinfo", "use_fast_math": "--use_fast_math", "link_time_optimization": "-dlto",
                 "disable_warnings": "-w", "restrict": "--restrict",
                 "device_as_default_execution_space": "-default-device"}
        for attr, flag in flags.items():
            if getattr(self, attr):
                opts.append(flag)
        for attr, flag in (("ftz", "--ftz"), ("prec_sqrt", "--prec-sqrt"), ("prec_div", "--prec-div"),
                           ("fma", "--fmad")):
            if getattr(self, attr) is not None:
                opts.append(f"{flag}={'true' if getattr(self, attr) else 'false'}")
        if self.device_code_optimize is not None:
            opts.append(f"--dopt={'on' if self.device_code_optimize else 'off'}")
        for macro in _as_list(self.define_macro):
            opts.append("--define-macro=" + (f"{macro[0]}={macro[1]}" if isinstance(macro, tuple) else str(macro)))
        opts += [f"--undefine-macro={m}" for m in _as_list(self.undefine_macro)]
        opts += [f"--include-path={p}" for p in _as_list(self.include_path)]
        opts += [f"--pre-include={p}" for p in _as_list(self.pre_include)]
        return [o.encode() for o in opts]


class ObjectCode:
    """Compiled code (CuMetal: PTX text, or LTO IR bitcode) and the kernels in it."""

    def __init__(self) -> None:
        raise RuntimeError("use ObjectCode.from_ptx()/from_cubin()/… or Program.compile()")

    @classmethod
    def _init(cls, code: Any, code_type: str, name: str = "", symbol_mapping: dict | None = None) -> ObjectCode:
        if isinstance(code, str) and code_type in ("ptx", "cubin") and "\n" not in code and code.endswith(
                (".ptx", ".cubin")):
            with open(code, "rb") as fh:  # cuda.core accepts a path as well as the bytes
                code = fh.read()
        o = object.__new__(cls)
        o._code = code.encode() if isinstance(code, str) else bytes(code)
        o._code_type = code_type
        o._name = name
        o._sym_map = dict(symbol_mapping or {})
        o._library = None
        return o

    def __reduce__(self) -> tuple:
        """Pickled as its code (numba-cuda's on-disk cache does this): a copy loads its own library
        instead of sharing, or outliving, this one's."""
        return (ObjectCode._init, (self._code, self._code_type, self._name, self._sym_map))

    @classmethod
    def from_cubin(cls, module: Any, *, name: str = "", symbol_mapping: dict | None = None) -> ObjectCode:
        return cls._init(module, "cubin", name, symbol_mapping)

    @classmethod
    def from_ptx(cls, module: Any, *, name: str = "", symbol_mapping: dict | None = None) -> ObjectCode:
        return cls._init(module, "ptx", name, symbol_mapping)

    @classmethod
    def from_ltoir(cls, module: Any, *, name: str = "", symbol_mapping: dict | None = None) -> ObjectCode:
        return cls._init(module, "ltoir", name, symbol_mapping)

    @classmethod
    def from_fatbin(cls, module: Any, *, name: str = "", symbol_mapping: dict | None = None) -> ObjectCode:
        return cls._init(module, "fatbin", name, symbol_mapping)

    @classmethod
    def from_object(cls, module: Any, *, name: str = "", symbol_mapping: dict | None = None) -> ObjectCode:
        return cls._init(module, "object", name, symbol_mapping)

    @classmethod
    def from_library(cls, module: Any, *, name: str = "", symbol_mapping: dict | None = None) -> ObjectCode:
        return cls._init(module, "library", name, symbol_mapping)

    @property
    def code(self) -> bytes:
        return self._code

    @property
    def code_type(self) -> str:
        return self._code_type

    @property
    def name(self) -> str:
        return self._name

    @property
    def symbol_mapping(self) -> dict:
        return self._sym_map

    def _ptx(self) -> bytes:
        if self._code_type == "ltoir":
            from cumetal.nvvmir.compile import compile_nvvm_to_ptx

            return compile_nvvm_to_ptx([self._code], names=[self._name or "<ltoir>"]).encode()
        if self._code_type in ("fatbin", "object", "library"):
            raise NotImplementedError(f"{self._code_type} code holds NVIDIA machine code, which CuMetal cannot load; "
                                      "use PTX, LTO IR or CUDA C++")
        return self._code

    def get_module(self) -> Any:
        """The loaded library (a ``CUlibrary``), loaded on first use."""
        if self._library is None:
            ensure_init()
            self._library = check(cu.cuLibraryLoadData(self._ptx(), None, None, 0, None, None, 0))
        return self._library

    @property
    def handle(self) -> Any:
        return self.get_module()

    def get_kernel(self, name: str | bytes) -> Kernel:
        key = name.decode() if isinstance(name, bytes) else name
        lowered = self._sym_map.get(key, self._sym_map.get(key.encode(), key))
        if isinstance(lowered, bytes):
            lowered = lowered.decode()
        return Kernel._init(check(cu.cuLibraryGetKernel(self.get_module(), lowered.encode())), self)


class _AttributeValue(int):
    """An attribute's value that may also be called: cuda.core 1.x reads ``attrs.num_regs`` (a
    property), 0.x called ``attrs.num_regs(device_id)``; both work."""

    def __call__(self, device_id: Any = None) -> int:
        return int(self)


class KernelAttributes:
    """A kernel's function attributes: ``kernel.attributes.max_threads_per_block`` (cuda.core 1.x),
    also callable as in 0.x; ``kernel.attributes[device]`` is the view for one device."""

    def __init__(self, kernel: Kernel) -> None:
        self._kernel = kernel

    def __getitem__(self, device: Any) -> KernelAttributes:
        check(cu.cuDeviceGet(int(getattr(device, "device_id", device))))  # CUDA_ERROR_INVALID_DEVICE if none
        return self

    def __getattr__(self, name: str) -> Any:
        attr = getattr(cu.CUfunction_attribute, f"CU_FUNC_ATTRIBUTE_{name.upper()}", None)
        if attr is None:
            raise AttributeError(name)
        return _AttributeValue(check(cu.cuKernelGetAttribute(attr, self._kernel.handle, 0)))


class KernelOccupancy:
    def __init__(self, kernel: Kernel) -> None:
        self._h = kernel.handle

    def max_active_blocks_per_multiprocessor(self, block_size: int, dynamic_shared_memory_size: int) -> int:
        return check(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(self._h, block_size, dynamic_shared_memory_size))

    def max_potential_block_size(self, dynamic_shared_memory_needed: Any, block_size_limit: int
                                 ) -> MaxPotentialBlockSizeOccupancyResult:
        if callable(dynamic_shared_memory_needed):
            grid, block = check(cu.cuOccupancyMaxPotentialBlockSize(self._h, dynamic_shared_memory_needed, 0,
                                                                    block_size_limit))
        else:
            grid, block = check(cu.cuOccupancyMaxPotentialBlockSize(self._h, None, int(dynamic_shared_memory_needed),
                                                                    block_size_limit))
        return MaxPotentialBlockSizeOccupancyResult(grid, block)

    def available_dynamic_shared_memory_per_block(self, num_blocks_per_multiprocessor: int, block_size: int) -> int:
        return check(cu.cuOccupancyAvailableDynamicSMemPerBlock(self._h, num_blocks_per_multiprocessor, block_size))

    def max_potential_cluster_size(self, config: Any, stream: Any = None) -> int:
        return 1

    def max_active_clusters(self, config: Any, stream: Any = None) -> int:
        return check(cu.cuOccupancyMaxActiveClusters(self._h, config._driver_config(0, [])))


class Kernel:
    """A kernel of an :class:`ObjectCode` (``.handle`` is the ``CUkernel``)."""

    def __init__(self) -> None:
        raise RuntimeError("get a Kernel from ObjectCode.get_kernel()")

    @classmethod
    def _init(cls, handle: Any, module: ObjectCode | None) -> Kernel:
        k = object.__new__(cls)
        k._handle = handle
        k._module = module
        return k

    @classmethod
    def from_handle(cls, handle: Any, mod: ObjectCode | None = None) -> Kernel:
        return cls._init(cu.CUkernel(int(handle)), mod)

    @property
    def handle(self) -> Any:
        return self._handle

    @property
    def attributes(self) -> KernelAttributes:
        return KernelAttributes(self)

    @property
    def occupancy(self) -> KernelOccupancy:
        return KernelOccupancy(self)

    @property
    def num_arguments(self) -> int:
        fn = check(cu.cuKernelGetFunction(self._handle))
        return check(cu.cuFuncGetParamCount(fn))

    @property
    def arguments_info(self) -> list[ParamInfo]:
        return [ParamInfo(*check(cu.cuKernelGetParamInfo(self._handle, i))) for i in range(self.num_arguments)]


class Program:
    """Compile CUDA C++ (``code_type="c++"``), PTX (``"ptx"``) or NVVM IR (``"nvvm"``)."""

    def __init__(self, code: Any, code_type: str, options: ProgramOptions | None = None) -> None:
        self._type = code_type.lower()
        if self._type not in ("c++", "ptx", "nvvm"):
            raise RuntimeError(f"Unsupported code_type='{code_type}' (expected 'c++', 'ptx' or 'nvvm')")
        self._code = code
        self._options = options if isinstance(options, ProgramOptions) else ProgramOptions(**(options or {}))
        self._closed = False

    @property
    def backend(self) -> str:
        return {"c++": "NVRTC", "ptx": "nvJitLink", "nvvm": "NVVM"}[self._type]

    @property
    def handle(self) -> Any:
        return None

    @property
    def is_closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        self._closed = True

    def compile(self, target_type: str, name_expressions: Any = (), logs: Any = None, *,
                cache: Any = None) -> ObjectCode:
        """Compile to ``target_type``; with ``cache`` (a ``utils.ProgramCacheResource``) a compile of the
        same inputs is looked up first and the result stored (logs are then written only by a real compile)."""
        target = target_type.lower()
        if target not in ("ptx", "cubin", "ltoir"):
            raise ValueError(f"Unsupported target_type='{target_type}' (expected 'ptx', 'cubin' or 'ltoir')")
        if cache is None:
            return self._compile(target, name_expressions, logs)
        from cumetal.core._program_cache import make_program_cache_key

        if name_expressions:
            raise ValueError("name_expressions cannot be combined with cache= (the cached binary does not carry "
                             "the name mapping)")
        key = make_program_cache_key(code=self._code, code_type=self._type, options=self._options, target_type=target)
        data = cache.get(key)
        if data is not None:
            return ObjectCode._init(data, target, self._options.name or "default_program")
        obj = self._compile(target, (), logs)
        cache[key] = obj
        return obj

    def _compile(self, target: str, name_expressions: Any, logs: Any) -> ObjectCode:
        name = self._options.name or "default_program"
        if self._type == "ptx":
            if target == "ltoir":
                raise ValueError("PTX cannot be compiled to LTO IR")
            code = self._code.encode() if isinstance(self._code, str) else bytes(self._code)
            return ObjectCode._init(code, target, name)
        if self._type == "nvvm":
            return self._compile_nvvm(target, name, logs)
        return self._compile_cxx(target, name, tuple(name_expressions or ()), logs)

    def _compile_cxx(self, target: str, name: str, exprs: tuple, logs: Any) -> ObjectCode:
        from cumetal.nvrtc import v2 as nvrtc

        src = self._code.encode() if isinstance(self._code, str) else bytes(self._code)
        prog = nvrtc.create_program(src, name.encode(), [], [])
        try:
            for e in exprs:
                nvrtc.add_name_expression(prog, e.encode() if isinstance(e, str) else e)
            options = self._options.as_nvrtc()
            if target == "ltoir" and b"-dlto" not in options:
                options.append(b"-dlto")
            try:
                nvrtc.compile_program(prog, options)
            except nvrtc.NvrtcError as e:
                from cumetal.core._utils import NVRTCError

                log = nvrtc.get_program_log(prog).decode(errors="replace").rstrip("\0")
                status = nvrtc.get_error_string(e.status) if hasattr(nvrtc, "get_error_string") else str(e)
                status = status.decode() if isinstance(status, bytes) else status
                raise NVRTCError(f"{status}: NVRTC compilation failed for program '{name}':\n{log}") from None
            if logs is not None:
                log = nvrtc.get_program_log(prog).decode(errors="replace").rstrip("\0")
                if log:
                    logs.write(log)
            mapping = {e: nvrtc.get_lowered_name(prog, e.encode() if isinstance(e, str) else e) for e in exprs}
            if target == "ltoir":
                code = nvrtc.get_ltoir(prog)
            else:
                code = nvrtc.get_ptx(prog)
            return ObjectCode._init(code, target, name, mapping)
        finally:
            nvrtc.destroy_program(prog)

    def _compile_nvvm(self, target: str, name: str, logs: Any) -> ObjectCode:
        from cumetal.nvvmir.compile import NvvmError, compile_nvvm, compile_nvvm_to_ptx

        code = self._code.encode() if isinstance(self._code, str) else bytes(self._code)
        arch = self._options.arch or "compute_80"
        options = [f"-arch={arch.replace('sm_', 'compute_')}"]
        try:
            if target == "ltoir":
                from cumetal.nvvmir.compile import NvvmModule

                out = compile_nvvm([NvvmModule(code, name)], options + ["-gen-lto"])
                return ObjectCode._init(out.bitcode, "ltoir", name)
            return ObjectCode._init(compile_nvvm_to_ptx([code], options, names=[name]), target, name)
        except NvvmError as e:
            raise RuntimeError(f"NVVM compilation failed:\n{e.log}") from None


@dataclasses.dataclass
class LinkerOptions:
    name: str | None = "<default linker>"
    arch: str | None = None
    max_register_count: int | None = None
    time: bool | None = None
    verbose: bool | None = None
    link_time_optimization: bool | None = None
    ptx: bool | None = None
    optimization_level: int | None = None
    debug: bool | None = None
    lineinfo: bool | None = None
    ftz: bool | None = None
    prec_div: bool | None = None
    prec_sqrt: bool | None = None
    fma: bool | None = None
    kernels_used: Any = None
    variables_used: Any = None
    optimize_unused_variables: bool | None = None
    ptxas_options: Any = None
    split_compile: int | None = None
    split_compile_extended: int | None = None
    no_cache: bool | None = None
    numba_debug: bool | None = None


class Linker:
    """Link object codes (PTX and LTO IR) into one (the driver's ``cuLink*`` linker)."""

    def __init__(self, *object_codes: ObjectCode, options: LinkerOptions | None = None) -> None:
        if not object_codes:
            raise ValueError("at least one ObjectCode is required")
        ensure_init()
        self._options = options or LinkerOptions()
        self._error_log = bytearray(4096)
        keys, values = [cu.CUjit_option.CU_JIT_ERROR_LOG_BUFFER], [self._error_log]
        if self._options.max_register_count:  # each kernel's .maxnreg: its NUM_REGS is capped (driver/register_caps.py)
            keys, values = keys + [cu.CUjit_option.CU_JIT_MAX_REGISTERS], values + [int(self._options.max_register_count)]
        self._state = check(cu.cuLinkCreate(len(keys), keys, values))
        for oc in object_codes:
            kind = {"ptx": cu.CUjitInputType.CU_JIT_INPUT_PTX, "cubin": cu.CUjitInputType.CU_JIT_INPUT_CUBIN,
                    "ltoir": cu.CUjitInputType.CU_JIT_INPUT_NVVM, "fatbin": cu.CUjitInputType.CU_JIT_INPUT_FATBINARY,
                    "object": cu.CUjitInputType.CU_JIT_INPUT_OBJECT,
                    "library": cu.CUjitInputType.CU_JIT_INPUT_LIBRARY}[oc.code_type]
            check(cu.cuLinkAddData(self._state, kind, oc.code, len(oc.code), (oc.name or "<object>").encode(),
                                   0, None, None))
        self._closed = False

    @property
    def handle(self) -> Any:
        return self._state

    @property
    def is_closed(self) -> bool:
        return self._closed

    def which_backend(self) -> str:
        return "driver"

    def link(self, target_type: str) -> ObjectCode:
        if target_type not in ("cubin", "ptx"):
            raise ValueError(f"Unsupported target_type='{target_type}' (expected 'cubin' or 'ptx')")
        import ctypes

        image, size = check(cu.cuLinkComplete(self._state))
        return ObjectCode._init(ctypes.string_at(image, size), target_type, self._options.name or "")

    def get_error_log(self) -> str:
        return bytes(self._error_log).split(b"\0", 1)[0].decode(errors="replace")

    def get_info_log(self) -> str:
        return ""

    def close(self) -> None:
        if not self._closed:
            check(cu.cuLinkDestroy(self._state))
        self._closed = True

"""Kernel IR -> Apple AIR: one LLVM-14 typed-pointer module per kernel, and the ``.metallib``.

``lower_to_air`` builds the module in Apple's dialect (reference/air-abi-observed.md): Apple's
datalayout, a triple consistent with the versions, Apple's module flags, ``!air.version``,
``!air.language_version``, ``!air.compile_options``, ``!llvm.ident`` and one ``!air.kernel``
entry with an argument tuple per parameter in Apple's schema. ``compile_metallib`` lowers every
kernel, writes the container and validates it; a validation problem is a compile error.
The argument ABI and everything that remains unverified without a Mac: docs/air-abi.md.
"""

from __future__ import annotations

from cumetal.backends.air import bitcode as bc
from cumetal.backends.air.abi import (
    ROLE_ACCESS,
    ROLE_ELEMENT,
    STATIC_SHARED_ALIGN,
    STATIC_SHARED_GLOBAL,
    AirArgument,
    SharedLayout,
    air_arguments,
    shared_layout,
)
from cumetal.backends.air.capabilities import CAPABILITIES
from cumetal.backends.air.fp64_check import AirFp64Error, fp64_mode
from cumetal.backends.air.lower_context import AirLoweringError
from cumetal.backends.air.lower_function import (
    UINT3,
    FunctionLowering,
    declare_device_functions,
    stack_bytes,
)
from cumetal.backends.air.metallib import AirVersions, MetallibEntry, write_metallib
from cumetal.backends.apple.recursion import without_self_recursion
from cumetal.ir import nodes as N
from cumetal.ir.analysis import reachable_functions
from cumetal.passes.legalize import legalize, with_fp64
from cumetal.passes.legalize.fp64.storage import Fp64EmulationError

__all__ = ["AirLoweringError", "AirVersions", "compile_metallib", "lower_to_air", "kernel_bitcode"]

IDENT = "CuMetal AIR lowering (Apple metal version 32023.883 compatible)"
SDK_VERSION = (14, 0)
DEFAULT_VERSIONS = AirVersions()
_KERNEL_ATTRS = ("mustprogress", "nounwind", bc.string_attr("frame-pointer", "all"),
                 bc.string_attr("min-legal-vector-width", "0"), bc.string_attr("no-builtins"),
                 bc.string_attr("no-trapping-math", "true"), bc.string_attr("stack-protector-buffer-size", "8"))


def _i32(v: int) -> bc.Constant:
    return bc.const_int(bc.I32, v)


def _param_type(arg: AirArgument) -> bc.Type:
    if arg.binding is not None:
        elem = bc.I32 if ROLE_ELEMENT[arg.binding.role][0] == "uint" else bc.I8
        return bc.ptr(elem, arg.address_space)
    return UINT3 if arg.lanes == 3 else bc.I32


def _arg_metadata(index: int, arg: AirArgument) -> list:
    if arg.binding is None:
        return [_i32(index), arg.builtin, "air.arg_type_name", arg.type_name, "air.arg_name", arg.name]
    role = arg.binding.role
    tname, size = ROLE_ELEMENT[role]
    return [_i32(index), "air.buffer", "air.location_index", _i32(arg.binding.index), _i32(1), ROLE_ACCESS[role],
            "air.address_space", _i32(arg.address_space), "air.arg_type_size", _i32(size),
            "air.arg_type_align_size", _i32(size), "air.arg_type_name", tname, "air.arg_name", arg.name]


def _module_metadata(m: bc.Module, versions: AirVersions) -> None:
    m.add_named_metadata(
        "llvm.module.flags",
        [_i32(2), "SDK Version", bc.const_array(bc.I32, [_i32(SDK_VERSION[0]), _i32(SDK_VERSION[1])])],
        [_i32(1), "wchar_size", _i32(4)], [_i32(7), "frame-pointer", _i32(2)],
        [_i32(7), "air.max_device_buffers", _i32(31)], [_i32(7), "air.max_constant_buffers", _i32(31)],
        [_i32(7), "air.max_threadgroup_buffers", _i32(31)], [_i32(7), "air.max_textures", _i32(128)],
        [_i32(7), "air.max_read_write_textures", _i32(8)], [_i32(7), "air.max_samplers", _i32(16)])
    m.add_named_metadata("llvm.ident", [IDENT])
    m.add_named_metadata("air.version", [_i32(versions.air[0]), _i32(versions.air[1]), _i32(0)])
    m.add_named_metadata("air.language_version", ["Metal", _i32(versions.msl[0]), _i32(versions.msl[1]), _i32(0)])
    m.add_named_metadata("air.compile_options", ["air.compile.denorms_disable"], ["air.compile.fast_math_disable"],
                         ["air.compile.framebuffer_fetch_enable"])


def _static_shared_global(m: bc.Module, layout: SharedLayout) -> bc.GlobalVariable | None:
    """The kernel's static ``__shared__`` memory as Apple declares a static threadgroup array
    (reference section 9; mlx's ``row_reduce_simple`` ``shared_vals``): ``internal unnamed_addr
    addrspace(3) global [N x i8] undef, align 16``, no section, no metadata. One byte array at the
    IR's offsets (the IR keeps one layout for all static variables); its address is never compared,
    so ``unnamed_addr`` holds."""
    if layout.static_size == 0:
        return None
    return m.add_global(STATIC_SHARED_GLOBAL, bc.array(bc.I8, layout.static_size), 3, linkage="internal",
                        initializer=bc.undef(bc.array(bc.I8, layout.static_size)), align=STATIC_SHARED_ALIGN,
                        unnamed_addr="unnamed_addr")


def lower_to_air(module: N.Module, kernel_name: str, versions: AirVersions = DEFAULT_VERSIONS,
                 fp64: str | None = None) -> bc.Module:
    """The AIR module of kernel ``kernel_name`` (its device functions included). ``fp64``: native,
    emulate or warn (None: ``CUMETAL_FP64``, default native; backends/air/fp64_check.py)."""
    kernel = module.kernels.get(kernel_name)
    if kernel is None:
        raise AirLoweringError(f"module {module.filename} has no kernel {kernel_name!r}")
    # Metal has no call stack: a self-recursive function becomes a loop over an explicit stack in its
    # local memory, as on the MSL path (apple/recursion.py; cached per module, the module itself if none)
    module = without_self_recursion(module)
    kernel = module.kernels[kernel_name]
    # NVIDIA's rules as IR, on a copy of the kernel and its callees (docs/legalization.md)
    caps = with_fp64(CAPABILITIES, fp64 or fp64_mode())
    try:
        module = legalize(module, caps, only=[f.name for f in reachable_functions(kernel, module)])
    except Fp64EmulationError as e:
        raise AirFp64Error(f"kernel '{kernel_name}': {e}") from None
    kernel = module.kernels[kernel_name]
    m = bc.Module(kernel_name, triple=versions.triple(), datalayout=bc.AIR_DATALAYOUT)
    args = air_arguments(kernel, module)
    ftype = bc.fn_type(bc.VOID, [_param_type(a) for a in args])
    attrs = list(_KERNEL_ATTRS)
    limit = kernel.reqntid or kernel.maxntid
    if limit:
        total = 1
        for x in limit:
            total *= x
        attrs.append(bc.string_attr("max-work-group-size", str(total)))
    param_attrs = [bc.attrs("noundef", "air-buffer-no-alias") if a.binding is not None else bc.attrs("noundef")
                   for a in args]
    fn = m.add_function(kernel_name, ftype, attributes=bc.attrs(*attrs), param_attributes=param_attrs,
                        arg_names=[a.name for a in args])
    callees = [f.name for f in reachable_functions(kernel, module)[1:]]
    device_fns = declare_device_functions(m, module, callees)
    stack = stack_bytes(kernel, module)
    layout = shared_layout(kernel, module)
    static = _static_shared_global(m, layout)
    convergent = False
    for name, llfn in device_fns.items():
        fl = FunctionLowering(m, module, module.functions[name], llfn, device_fns, stack, layout, static)
        fl.lower()
        convergent |= fl.uses_convergent
    kl = FunctionLowering(m, module, kernel, fn, device_fns, stack, layout, static)
    kl.lower()
    if convergent or kl.uses_convergent:
        fn.attributes = fn.attributes | bc.attrs("convergent")
        for llfn in device_fns.values():
            llfn.attributes = llfn.attributes | bc.attrs("convergent")
    _module_metadata(m, versions)
    m.add_named_metadata("air.kernel", [fn, [], [_arg_metadata(i, a) for i, a in enumerate(args)]])
    return m


def kernel_bitcode(module: N.Module, kernel_name: str, versions: AirVersions = DEFAULT_VERSIONS,
                   fp64: str | None = None) -> bytes:
    """Raw LLVM-14 bitcode (no Apple wrapper) of one kernel's AIR module."""
    return bc.write_bitcode(lower_to_air(module, kernel_name, versions, fp64))


def compile_metallib(module: N.Module, versions: AirVersions = DEFAULT_VERSIONS, fp64: str = "emulate") -> bytes:
    """Lower every kernel of ``module``, write the ``.metallib`` and validate it.

    Raises AirLoweringError when a kernel cannot be lowered, when the IR module has no kernels,
    or when ``validate_metallib`` reports a problem (all problems are listed)."""
    from cumetal.backends.air.metallib_validate import validate_metallib
    from cumetal.backends.apple.heap import link_module

    if not module.kernels:
        raise AirLoweringError(f"{module.filename}: no kernel to compile")
    module = link_module(module)  # device-side malloc/free: the allocator as device code (apple/heap.ptx)
    entries = [MetallibEntry(name, kernel_bitcode(module, name, versions, fp64)) for name in module.kernels]
    data = write_metallib(entries, versions)
    problems = validate_metallib(data)
    if problems:
        listed = "\n".join(f"  {p}" for p in problems)
        raise AirLoweringError(f"{module.filename}: the metallib written fails validation:\n{listed}")
    return data

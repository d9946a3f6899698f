"""Generate the C header parts shared with Python: ``python -m cumetal.capi.gen_headers``.

The Python tables are the one source of truth: the Runtime API's enumerations, ``#define``
constants and struct layouts (``cumetal.runtime.enums`` / ``cumetal.runtime.types``, whose ctypes
layouts are CUDA 13's C ABI) and the Driver API's (``cumetal.driver.enums``). This module writes
them as C into ``cudacxx/include/cumetal/host_runtime_types.h`` and ``host_driver_types.h``, and
the version the runtime and driver report into ``host_version.h``;
``tests/programs/test_headers.py`` checks that the committed files equal a fresh generation.
``--check`` exits 1 when a committed file is stale.
"""

from __future__ import annotations

import argparse
import ctypes
import enum
import sys

from cumetal.cudacxx import include_dir

RUNTIME_HEADER = "cumetal/host_runtime_types.h"
DRIVER_HEADER = "cumetal/host_driver_types.h"
VERSION_HEADER = "cumetal/host_version.h"
GRAPH_HEADER = "cumetal/host_graph_types.h"
NVRTC_HEADER = "cumetal/host_nvrtc_types.h"

# Python enum class -> (C enum tag, typedef name or None). Most runtime enums are used in C++ by tag.
_ENUM_TAGS = {
    "cudaError_t": ("cudaError", "cudaError_t"),
    # library_types.h: the tag with _t, typedef'd both with and without it (as CUDA 13's header)
    "cudaDataType": ("cudaDataType_t", ("cudaDataType", "cudaDataType_t")),
    "libraryPropertyType": ("libraryPropertyType_t", ("libraryPropertyType", "libraryPropertyType_t")),
    "cudaEmulationStrategy": ("cudaEmulationStrategy_t", ("cudaEmulationStrategy", "cudaEmulationStrategy_t")),
    "cudaEmulationMantissaControl": ("cudaEmulationMantissaControl_t",
                                     ("cudaEmulationMantissaControl", "cudaEmulationMantissaControl_t")),
    "cudaEmulationSpecialValuesSupport": ("cudaEmulationSpecialValuesSupport_t",
                                          ("cudaEmulationSpecialValuesSupport", "cudaEmulationSpecialValuesSupport_t")),
    "CUresult": ("cudaError_enum", "CUresult"),
    "CUdevice_attribute": ("CUdevice_attribute_enum", "CUdevice_attribute"),
    "CUfunction_attribute": ("CUfunction_attribute_enum", "CUfunction_attribute"),
    "CUjit_option": ("CUjit_option_enum", "CUjit_option"),
    "CUjitInputType": ("CUjitInputType_enum", "CUjitInputType"),
    "CUctx_flags": ("CUctx_flags_enum", "CUctx_flags"),
    "CUstream_flags": ("CUstream_flags_enum", "CUstream_flags"),
    "CUevent_flags": ("CUevent_flags_enum", "CUevent_flags"),
    "CUevent_record_flags": ("CUevent_record_flags_enum", "CUevent_record_flags"),
    "CUevent_wait_flags": ("CUevent_wait_flags_enum", "CUevent_wait_flags"),
    "CUmemorytype": ("CUmemorytype_enum", "CUmemorytype"),
    "CUmemAttach_flags": ("CUmemAttach_flags_enum", "CUmemAttach_flags"),
    "CUlimit": ("CUlimit_enum", "CUlimit"),
    "CUfunc_cache": ("CUfunc_cache_enum", "CUfunc_cache"),
    "CUsharedconfig": ("CUsharedconfig_enum", "CUsharedconfig"),
}

# Constants that are pointers in C (CUDA defines them as casts of small integers).
_POINTER_CONSTANTS = {
    "cudaStreamLegacy": "cudaStream_t",
    "cudaStreamPerThread": "cudaStream_t",
    "CU_STREAM_LEGACY": "CUstream",
    "CU_STREAM_PER_THREAD": "CUstream",
    "CU_LAUNCH_PARAM_END": "void *",
    "CU_LAUNCH_PARAM_BUFFER_POINTER": "void *",
    "CU_LAUNCH_PARAM_BUFFER_SIZE": "void *",
}
# Constants defined elsewhere in the C headers (or meaningless in C).
_SKIP_CONSTANTS = {"CUDART_VERSION"}

# Runtime structs: Python class name -> C struct tag. Emitted in dependency order.
_STRUCTS = ("cudaUUID_t", "cudaExtent", "cudaPos", "cudaPitchedPtr", "cudaMemcpy3DParms", "cudaMemcpy3DPeerParms",
            "cudaMemLocation",
            "cudaPointerAttributes", "cudaFuncAttributes", "cudaDeviceProp")
_STRUCT_TAG = {"cudaUUID_t": "CUuuid_st"}
# Fields whose C type is a named pointer type rather than void *.
_FIELD_TYPES = {("cudaMemcpy3DParms", "srcArray"): "cudaArray_t", ("cudaMemcpy3DParms", "dstArray"): "cudaArray_t",
                ("cudaMemcpy3DPeerParms", "srcArray"): "cudaArray_t", ("cudaMemcpy3DPeerParms", "dstArray"): "cudaArray_t"}

_CTYPE_NAMES = {
    ctypes.c_ushort: "unsigned short", ctypes.c_ubyte: "unsigned char",
    ctypes.c_int: "int", ctypes.c_uint: "unsigned int", ctypes.c_size_t: "size_t", ctypes.c_void_p: "void *",
    ctypes.c_char: "char", ctypes.c_long: "long", ctypes.c_longlong: "long long",
    ctypes.c_ulonglong: "unsigned long long", ctypes.c_float: "float", ctypes.c_double: "double",
}
# ctypes makes c_size_t an alias of c_ulong/c_ulonglong; every 64-bit unsigned field of the generated
# structs is a size_t in CUDA's declarations (cudaFuncAttributes.sharedSizeBytes, cudaExtent, ...), and
# C++ sees the difference (size_t * and unsigned long long * do not convert; std::max deduction).
_CTYPE_NAMES[ctypes.c_size_t] = "size_t"


def _enum_c(cls: type[enum.IntEnum], seen: dict[str, str]) -> str:
    """C for one enum. ``seen`` maps enumerator names already emitted to their enum's tag: C has one
    namespace for enumerators, and cuda-python repeats some C typedefs as separate classes
    (cudaStreamAttrID / cudaKernelNodeAttrID are typedefs of cudaLaunchAttributeID in C)."""
    tag, typedef = _ENUM_TAGS.get(cls.__name__, (cls.__name__, None))
    owners = {seen.get(n) for n in cls.__members__}
    if cls.__members__ and len(owners) == 1 and None not in owners:
        return f"typedef enum {owners.pop()} {cls.__name__};"
    lines = [f"enum {tag} {{"]
    for name, member in cls.__members__.items():
        if name in seen:
            continue
        seen[name] = tag
        lines.append(f"    {name} = {int(member)},")
    if not cls.__members__:
        lines.append(f"    {cls.__name__}__cumetal_empty = 0,")
    lines.append("};")
    if typedef:
        for name in (typedef,) if isinstance(typedef, str) else typedef:
            lines.append(f"typedef enum {tag} {name};")
    elif tag != cls.__name__:
        lines.append(f"typedef enum {tag} {cls.__name__};")
    return "\n".join(lines)


# #define constants that CUDA spells as enumerators of an enum type (so C++ can assign them to it)
_TYPED_CONSTANT_PREFIXES = {"cudaStreamAttribute": "cudaStreamAttrID", "cudaKernelNodeAttribute": "cudaKernelNodeAttrID"}


def _constant_c(name: str, value: int) -> str:
    for prefix, ctype in _TYPED_CONSTANT_PREFIXES.items():
        if name.startswith(prefix):
            return f"#define {name} (({ctype}){value})"
    if name in _POINTER_CONSTANTS:
        return f"#define {name} (({_POINTER_CONSTANTS[name]}){value:#x})"
    if value < 0:
        return f"#define {name} ({value})"
    suffix = "U" if value > 0x7FFFFFFF else ""
    return f"#define {name} {value}{suffix}"


def _field_c(owner: str, name: str, ctype: type, tags: dict[type, str], enums: dict[str, type]) -> str:
    dims = ""
    while isinstance(ctype, type) and issubclass(ctype, ctypes.Array):
        dims += f"[{ctype._length_}]"
        ctype = ctype._type_
    if (owner, name) in _FIELD_TYPES:
        tname = _FIELD_TYPES[(owner, name)]
    elif name in enums:
        tname = f"enum {_ENUM_TAGS.get(enums[name].__name__, (enums[name].__name__,))[0]}"
    elif ctype in tags:
        tname = f"struct {tags[ctype]}"
    elif ctype in _CTYPE_NAMES:
        tname = _CTYPE_NAMES[ctype]
    else:
        raise TypeError(f"{owner}.{name}: no C spelling for {ctype!r}")
    sep = "" if tname.endswith("*") else " "
    return f"    {tname}{sep}{name}{dims};"


def _legacy_device_prop_union(reserved: str) -> str:
    """cudaDeviceProp's `reserved` words with CUDA 12's removed fields laid over their start
    (runtime/types.py LEGACY_DEVICE_PROP_FIELDS)."""
    from cumetal.runtime.types import LEGACY_DEVICE_PROP_FIELDS  # noqa: PLC0415

    fields = "\n".join(f"            int {name};" for name, _ in LEGACY_DEVICE_PROP_FIELDS)
    return ("    /* CUDA 12's fields that CUDA 13 removed, over the first reserved words (same size and offsets) */\n"
            f"    union {{\n    {reserved.strip()}\n        struct {{\n{fields}\n        }};\n    }};")


def _structs_c() -> str:
    from cumetal.runtime import types as T  # noqa: PLC0415

    tags: dict[type, str] = {}
    out = []
    for pyname in _STRUCTS:
        cls = getattr(T, pyname)
        tag = _STRUCT_TAG.get(pyname, pyname)
        layout = cls._layout_
        tags[layout] = tag
        enums = getattr(cls, "_enums_", {})
        body = [_field_c(pyname, n, t, tags, enums) for n, t, *_ in layout._fields_]
        if pyname == "cudaDeviceProp":
            body[-1] = _legacy_device_prop_union(body[-1])
        guard = pyname == "cudaUUID_t"  # cuda.h defines struct CUuuid_st too
        if guard:
            out.append("#ifndef CUMETAL_CUUUID_ST_DEFINED\n#define CUMETAL_CUUUID_ST_DEFINED")
        out.append(f"struct {tag} {{\n" + "\n".join(body) + "\n};")
        if guard:
            out.append("#endif")
        if tag != pyname:
            out.append(f"typedef struct {tag} {pyname};")
        else:
            out.append(f"typedef struct {tag} {pyname};")
        out.append(f"CUMETAL_STATIC_ASSERT(sizeof(struct {tag}) == {ctypes.sizeof(layout)}, \"{pyname} layout\");")
    return "\n\n".join(out)


_PRELUDE = """/* GENERATED by `python -m cumetal.capi.gen_headers` from {source}.
 * Do not edit: change the Python table and regenerate (tests/programs/test_headers.py checks it). */
#ifndef {guard}
#define {guard}
#include <stddef.h>
#if defined(__cplusplus)
#define CUMETAL_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define CUMETAL_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif
"""


def runtime_header() -> str:
    from cumetal.runtime import enums as E  # noqa: PLC0415

    parts = [_PRELUDE.format(source="cumetal.runtime.enums and cumetal.runtime.types",
                             guard="CUMETAL_HOST_RUNTIME_TYPES_H")]
    parts.append("/* opaque handle types */\n"
                 "typedef struct CUstream_st *cudaStream_t;\ntypedef struct CUevent_st *cudaEvent_t;\n"
                 "typedef struct cudaArray *cudaArray_t;\ntypedef const struct cudaArray *cudaArray_const_t;\n"
                 "typedef struct cudaMipmappedArray *cudaMipmappedArray_t;\n"
                 "typedef struct CUfunc_st *cudaFunction_t;\ntypedef struct CUkern_st *cudaKernel_t;\n"
                 "typedef struct CUlib_st *cudaLibrary_t;\ntypedef struct CUmemPoolHandle_st *cudaMemPool_t;\n"
                 "typedef struct CUgraph_st *cudaGraph_t;\ntypedef struct CUgraphExec_st *cudaGraphExec_t;\n"
                 "typedef struct CUgraphNode_st *cudaGraphNode_t;\n"
                 "typedef unsigned long long cudaTextureObject_t;\ntypedef unsigned long long cudaSurfaceObject_t;\n")
    seen: dict[str, str] = {}
    for name in E.ENUM_NAMES:
        parts.append(_enum_c(getattr(E, name), seen))
    consts = [_constant_c(n, int(getattr(E, n))) for n in E.CONSTANT_NAMES if n not in _SKIP_CONSTANTS]
    parts.append("/* #define constants */\n" + "\n".join(consts))
    parts.append(_structs_c())
    parts.append("#endif")
    return "\n\n".join(parts) + "\n"


class CUcomputemode(enum.IntEnum):
    """Driver API enums that cumetal.driver does not define (yet) but C programs name: values from
    the CUDA Driver API documentation. Move them to cumetal.driver.enums when the driver grows them."""

    CU_COMPUTEMODE_DEFAULT = 0
    CU_COMPUTEMODE_PROHIBITED = 2
    CU_COMPUTEMODE_EXCLUSIVE_PROCESS = 3


def _texture_enums() -> tuple[type[enum.IntEnum], ...]:
    """The Driver API enums of arrays and texture/surface objects (``cumetal.driver.enums_more``)."""
    from cumetal.driver import enums_more as M  # noqa: PLC0415

    return (M.CUarray_format, M.CUresourcetype, M.CUaddress_mode, M.CUfilter_mode, M.CUresourceViewFormat)


_EXTRA_DRIVER_ENUMS: tuple[type[enum.IntEnum], ...] = (CUcomputemode,)
_ENUM_TAGS["CUcomputemode"] = ("CUcomputemode_enum", "CUcomputemode")
for _name in ("CUarray_format", "CUresourcetype", "CUaddress_mode", "CUfilter_mode", "CUresourceViewFormat"):
    _ENUM_TAGS[_name] = (f"{_name}_enum", _name)


def driver_header() -> str:
    from cumetal.driver import enums as D  # noqa: PLC0415

    parts = [_PRELUDE.format(source="cumetal.driver.enums", guard="CUMETAL_HOST_DRIVER_TYPES_H")]
    classes = [v for v in vars(D).values() if isinstance(v, type) and issubclass(v, enum.IntEnum)
               and v.__module__ == D.__name__]
    seen: dict[str, str] = {}
    extra = _EXTRA_DRIVER_ENUMS + _texture_enums()
    for cls in classes + [c for c in extra if not hasattr(D, c.__name__)]:
        parts.append(_enum_c(cls, seen))
    consts = [_constant_c(n, int(v)) for n, v in vars(D).items()
              if n.isupper() and type(v) is int and n.startswith("CU_") and not n.endswith("_AS_INT")]
    parts.append("/* #define constants */\n" + "\n".join(consts))
    parts.append("#endif")
    return "\n\n".join(parts) + "\n"


def version_header() -> str:
    """The CUDA version the headers claim, from the numbers the API reports at run time:
    ``CUDART_VERSION`` = ``cudaRuntimeGetVersion()``, ``CUDA_VERSION`` = ``cuDriverGetVersion()``,
    and nvcc's ``__CUDACC_VER_MAJOR__``/``__CUDACC_VER_MINOR__`` from the runtime's (CUDA encodes
    versions as 1000*major + 10*minor). ``cuda_runtime_api.h``, ``cuda.h`` and ``cumetal/config.h``
    include this header rather than spelling the numbers themselves."""
    from cumetal.driver.device import DRIVER_VERSION  # noqa: PLC0415
    from cumetal.runtime.device import VERSION  # noqa: PLC0415

    major, minor = divmod(int(VERSION), 1000)
    return (_PRELUDE.format(source="cumetal.runtime.device.VERSION and cumetal.driver.device.DRIVER_VERSION",
                            guard="CUMETAL_HOST_VERSION_H")
            + f"\n#define CUMETAL_CUDART_VERSION {int(VERSION)}\n"
            f"#define CUMETAL_CUDA_DRIVER_VERSION {int(DRIVER_VERSION)}\n"
            f"#define CUMETAL_CUDA_VERSION_MAJOR {major}\n"
            f"#define CUMETAL_CUDA_VERSION_MINOR {minor // 10}\n\n#endif\n")


# Graph parameter structs: (module, class) -> C spelling of the fields whose ctypes type does not say it.
# The layout is the class's ``_C`` ctypes structure (what the runtime reads from a C caller's struct),
# or its ``_layout_`` for the ``_Struct`` views of ``graph_params``.
_CTX = "cudaExecutionContext_t"
_GRAPH_STRUCTS: dict[tuple[str, str], dict[str, str]] = {
    ("graphs", "cudaKernelNodeParams"): {"gridDim": "struct dim3", "blockDim": "struct dim3",
                                         "kernelParams": "void **", "extra": "void **"},
    ("graphs", "cudaMemsetParams"): {},
    ("graphs", "cudaHostNodeParams"): {"fn": "cudaHostFn_t"},
    ("graph_memory", "cudaMemAccessDesc"): {"location": "struct cudaMemLocation", "flags": "enum cudaMemAccessFlags"},
    ("graph_memory", "cudaMemPoolProps"): {"allocType": "enum cudaMemAllocationType",
                                           "handleTypes": "enum cudaMemAllocationHandleType",
                                           "location": "struct cudaMemLocation"},
    ("graph_memory", "cudaMemAllocNodeParams"): {"poolProps": "struct cudaMemPoolProps",
                                                 "accessDescs": "const struct cudaMemAccessDesc *"},
    ("graph_memory", "cudaMemFreeNodeParams"): {},
    ("graph_params", "cudaKernelNodeParamsV2"): {"gridDim": "struct dim3", "blockDim": "struct dim3",
                                                 "kernelParams": "void **", "extra": "void **", "ctx": _CTX,
                                                 "functionType": "enum cudaKernelFunctionType"},
    ("graph_params", "cudaMemcpyNodeParams"): {"ctx": _CTX, "copyParams": "struct cudaMemcpy3DParms"},
    ("graph_params", "cudaMemsetParamsV2"): {"ctx": _CTX},
    ("graph_params", "cudaHostNodeParamsV2"): {"fn": "cudaHostFn_t", "ctx": _CTX},
    ("graph_params", "cudaChildGraphNodeParams"): {"graph": "cudaGraph_t",
                                                   "ownership": "enum cudaGraphChildGraphNodeOwnership"},
    ("graph_params", "cudaEventRecordNodeParams"): {"event": "cudaEvent_t", "ctx": _CTX},
    ("graph_params", "cudaEventWaitNodeParams"): {"event": "cudaEvent_t"},
    ("graph_params", "cudaConditionalNodeParams"): {"handle": "cudaGraphConditionalHandle",
                                                    "type": "enum cudaGraphConditionalNodeType",
                                                    "phGraph_out": "cudaGraph_t *", "ctx": _CTX},
    ("graph_params", "cudaGraphNodeParams"): {
        "type": "enum cudaGraphNodeType", "kernel": "struct cudaKernelNodeParamsV2",
        "memcpy": "struct cudaMemcpyNodeParams", "memset": "struct cudaMemsetParamsV2",
        "host": "struct cudaHostNodeParamsV2", "graph": "struct cudaChildGraphNodeParams",
        "eventWait": "struct cudaEventWaitNodeParams", "eventRecord": "struct cudaEventRecordNodeParams",
        "alloc": "struct cudaMemAllocNodeParamsV2", "free": "struct cudaMemFreeNodeParams",
        "conditional": "struct cudaConditionalNodeParams"},
    ("graph_params", "cudaGraphInstantiateParams"): {"flags": "unsigned long long", "uploadStream": "cudaStream_t",
                                                     "errNode_out": "cudaGraphNode_t",
                                                     "result_out": "enum cudaGraphInstantiateResult"},
}
# C-only spellings: typedef name -> the struct it repeats (CUDA declares the V2 struct separately).
_GRAPH_ALIASES = {"cudaMemAllocNodeParamsV2": "cudaMemAllocNodeParams"}


def _graph_fields(layout: type, spelled: dict[str, str], indent: str = "    ") -> list[str]:
    body = []
    anonymous = getattr(layout, "_anonymous_", ())
    for field, ctype in layout._fields_:
        if field in anonymous:  # CUDA's anonymous union of the per-kind structs
            body.append(f"{indent}union {{")
            body.extend(_graph_fields(ctype, spelled, indent + "    "))
            body.append(f"{indent}}};")
            continue
        dims = ""
        if field in spelled:
            tname = spelled[field]
        else:
            while isinstance(ctype, type) and issubclass(ctype, ctypes.Array):
                dims += f"[{ctype._length_}]"
                ctype = ctype._type_
            tname = "size_t" if ctype is ctypes.c_size_t else _CTYPE_NAMES[ctype]  # the structs' only 64-bit ints
        sep = "" if tname.endswith("*") else " "
        body.append(f"{indent}{tname}{sep}{field}{dims};")
    return body


def graph_header() -> str:
    """The Runtime API's graph parameter structs, laid out as the runtime reads them from C."""
    import importlib  # noqa: PLC0415

    parts = [_PRELUDE.format(source="the _C layouts of cumetal.runtime.graphs, graph_memory and graph_params",
                             guard="CUMETAL_HOST_GRAPH_TYPES_H"),
             "typedef struct cudaExecutionContext_st *cudaExecutionContext_t;\n"
             "typedef unsigned long long cudaGraphConditionalHandle;"]
    layouts: dict[str, type] = {}
    for (module, name), spelled in _GRAPH_STRUCTS.items():
        cls = getattr(importlib.import_module(f"cumetal.runtime.{module}"), name)
        layout = cls._C if hasattr(cls, "_C") else cls._layout_
        layouts[name] = layout
        if name == "cudaGraphNodeParams":
            for alias, original in _GRAPH_ALIASES.items():
                parts.append(f"struct {alias} {{\n" + "\n".join(_graph_fields(
                    layouts[original], _GRAPH_STRUCTS[("graph_memory", original)])) + f"\n}};\n"
                    f"typedef struct {alias} {alias};")
        body = _graph_fields(layout, spelled)
        parts.append(f"struct {name} {{\n" + "\n".join(body) + f"\n}};\ntypedef struct {name} {name};\n"
                     f"CUMETAL_STATIC_ASSERT(sizeof(struct {name}) == {ctypes.sizeof(layout)}, \"{name} layout\");")
    parts.append("#endif")
    return "\n\n".join(parts) + "\n"


def nvrtc_header() -> str:
    """``nvrtcResult`` for nvrtc.h, from ``cumetal.nvrtc.enums``."""
    from cumetal.nvrtc.enums import nvrtcResult  # noqa: PLC0415

    return "\n\n".join([_PRELUDE.format(source="cumetal.nvrtc.enums", guard="CUMETAL_HOST_NVRTC_TYPES_H"),
                          _enum_c(nvrtcResult, {}).replace("enum nvrtcResult {", "typedef enum {", 1)
                          .replace("};", "} nvrtcResult;", 1), "#endif"]) + "\n"


def generated() -> dict[str, str]:
    """Header path (relative to the include root) -> its generated text."""
    return {RUNTIME_HEADER: runtime_header(), DRIVER_HEADER: driver_header(), VERSION_HEADER: version_header(),
            GRAPH_HEADER: graph_header(), NVRTC_HEADER: nvrtc_header()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cumetal.capi.gen_headers", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a committed header differs")
    args = ap.parse_args(argv)
    stale = []
    for rel, text in generated().items():
        path = include_dir() / rel
        current = path.read_text() if path.is_file() else None
        if current != text:
            stale.append(rel)
            if not args.check:
                path.write_text(text)
    if args.check and stale:
        print("stale generated headers: " + ", ".join(stale), file=sys.stderr)
        return 1
    for rel in stale if not args.check else ():
        print(f"wrote {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

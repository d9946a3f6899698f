"""The legacy Driver API names libcumetal exports: ONE table for C and Python.

Programs that open the driver themselves (``dlopen("libcuda.so.1")`` + ``dlsym``, as NVIDIA's
matrixMulDynlinkJIT does through the opt-in shim) look up names that today's ``cuda.h`` no longer
declares or maps elsewhere: un-suffixed first versions (``cuCtxAttach``, ``cuParamSeti``,
``cuLaunchGrid``, texture references), ``_v2``/``_v3`` versions of calls libcumetal exported only
under one name (``cuCtxCreate_v2``, ``cuMemAllocPitch_v2``, ``cuTexRefSetAddress2D_v3``) and calls
it had not exported at all (``cuCtxSetLimit``, ``cuMemsetD2D8``, ``cuMemcpyPeer``...).

Each entry names the exported symbols (one ABI: the first name and its versioned aliases), the C
parameters (plain C types: the generated file needs no CUDA header, and handles are pointers,
enums ints, ``CUdeviceptr`` 64 bits on every target), the ``cumetal.driver`` function that does the
work and, per parameter, how it reaches Python (roles below). ``python -m cumetal.capi.legacy_driver``
writes ``csrc/cm_driver_legacy.c`` from it (``tests/c_abi/test_legacy_exports.py`` fails when the
file is stale); :func:`call` in ``capi/bridge_driver_legacy.py`` reads the same table at run time.

Roles: ``v`` an integer passed as is; ``h`` a handle (NULL → None); ``f`` a C float; ``s`` a C
string; ``o:<ctype>`` an output cell written from the result (``int``, ``uint``, ``size``, ``ptr``,
``u64``); ``o:struct:<Name>`` an output struct laid out by :data:`STRUCTS`; ``buf`` a character buffer
whose capacity is the next parameter, written from the result's bytes (NUL-terminated); ``x`` a
parameter the call does not take. ``refuse``: no Python function can do it on CuMetal (the C
function answers ``CUDA_ERROR_NOT_SUPPORTED`` naming itself).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Legacy:
    names: tuple[str, ...]  # the symbol defined, then its aliases (same ABI)
    params: tuple[tuple[str, str, str], ...]  # (C type, name, role)
    call: str  # the cumetal.driver function ("" with refuse)
    refuse: str = ""  # why CuMetal cannot do it (the C function answers CUDA_ERROR_NOT_SUPPORTED)


def _p(spec: str) -> tuple[tuple[str, str, str], ...]:
    """``"void *pctx:o:ptr, unsigned int flags:v"`` → ((C type, name, role), ...)."""
    out = []
    for part in filter(None, (s.strip() for s in spec.split(","))):
        decl, role = part.split(":", 1)
        ctype, name = decl.rsplit(" ", 1)
        while name.startswith("*"):
            ctype, name = ctype + " *", name[1:]
        out.append((ctype.strip(), name, role))
    return tuple(out)


def L(names: str, params: str, call: str = "", refuse: str = "") -> Legacy:  # noqa: N802
    return Legacy(tuple(names.split()), _p(params), call or names.split()[0].split("_v")[0], refuse)


_TEXREF = "texture and surface references (removed in CUDA 12; use texture objects)"
_GL = "graphics interop (CuMetal has none)"
_STRUCT_IN = "its struct argument is not read from C yet (the runtime's call works: docs/c-abi.md)"

# C layouts of output structs: (field, C type, count)
STRUCTS: dict[str, tuple[tuple[str, str, int], ...]] = {
    "CUdevprop": (("maxThreadsPerBlock", "int", 1), ("maxThreadsDim", "int", 3), ("maxGridSize", "int", 3),
                  ("sharedMemPerBlock", "int", 1), ("totalConstantMemory", "int", 1), ("SIMDWidth", "int", 1),
                  ("memPitch", "int", 1), ("regsPerBlock", "int", 1), ("clockRate", "int", 1),
                  ("textureAlign", "int", 1)),
    "CUDA_ARRAY3D_DESCRIPTOR": (("Width", "size", 1), ("Height", "size", 1), ("Depth", "size", 1),
                                ("Format", "int", 1), ("NumChannels", "uint", 1), ("Flags", "uint", 1)),
}

TABLE: tuple[Legacy, ...] = (
    # contexts
    L("cuCtxCreate_v2", "void **pctx:o:ptr, unsigned int flags:v, int dev:v", "cuCtxCreate"),
    L("cuCtxAttach", "void **pctx:o:ptr, unsigned int flags:v"),
    L("cuCtxDetach", "void *ctx:h"),
    L("cuCtxGetCacheConfig", "int *pconfig:o:int"),
    L("cuCtxSetCacheConfig", "int config:v"),
    L("cuCtxGetSharedMemConfig", "int *pConfig:o:int"),
    L("cuCtxSetSharedMemConfig", "int config:v"),
    L("cuCtxGetLimit", "size_t *pvalue:o:size, int limit:v"),
    L("cuCtxSetLimit", "int limit:v, size_t value:v"),
    # devices
    L("cuDeviceGetByPCIBusId", "int *dev:o:int, const char *pciBusId:s"),
    L("cuDeviceGetPCIBusId", "char *pciBusId:buf, int len:v, int dev:v"),
    L("cuDeviceGetProperties", "void *prop:o:struct:CUdevprop, int dev:v"),
    # functions and the legacy launch (execution control of CUDA 3.x)
    L("cuFuncSetBlockShape", "void *hfunc:h, int x:v, int y:v, int z:v"),
    L("cuFuncSetSharedSize", "void *hfunc:h, unsigned int bytes:v"),
    L("cuFuncSetCacheConfig", "void *hfunc:h, int config:v"),
    L("cuFuncSetSharedMemConfig", "void *hfunc:h, int config:v"),
    L("cuParamSetSize", "void *hfunc:h, unsigned int numbytes:v"),
    L("cuParamSeti", "void *hfunc:h, int offset:v, unsigned int value:v"),
    L("cuParamSetf", "void *hfunc:h, int offset:v, float value:f"),
    L("cuParamSetv", "void *hfunc:h, int offset:v, void *ptr:v, unsigned int numbytes:v"),
    L("cuLaunch", "void *f:h"),
    L("cuLaunchGrid", "void *f:h, int grid_width:v, int grid_height:v"),
    L("cuLaunchGridAsync", "void *f:h, int grid_width:v, int grid_height:v, void *hStream:h"),
    # memory
    L("cuMemAllocPitch cuMemAllocPitch_v2",
      "unsigned long long *dptr:o:u64, size_t *pPitch:o:size, size_t WidthInBytes:v, size_t Height:v, "
      "unsigned int ElementSizeBytes:v"),
    L("cuMemHostGetFlags", "unsigned int *pFlags:o:uint, void *p:v"),
    L("cuMemcpyPeer", "unsigned long long dstDevice:v, void *dstContext:h, unsigned long long srcDevice:v, "
      "void *srcContext:h, size_t ByteCount:v"),
    L("cuMemsetD2D8 cuMemsetD2D8_v2",
      "unsigned long long dstDevice:v, size_t dstPitch:v, unsigned char uc:v, size_t Width:v, size_t Height:v"),
    L("cuMemsetD2D16 cuMemsetD2D16_v2",
      "unsigned long long dstDevice:v, size_t dstPitch:v, unsigned short us:v, size_t Width:v, size_t Height:v"),
    L("cuMemsetD2D32 cuMemsetD2D32_v2",
      "unsigned long long dstDevice:v, size_t dstPitch:v, unsigned int ui:v, size_t Width:v, size_t Height:v"),
    L("cuMemcpy3D cuMemcpy3D_v2", "const void *pCopy:x", refuse=_STRUCT_IN),
    L("cuMemcpy3DAsync cuMemcpy3DAsync_v2", "const void *pCopy:x, void *hStream:x", refuse=_STRUCT_IN),
    # arrays
    L("cuArray3DGetDescriptor cuArray3DGetDescriptor_v2",
      "void *pArrayDescriptor:o:struct:CUDA_ARRAY3D_DESCRIPTOR, void *hArray:h"),
    L("cuMemcpyAtoA cuMemcpyAtoA_v2",
      "void *dstArray:h, size_t dstOffset:v, void *srcArray:h, size_t srcOffset:v, size_t ByteCount:v"),
    L("cuMemcpyAtoHAsync cuMemcpyAtoHAsync_v2",
      "void *dstHost:v, void *srcArray:h, size_t srcOffset:v, size_t ByteCount:v, void *hStream:h"),
    L("cuMemcpyHtoAAsync cuMemcpyHtoAAsync_v2",
      "void *dstArray:h, size_t dstOffset:v, const void *srcHost:v, size_t ByteCount:v, void *hStream:h"),
    L("cuMipmappedArrayCreate", "void **pHandle:x, const void *pMipmappedArrayDesc:x, unsigned int levels:x",
      refuse=_STRUCT_IN),
    L("cuMipmappedArrayDestroy", "void *hMipmappedArray:h"),
    L("cuMipmappedArrayGetLevel", "void **pLevelArray:o:ptr, void *hMipmappedArray:h, unsigned int level:v"),
    # interprocess handles (64-byte structs passed by value in C)
    L("cuIpcGetEventHandle", "void *pHandle:x, void *event:x", refuse=_STRUCT_IN),
    L("cuIpcOpenEventHandle", "void **phEvent:x, const void *handle:x", refuse=_STRUCT_IN),
    L("cuIpcGetMemHandle", "void *pHandle:x, unsigned long long dptr:x", refuse=_STRUCT_IN),
    L("cuIpcOpenMemHandle", "unsigned long long *pdptr:x, const void *handle:x, unsigned int Flags:x",
      refuse=_STRUCT_IN),
    L("cuIpcCloseMemHandle", "unsigned long long dptr:v"),
    # texture and surface references
    *(L(n, "void *a:x, void *b:x, void *c:x, void *d:x", refuse=_TEXREF) for n in (
        "cuModuleGetTexRef", "cuModuleGetSurfRef", "cuParamSetTexRef", "cuSurfRefSetArray", "cuSurfRefGetArray",
        "cuTexRefCreate", "cuTexRefDestroy", "cuTexRefSetArray", "cuTexRefSetFormat", "cuTexRefSetAddressMode",
        "cuTexRefSetFilterMode", "cuTexRefSetFlags", "cuTexRefGetArray", "cuTexRefGetAddressMode",
        "cuTexRefGetFilterMode", "cuTexRefGetFormat", "cuTexRefGetFlags", "cuTexRefGetAddress cuTexRefGetAddress_v2",
        "cuTexRefSetAddress cuTexRefSetAddress_v2",
        "cuTexRefSetAddress2D cuTexRefSetAddress2D_v2 cuTexRefSetAddress2D_v3")),
    # graphics interop, export tables
    *(L(n, "void *a:x, void *b:x, void *c:x, void *d:x", refuse=_GL) for n in (
        "cuGraphicsUnregisterResource", "cuGraphicsSubResourceGetMappedArray",
        "cuGraphicsResourceGetMappedPointer cuGraphicsResourceGetMappedPointer_v2", "cuGraphicsResourceSetMapFlags",
        "cuGraphicsMapResources", "cuGraphicsUnmapResources")),
    L("cuGetExportTable", "const void **ppExportTable:x, const void *pExportTableId:x",
      refuse="NVIDIA's private export tables"),
)

BY_NAME: dict[str, Legacy] = {name: e for e in TABLE for name in e.names}

_C_PATH = Path(__file__).resolve().parent / "csrc" / "cm_driver_legacy.c"


def _c_arg(ctype: str, name: str, role: str) -> tuple[str, str] | None:
    """(Py_BuildValue code, C expression) of one parameter, None for those not passed."""
    if role == "x":
        return None
    if role == "f":
        return "d", f"(double){name}"
    if "*" in ctype or role.startswith("o:") or role in ("s", "buf"):
        return "K", f"CM_P({name})"
    return "K", f"K({name})"


def c_source() -> str:
    """``csrc/cm_driver_legacy.c`` (generated: edit the table, then run this module)."""
    lines = ["/* GENERATED by `python -m cumetal.capi.legacy_driver` from TABLE in capi/legacy_driver.py:",
             " * do not edit. Legacy Driver API names (dlsym lookups of un-suffixed and _v2/_v3 versions);",
             " * each forwards to capi/bridge_driver_legacy.py:drv_legacy. */",
             '#include "cm_core.h"', '#include "cm_driver_calls.h"', "", "typedef int CUresult;", ""]
    for e in TABLE:
        name = e.names[0]
        params = ", ".join(f"{t} {n}".replace("* *", "**").replace("* ", "*") for t, n, _ in e.params) or "void"
        passed = [a for a in (_c_arg(*p) for p in e.params) if a is not None and not e.refuse]
        unused = [n for _, n, r in e.params if r == "x" or e.refuse]
        fmt = "(s" + "".join(code for code, _ in passed) + ")"
        args = ", ".join([f'"{name}"'] + [expr for _, expr in passed])
        lines.append(f"CM_EXPORT CUresult {name}({params});")
        lines.append(f"CM_EXPORT CUresult {name}({params}) {{")
        for n in unused:
            lines.append(f"    (void){n};")
        lines.append(f'    return (CUresult)cm_call("drv_legacy", "{fmt}", {args});')
        lines.append("}")
        for alias in e.names[1:]:
            lines.append(f"ALIAS({alias}, {name})")
        lines.append("")
    return "\n".join(lines)


def write_c_source(path: Path = _C_PATH) -> bool:
    """Write the C file; True when it changed."""
    text = c_source()
    if path.exists() and path.read_text() == text:
        return False
    path.write_text(text)
    return True


def exported_names() -> list[str]:
    return sorted(BY_NAME)


if __name__ == "__main__":
    print(f"{_C_PATH}: {'written' if write_c_source() else 'up to date'} ({len(BY_NAME)} names)")

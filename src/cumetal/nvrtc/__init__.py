"""``cumetal.nvrtc``: a mirror of ``cuda.bindings.nvrtc`` (NVRTC 13.x) on CuMetal's CUDA C++ front end.

Use it as cuda-python's module (``from cumetal import nvrtc``): same function names, arguments,
``nvrtcResult`` values and ``(err, *values)`` returns. ``nvrtcGetPTX`` gives PTX that
``cumetal.driver.cuModuleLoadData`` loads; ``nvrtcGetCUBIN`` (for ``sm_XX`` targets) gives the same
PTX bytes, because CuMetal's "binary" for a GPU is that PTX. See ``docs/python-compilers.md``.
"""

from __future__ import annotations

from cumetal.nvrtc.api import (
    nvrtcAddNameExpression,
    nvrtcCompileProgram,
    nvrtcCreateProgram,
    nvrtcDestroyProgram,
    nvrtcGetCUBIN,
    nvrtcGetCUBINSize,
    nvrtcGetErrorString,
    nvrtcGetLoweredName,
    nvrtcGetLTOIR,
    nvrtcGetLTOIRSize,
    nvrtcGetNumSupportedArchs,
    nvrtcGetOptiXIR,
    nvrtcGetOptiXIRSize,
    nvrtcGetPCHCreateStatus,
    nvrtcGetPCHHeapSize,
    nvrtcGetPCHHeapSizeRequired,
    nvrtcGetProgramLog,
    nvrtcGetProgramLogSize,
    nvrtcGetPTX,
    nvrtcGetPTXSize,
    nvrtcGetSupportedArchs,
    nvrtcGetTileIR,
    nvrtcGetTileIRSize,
    nvrtcProgram,
    nvrtcSetFlowCallback,
    nvrtcSetPCHHeapSize,
    nvrtcVersion,
)
from cumetal.nvrtc.bundled_headers import (
    nvrtcBundledHeadersInfo,
    nvrtcGetBundledHeadersInfo,
    nvrtcInstallBundledHeaders,
    nvrtcRemoveBundledHeaders,
)
from cumetal.nvrtc.enums import nvrtcResult

__all__ = [
    "nvrtcAddNameExpression", "nvrtcBundledHeadersInfo", "nvrtcGetBundledHeadersInfo",
    "nvrtcInstallBundledHeaders", "nvrtcRemoveBundledHeaders", "nvrtcCompileProgram", "nvrtcCreateProgram", "nvrtcDestroyProgram",
    "nvrtcGetCUBIN", "nvrtcGetCUBINSize", "nvrtcGetErrorString", "nvrtcGetLTOIR", "nvrtcGetLTOIRSize",
    "nvrtcGetLoweredName", "nvrtcGetNumSupportedArchs", "nvrtcGetOptiXIR", "nvrtcGetOptiXIRSize",
    "nvrtcGetPCHCreateStatus", "nvrtcGetPCHHeapSize", "nvrtcGetPCHHeapSizeRequired", "nvrtcGetPTX",
    "nvrtcGetPTXSize", "nvrtcGetProgramLog", "nvrtcGetProgramLogSize", "nvrtcGetSupportedArchs",
    "nvrtcGetTileIR", "nvrtcGetTileIRSize",
    "nvrtcProgram", "nvrtcResult", "nvrtcSetFlowCallback", "nvrtcSetPCHHeapSize", "nvrtcVersion",
]

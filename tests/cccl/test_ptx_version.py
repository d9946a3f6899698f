"""CU_FUNC_ATTRIBUTE_PTX_VERSION (cudaFuncAttributes::ptxVersion) is the PTX's .target, as on CUDA,
where it is the virtual architecture the kernel was compiled for. CUB and Thrust pick their tuning
by it and require it to be one of the architectures in __CUDA_ARCH_LIST__ (a build with
``cumetalc -arch=sm_52`` failed every algorithm with cudaErrorInvalidDeviceFunction while CuMetal
answered the device's 80). BINARY_VERSION stays the device's compute capability."""

from __future__ import annotations

from cumetal import driver as cu

F = cu.CUfunction_attribute


def _ok(result):  # noqa: ANN001, ANN202
    err, *values = result
    assert int(err) == 0, err
    return values[0] if values else None


def test_ptx_version_is_the_target() -> None:
    _ok(cu.cuInit(0))
    ctx = _ok(cu.cuCtxCreate(None, 0, _ok(cu.cuDeviceGet(0))))
    try:
        for target, want in (("sm_52", 52), ("sm_80", 80), ("sm_90a", 90)):
            ptx = f".version 7.8\n.target {target}\n.address_size 64\n.visible .entry k() {{ ret; }}\n"
            mod = _ok(cu.cuModuleLoadData(ptx.encode()))
            fn = _ok(cu.cuModuleGetFunction(mod, b"k"))
            assert _ok(cu.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_PTX_VERSION, fn)) == want
            major = _ok(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                                _ok(cu.cuDeviceGet(0))))
            assert _ok(cu.cuFuncGetAttribute(F.CU_FUNC_ATTRIBUTE_BINARY_VERSION, fn)) // 10 == major
            _ok(cu.cuModuleUnload(mod))
    finally:
        cu.cuCtxDestroy(ctx)

/* More of the Driver API from C: peers, virtual memory management (reserve, create, map, access,
 * use, unmap), stream queries and host functions, cuGetProcAddress, page-locking, libraries, and the
 * error codes for bad input. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define CHECK_CU(call) CHECK((call) == CUDA_SUCCESS)

static int host_calls = 0;
static void CUDAAPI host_fn(void *data) { host_calls += *(int *)data; }

static const char *PTX =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .global .align 4 .u32 marker = 42;\n"
    ".visible .entry nop()\n{\n  ret;\n}\n";

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CHECK_CU(cuInit(0));
    CHECK_CU(cuDeviceGet(&dev, 0));
    CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK_CU(cuCtxSetCurrent(ctx));
    int peer = -1;
    CHECK_CU(cuDeviceCanAccessPeer(&peer, dev, dev));
    CHECK(peer == 0);
    CHECK(cuDeviceCanAccessPeer(NULL, dev, dev) == CUDA_ERROR_INVALID_VALUE);
    unsigned version = 0;
    CHECK_CU(cuCtxGetApiVersion(ctx, &version));
    CHECK(version > 0);
    CHECK_CU(cuProfilerStart());
    CHECK_CU(cuProfilerStop());

    /* ---- virtual memory management */
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t gran = 0;
    CHECK_CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CHECK(gran > 0);
    size_t size = gran * 2;
    CUdeviceptr va = 0;
    CUmemGenericAllocationHandle handle = 0;
    CHECK_CU(cuMemAddressReserve(&va, size, 0, 0, 0));
    CHECK_CU(cuMemCreate(&handle, size, &prop, 0));
    CHECK_CU(cuMemMap(va, size, 0, handle, 0));
    CUmemAccessDesc access;
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK_CU(cuMemSetAccess(va, size, &access, 1));
    CHECK_CU(cuMemsetD32(va, 0x01020304u, size / 4));
    unsigned *host = (unsigned *)malloc(size);
    CHECK_CU(cuMemcpyDtoH(host, va, size));
    CHECK(host[0] == 0x01020304u && host[size / 4 - 1] == 0x01020304u);
    CUmemAllocationProp back;
    CHECK_CU(cuMemGetAllocationPropertiesFromHandle(&back, handle));
    CHECK(back.type == CU_MEM_ALLOCATION_TYPE_PINNED && back.location.id == dev);
    CHECK_CU(cuMemUnmap(va, size));
    CHECK_CU(cuMemRelease(handle));
    CHECK_CU(cuMemAddressFree(va, size));
    CHECK(cuMemCreate(&handle, size, NULL, 0) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemSetAccess(va, size, NULL, 1) == CUDA_ERROR_INVALID_VALUE);

    /* ---- streams: priority, ids, context, host functions */
    CUstream s;
    CHECK_CU(cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, 0));
    int priority = -1;
    unsigned long long id = 0;
    CUcontext sctx = NULL;
    CUdevice sdev = -1;
    CHECK_CU(cuStreamGetPriority(s, &priority));
    CHECK_CU(cuStreamGetId(s, &id));
    CHECK_CU(cuStreamGetCtx(s, &sctx));
    CHECK_CU(cuStreamGetDevice(s, &sdev));
    CHECK(priority == 0 && id != 0 && sctx == ctx && sdev == dev);
    int four = 4;
    CHECK_CU(cuLaunchHostFunc(s, host_fn, &four));
    CHECK_CU(cuStreamSynchronize(s));
    CHECK(host_calls == 4);
    CHECK(cuLaunchHostFunc(s, NULL, NULL) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuStreamGetPriority((CUstream)0x1234, &priority) != CUDA_SUCCESS);

    /* ---- cuGetProcAddress, page-locking, libraries */
    void *fn = NULL;
    CUdriverProcAddressQueryResult status;
    CHECK_CU(cuGetProcAddress("cuMemAlloc", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    CHECK(fn != NULL && status == CU_GET_PROC_ADDRESS_SUCCESS);
    char *buf = (char *)malloc(1 << 16);
    CHECK_CU(cuMemHostRegister(buf, 1 << 16, 0));
    CHECK_CU(cuMemsetD8((CUdeviceptr)buf, 7, 1 << 16));  /* registered memory is device-accessible */
    CHECK(buf[0] == 7 && buf[(1 << 16) - 1] == 7);
    CHECK_CU(cuMemHostUnregister(buf));
    CUlibrary lib;
    CUkernel k;
    CUfunction f;
    CUdeviceptr marker;
    size_t bytes = 0;
    CHECK_CU(cuLibraryLoadData(&lib, PTX, NULL, NULL, 0, NULL, NULL, 0));
    CHECK_CU(cuLibraryGetKernel(&k, lib, "nop"));
    CHECK_CU(cuKernelGetFunction(&f, k));
    CHECK_CU(cuLibraryGetGlobal(&marker, &bytes, lib, "marker"));
    unsigned value = 0;
    CHECK_CU(cuMemcpyDtoH(&value, marker, 4));
    CHECK(bytes == 4 && value == 42);
    CHECK_CU(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
    CHECK_CU(cuStreamSynchronize(s));
    CHECK_CU(cuLibraryUnload(lib));
    CHECK_CU(cuStreamDestroy(s));
    free(buf);
    free(host);
    CHECK_CU(cuDevicePrimaryCtxRelease(dev));
    return finish("driver_more");
}

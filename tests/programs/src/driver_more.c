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
    if (fn) { /* the pointer is the C function itself: call it */
        CUdeviceptr through_pointer = 0;
        CHECK_CU(((CUresult(*)(CUdeviceptr *, size_t))fn)(&through_pointer, 256));
        CHECK(through_pointer != 0);
        CHECK_CU(cuMemFree(through_pointer));
    }
    /* the ABI of the version asked for: cuCtxCreate's (pctx, flags, dev) form up to 11.3, the
     * CUctxCreateParams form from 12.5 (11.4's affinity form is not provided) */
    void *create_old = NULL, *create_new = NULL, *create_mid = (void *)1;
    CHECK_CU(cuGetProcAddress("cuCtxCreate", &create_old, 11000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    CHECK(create_old != NULL && status == CU_GET_PROC_ADDRESS_SUCCESS);
    CHECK_CU(cuGetProcAddress("cuCtxCreate", &create_new, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    CHECK(create_new == (void *)&cuCtxCreate && create_old != create_new);
    CHECK_CU(cuGetProcAddress("cuCtxCreate", &create_mid, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    CHECK(create_mid == NULL && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    CHECK_CU(cuGetProcAddress("cuNoSuchFunction", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    CHECK(fn == NULL && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    CHECK(cuGetProcAddress(NULL, &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status) == CUDA_ERROR_INVALID_VALUE);
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

    /* ---- a CUDA array: 2D copies in and out, its descriptor, a texture and a surface object on it */
    CUDA_ARRAY_DESCRIPTOR ad;
    memset(&ad, 0, sizeof ad);
    ad.Width = 16;
    ad.Height = 8;
    ad.Format = CU_AD_FORMAT_FLOAT;
    ad.NumChannels = 1;
    CUarray arr;
    CHECK_CU(cuArrayCreate(&arr, &ad));
    CUDA_ARRAY_DESCRIPTOR got;
    CHECK_CU(cuArrayGetDescriptor(&got, arr));
    CHECK(got.Width == 16 && got.Height == 8 && got.Format == CU_AD_FORMAT_FLOAT && got.NumChannels == 1);
    float img[8][16], out[8][16];
    for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 16; ++x) img[y][x] = (float)(y * 16 + x);
    CUDA_MEMCPY2D c2;
    memset(&c2, 0, sizeof c2);
    c2.srcMemoryType = CU_MEMORYTYPE_HOST;
    c2.srcHost = img;
    c2.srcPitch = sizeof img[0];
    c2.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c2.dstArray = arr;
    c2.WidthInBytes = sizeof img[0];
    c2.Height = 8;
    CHECK_CU(cuMemcpy2D(&c2));
    memset(out, 0, sizeof out);
    CHECK_CU(cuMemcpyAtoH(out, arr, 0, sizeof out));
    CHECK(out[0][0] == 0.0f && out[7][15] == 127.0f && out[3][5] == 53.0f);
    CUDA_RESOURCE_DESC rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = arr;
    CUDA_TEXTURE_DESC td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
    td.filterMode = CU_TR_FILTER_MODE_POINT;
    CUtexObject tex = 0;
    CHECK_CU(cuTexObjectCreate(&tex, &rd, &td, NULL));
    CHECK(tex != 0);
    CHECK_CU(cuTexObjectDestroy(tex));
    CUsurfObject surf = 0;
    CHECK(cuSurfObjectCreate(&surf, &rd) != CUDA_SUCCESS); /* surfaces need CUDA_ARRAY3D_SURFACE_LDST */
    CUDA_ARRAY3D_DESCRIPTOR ad3;
    memset(&ad3, 0, sizeof ad3);
    ad3.Width = 16;
    ad3.Height = 8;
    ad3.Format = CU_AD_FORMAT_FLOAT;
    ad3.NumChannels = 1;
    ad3.Flags = CUDA_ARRAY3D_SURFACE_LDST;
    CUarray surf_arr;
    CHECK_CU(cuArray3DCreate(&surf_arr, &ad3));
    rd.res.array.hArray = surf_arr;
    CHECK_CU(cuSurfObjectCreate(&surf, &rd));
    CHECK(surf != 0);
    CHECK_CU(cuSurfObjectDestroy(surf));
    CHECK_CU(cuArrayDestroy(surf_arr));
    CHECK(cuArrayCreate(&arr, NULL) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemcpy2D(NULL) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuTexObjectCreate(&tex, NULL, &td, NULL) == CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuArrayDestroy(arr));
    CHECK_CU(cuStreamDestroy(s));
    free(buf);
    free(host);
    CHECK_CU(cuDevicePrimaryCtxRelease(dev));
    return finish("driver_more");
}

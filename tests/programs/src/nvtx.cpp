// NVTX annotations compile, link and answer as NVTX does with no tool attached (push/pop report the
// nesting depth; a pop without a push is -1).
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCuda.h>
#include <nvtx3/nvToolsExtCudaRt.h>
#include <stdio.h>
#include "check.h"

int main() {
    CHECK(nvtxRangePushA("outer") == 0);
    CHECK(nvtxRangePushW(L"inner") == 1);
    nvtxEventAttributes_t attr = {};
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.colorType = NVTX_COLOR_ARGB;
    attr.color = 0xFF00FF00u;
    attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attr.message.ascii = "mark";
    nvtxMarkEx(&attr);
    CHECK(nvtxRangePushEx(&attr) == 2);
    nvtxRangeId_t id = nvtxRangeStartA("range");
    nvtxRangeEnd(id);
    nvtxDomainHandle_t domain = nvtxDomainCreateA("cumetal");
    nvtxDomainMarkEx(domain, &attr);
    nvtxDomainDestroy(domain);
    CHECK(nvtxRangePush("unsuffixed") == 3); /* nvtxRangePushA unless UNICODE is defined */
    CHECK(nvtxRangePop() == 3);
    nvtxMark("mark");
    nvtxNameOsThread(1, "main");
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream) == cudaSuccess);
    nvtxNameCudaStreamA(stream, "main stream"); /* naming CUDA objects: accepted, nothing to report to */
    nvtxNameCudaDeviceA(0, "device 0");
    nvtxNameCuStreamA((CUstream)stream, "as a driver stream");
    CHECK(cudaStreamDestroy(stream) == cudaSuccess);
    CHECK(nvtxRangePop() == 2);
    CHECK(nvtxRangePop() == 1);
    CHECK(nvtxRangePop() == 0);
    CHECK(nvtxRangePop() == -1);
    CHECK(sizeof(nvtxEventAttributes_t) == 48);  /* NVTX's v2 attribute layout */
    return finish("nvtx");
}

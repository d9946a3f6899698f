// cudaLaunchKernelEx (the C++ template and cudaLaunchKernelExC) with cluster and cooperative
// attributes, stream attributes, memory pools made from C structs, 3D peer copies, ids and counts.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstring>
#include "check.h"

namespace cg = cooperative_groups;

__global__ void ranks(unsigned *out, int base) {
    cg::cluster_group cluster = cg::this_cluster();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = base + cluster.block_rank() * 100 + threadIdx.x;
}

__global__ void grid_sum(int *data, int *total) {
    cg::grid_group grid = cg::this_grid();
    atomicAdd(total, data[grid.thread_rank()]);
    grid.sync();
    data[grid.thread_rank()] = *total;  // everyone sees the sum after the grid barrier
}

int main() {
    unsigned *d_out;
    CHECK_CUDA(cudaMalloc(&d_out, 256 * sizeof(unsigned)));
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 2; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(4); config.blockDim = dim3(64); config.attrs = attr; config.numAttrs = 1;
    CHECK_CUDA(cudaLaunchKernelEx(&config, ranks, d_out, 7));  // the typed template: int -> int
    unsigned h[256];
    CHECK_CUDA(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(h[0] == 7 && h[64 + 5] == 7 + 100 + 5 && h[128] == 7 && h[192 + 63] == 7 + 100 + 63);

    attr[0].val.clusterDim.x = 3;  // 4 blocks are not a multiple of 3
    CHECK(cudaLaunchKernelEx(&config, ranks, d_out, 7) != cudaSuccess);
    cudaGetLastError();

    int *d_data, *d_total, h_data[128];
    for (int i = 0; i < 128; i++) h_data[i] = i;
    CHECK_CUDA(cudaMalloc(&d_data, sizeof h_data));
    CHECK_CUDA(cudaMalloc(&d_total, sizeof(int)));
    CHECK_CUDA(cudaMemcpy(d_data, h_data, sizeof h_data, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(d_total, 0, sizeof(int)));
    attr[0].id = cudaLaunchAttributeCooperative;
    attr[0].val.cooperative = 1;
    config.gridDim = dim3(2);
    void *args[] = {&d_data, &d_total};
    CHECK_CUDA(cudaLaunchKernelExC(&config, (const void *)grid_sum, args));
    CHECK_CUDA(cudaMemcpy(h_data, d_data, sizeof h_data, cudaMemcpyDeviceToHost));
    CHECK(h_data[0] == 127 * 128 / 2 && h_data[127] == 127 * 128 / 2);

    // stream attributes round-trip
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreate(&s));
    cudaStreamAttrValue v;
    memset(&v, 0, sizeof v);
    v.accessPolicyWindow.base_ptr = d_data;
    v.accessPolicyWindow.num_bytes = 512;
    v.accessPolicyWindow.hitRatio = 0.5f;
    v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CHECK_CUDA(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
    cudaStreamAttrValue back;
    memset(&back, 0xff, sizeof back);
    CHECK_CUDA(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &back));
    CHECK(back.accessPolicyWindow.base_ptr == (void *)d_data && back.accessPolicyWindow.num_bytes == 512 &&
          back.accessPolicyWindow.hitRatio == 0.5f && back.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting);
    unsigned long long id = 0;
    CHECK_CUDA(cudaStreamGetId(s, &id));
    CHECK(id != 0);

    // a memory pool from a C struct, used by cudaMallocFromPoolAsync
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t pool;
    CHECK_CUDA(cudaMemPoolCreate(&pool, &props));
    void *p = NULL;
    CHECK_CUDA(cudaMallocFromPoolAsync(&p, 1024, pool, s));
    CHECK_CUDA(cudaFreeAsync(p, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK_CUDA(cudaMemPoolDestroy(pool));
    cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
    cudaMemPool_t def = NULL, cur = NULL;
    CHECK_CUDA(cudaMemGetDefaultMemPool(&def, &loc, cudaMemAllocationTypePinned));
    CHECK_CUDA(cudaMemGetMemPool(&cur, &loc, cudaMemAllocationTypePinned));
    CHECK(def != NULL && cur != NULL);

    // a 3D peer copy (one device: peer 0 -> 0)
    cudaMemcpy3DPeerParms pp;
    memset(&pp, 0, sizeof pp);
    int src[16], dst[16];
    for (int i = 0; i < 16; i++) src[i] = 3 * i;
    int *d_src;
    CHECK_CUDA(cudaMalloc(&d_src, sizeof src));
    CHECK_CUDA(cudaMemcpy(d_src, src, sizeof src, cudaMemcpyHostToDevice));
    pp.srcPtr = make_cudaPitchedPtr(d_src, 4 * sizeof(int), 4, 4);
    pp.dstPtr = make_cudaPitchedPtr(d_data, 4 * sizeof(int), 4, 4);
    pp.extent = make_cudaExtent(4 * sizeof(int), 4, 1);
    CHECK_CUDA(cudaMemcpy3DPeer(&pp));
    CHECK_CUDA(cudaMemcpy(dst, d_data, sizeof dst, cudaMemcpyDeviceToHost));
    CHECK(dst[15] == 45);

    size_t count = 0;
    CHECK_CUDA(cudaFuncGetParamCount((const void *)grid_sum, &count));
    CHECK(count == 2);
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    CHECK_CUDA(cudaThreadExchangeStreamCaptureMode(&mode));
    CHECK(mode == cudaStreamCaptureModeGlobal);
    return finish("launch_attributes");
}

// Image rotation and bilinear resize with a texture object (tex2D, linear filtering, normalized
// coordinates, border addressing) and a surface write, checked by the test against numpy.
// Writes the results as raw float32 files: rotated.bin (W x H) and resized.bin (W2 x H2).
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            std::printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

__global__ void rotate(float *out, cudaTextureObject_t tex, int w, int h, float theta) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float u = (float)x / (float)w - 0.5f, v = (float)y / (float)h - 0.5f;
    float tu = u * cosf(theta) - v * sinf(theta) + 0.5f;
    float tv = v * cosf(theta) + u * sinf(theta) + 0.5f;
    out[y * w + x] = tex2D<float>(tex, tu, tv);
}

__global__ void lod_probe(float *out, cudaTextureObject_t tex) {
    out[threadIdx.x] = tex2DLod<float>(tex, 0.5f, 0.5f, 0.5f * threadIdx.x);  // levels 0, 0.5, 1, 1.5
}

__global__ void resize(cudaSurfaceObject_t dst, cudaTextureObject_t src, int w2, int h2, float sx, float sy) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w2 || y >= h2) return;
    float4 c = tex2D<float4>(src, (x + 0.5f) * sx, (y + 0.5f) * sy);
    surf2Dwrite(c.x + c.y, dst, x * (int)sizeof(float), y);
}

int main(int argc, char **argv) {
    const int W = 24, H = 16, W2 = 37, H2 = 11;
    const char *dir = argc > 1 ? argv[1] : ".";
    float *img = (float *)std::malloc(W * H * sizeof(float));
    for (int i = 0; i < W * H; ++i) img[i] = (float)((i * 37) % 101) / 7.0f;

    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    CHECK(cudaMallocArray(&arr, &desc, W, H));
    CHECK(cudaMemcpy2DToArray(arr, 0, 0, img, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = arr;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeBorder;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 1;
    cudaTextureObject_t tex;
    CHECK(cudaCreateTextureObject(&tex, &res, &td, NULL));
    cudaTextureDesc back;
    CHECK(cudaGetTextureObjectTextureDesc(&back, tex));
    if (back.filterMode != cudaFilterModeLinear || back.normalizedCoords != 1) { std::printf("bad desc\n"); return 1; }

    float *d_out;
    CHECK(cudaMalloc(&d_out, W * H * sizeof(float)));
    dim3 block(8, 8), grid((W + 7) / 8, (H + 7) / 8);
    rotate<<<grid, block>>>(d_out, tex, W, H, 0.5f);
    CHECK(cudaGetLastError());
    float *rot = (float *)std::malloc(W * H * sizeof(float));
    CHECK(cudaMemcpy(rot, d_out, W * H * sizeof(float), cudaMemcpyDeviceToHost));

    // resize a two-channel (float2) image with clamp addressing into a surface
    cudaChannelFormatDesc d2 = cudaCreateChannelDesc<float2>();
    cudaArray_t src2, dst2;
    CHECK(cudaMallocArray(&src2, &d2, W, H));
    float *img2 = (float *)std::malloc(W * H * 2 * sizeof(float));
    for (int i = 0; i < W * H; ++i) { img2[2 * i] = img[i]; img2[2 * i + 1] = (float)(i % 13); }
    CHECK(cudaMemcpyToArray(src2, 0, 0, img2, W * H * 2 * sizeof(float), cudaMemcpyHostToDevice));
    cudaChannelFormatDesc d1 = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    CHECK(cudaMallocArray(&dst2, &d1, W2, H2, cudaArraySurfaceLoadStore));
    res.res.array.array = src2;
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.normalizedCoords = 0;
    cudaTextureObject_t tex2;
    CHECK(cudaCreateTextureObject(&tex2, &res, &td, NULL));
    cudaResourceDesc sres = {};
    sres.resType = cudaResourceTypeArray;
    sres.res.array.array = dst2;
    cudaSurfaceObject_t surf;
    CHECK(cudaCreateSurfaceObject(&surf, &sres));
    resize<<<dim3((W2 + 7) / 8, (H2 + 7) / 8), block>>>(surf, tex2, W2, H2, (float)W / W2, (float)H / H2);
    CHECK(cudaDeviceSynchronize());
    float *small = (float *)std::malloc(W2 * H2 * sizeof(float));
    CHECK(cudaMemcpy2DFromArray(small, W2 * sizeof(float), dst2, 0, 0, W2 * sizeof(float), H2,
                                cudaMemcpyDeviceToHost));
    cudaChannelFormatDesc got;
    cudaExtent ext;
    unsigned int flags;
    CHECK(cudaArrayGetInfo(&got, &ext, &flags, dst2));
    cudaChannelFormatDesc got2;
    CHECK(cudaGetChannelDesc(&got2, src2));
    if (got2.x != 32 || got2.y != 32 || got2.f != cudaChannelFormatKindFloat) { std::printf("bad channel desc\n"); return 1; }
    if (got.x != 32 || ext.width != (size_t)W2 || ext.height != (size_t)H2 || flags != cudaArraySurfaceLoadStore) {
        std::printf("bad array info\n");
        return 1;
    }

    // a mipmapped texture: level k holds the value k + 1; nearest-level point sampling
    cudaMipmappedArray_t mip;
    CHECK(cudaMallocMipmappedArray(&mip, &desc, make_cudaExtent(8, 8, 0), 2));
    for (unsigned k = 0; k < 2; ++k) {
        cudaArray_t level;
        CHECK(cudaGetMipmappedArrayLevel(&level, mip, k));
        float fill[64];
        for (int i = 0; i < 64; ++i) fill[i] = (float)(k + 1);
        int lw = 8 >> k;
        CHECK(cudaMemcpy2DToArray(level, 0, 0, fill, lw * sizeof(float), lw * sizeof(float), lw, cudaMemcpyHostToDevice));
    }
    cudaResourceDesc mres = {};
    mres.resType = cudaResourceTypeMipmappedArray;
    mres.res.mipmap.mipmap = mip;
    cudaTextureDesc mtd = {};
    mtd.normalizedCoords = 1;
    mtd.maxMipmapLevelClamp = 1.0f;
    cudaTextureObject_t mtex;
    CHECK(cudaCreateTextureObject(&mtex, &mres, &mtd, NULL));
    lod_probe<<<1, 4>>>(d_out, mtex);
    float probe[4];
    CHECK(cudaMemcpy(probe, d_out, sizeof probe, cudaMemcpyDeviceToHost));
    if (probe[0] != 1.0f || probe[1] != 2.0f || probe[2] != 2.0f || probe[3] != 2.0f) {
        std::printf("bad mip levels %g %g %g %g\n", probe[0], probe[1], probe[2], probe[3]);
        return 1;
    }
    CHECK(cudaDestroyTextureObject(mtex));
    CHECK(cudaFreeMipmappedArray(mip));

    char path[4096];
    std::snprintf(path, sizeof path, "%s/rotated.bin", dir);
    FILE *f = std::fopen(path, "wb");
    std::fwrite(rot, sizeof(float), W * H, f);
    std::fclose(f);
    std::snprintf(path, sizeof path, "%s/resized.bin", dir);
    f = std::fopen(path, "wb");
    std::fwrite(small, sizeof(float), W2 * H2, f);
    std::fclose(f);
    CHECK(cudaDestroySurfaceObject(surf));
    CHECK(cudaDestroyTextureObject(tex2));
    CHECK(cudaDestroyTextureObject(tex));
    CHECK(cudaFreeArray(src2));
    CHECK(cudaFreeArray(dst2));
    CHECK(cudaFreeArray(arr));
    CHECK(cudaFree(d_out));
    std::printf("PASS\n");
    return 0;
}

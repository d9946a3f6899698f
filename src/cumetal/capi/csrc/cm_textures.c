/* libcumetal: CUDA arrays, texture and surface objects of the Runtime API. Each function passes
 * its arguments to cumetal.capi.bridge_textures (through the bridge, as tex_<name>): pointers,
 * sizes and handles as unsigned 64-bit integers, structs by the address of the caller's struct
 * (a by-value cudaExtent is copied to the stack first). */
#include "cuda_runtime_api.h"

#include "cm_core.h"

#define CALL(name, fmt, ...) return (cudaError_t)cm_call("tex_" name, fmt, __VA_ARGS__)

CM_EXPORT struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f) {
    struct cudaChannelFormatDesc d;
    d.x = x;
    d.y = y;
    d.z = z;
    d.w = w;
    d.f = f;
    return d;
}
CM_EXPORT cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width,
                                      size_t height, unsigned int flags) {
    CALL("cudaMallocArray", "(KKKKI)", CM_P(array), CM_P(desc), (unsigned long long)width,
         (unsigned long long)height, flags);
}
CM_EXPORT cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                        struct cudaExtent extent, unsigned int flags) {
    CALL("cudaMalloc3DArray", "(KKKKKI)", CM_P(array), CM_P(desc), (unsigned long long)extent.width,
         (unsigned long long)extent.height, (unsigned long long)extent.depth, flags);
}
CM_EXPORT cudaError_t cudaFreeArray(cudaArray_t array) { CALL("cudaFreeArray", "(K)", CM_P(array)); }
CM_EXPORT cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
                                       unsigned int *flags, cudaArray_t array) {
    CALL("cudaArrayGetInfo", "(KKKK)", CM_P(desc), CM_P(extent), CM_P(flags), CM_P(array));
}
CM_EXPORT cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                          size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind) {
    CALL("cudaMemcpy2DToArray", "(KKKKKKKiKi)", CM_P(dst), (unsigned long long)wOffset, (unsigned long long)hOffset,
         CM_P(src), (unsigned long long)spitch, (unsigned long long)width, (unsigned long long)height, (int)kind,
         0ull, 1);
}
CM_EXPORT cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                               size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
                                               cudaStream_t stream) {
    CALL("cudaMemcpy2DToArray", "(KKKKKKKiKi)", CM_P(dst), (unsigned long long)wOffset, (unsigned long long)hOffset,
         CM_P(src), (unsigned long long)spitch, (unsigned long long)width, (unsigned long long)height, (int)kind,
         CM_P(stream), 0);
}
CM_EXPORT cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                            size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind) {
    CALL("cudaMemcpy2DFromArray", "(KKKKKKKiKi)", CM_P(dst), (unsigned long long)dpitch, CM_P(src),
         (unsigned long long)wOffset, (unsigned long long)hOffset, (unsigned long long)width,
         (unsigned long long)height, (int)kind, 0ull, 1);
}
CM_EXPORT cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                                 size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind,
                                                 cudaStream_t stream) {
    CALL("cudaMemcpy2DFromArray", "(KKKKKKKiKi)", CM_P(dst), (unsigned long long)dpitch, CM_P(src),
         (unsigned long long)wOffset, (unsigned long long)hOffset, (unsigned long long)width,
         (unsigned long long)height, (int)kind, CM_P(stream), 0);
}
CM_EXPORT cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                                        enum cudaMemcpyKind kind) {
    CALL("cudaMemcpyToArray", "(KKKKKiKi)", CM_P(dst), (unsigned long long)wOffset, (unsigned long long)hOffset,
         CM_P(src), (unsigned long long)count, (int)kind, 0ull, 1);
}
CM_EXPORT cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                             size_t count, enum cudaMemcpyKind kind, cudaStream_t stream) {
    CALL("cudaMemcpyToArray", "(KKKKKiKi)", CM_P(dst), (unsigned long long)wOffset, (unsigned long long)hOffset,
         CM_P(src), (unsigned long long)count, (int)kind, CM_P(stream), 0);
}
CM_EXPORT cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                          size_t count, enum cudaMemcpyKind kind) {
    CALL("cudaMemcpyFromArray", "(KKKKKiKi)", CM_P(dst), CM_P(src), (unsigned long long)wOffset,
         (unsigned long long)hOffset, (unsigned long long)count, (int)kind, 0ull, 1);
}
CM_EXPORT cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                               size_t count, enum cudaMemcpyKind kind, cudaStream_t stream) {
    CALL("cudaMemcpyFromArray", "(KKKKKiKi)", CM_P(dst), CM_P(src), (unsigned long long)wOffset,
         (unsigned long long)hOffset, (unsigned long long)count, (int)kind, CM_P(stream), 0);
}
CM_EXPORT cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject, const struct cudaResourceDesc *pResDesc,
                                              const struct cudaTextureDesc *pTexDesc,
                                              const struct cudaResourceViewDesc *pResViewDesc) {
    CALL("cudaCreateTextureObject", "(KKKK)", CM_P(pTexObject), CM_P(pResDesc), CM_P(pTexDesc), CM_P(pResViewDesc));
}
CM_EXPORT cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
    CALL("cudaDestroyTextureObject", "(K)", (unsigned long long)texObject);
}
CM_EXPORT cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                                       cudaTextureObject_t texObject) {
    CALL("cudaGetTextureObjectResourceDesc", "(KK)", CM_P(pResDesc), (unsigned long long)texObject);
}
CM_EXPORT cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc, cudaTextureObject_t texObject) {
    CALL("cudaGetTextureObjectTextureDesc", "(KK)", CM_P(pTexDesc), (unsigned long long)texObject);
}
CM_EXPORT cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject, const struct cudaResourceDesc *pResDesc) {
    CALL("cudaCreateSurfaceObject", "(KK)", CM_P(pSurfObject), CM_P(pResDesc));
}
CM_EXPORT cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject) {
    CALL("cudaDestroySurfaceObject", "(K)", (unsigned long long)surfObject);
}
CM_EXPORT cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                                       cudaSurfaceObject_t surfObject) {
    CALL("cudaGetSurfaceObjectResourceDesc", "(KK)", CM_P(pResDesc), (unsigned long long)surfObject);
}
CM_EXPORT cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array) {
    CALL("cudaGetChannelDesc", "(KK)", CM_P(desc), CM_P(array));
}
CM_EXPORT cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                               cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                               size_t width, size_t height, enum cudaMemcpyKind kind) {
    CALL("cudaMemcpy2DArrayToArray", "(KKKKKKKKi)", CM_P(dst), (unsigned long long)wOffsetDst,
         (unsigned long long)hOffsetDst, CM_P(src), (unsigned long long)wOffsetSrc, (unsigned long long)hOffsetSrc,
         (unsigned long long)width, (unsigned long long)height, (int)kind);
}
CM_EXPORT cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                             cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc, size_t count,
                                             enum cudaMemcpyKind kind) {
    CALL("cudaMemcpyArrayToArray", "(KKKKKKKi)", CM_P(dst), (unsigned long long)wOffsetDst,
         (unsigned long long)hOffsetDst, CM_P(src), (unsigned long long)wOffsetSrc, (unsigned long long)hOffsetSrc,
         (unsigned long long)count, (int)kind);
}
CM_EXPORT cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray,
                                               const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
                                               unsigned int numLevels, unsigned int flags) {
    CALL("cudaMallocMipmappedArray", "(KKKKKII)", CM_P(mipmappedArray), CM_P(desc), (unsigned long long)extent.width,
         (unsigned long long)extent.height, (unsigned long long)extent.depth, numLevels, flags);
}
CM_EXPORT cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *levelArray, cudaMipmappedArray_const_t mipmappedArray,
                                                 unsigned int level) {
    CALL("cudaGetMipmappedArrayLevel", "(KKI)", CM_P(levelArray), CM_P(mipmappedArray), level);
}
CM_EXPORT cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray) {
    CALL("cudaFreeMipmappedArray", "(K)", CM_P(mipmappedArray));
}

/* CuMetal clean-room CUDA headers: the Runtime API's CUDA arrays, texture and surface objects
 * (CUDA Runtime API documentation 13.x, "Memory Management", "Texture Object Management",
 * "Surface Object Management"), implemented by libcumetal (capi/csrc/cm_textures.c). Included by
 * cuda_runtime_api.h. */
#ifndef CUMETAL_TEXTURE_API_H
#define CUMETAL_TEXTURE_API_H
#include "texture_types.h"
#include "surface_types.h"

#if defined(__cplusplus)
#define __CM_TDV(v) = v
extern "C" {
#else
#define __CM_TDV(v)
#endif

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f);
cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width,
                            size_t height __CM_TDV(0), unsigned int flags __CM_TDV(0));
cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
                              unsigned int flags __CM_TDV(0));
cudaError_t cudaFreeArray(cudaArray_t array);
cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent, unsigned int *flags,
                             cudaArray_t array);
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                                size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                     size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
                                     cudaStream_t stream __CM_TDV(0));
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                  size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                       size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind,
                                       cudaStream_t stream __CM_TDV(0));
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                              enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                                   enum cudaMemcpyKind kind, cudaStream_t stream __CM_TDV(0));
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                     enum cudaMemcpyKind kind, cudaStream_t stream __CM_TDV(0));
cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray, const struct cudaChannelFormatDesc *desc,
                                     struct cudaExtent extent, unsigned int numLevels, unsigned int flags __CM_TDV(0));
cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *levelArray, cudaMipmappedArray_const_t mipmappedArray,
                                       unsigned int level);
cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray);
cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array);
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src,
                                     size_t wOffsetSrc, size_t hOffsetSrc, size_t width, size_t height,
                                     enum cudaMemcpyKind kind __CM_TDV(cudaMemcpyDeviceToDevice));
cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src,
                                   size_t wOffsetSrc, size_t hOffsetSrc, size_t count,
                                   enum cudaMemcpyKind kind __CM_TDV(cudaMemcpyDeviceToDevice));
cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject, const struct cudaResourceDesc *pResDesc,
                                    const struct cudaTextureDesc *pTexDesc,
                                    const struct cudaResourceViewDesc *pResViewDesc);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject);
cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc, cudaTextureObject_t texObject);
cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc, cudaTextureObject_t texObject);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject, const struct cudaResourceDesc *pResDesc);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject);
cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc, cudaSurfaceObject_t surfObject);

#if defined(__cplusplus)
}

/* cudaCreateChannelDesc<T>(): the channel description of a texel type (CUDA's template form) */
template <class T> struct __cm_channel;
#define __CM_CHANNEL(T, X, Y, Z, W, K)                                                                 \
    template <> struct __cm_channel<T> {                                                               \
        static struct cudaChannelFormatDesc get() { return cudaCreateChannelDesc(X, Y, Z, W, K); }     \
    };
#define __CM_CHANNELS(B, BITS, K)                                                                      \
    __CM_CHANNEL(B##1, BITS, 0, 0, 0, K)                                                               \
    __CM_CHANNEL(B##2, BITS, BITS, 0, 0, K) __CM_CHANNEL(B##4, BITS, BITS, BITS, BITS, K)
__CM_CHANNEL(char, 8, 0, 0, 0, ((char)-1 < 0) ? cudaChannelFormatKindSigned : cudaChannelFormatKindUnsigned)
__CM_CHANNEL(signed char, 8, 0, 0, 0, cudaChannelFormatKindSigned)
__CM_CHANNEL(unsigned char, 8, 0, 0, 0, cudaChannelFormatKindUnsigned)
__CM_CHANNEL(short, 16, 0, 0, 0, cudaChannelFormatKindSigned)
__CM_CHANNEL(unsigned short, 16, 0, 0, 0, cudaChannelFormatKindUnsigned)
__CM_CHANNEL(int, 32, 0, 0, 0, cudaChannelFormatKindSigned)
__CM_CHANNEL(unsigned int, 32, 0, 0, 0, cudaChannelFormatKindUnsigned)
__CM_CHANNEL(float, 32, 0, 0, 0, cudaChannelFormatKindFloat)
__CM_CHANNELS(char, 8, cudaChannelFormatKindSigned)
__CM_CHANNELS(uchar, 8, cudaChannelFormatKindUnsigned)
__CM_CHANNELS(short, 16, cudaChannelFormatKindSigned)
__CM_CHANNELS(ushort, 16, cudaChannelFormatKindUnsigned)
__CM_CHANNELS(int, 32, cudaChannelFormatKindSigned)
__CM_CHANNELS(uint, 32, cudaChannelFormatKindUnsigned)
__CM_CHANNELS(float, 32, cudaChannelFormatKindFloat)
#undef __CM_CHANNEL
#undef __CM_CHANNELS
template <class T> static inline struct cudaChannelFormatDesc cudaCreateChannelDesc(void) {
    return __cm_channel<T>::get();
}
#endif
#undef __CM_TDV

#endif /* CUMETAL_TEXTURE_API_H */

/* CuMetal clean-room CUDA headers: texture_types.h — the structs of CUDA arrays and texture objects
 * (CUDA Runtime API documentation, "Data types": cudaChannelFormatDesc, cudaResourceDesc,
 * cudaResourceViewDesc, cudaTextureDesc), laid out as CUDA 13's C ABI (the Python side,
 * cumetal/runtime/textures.py, uses the same layout). The enums come from driver_types.h. */
#ifndef CUMETAL_TEXTURE_TYPES_H
#define CUMETAL_TEXTURE_TYPES_H
#define __TEXTURE_TYPES_H__

#include <stddef.h>
#include "driver_types.h"

typedef const struct cudaMipmappedArray *cudaMipmappedArray_const_t;

struct cudaChannelFormatDesc {
    int x, y, z, w; /* bits per channel */
    enum cudaChannelFormatKind f;
};
typedef struct cudaChannelFormatDesc cudaChannelFormatDesc;

struct cudaResourceDesc {
    enum cudaResourceType resType;
    union {
        struct {
            cudaArray_t array;
        } array;
        struct {
            cudaMipmappedArray_t mipmap;
        } mipmap;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t sizeInBytes;
        } linear;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t width, height, pitchInBytes;
        } pitch2D;
        struct {
            int reserved[32];
        } reserved;
    } res;
    unsigned int flags;
};
typedef struct cudaResourceDesc cudaResourceDesc;

struct cudaResourceViewDesc {
    enum cudaResourceViewFormat format;
    size_t width, height, depth;
    unsigned int firstMipmapLevel, lastMipmapLevel, firstLayer, lastLayer;
    unsigned int reserved[16];
};

struct cudaTextureDesc {
    enum cudaTextureAddressMode addressMode[3];
    enum cudaTextureFilterMode filterMode;
    enum cudaTextureReadMode readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned int maxAnisotropy;
    enum cudaTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias;
    float minMipmapLevelClamp;
    float maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    int seamlessCubemap;
};
typedef struct cudaTextureDesc cudaTextureDesc;

CUMETAL_STATIC_ASSERT(sizeof(struct cudaChannelFormatDesc) == 20, "cudaChannelFormatDesc layout");
CUMETAL_STATIC_ASSERT(sizeof(struct cudaResourceDesc) == 144, "cudaResourceDesc layout");
CUMETAL_STATIC_ASSERT(sizeof(struct cudaTextureDesc) == 72, "cudaTextureDesc layout");

#endif /* CUMETAL_TEXTURE_TYPES_H */

/* CuMetal clean-room CUDA headers: C++ overloads with the unified-memory calls' CUDA 8-12 signatures
 * (a device ordinal, cudaCpuDeviceId for the host), which most published CUDA code still uses; CUDA 13
 * replaced them with cudaMemLocation forms. Each forwards to the 13.x call. */
#ifndef CUMETAL_HOST_MEMORY_LEGACY_H
#define CUMETAL_HOST_MEMORY_LEGACY_H

static inline struct cudaMemLocation __cm_location_of_device(int device) {
    struct cudaMemLocation loc;
    loc.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    loc.id = device == cudaCpuDeviceId ? 0 : device;
    return loc;
}

static inline cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice, int device) {
    return cudaMemAdvise(devPtr, count, advice, __cm_location_of_device(device));
}

static inline cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice,
                                               cudaStream_t stream = 0) {
    return cudaMemPrefetchAsync(devPtr, count, __cm_location_of_device(dstDevice), 0, stream);
}

#endif

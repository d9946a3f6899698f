/* CuMetal clean-room CUDA headers: nvcc's built-in atomic functions of CUDA 12.8 (CUDA C++
 * Programming Guide, "Built-in Atomic Functions"): GNU's __atomic builtins with a thread-scope
 * argument. They run here as the GNU builtins clang provides, whose memory orders have the same
 * numbers as __NV_ATOMIC_*; the scope is widened to the system (always correct: NVIDIA itself runs
 * the thread scope as the block's). __CUDACC_DEVICE_ATOMIC_BUILTINS__ stays undefined, so CCCL
 * keeps its own atomics. */
#ifndef CUMETAL_INTRIN_NV_ATOMIC_H
#define CUMETAL_INTRIN_NV_ATOMIC_H
#ifdef __cplusplus

enum { __NV_ATOMIC_RELAXED, __NV_ATOMIC_CONSUME, __NV_ATOMIC_ACQUIRE, __NV_ATOMIC_RELEASE, __NV_ATOMIC_ACQ_REL,
       __NV_ATOMIC_SEQ_CST };
enum { __NV_THREAD_SCOPE_THREAD, __NV_THREAD_SCOPE_BLOCK, __NV_THREAD_SCOPE_CLUSTER, __NV_THREAD_SCOPE_DEVICE,
       __NV_THREAD_SCOPE_SYSTEM };

#define __CM_NV_RMW(op)                                                                                   \
    template <typename T>                                                                                 \
    static __device__ __inline__ T __nv_atomic_fetch_##op(T *address, T val, int order,                   \
                                                          int scope = __NV_THREAD_SCOPE_SYSTEM) {         \
        (void)scope;                                                                                      \
        return __atomic_fetch_##op(address, val, order);                                                  \
    }                                                                                                     \
    template <typename T>                                                                                 \
    static __device__ __inline__ void __nv_atomic_##op(T *address, T val, int order,                      \
                                                       int scope = __NV_THREAD_SCOPE_SYSTEM) {            \
        (void)scope;                                                                                      \
        (void)__atomic_fetch_##op(address, val, order);                                                   \
    }
__CM_NV_RMW(add)
__CM_NV_RMW(sub)
__CM_NV_RMW(and)
__CM_NV_RMW(or)
__CM_NV_RMW(xor)
__CM_NV_RMW(min)
__CM_NV_RMW(max)
#undef __CM_NV_RMW

template <typename T>
static __device__ __inline__ T __nv_atomic_exchange_n(T *address, T val, int order, int scope = __NV_THREAD_SCOPE_SYSTEM) {
    (void)scope;
    return __atomic_exchange_n(address, val, order);
}
template <typename T>
static __device__ __inline__ void __nv_atomic_exchange(T *address, T *val, T *ret, int order,
                                                       int scope = __NV_THREAD_SCOPE_SYSTEM) {
    (void)scope;
    __atomic_exchange(address, val, ret, order);
}
template <typename T>
static __device__ __inline__ bool __nv_atomic_compare_exchange_n(T *address, T *expected, T desired, bool weak,
                                                                 int success_order, int failure_order,
                                                                 int scope = __NV_THREAD_SCOPE_SYSTEM) {
    (void)scope;
    return __atomic_compare_exchange_n(address, expected, desired, weak, success_order, failure_order);
}
template <typename T>
static __device__ __inline__ bool __nv_atomic_compare_exchange(T *address, T *expected, T *desired, bool weak,
                                                               int success_order, int failure_order,
                                                               int scope = __NV_THREAD_SCOPE_SYSTEM) {
    (void)scope;
    return __atomic_compare_exchange(address, expected, desired, weak, success_order, failure_order);
}
template <typename T>
static __device__ __inline__ T __nv_atomic_load_n(T *address, int order, int scope = __NV_THREAD_SCOPE_SYSTEM) {
    (void)scope;
    return __atomic_load_n(address, order);
}
template <typename T>
static __device__ __inline__ void __nv_atomic_load(T *address, T *ret, int order, int scope = __NV_THREAD_SCOPE_SYSTEM) {
    (void)scope;
    __atomic_load(address, ret, order);
}
template <typename T>
static __device__ __inline__ void __nv_atomic_store_n(T *address, T val, int order,
                                                      int scope = __NV_THREAD_SCOPE_SYSTEM) {
    (void)scope;
    __atomic_store_n(address, val, order);
}
template <typename T>
static __device__ __inline__ void __nv_atomic_store(T *address, T *val, int order, int scope = __NV_THREAD_SCOPE_SYSTEM) {
    (void)scope;
    __atomic_store(address, val, order);
}
static __device__ __inline__ void __nv_atomic_thread_fence(int order, int scope = __NV_THREAD_SCOPE_SYSTEM) {
    (void)scope;
    __atomic_thread_fence(order);
}

#endif /* __cplusplus */
#endif

/* CuMetal clean-room CUDA headers: global-memory loads and stores with cache hints (CUDA C++
 * Programming Guide, "Read-Only Data Cache Load Function", "Load Functions Using Cache Hints",
 * "Store Functions Using Cache Hints"): __ldg (ld.global.nc), __ldca, __ldcg, __ldcs, __ldlu,
 * __ldcv, __stwb, __stcg, __stcs, __stwt. Every 1/2/4/8/16-byte type is accepted (CUDA's scalar,
 * vector and half types); the value moves as raw bits. */
#ifndef CUMETAL_INTRIN_MEMORY_H
#define CUMETAL_INTRIN_MEMORY_H
#include "cumetal/qualifiers.h"

struct __cm_b128 {
    unsigned long long lo, hi;
};
template <int Size> struct __cm_mem;

#define __CM_LD1(H)                                                                                   \
    static __device__ __forceinline__ unsigned char ld_##H(const void *p) {                          \
        unsigned int r;                                                                               \
        asm volatile("ld.global." #H ".u8 %0, [%1];" : "=r"(r) : "l"(p) : "memory");                 \
        return (unsigned char)r;                                                                      \
    }
#define __CM_LDN(H, T, PTXT, C)                                                                       \
    static __device__ __forceinline__ T ld_##H(const void *p) {                                      \
        T r;                                                                                          \
        asm volatile("ld.global." #H "." PTXT " %0, [%1];" : "=" C(r) : "l"(p) : "memory");          \
        return r;                                                                                     \
    }
#define __CM_LD16(H)                                                                                  \
    static __device__ __forceinline__ __cm_b128 ld_##H(const void *p) {                              \
        __cm_b128 r;                                                                                  \
        asm volatile("ld.global." #H ".v2.b64 {%0, %1}, [%2];" : "=l"(r.lo), "=l"(r.hi) : "l"(p)      \
                     : "memory");                                                                     \
        return r;                                                                                     \
    }
#define __CM_ST1(H)                                                                                   \
    static __device__ __forceinline__ void st_##H(void *p, unsigned char v) {                        \
        asm volatile("st.global." #H ".u8 [%0], %1;" ::"l"(p), "r"((unsigned int)v) : "memory");      \
    }
#define __CM_STN(H, T, PTXT, C)                                                                       \
    static __device__ __forceinline__ void st_##H(void *p, T v) {                                    \
        asm volatile("st.global." #H "." PTXT " [%0], %1;" ::"l"(p), C(v) : "memory");               \
    }
#define __CM_ST16(H)                                                                                  \
    static __device__ __forceinline__ void st_##H(void *p, __cm_b128 v) {                            \
        asm volatile("st.global." #H ".v2.b64 [%0], {%1, %2};" ::"l"(p), "l"(v.lo), "l"(v.hi)         \
                     : "memory");                                                                     \
    }
#define __CM_ALL_HINTS(M, ...) M(nc __VA_ARGS__) M(ca __VA_ARGS__) M(cg __VA_ARGS__) M(cs __VA_ARGS__) \
    M(lu __VA_ARGS__) M(cv __VA_ARGS__)
#define __CM_ST_HINTS(M, ...) M(wb __VA_ARGS__) M(cg __VA_ARGS__) M(cs __VA_ARGS__) M(wt __VA_ARGS__)

template <> struct __cm_mem<1> {
    typedef unsigned char bits;
    __CM_ALL_HINTS(__CM_LD1)
    __CM_ST_HINTS(__CM_ST1)
};
template <> struct __cm_mem<2> {
    typedef unsigned short bits;
    __CM_ALL_HINTS(__CM_LDN, , unsigned short, "u16", "h")
    __CM_ST_HINTS(__CM_STN, , unsigned short, "u16", "h")
};
template <> struct __cm_mem<4> {
    typedef unsigned int bits;
    __CM_ALL_HINTS(__CM_LDN, , unsigned int, "b32", "r")
    __CM_ST_HINTS(__CM_STN, , unsigned int, "b32", "r")
};
template <> struct __cm_mem<8> {
    typedef unsigned long long bits;
    __CM_ALL_HINTS(__CM_LDN, , unsigned long long, "b64", "l")
    __CM_ST_HINTS(__CM_STN, , unsigned long long, "b64", "l")
};
template <> struct __cm_mem<16> {
    typedef __cm_b128 bits;
    __CM_ALL_HINTS(__CM_LD16)
    __CM_ST_HINTS(__CM_ST16)
};

#define __CM_LOAD_FN(NAME, H)                                                                         \
    template <typename T> static __device__ __forceinline__ T NAME(const T *ptr) {                  \
        static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 ||        \
                          sizeof(T) == 16,                                                            \
                      #NAME " loads 1, 2, 4, 8 or 16-byte types");                                   \
        return __builtin_bit_cast(T, __cm_mem<sizeof(T)>::ld_##H(ptr));                               \
    }
#define __CM_STORE_FN(NAME, H)                                                                        \
    template <typename T> static __device__ __forceinline__ void NAME(T *ptr, T value) {            \
        static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 ||        \
                          sizeof(T) == 16,                                                            \
                      #NAME " stores 1, 2, 4, 8 or 16-byte types");                                  \
        __cm_mem<sizeof(T)>::st_##H(ptr, __builtin_bit_cast(typename __cm_mem<sizeof(T)>::bits, value)); \
    }

__CM_LOAD_FN(__ldg, nc)
__CM_LOAD_FN(__ldca, ca)
__CM_LOAD_FN(__ldcg, cg)
__CM_LOAD_FN(__ldcs, cs)
__CM_LOAD_FN(__ldlu, lu)
__CM_LOAD_FN(__ldcv, cv)
__CM_STORE_FN(__stwb, wb)
__CM_STORE_FN(__stcg, cg)
__CM_STORE_FN(__stcs, cs)
__CM_STORE_FN(__stwt, wt)

#undef __CM_LD1
#undef __CM_LDN
#undef __CM_LD16
#undef __CM_ST1
#undef __CM_STN
#undef __CM_ST16
#undef __CM_ALL_HINTS
#undef __CM_ST_HINTS
#undef __CM_LOAD_FN
#undef __CM_STORE_FN

#endif /* CUMETAL_INTRIN_MEMORY_H */

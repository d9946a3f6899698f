/* CuMetal clean-room CUDA headers: time, sleep, trap and address-space functions (CUDA C++
 * Programming Guide, "Time Function", "Nanosleep Function", "Trap Function", "Breakpoint
 * Function", "Address Space Predicate Functions", "Address Space Conversion Functions"). */
#ifndef CUMETAL_INTRIN_MISC_H
#define CUMETAL_INTRIN_MISC_H
#include <stddef.h>
#include "cumetal/qualifiers.h"

/* %clock / %clock64: CuMetal returns monotonically increasing counters (docs/cpu-backend.md). */
#if __has_include(<time.h>)
#include <time.h>
#else
typedef long clock_t;
#endif
/* a device overload of the C library's clock() */
extern "C" __device__ __forceinline__ clock_t clock() { return (clock_t)__nvvm_read_ptx_sreg_clock(); }
__CM_DEV__ long long clock64() { return __nvvm_read_ptx_sreg_clock64(); }
__CM_DEV__ void __nanosleep(unsigned int ns) { __nvvm_nanosleep(ns); }
/* A profiler counter: no profiler on CuMetal, so nothing to count. */
__CM_DEV__ void __prof_trigger(int counter) { (void)counter; }
__CM_DEV__ void __trap() { __builtin_trap(); }
__CM_DEV__ void __brkpt() { asm volatile("brkpt;"); }

__CM_DEV__ unsigned int __isGlobal(const void *p) { return __nvvm_isspacep_global(p); }
__CM_DEV__ unsigned int __isShared(const void *p) { return __nvvm_isspacep_shared(p); }
__CM_DEV__ unsigned int __isConstant(const void *p) { return __nvvm_isspacep_const(p); }
__CM_DEV__ unsigned int __isLocal(const void *p) { return __nvvm_isspacep_local(p); }

__CM_DEV__ size_t __cvta_generic_to_global(const void *p) {
    size_t r;
    asm("cvta.to.global.u64 %0, %1;" : "=l"(r) : "l"(p));
    return r;
}
__CM_DEV__ size_t __cvta_generic_to_shared(const void *p) {
    size_t r;
    asm("cvta.to.shared.u64 %0, %1;" : "=l"(r) : "l"(p));
    return r;
}
__CM_DEV__ size_t __cvta_generic_to_constant(const void *p) {
    size_t r;
    asm("cvta.to.const.u64 %0, %1;" : "=l"(r) : "l"(p));
    return r;
}
__CM_DEV__ size_t __cvta_generic_to_local(const void *p) {
    size_t r;
    asm("cvta.to.local.u64 %0, %1;" : "=l"(r) : "l"(p));
    return r;
}
__CM_DEV__ void *__cvta_global_to_generic(size_t a) {
    void *r;
    asm("cvta.global.u64 %0, %1;" : "=l"(r) : "l"(a));
    return r;
}
__CM_DEV__ void *__cvta_shared_to_generic(size_t a) {
    void *r;
    asm("cvta.shared.u64 %0, %1;" : "=l"(r) : "l"(a));
    return r;
}
__CM_DEV__ void *__cvta_constant_to_generic(size_t a) {
    void *r;
    asm("cvta.const.u64 %0, %1;" : "=l"(r) : "l"(a));
    return r;
}
__CM_DEV__ void *__cvta_local_to_generic(size_t a) {
    void *r;
    asm("cvta.local.u64 %0, %1;" : "=l"(r) : "l"(a));
    return r;
}

#endif /* CUMETAL_INTRIN_MISC_H */

/* CuMetal clean-room CUDA headers: the C library functions CUDA allows in device code
 * (CUDA C++ Programming Guide, "Formatted Output", "Assertion", "Dynamic Global Memory
 * Allocation and Operations"): printf, assert, malloc/free, operator new/delete, memcpy/memset.
 *
 * printf: clang lowers a device call of the printf builtin to vprintf(format, argument buffer),
 * which CuMetal's PTX pipeline executes.
 * assert: nvcc calls __assertfail(), which prints
 *   "<file>:<line>: <function>: block: [bx,by,bz], thread: [tx,ty,tz] Assertion `<expr>` failed."
 * and ends the kernel with cudaErrorAssert. CuMetal's PTX lowering turns a __assertfail call into
 * a fault of kind 'assert' (CUDA_ERROR_ASSERT / cudaErrorAssert) but does not print the message,
 * so the device __assert_fail/__assert_rtn below print it with printf, then call __assertfail.
 * malloc/free/new/delete: declared as in CUDA; the cpu backend runs them on a device heap of
 * cudaLimitMallocHeapSize bytes (8 MiB by default); the other backends refuse such a kernel at launch. */
#ifndef CUMETAL_DEVICE_STDLIB_H
#define CUMETAL_DEVICE_STDLIB_H

#include <stddef.h>
#include "cumetal/qualifiers.h"

/* Like nvcc, make the host C library's printf/malloc/memcpy/assert available without includes. */
#if __has_include(<stdio.h>)
#include <stdio.h>
#endif
#if __has_include(<stdlib.h>)
#include <stdlib.h>
#endif
#if __has_include(<string.h>)
#include <string.h>
#endif
#if __has_include(<assert.h>)
#include <assert.h>
#endif

/* Device overloads of the C library functions (a __device__ function may overload a host one
 * of the same signature). clang keeps the printf/malloc builtin meaning for the __device__
 * declarations: device printf becomes vprintf(format, packed arguments). */
extern "C" {
__device__ int printf(const char *format, ...);
__device__ void *malloc(size_t size);
__device__ void free(void *ptr);
__device__ __forceinline__ void *memcpy(void *dst, const void *src, size_t n) { return __builtin_memcpy(dst, src, n); }
__device__ __forceinline__ void *memset(void *dst, int value, size_t n) { return __builtin_memset(dst, value, n); }
}

extern "C" __device__ void __assertfail(const char *message, const char *file, unsigned int line,
                                        const char *function, size_t char_size);

/* CUDA's failed-assertion report, then the end of the kernel. */
static __device__ __attribute__((noinline)) __attribute__((noreturn)) void
__cumetal_assert_fail(const char *message, const char *file, unsigned int line, const char *function) {
    printf("%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file, line, function,
           __nvvm_read_ptx_sreg_ctaid_x(), __nvvm_read_ptx_sreg_ctaid_y(), __nvvm_read_ptx_sreg_ctaid_z(),
           __nvvm_read_ptx_sreg_tid_x(), __nvvm_read_ptx_sreg_tid_y(), __nvvm_read_ptx_sreg_tid_z(), message);
    __assertfail(message, file, line, function, 1);
    __builtin_trap();
}

/* The host C library's assert() calls __assert_fail (glibc, musl) or __assert_rtn (macOS);
 * these device overloads report the failure the CUDA way. */
extern "C" __device__ __forceinline__ void __assert_fail(const char *message, const char *file, unsigned int line,
                                                        const char *function) {
    __cumetal_assert_fail(message, file, line, function);
}
extern "C" __device__ __forceinline__ void __assert_rtn(const char *function, const char *file, int line,
                                                       const char *message) {
    __cumetal_assert_fail(message, file, (unsigned int)line, function);
}

/* Device-side allocation: CUDA's device operator new/delete use the device heap (malloc/free).
 * Device-only replacements must be inline in a header (clang warns about that for host code). */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Winline-new-delete"
__device__ inline void *operator new(size_t size) { return malloc(size); }
__device__ inline void *operator new[](size_t size) { return malloc(size); }
__device__ inline void operator delete(void *ptr) noexcept { free(ptr); }
__device__ inline void operator delete[](void *ptr) noexcept { free(ptr); }
#if __cplusplus >= 201402L
__device__ inline void operator delete(void *ptr, size_t) noexcept { free(ptr); }
__device__ inline void operator delete[](void *ptr, size_t) noexcept { free(ptr); }
#endif
/* placement new in device code (the host <new> declares its own) */
__device__ inline void *operator new(size_t, void *where) noexcept { return where; }
__device__ inline void *operator new[](size_t, void *where) noexcept { return where; }
/* and the matching placement delete, which a placement new-expression of a class type names (Thrust) */
__device__ inline void operator delete(void *, void *) noexcept {}
__device__ inline void operator delete[](void *, void *) noexcept {}
#pragma clang diagnostic pop

#endif /* CUMETAL_DEVICE_STDLIB_H */

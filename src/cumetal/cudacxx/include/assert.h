/* CuMetal clean-room CUDA headers: <assert.h> for device code. No include guard: <assert.h> is read
 * again after each change of NDEBUG (C11 7.2). The C library's own header comes first; in device
 * code assert() then names the function as nvcc's does ("void ns::inner(int)": the
 * __PRETTY_FUNCTION__ form, where musl and macOS give the bare name), and its failure goes to the
 * device __assert_fail of cumetal/device_stdlib.h (CUDA's message, then cudaErrorAssert). */
#if __has_include_next(<assert.h>)
#include_next <assert.h>
#endif
#if defined(__CUDA_ARCH__) && defined(__cplusplus)
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : __assert_fail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__))
#endif
#endif

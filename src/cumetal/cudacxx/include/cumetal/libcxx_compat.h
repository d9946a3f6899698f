/* CuMetal clean-room CUDA headers: libc++ before C++20 made SFINAE-friendly where CCCL probes it.
 *
 * CuMetal compiles every host side against libc++ (the ziglang wheel's), in C++17 by default as
 * nvcc does. Before C++20, libc++'s std::iterator_traits<T*> is not constrained to object types,
 * so merely naming std::iterator_traits<void*> is a hard error ("cannot form a reference to
 * 'void'"). CCCL 3's cuda::std iterator concepts ask, on libc++, whether std::iterator_traits<I>
 * is the primary template, and overload resolution of CUB's two-phase calls
 * (cub::DeviceReduce::ArgMin/ArgMax(d_temp_storage, temp_storage_bytes, ...)) substitutes the
 * void* temporary storage as an iterator; with libstdc++ (nvcc's usual host library) or from C++20
 * the probe is a substitution failure. Here the void pointers get what C++20 libc++ gives them:
 * the primary template's empty traits. Nothing valid used these specializations before (they did
 * not compile). */
#ifndef CUMETAL_LIBCXX_COMPAT_H
#define CUMETAL_LIBCXX_COMPAT_H
#if defined(__cplusplus) && __cplusplus < 202002L
#include <stddef.h>
#if defined(_LIBCPP_VERSION) && defined(_LIBCPP_BEGIN_NAMESPACE_STD)
_LIBCPP_BEGIN_NAMESPACE_STD
template <class _Iter>
struct iterator_traits;
template <>
struct iterator_traits<void *> { using __primary_template = iterator_traits; };
template <>
struct iterator_traits<const void *> { using __primary_template = iterator_traits; };
template <>
struct iterator_traits<volatile void *> { using __primary_template = iterator_traits; };
template <>
struct iterator_traits<const volatile void *> { using __primary_template = iterator_traits; };
_LIBCPP_END_NAMESPACE_STD
#endif
#endif
#endif /* CUMETAL_LIBCXX_COMPAT_H */

/* CuMetal: the device pass parses the bundled musl headers, where int64_t is `long`; on macOS the
 * program's host compile has Darwin's `long long`. Kernels templated on 64-bit <cstdint> types then
 * had other names on the two sides (and explicit instantiations for int64_t and intmax_t collided),
 * so on Darwin hosts the 64-bit exact-width types are declared here first, as Darwin declares them;
 * musl's alltypes.h (no include guard, one block per __NEED_ type) then skips them. */
#if defined(__NEED_int64_t) && !defined(__DEFINED_int64_t)
typedef signed long long int64_t;
#define __DEFINED_int64_t
#endif
#if defined(__NEED_uint64_t) && !defined(__DEFINED_uint64_t)
typedef unsigned long long uint64_t;
#define __DEFINED_uint64_t
#endif
#if defined(__NEED_u_int64_t) && !defined(__DEFINED_u_int64_t)
typedef unsigned long long u_int64_t;
#define __DEFINED_u_int64_t
#endif
#include_next <bits/alltypes.h>

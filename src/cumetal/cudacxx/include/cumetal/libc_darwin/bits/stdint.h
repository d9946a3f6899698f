/* CuMetal: Darwin's fast 16/32-bit types are the exact-width ones (musl makes both 32-bit), so that
 * kernels templated on them have the names the macOS host compile gives them. */
typedef int16_t int_fast16_t;
typedef int32_t int_fast32_t;
typedef uint16_t uint_fast16_t;
typedef uint32_t uint_fast32_t;

#define INT_FAST16_MIN  INT16_MIN
#define INT_FAST32_MIN  INT32_MIN

#define INT_FAST16_MAX  INT16_MAX
#define INT_FAST32_MAX  INT32_MAX

#define UINT_FAST16_MAX UINT16_MAX
#define UINT_FAST32_MAX UINT32_MAX

#include "../../stdint_lp64_limits.h"

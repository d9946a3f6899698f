/* CuMetal: the device pass parses the bundled musl <stdint.h>, whose <bits/stdint.h> makes
 * int_fast16_t/int_fast32_t 32-bit; on a glibc host (Linux) the program's host compile makes them
 * long. Kernels templated on them (cuda::std::philox4x32's uint_fast32_t) then had other names on
 * the two sides, and structs holding them other layouts: on glibc hosts this file replaces musl's
 * (toolchain.bundled_stdlib_args puts its directory first), so both sides agree. */
typedef long int_fast16_t;
typedef long int_fast32_t;
typedef unsigned long uint_fast16_t;
typedef unsigned long uint_fast32_t;

#define INT_FAST16_MIN  INT64_MIN
#define INT_FAST32_MIN  INT64_MIN

#define INT_FAST16_MAX  INT64_MAX
#define INT_FAST32_MAX  INT64_MAX

#define UINT_FAST16_MAX UINT64_MAX
#define UINT_FAST32_MAX UINT64_MAX

#include "../../stdint_lp64_limits.h"

/* CuMetal: on Darwin hosts INT64_C/UINT64_C make `long long` literals, as Darwin's <stdint.h> does
 * (musl's make `long`), so a kernel template deduced from one gets the host's name. */
#include_next <stdint.h>
#undef INT64_C
#undef UINT64_C
#define INT64_C(c) c ## LL
#define UINT64_C(c) c ## ULL

/* CuMetal: glibc's <stdlib.h> includes <sys/types.h> (unless a strict standard mode is asked for),
 * so programs built on Linux use `uint`, `ushort`, `ulong` and `u_int` after including only
 * <stdlib.h> or <cstdlib>; musl's does not. On glibc hosts the device pass gets the same. */
#include_next <stdlib.h>
#if defined(_GNU_SOURCE) || defined(_BSD_SOURCE) || defined(_DEFAULT_SOURCE)
#include <sys/types.h>
#endif

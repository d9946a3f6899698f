/* CuMetal: the pointer-sized limits of musl's x86_64 <bits/stdint.h>, which the host-libc overlays
 * (libc_glibc/, libc_darwin/) replace along with the fast types: LP64 on every host. */
#define INTPTR_MIN      INT64_MIN
#define INTPTR_MAX      INT64_MAX
#define UINTPTR_MAX     UINT64_MAX
#define PTRDIFF_MIN     INT64_MIN
#define PTRDIFF_MAX     INT64_MAX
#define SIZE_MAX        UINT64_MAX

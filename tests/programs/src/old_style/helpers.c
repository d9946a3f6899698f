/* Pre-C99 C as old CUDA programs have it: an implicit int return type and a call of an undeclared
 * function (GCC before 14 warns, clang 16+ errors unless told otherwise; cumetalc warns). */
#include <stdlib.h>

static total(int *v, int n) {
    int s = 0, i;
    for (i = 0; i < n; ++i) s += v[i];
    return s;
}

int checksum(int *v, int n) {
    return abs(total(v, n)) + (int)strlen("") ;
}

/* Shared by the C ABI test programs: CHECK(cond) records a failure with its line; finish() prints
 * PASS or FAIL (with the count) and gives the exit code. */
#pragma once
#include <stdio.h>
static int g_failures = 0;
#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond)) {                                                              \
            ++g_failures;                                                           \
            printf("check failed at %s:%d: %s\n", __FILE__, __LINE__, #cond);       \
        }                                                                           \
    } while (0)
#define CHECK_CUDA(call) CHECK((call) == cudaSuccess)
static inline int finish(const char *name) {
    printf("%s: %s", name, g_failures ? "FAIL" : "PASS");
    if (g_failures) printf(" (%d checks failed)", g_failures);
    printf("\n");
    return g_failures ? 1 : 0;
}

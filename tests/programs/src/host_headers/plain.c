/* cublas_v2.h from C: the handle API compiles and links without C++ (no __half in C). */
#include <cublas_v2.h>

int plain_c_cublas_handle(void) {
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS)
        return 1;
    return cublasDestroy(handle) == CUBLAS_STATUS_SUCCESS ? 0 : 2;
}

// The version the headers claim equals the version the API reports at run time (both come from
// one table: cumetal.runtime.device.VERSION / cumetal.driver.device.DRIVER_VERSION, written into
// cumetal/host_version.h by python -m cumetal.capi.gen_headers).
#include <cuda.h>
#include "check.h"

int main() {
    int runtime = 0, driver = 0;
    CHECK_CUDA(cudaRuntimeGetVersion(&runtime));
    CHECK_CUDA(cudaDriverGetVersion(&driver));
    printf("CUDART_VERSION %d runtime %d CUDA_VERSION %d driver %d nvcc %d.%d\n", CUDART_VERSION, runtime,
           CUDA_VERSION, driver, __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__);
    CHECK(runtime == CUDART_VERSION);
    CHECK(driver == CUDA_VERSION);
    CHECK(__CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10 == runtime);
#if !defined(__CUDACC_VER_BUILD__)
    CHECK(!"__CUDACC_VER_BUILD__ is not defined");
#endif
    return finish("versions");
}

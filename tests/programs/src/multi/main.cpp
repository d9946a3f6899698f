// A plain C++ translation unit that uses the runtime API directly and a .cu's host function.
#include <cuda_runtime_api.h>
#include <vector>
#include "../check.h"
#include "kernels.h"

int main() {
    std::vector<int> v(1000);
    for (int i = 0; i < 1000; i++) v[i] = i;
    CHECK(run_axpb(v.data(), 1000, 3, 5) == 0);
    for (int i = 0; i < 1000; i++) CHECK(v[i] == 3 * i + 5);
#ifndef __CUDA_ARCH_LIST__
#error "__CUDA_ARCH_LIST__ is not defined in a .cpp of a CUDA program"
#endif
    CHECK(cu_arch_list() == __CUDA_ARCH_LIST__);
    int count = 0;
    CHECK(cudaGetDeviceCount(&count) == cudaSuccess && count >= 1);
    return finish("multi_file");
}

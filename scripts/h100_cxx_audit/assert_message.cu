// What a failed device assert prints under nvcc (function name form), and the error it leaves.
#include <cassert>
#include <cstdio>
template <typename T> struct Box { __device__ static void check(T v) { assert(v < 3 && "v too big"); } };
__global__ void plain(int v) { assert(v < 3); }
__global__ void templated(float v) { Box<float>::check(v); }
namespace ns { __device__ void inner(int v) { assert(v == 0); } }
__global__ void nested(int v) { ns::inner(v); }
int main(int argc, char **argv) {
    int which = argc > 1 ? argv[1][0] - '0' : 0;
    if (which == 0) plain<<<1, 2>>>(5);
    if (which == 1) templated<<<1, 1>>>(5.0f);
    if (which == 2) nested<<<1, 1>>>(1);
    cudaError_t e = cudaDeviceSynchronize();
    printf("-> %s\n", cudaGetErrorName(e));
    return 0;
}

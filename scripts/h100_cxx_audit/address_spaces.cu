// __isGridConstant / __isGlobal on a scalar and a struct __grid_constant__ parameter, a global and a
// local address (CuMetal: clang copies a scalar parameter whose address is taken to local memory).
#include <cstdio>
struct P { int v[8]; };
__global__ void k(unsigned *o, const int *g, __grid_constant__ const int s, __grid_constant__ const P p) {
    int l = s;
    o[0] = __isGridConstant(&s); o[1] = __isGridConstant(&p.v[3]); o[2] = __isGridConstant(g);
    o[3] = __isGridConstant(&l); o[4] = __isGlobal(&p.v[3]); o[5] = __isGlobal(g);
}
int main() {
    unsigned *o; int *g; cudaMallocManaged(&o, 64); cudaMalloc(&g, 64);
    k<<<1, 1>>>(o, g, 3, P{});
    cudaDeviceSynchronize();
    printf("isGridConstant(scalar param, struct param, global, local) = %u %u %u %u; isGlobal(param, global) = %u %u\n",
           o[0], o[1], o[2], o[3], o[4], o[5]);
    return 0;
}

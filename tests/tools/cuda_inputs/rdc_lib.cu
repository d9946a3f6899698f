__device__ int lib_bias = 1000;
__device__ int lib_transform(int v) { return v * v - 3 * v; }

// The other half of the -rdc program (main.cu).
__device__ int g_bias = 7;
__device__ int twice(int x) { return 2 * x; }

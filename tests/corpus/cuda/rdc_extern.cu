// corpus: rdc_only
// Separate compilation (-rdc=true): calls an extern __device__ function and reads an extern __device__
// variable defined in another translation unit; exports its own device function and variable.
extern __device__ float external_scale(float x, int k);
extern __device__ int external_counter;
__device__ float exported_table[64];

__device__ float exported_helper(float x) { return x * exported_table[(int)x & 63]; }

__global__ void uses_externals(float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = external_scale(exported_helper(data[i]), i);
  if (i == 0) atomicAdd(&external_counter, 1);
}

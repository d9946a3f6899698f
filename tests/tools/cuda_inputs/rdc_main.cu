// -rdc=true: the kernel calls a device function and reads a device variable of rdc_lib.cu.
extern __device__ int lib_bias;
__device__ int lib_transform(int v);
extern "C" __global__ void use_lib(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = lib_transform(in[i]) + lib_bias;
}

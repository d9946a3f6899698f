// Vector addition: the CuMetal quick-start kernel.
// PTX made with: nvcc -ptx -arch=sm_80 examples/vector_add.cu -o examples/vector_add.ptx
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

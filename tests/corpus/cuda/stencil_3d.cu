// 3D thread indexing (threadIdx/blockIdx/blockDim/gridDim .x/.y/.z), 7-point stencil.
__global__ void stencil7(const float *in, float *out, int nx, int ny, int nz, float c0, float c1) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t sxy = (size_t)nx * ny;
  size_t i = z * sxy + y * nx + x;
  out[i] = c0 * in[i] + c1 * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + in[i - sxy] + in[i + sxy]);
}

__global__ void linear_id_3d(unsigned *ids) {
  unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned per_block = blockDim.x * blockDim.y * blockDim.z;
  ids[block * per_block + thread] = (blockIdx.z << 20) | (threadIdx.z << 10) | threadIdx.x;
}

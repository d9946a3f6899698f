// Functional tests: 1D / 2D / 3D grids and blocks.
extern "C" __global__ void index3d(unsigned *out) {
  unsigned bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
  unsigned tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  unsigned block = bx + gridDim.x * (by + gridDim.y * bz);
  unsigned thread = tx + blockDim.x * (ty + blockDim.y * tz);
  unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;
  unsigned g = block * nthreads + thread;
  out[4 * g + 0] = tx | (ty << 10) | (tz << 20);
  out[4 * g + 1] = bx | (by << 10) | (bz << 20);
  out[4 * g + 2] = blockDim.x | (blockDim.y << 10) | (blockDim.z << 20);
  out[4 * g + 3] = gridDim.x | (gridDim.y << 10) | (gridDim.z << 20);
}
extern "C" __global__ void transpose2d(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[x * h + y] = in[y * w + x];
}

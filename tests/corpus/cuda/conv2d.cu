// 2D convolution with the filter in constant memory and a shared-memory halo tile.
#define R 2
#define TW 16
__constant__ float filt[(2 * R + 1) * (2 * R + 1)];
__global__ void conv2d(const float *in, float *out, int w, int h) {
  __shared__ float tile[TW + 2 * R][TW + 2 * R];
  int x = blockIdx.x * TW + threadIdx.x, y = blockIdx.y * TW + threadIdx.y;
  for (int dy = threadIdx.y; dy < TW + 2 * R; dy += TW)
    for (int dx = threadIdx.x; dx < TW + 2 * R; dx += TW) {
      int gx = min(max((int)(blockIdx.x * TW) + dx - R, 0), w - 1);
      int gy = min(max((int)(blockIdx.y * TW) + dy - R, 0), h - 1);
      tile[dy][dx] = in[gy * w + gx];
    }
  __syncthreads();
  if (x >= w || y >= h) return;
  float acc = 0.f;
#pragma unroll
  for (int i = -R; i <= R; ++i)
#pragma unroll
    for (int j = -R; j <= R; ++j) acc += filt[(i + R) * (2 * R + 1) + j + R] * tile[threadIdx.y + R + i][threadIdx.x + R + j];
  out[y * w + x] = acc;
}

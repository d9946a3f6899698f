// Stream-ordered allocation (default pool, attributes), stream capture into a graph, graph launch.
#include <cstdio>
__global__ void inc(int *p) { p[threadIdx.x] += 1; }
int main() {
  cudaStream_t s; cudaStreamCreate(&s);
  cudaMemPool_t pool; int ok = cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess;
  unsigned long long thr = 1 << 20; ok &= cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr) == cudaSuccess;
  unsigned long long got = 0; ok &= cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &got) == cudaSuccess && got == thr;
  int *d = nullptr; ok &= cudaMallocAsync((void**)&d, 32 * sizeof(int), s) == cudaSuccess;
  ok &= cudaMemsetAsync(d, 0, 32 * sizeof(int), s) == cudaSuccess;
  cudaGraph_t g; cudaGraphExec_t ge;
  ok &= cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess;
  enum cudaStreamCaptureStatus st; ok &= cudaStreamIsCapturing(s, &st) == cudaSuccess && st == cudaStreamCaptureStatusActive;
  inc<<<1, 32, 0, s>>>(d); inc<<<1, 32, 0, s>>>(d);
  ok &= cudaStreamEndCapture(s, &g) == cudaSuccess;
  ok &= cudaGraphInstantiate(&ge, g, 0) == cudaSuccess;
  for (int i = 0; i < 3; i++) ok &= cudaGraphLaunch(ge, s) == cudaSuccess;
  int h[32]; ok &= cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s) == cudaSuccess;
  ok &= cudaStreamSynchronize(s) == cudaSuccess && h[0] == 6 && h[31] == 6;
  ok &= cudaFreeAsync(d, s) == cudaSuccess && cudaGraphExecDestroy(ge) == cudaSuccess && cudaGraphDestroy(g) == cudaSuccess;
  printf("graphs_pools: %s h0=%d\n", ok ? "PASS" : "FAIL", h[0]);
  return !ok;
}

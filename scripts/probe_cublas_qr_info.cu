// Probe, run on the NVIDIA machine (H100, CUDA 13's cuBLAS): cublasSgeqrfBatched's and
// cublasSgelsBatched's status and host info for invalid arguments, devInfoArray, and one full-rank
// result of each. tests/libs/test_cublas_qr.py holds the answers. Build and run there:
// nvcc -arch=sm_90 probe_cublas_qr_info.cu -lcublas && ./a.out     Recorded 2026-11-25:
//   geqrf: ok 0/0 | m=-1 7/-1 | n=-1 7/-2 | lda=2 7/-4 | batch=-1 7/-7 | m<n 0/0
//   gels (status/info/devInfo, 777 = untouched): ok 0/0/0 | trans=T 15/0/777 | m=-1 7/-1/777 |
//   n=-1 7/-3/777 | nrhs=-1 7/-2/777 | m<n 15/0/777 | lda=2 7/-5/777 | ldc=2 7/-7/777 | batch=-1 7/-8/777
//   gels full-rank: status 0 info 0 devInfo 0, C = 0.800000 2.300000 -0.541202 0.084262
//   geqrf full-rank: A = -2 0.333333 0.333333 0.333333 -3 2.236068 -0.447214 -0.894427, tau = 1.5 1
#include <cublas_v2.h>
#include <cstdio>
int main() {
  cublasHandle_t h; cublasCreate(&h);
  float *A, *C, *T; cudaMalloc(&A, 256 * 4); cudaMalloc(&C, 256 * 4); cudaMalloc(&T, 64 * 4);
  float ha[16] = {1, 2, 3, 4, 2, 4, 6, 8, 0, 1, 0, 1, 5, 5, 5, 6};  // used as 4x2 (dependent columns)
  cudaMemcpy(A, ha, sizeof ha, cudaMemcpyHostToDevice);
  float **Aa, **Ca, **Ta; cudaMalloc(&Aa, 8); cudaMalloc(&Ca, 8); cudaMalloc(&Ta, 8);
  cudaMemcpy(Aa, &A, 8, cudaMemcpyHostToDevice); cudaMemcpy(Ca, &C, 8, cudaMemcpyHostToDevice); cudaMemcpy(Ta, &T, 8, cudaMemcpyHostToDevice);
  struct { const char *what; int m, n, lda, batch; } g[] = {
    {"ok", 4, 2, 4, 1}, {"m=-1", -1, 2, 4, 1}, {"n=-1", 4, -1, 4, 1}, {"lda=2", 4, 2, 2, 1}, {"batch=-1", 4, 2, 4, -1}, {"m<n", 2, 4, 4, 1}};
  for (auto &c : g) {
    int info = 12345;
    cublasStatus_t st = cublasSgeqrfBatched(h, c.m, c.n, Aa, c.lda, Ta, &info, c.batch);
    printf("geqrf %-9s status=%d info=%d\n", c.what, (int)st, info); fflush(stdout);
  }
  struct { const char *what; int trans, m, n, nrhs, lda, ldc, batch; } s[] = {
    {"ok", 0, 4, 2, 1, 4, 4, 1}, {"trans=T", 1, 4, 2, 1, 4, 4, 1}, {"m=-1", 0, -1, 2, 1, 4, 4, 1}, {"n=-1", 0, 4, -1, 1, 4, 4, 1},
    {"nrhs=-1", 0, 4, 2, -1, 4, 4, 1}, {"m<n", 0, 2, 4, 1, 4, 4, 1}, {"lda=2", 0, 4, 2, 1, 2, 4, 1}, {"ldc=2", 0, 4, 2, 1, 4, 2, 1},
    {"batch=-1", 0, 4, 2, 1, 4, 4, -1}};
  int *dinfo; cudaMalloc(&dinfo, 4);
  for (auto &c : s) {
    cudaMemcpy(A, ha, sizeof ha, cudaMemcpyHostToDevice);
    int info = 12345, hd = 777; cudaMemcpy(dinfo, &hd, 4, cudaMemcpyHostToDevice);
    cublasStatus_t st = cublasSgelsBatched(h, (cublasOperation_t)c.trans, c.m, c.n, c.nrhs, Aa, c.lda, Ca, c.ldc, &info, dinfo, c.batch);
    cudaDeviceSynchronize(); cudaMemcpy(&hd, dinfo, 4, cudaMemcpyDeviceToHost);
    printf("gels %-9s status=%d info=%d devInfo=%d\n", c.what, (int)st, info, hd); fflush(stdout);
  }
  // a full-rank 4x2 least squares: columns (1,1,1,1) and (0,1,2,3); b = (1,3,5,8)
  float fa[8] = {1, 1, 1, 1, 0, 1, 2, 3}, fb[4] = {1, 3, 5, 8};
  cudaMemcpy(A, fa, sizeof fa, cudaMemcpyHostToDevice); cudaMemcpy(C, fb, sizeof fb, cudaMemcpyHostToDevice);
  int info = 1, hd = 777; cudaMemcpy(dinfo, &hd, 4, cudaMemcpyHostToDevice);
  cublasStatus_t st = cublasSgelsBatched(h, CUBLAS_OP_N, 4, 2, 1, Aa, 4, Ca, 4, &info, dinfo, 1);
  float out[4], qa[8], tau[2]; cudaDeviceSynchronize();
  cudaMemcpy(out, C, 16, cudaMemcpyDeviceToHost); cudaMemcpy(&hd, dinfo, 4, cudaMemcpyDeviceToHost);
  printf("gels full-rank status=%d info=%d devInfo=%d x=%.6f %.6f rest=%.6f %.6f\n", (int)st, info, hd, out[0], out[1], out[2], out[3]);
  cudaMemcpy(A, fa, sizeof fa, cudaMemcpyHostToDevice);
  st = cublasSgeqrfBatched(h, 4, 2, Aa, 4, Ta, &info, 1); cudaDeviceSynchronize();
  cudaMemcpy(qa, A, 32, cudaMemcpyDeviceToHost); cudaMemcpy(tau, T, 8, cudaMemcpyDeviceToHost);
  printf("geqrf full-rank status=%d A=", (int)st); for (float v : qa) printf("%.6f ", v); printf("tau=%.6f %.6f\n", tau[0], tau[1]);
  cublasDestroy(h);
}

// Probe, run on the NVIDIA machine (H100, CUDA 13's cuBLAS): what cublasSgetrsBatched returns and
// writes to its host `info` for each invalid argument. tests/libs/test_cublas_lu.py holds the answers
// (GETRS_INFO_H100). Build and run there: nvcc -arch=sm_90 probe_cublas_getrs_info.cu -lcublas && ./a.out
// Recorded 2026-11-25:
//   ok status=0 info=0 | trans=7 7/-1 | n=-1 7/-2 | nrhs=-1 7/-3 | lda=2 7/-5 | ldb=2 7/-8
//   batch=-1 status=13 info=0 | n=-1,lda=0 7/-2 | info=NULL: the process crashed (segmentation fault)
#include <cublas_v2.h>
#include <cstdio>
int main() {
  cublasHandle_t h; cublasCreate(&h);
  float *A, *B; int *piv; cudaMalloc(&A, 64 * 4); cudaMalloc(&B, 64 * 4); cudaMalloc(&piv, 64 * 4);
  float **Aa, **Ba; cudaMalloc(&Aa, 8); cudaMalloc(&Ba, 8);
  cudaMemcpy(Aa, &A, 8, cudaMemcpyHostToDevice); cudaMemcpy(Ba, &B, 8, cudaMemcpyHostToDevice);
  struct { const char *what; int trans, n, nrhs, lda, ldb, batch; } cases[] = {
    {"ok", 0, 4, 1, 4, 4, 1}, {"trans=7", 7, 4, 1, 4, 4, 1}, {"n=-1", 0, -1, 1, 4, 4, 1},
    {"nrhs=-1", 0, 4, -1, 4, 4, 1}, {"lda=2", 0, 4, 1, 2, 4, 1}, {"ldb=2", 0, 4, 1, 4, 2, 1},
    {"batch=-1", 0, 4, 1, 4, 4, -1}, {"n=-1,lda=0", 0, -1, 1, 0, 4, 1}};
  for (auto &c : cases) {
    int info = 12345;
    cublasStatus_t st = cublasSgetrsBatched(h, (cublasOperation_t)c.trans, c.n, c.nrhs, (const float *const *)Aa, c.lda, piv, Ba, c.ldb, &info, c.batch);
    printf("%-12s status=%d info=%d\n", c.what, (int)st, info); fflush(stdout);
  }
  fflush(stdout);
  cublasStatus_t st = cublasSgetrsBatched(h, CUBLAS_OP_N, 4, 1, (const float *const *)Aa, 4, piv, Ba, 4, nullptr, 1);
  printf("%-12s status=%d\n", "info=NULL", (int)st); fflush(stdout);
  cublasDestroy(h);
}

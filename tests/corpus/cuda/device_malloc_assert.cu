// Device-side malloc/free, memset/memcpy in device code, assert() (__assertfail), __trap, __brkpt-free.
#include <cassert>
__global__ void per_thread_alloc(int **ptrs, int n) {
  int *p = (int *)malloc(n * sizeof(int));
  if (!p) { __trap(); }
  memset(p, 0, n * sizeof(int));
  for (int i = 0; i < n; ++i) p[i] = threadIdx.x * i;
  ptrs[threadIdx.x] = p;
}

__global__ void free_all(int **ptrs, int *out, int n) {
  int *p = ptrs[threadIdx.x];
  assert(p != nullptr);
  int tmp[16];
  memcpy(tmp, p, sizeof(tmp));
  int s = 0;
  for (int i = 0; i < 16 && i < n; ++i) s += tmp[i];
  out[threadIdx.x] = s;
  free(p);
}

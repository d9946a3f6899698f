// Functional tests: printf, faults, scalar and struct arguments, device functions.
#include <cstdio>
struct Params { int a; float b; double c; char tag; short s[3]; };

extern "C" __global__ void hello(int x, float y) {
  if (threadIdx.x < 2)
    printf("block %d thread %d: x=%d y=%.3f hex=%x str=%s c=%c\n", blockIdx.x, threadIdx.x, x, y, 255, "ok", 'Z');
}
extern "C" __global__ void struct_arg(Params p, char c, unsigned long long big, double *out) {
  out[0] = p.a; out[1] = p.b; out[2] = p.c; out[3] = p.tag; out[4] = p.s[0] + p.s[1] + p.s[2];
  out[5] = c; out[6] = (double)big;
}
extern "C" __global__ void out_of_bounds(int *p, long long offset) { p[offset] = 1; }
extern "C" __global__ void spin_forever(volatile int *flag) { while (*flag == 0) { } }
extern "C" __global__ void assert_false(int x) { if (x == 42) __trap(); }

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ int twice(int v) { return 2 * v; }
__device__ int thrice(int v) { return 3 * v; }
typedef int (*op_t)(int);
__device__ op_t ops[2] = {twice, thrice};
extern "C" __global__ void calls(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fib(in[i] & 15) + ops[i & 1](in[i]);
}

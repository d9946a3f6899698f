// Device function pointers: a table of __device__ functions called indirectly (call through register).
typedef float (*unary_fn)(float);
__device__ float op_square(float x) { return x * x; }
__device__ float op_half(float x) { return 0.5f * x; }
__device__ float op_neg(float x) { return -x; }
__device__ float op_recip(float x) { return 1.0f / x; }
__device__ unary_fn op_table[4] = {op_square, op_half, op_neg, op_recip};

typedef int (*binop)(int, int);
__device__ int add_i(int a, int b) { return a + b; }
__device__ int mul_i(int a, int b) { return a * b; }

__global__ void apply_ops(const float *in, float *out, const int *which, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = op_table[which[i] & 3](in[i]);
}

__global__ void apply_binop(int *v, int sel) {
  binop f = sel ? add_i : mul_i;
  v[threadIdx.x] = f(v[threadIdx.x], threadIdx.x);
}

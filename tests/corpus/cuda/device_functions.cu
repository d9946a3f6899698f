// __device__ functions: noinline calls with many params, recursion (factorial, fibonacci, tree walk).
__device__ __noinline__ float lerp3(float a, float b, float c, float t, float u) {
  return (a * (1.f - t) + b * t) * (1.f - u) + c * u;
}

__device__ __noinline__ unsigned long long factorial(unsigned n) {
  return n <= 1 ? 1ull : n * factorial(n - 1);
}

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

struct Node { int left, right, value; };
__device__ int tree_sum(const Node *nodes, int idx, int depth) {
  if (idx < 0 || depth > 32) return 0;
  return nodes[idx].value + tree_sum(nodes, nodes[idx].left, depth + 1) +
         tree_sum(nodes, nodes[idx].right, depth + 1);
}

__global__ void recursion(const Node *nodes, unsigned long long *fact, int *fibs, int *sums, float *l) {
  int t = threadIdx.x;
  fact[t] = factorial(t % 21);
  fibs[t] = fib(t % 16);
  sums[t] = tree_sum(nodes, t, 0);
  l[t] = lerp3(fact[t], fibs[t], sums[t], t * 0.01f, 0.5f);
}

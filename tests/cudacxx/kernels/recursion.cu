// Recursive device functions (test_recursion_without_call_stack.py): Metal has no call stack, so the
// MSL back end runs a function that calls itself over an explicit stack (backends/apple/recursion.py).

// Each thread sorts its own segment with a recursive quicksort (a void function, two self-calls).
__device__ __noinline__ void quicksort(int *a, int lo, int hi) {
    if (lo >= hi) return;
    int pivot = a[(lo + hi) / 2], i = lo, j = hi;
    while (i <= j) {
        while (a[i] < pivot) i++;
        while (a[j] > pivot) j--;
        if (i <= j) { int t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
    }
    quicksort(a, lo, j);
    quicksort(a, i, hi);
}

extern "C" __global__ void sort_segments(int *data, int len) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    quicksort(data + t * len, 0, len - 1);
}

// A walk over an implicit binary tree with a per-level local array indexed at run time.
__device__ __noinline__ long long walk(const int *tree, int i, int n, int depth) {
    if (i >= n) return depth;
    int path[8];
    for (int k = 0; k < 8; k++) path[k] = tree[i] * (k + 1) + depth;
    long long left = walk(tree, 2 * i + 1, n, depth + 1);
    long long right = walk(tree, 2 * i + 2, n, depth + 1);
    return path[(depth + i) & 7] + 3 * left - right;
}

extern "C" __global__ void tree_walk(const int *tree, int n, long long *out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = walk(tree, t % 5, n, t % 3);
}

// Recursion as deep as the caller asks (runs out of stack when asked for too much).
__device__ __noinline__ unsigned deep(unsigned n, unsigned acc) {
    if (n == 0) return acc;
    unsigned r = deep(n - 1, acc * 31u + n);
    return (r >> 1) ^ (r << 3) ^ n;  // no accumulator form: LLVM keeps the recursion
}

extern "C" __global__ void go_deep(unsigned n, unsigned *out) {
    out[threadIdx.x] = deep(n + threadIdx.x, threadIdx.x);
}

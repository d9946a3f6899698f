// Device-side allocation (CUDA's device heap): runs on the cpu backend (test_runtime_basics.py).
extern "C" __global__ void uses_malloc(int **out) {
    int *p = (int *)malloc(16 * sizeof(int));
    p[0] = 1;
    out[0] = p;
    free(p);  // the heap is shared by the process's tests: leave it as found
}
extern "C" __global__ void uses_new(int **out) {
    int *p = new int[4];
    out[0] = p;
    delete[] p;
}

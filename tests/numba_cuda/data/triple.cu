// A device function in CUDA C++ for a numba kernel to call (cuda.declare_device + link=[...]).
extern "C" __device__ int triple(int* result, int x) {
    *result = 3 * x;
    return 0;
}

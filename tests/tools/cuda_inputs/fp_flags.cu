// Floating-point flag parity with nvcc (tests/tools/test_cumetalc_cuda.py): division, square root,
// contraction and flushing, in one kernel.
extern "C" __global__ void k(float *x) { x[0] = x[1] / x[2] + __builtin_sqrtf(x[3]) * x[4] + x[5]; x[6] = x[7] * x[8] + x[9]; }

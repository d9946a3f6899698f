// Kernel shapes that evaluate one math function elementwise; math_cases.py instantiates one
// kernel per function (the same source runs under NVRTC on NVIDIA hardware and under CuMetal).
// Every kernel has the parameters (a, b, c, d, r, r2, n): up to four inputs, two outputs.
#define CM_IDX                                  \
  int i = blockIdx.x * blockDim.x + threadIdx.x; \
  if (i >= n) return;
#define CM_PARAMS const void *pa, const void *pb, const void *pc, const void *pd, void *pr, void *pr2, int n
#define CM_IN(T, p) const T *p##_ = (const T *)p

// r = f(a)
#define K_F_F(name, T, expr) extern "C" __global__ void k_##name(CM_PARAMS) { CM_IDX CM_IN(T, pa); T a = pa_[i]; ((T *)pr)[i] = (expr); }
// r = f(a, b)
#define K_F_FF(name, T, expr) extern "C" __global__ void k_##name(CM_PARAMS) { CM_IDX CM_IN(T, pa); CM_IN(T, pb); T a = pa_[i], b = pb_[i]; ((T *)pr)[i] = (expr); }
// r = f(a, b, c)
#define K_F_FFF(name, T, expr) extern "C" __global__ void k_##name(CM_PARAMS) { CM_IDX CM_IN(T, pa); CM_IN(T, pb); CM_IN(T, pc); T a = pa_[i], b = pb_[i], c = pc_[i]; ((T *)pr)[i] = (expr); }
// r = f(a, b, c, d)
#define K_F_FFFF(name, T, expr) extern "C" __global__ void k_##name(CM_PARAMS) { CM_IDX CM_IN(T, pa); CM_IN(T, pb); CM_IN(T, pc); CM_IN(T, pd); T a = pa_[i], b = pb_[i], c = pc_[i], d = pd_[i]; ((T *)pr)[i] = (expr); }
// r = f(a, (I)b)
#define K_F_FI(name, T, I, expr) extern "C" __global__ void k_##name(CM_PARAMS) { CM_IDX CM_IN(T, pa); CM_IN(I, pb); T a = pa_[i]; I b = pb_[i]; ((T *)pr)[i] = (expr); }
// r = f((int)a, b)
#define K_F_IF(name, T, expr) extern "C" __global__ void k_##name(CM_PARAMS) { CM_IDX CM_IN(int, pa); CM_IN(T, pb); int a = pa_[i]; T b = pb_[i]; ((T *)pr)[i] = (expr); }
// (R)r = f(a)
#define K_R_F(name, T, R, expr) extern "C" __global__ void k_##name(CM_PARAMS) { CM_IDX CM_IN(T, pa); T a = pa_[i]; ((R *)pr)[i] = (R)(expr); }
// r, r2 = f(a, &r, &r2) with r2 of type R2
#define K_FF_F(name, T, R2, ...) extern "C" __global__ void k_##name(CM_PARAMS) { CM_IDX CM_IN(T, pa); T a = pa_[i]; T *r = (T *)pr + i; R2 *r2 = (R2 *)pr2 + i; __VA_ARGS__; }
// r, r2 = f(a, b, &r2)
#define K_FF_FF(name, T, R2, ...) extern "C" __global__ void k_##name(CM_PARAMS) { CM_IDX CM_IN(T, pa); CM_IN(T, pb); T a = pa_[i], b = pb_[i]; T *r = (T *)pr + i; R2 *r2 = (R2 *)pr2 + i; __VA_ARGS__; }

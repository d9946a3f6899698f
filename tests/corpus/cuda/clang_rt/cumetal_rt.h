// Minimal CUDA device-side declarations for compiling with clang and NO CUDA SDK (-nocudainc
// -nocudalib): built-in index variables, qualifiers and a few intrinsics mapped to clang NVPTX builtins.
// Used only by scripts/make_ptx_corpus.py to produce SDK-free clang PTX.
#pragma once
#include <stddef.h>
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
struct uint3 { unsigned x, y, z; };
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ constexpr dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
typedef struct CUstream_st *cudaStream_t;
// threadIdx.x etc. are properties whose getters read the special registers.
#define CM_GETTER(N, R) \
  __declspec(property(get = get_##N)) unsigned N; \
  static __device__ __forceinline__ unsigned get_##N() { return R; }
#define CM_INDEX_TYPE(T, P) \
  struct T { CM_GETTER(x, __nvvm_read_ptx_sreg_##P##_x()) CM_GETTER(y, __nvvm_read_ptx_sreg_##P##_y()) \
             CM_GETTER(z, __nvvm_read_ptx_sreg_##P##_z()) };
CM_INDEX_TYPE(cm_tid_t, tid)
CM_INDEX_TYPE(cm_ctaid_t, ctaid)
CM_INDEX_TYPE(cm_ntid_t, ntid)
CM_INDEX_TYPE(cm_nctaid_t, nctaid)
extern const __device__ __attribute__((weak)) cm_tid_t threadIdx;
extern const __device__ __attribute__((weak)) cm_ctaid_t blockIdx;
extern const __device__ __attribute__((weak)) cm_ntid_t blockDim;
extern const __device__ __attribute__((weak)) cm_nctaid_t gridDim;
extern "C" __device__ int vprintf(const char *, const char *);
extern "C" __host__ __device__ int printf(const char *, ...);
extern "C" unsigned __cudaPushCallConfiguration(dim3 g, dim3 b, size_t shm = 0, void *stream = 0);

#define CM_CLAMP(w) (((32 - (w)) << 8) | 0x1f)
__device__ __forceinline__ int __shfl_down_sync(unsigned m, int v, unsigned d, int w = 32) {
  return __nvvm_shfl_sync_down_i32(m, v, d, CM_CLAMP(w)); }
__device__ __forceinline__ float __shfl_down_sync(unsigned m, float v, unsigned d, int w = 32) {
  return __nvvm_shfl_sync_down_f32(m, v, d, CM_CLAMP(w)); }
__device__ __forceinline__ float __shfl_xor_sync(unsigned m, float v, int l, int w = 32) {
  return __nvvm_shfl_sync_bfly_f32(m, v, l, CM_CLAMP(w)); }
__device__ __forceinline__ int __shfl_sync(unsigned m, int v, int l, int w = 32) {
  return __nvvm_shfl_sync_idx_i32(m, v, l, CM_CLAMP(w)); }
__device__ __forceinline__ unsigned __ballot_sync(unsigned m, int p) { return __nvvm_vote_ballot_sync(m, p); }
__device__ __forceinline__ int __popc(unsigned v) { return __builtin_popcount(v); }
__device__ __forceinline__ int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
__device__ __forceinline__ float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
__device__ __forceinline__ int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
__device__ __forceinline__ int atomicCAS(int *p, int c, int v) { return __nvvm_atom_cas_gen_i(p, c, v); }

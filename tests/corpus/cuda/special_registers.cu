// Special registers and timing: clock/clock64, globaltimer, %smid/%warpid/%laneid/%lanemask via asm,
// __nanosleep, dynamic smem size.
__device__ __forceinline__ unsigned smid() { unsigned r; asm volatile("mov.u32 %0, %%smid;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned warpid() { unsigned r; asm volatile("mov.u32 %0, %%warpid;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned laneid() { unsigned r; asm("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned lanemask_lt() { unsigned r; asm("mov.u32 %0, %%lanemask_lt;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__device__ __forceinline__ unsigned dyn_smem() { unsigned r; asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r)); return r; }

__global__ void timing(unsigned long long *t, unsigned *ids) {
  long long c0 = clock64();
  unsigned c1 = clock();
  unsigned long long g0 = gtimer();
  __nanosleep(100);
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  ids[k * 5 + 0] = smid();
  ids[k * 5 + 1] = warpid();
  ids[k * 5 + 2] = laneid();
  ids[k * 5 + 3] = lanemask_lt();
  ids[k * 5 + 4] = dyn_smem();
  t[k * 3 + 0] = clock64() - c0;
  t[k * 3 + 1] = clock() - c1;
  t[k * 3 + 2] = gtimer() - g0;
}

// Scoped atomics and libcu++ cuda::atomic_ref with explicit memory orders (acquire/release, scopes).
#include <cuda/atomic>
__global__ void scoped_atomics(int *g, unsigned long long *g64, float *f) {
  atomicAdd_block(&g[0], 1);
  atomicAdd_system(&g[1], 1);
  atomicExch_block(&g[2], threadIdx.x);
  atomicCAS_system(&g64[0], 0ull, 1ull);
  atomicMax_block(&g[3], (int)threadIdx.x);
  atomicAdd_block(f, 0.5f);
}

__global__ void atomic_ref_orders(int *flag, int *data, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  cuda::atomic_ref<int, cuda::thread_scope_block> d(data[threadIdx.x & 15]);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    data[100] = 42;
    f.store(1, cuda::memory_order_release);
  } else if (threadIdx.x == 0) {
    while (f.load(cuda::memory_order_acquire) == 0) {
    }
    out[blockIdx.x] = data[100];
  }
  d.fetch_add(1, cuda::memory_order_relaxed);
  int expected = 0;
  d.compare_exchange_strong(expected, 5, cuda::memory_order_acq_rel);
  cuda::atomic_ref<int, cuda::thread_scope_system> s(out[0]);
  s.fetch_or(1 << (threadIdx.x & 31), cuda::memory_order_seq_cst);
}

// cuda_runtime.h basics: qualifiers, built-in variables, vector types, printf, assert, device
// allocation (tests/cuda_headers/test_runtime_basics.py).
#include <assert.h>
#include <nv/target>
#include <cuda/atomic>
#include <cuda/std/atomic>
#include <cuda/std/cstdint>
#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <cuda/std/utility>

#define CHECK_VEC(T, size, align) static_assert(sizeof(T) == size && alignof(T) == align, #T);
CHECK_VEC(char1, 1, 1) CHECK_VEC(char2, 2, 2) CHECK_VEC(char3, 3, 1) CHECK_VEC(char4, 4, 4)
CHECK_VEC(uchar1, 1, 1) CHECK_VEC(uchar2, 2, 2) CHECK_VEC(uchar3, 3, 1) CHECK_VEC(uchar4, 4, 4)
CHECK_VEC(short1, 2, 2) CHECK_VEC(short2, 4, 4) CHECK_VEC(short3, 6, 2) CHECK_VEC(short4, 8, 8)
CHECK_VEC(ushort1, 2, 2) CHECK_VEC(ushort2, 4, 4) CHECK_VEC(ushort3, 6, 2) CHECK_VEC(ushort4, 8, 8)
CHECK_VEC(int1, 4, 4) CHECK_VEC(int2, 8, 8) CHECK_VEC(int3, 12, 4) CHECK_VEC(int4, 16, 16)
CHECK_VEC(uint1, 4, 4) CHECK_VEC(uint2, 8, 8) CHECK_VEC(uint3, 12, 4) CHECK_VEC(uint4, 16, 16)
CHECK_VEC(long1, 8, 8) CHECK_VEC(long2, 16, 16) CHECK_VEC(long3, 24, 8) CHECK_VEC(long4, 32, 16)
CHECK_VEC(ulong1, 8, 8) CHECK_VEC(ulong2, 16, 16) CHECK_VEC(ulong3, 24, 8) CHECK_VEC(ulong4, 32, 16)
CHECK_VEC(longlong1, 8, 8) CHECK_VEC(longlong2, 16, 16) CHECK_VEC(longlong3, 24, 8) CHECK_VEC(longlong4, 32, 16)
CHECK_VEC(ulonglong1, 8, 8) CHECK_VEC(ulonglong2, 16, 16) CHECK_VEC(ulonglong3, 24, 8) CHECK_VEC(ulonglong4, 32, 16)
CHECK_VEC(float1, 4, 4) CHECK_VEC(float2, 8, 8) CHECK_VEC(float3, 12, 4) CHECK_VEC(float4, 16, 16)
CHECK_VEC(double1, 8, 8) CHECK_VEC(double2, 16, 16) CHECK_VEC(double3, 24, 8) CHECK_VEC(double4, 32, 16)
CHECK_VEC(dim3, 12, 4)

__constant__ int c_table[4] = {10, 20, 30, 40};
__device__ int d_counter;
__managed__ int m_value;

static __device__ __noinline__ int not_inlined(int x) { return x * 3; }
static __device__ __forceinline__ int inlined(int x) { return x + 1; }

struct Params {
    int scale;
    float4 bias;
};

extern "C" __global__ void __launch_bounds__(256, 2)
    indexing(int *__restrict__ out, const __grid_constant__ Params p) {
    const dim3 t = threadIdx, b = blockIdx, bd = blockDim, gd = gridDim;
    const uint3 tu = threadIdx;
    const unsigned block = b.x + gd.x * (b.y + gd.y * b.z);
    const unsigned thread = t.x + bd.x * (t.y + bd.y * t.z);
    const unsigned g = block * (bd.x * bd.y * bd.z) + thread;
    int *o = out + 8 * g;
    o[0] = (int)(tu.x + 10 * tu.y + 100 * tu.z);
    o[1] = (int)(blockIdx.x + 10 * blockIdx.y + 100 * blockIdx.z);
    o[2] = (int)(blockDim.x + 10 * blockDim.y + 100 * blockDim.z);
    o[3] = (int)(gridDim.x + 10 * gridDim.y + 100 * gridDim.z);
    o[4] = warpSize;
    o[5] = c_table[g % 4] * p.scale + (int)p.bias.w;
    o[6] = inlined(not_inlined((int)g));
    const int4 v = make_int4(1, 2, 3, 4);
    const double2 d = make_double2(0.5, 1.5);
    const dim3 defaults(7);
    o[7] = v.x + v.y + v.z + v.w + (int)(d.x + d.y) + (int)(defaults.x * 100 + defaults.y * 10 + defaults.z);
    atomicAdd(&d_counter, 1);
    if (g == 0) m_value = 5;
}

extern "C" __global__ void hello(int a, float b) {
    printf("hello from block %d thread %d: a=%d b=%.2f s=%s c=%c\n", blockIdx.x, threadIdx.x, a, b, "str", 'Z');
}

extern "C" __global__ void checked(const int *in, int *out) {
    const int v = in[threadIdx.x];
    assert(v >= 0);
    out[threadIdx.x] = v * 2;
}

// <nv/target>: the block for the side being compiled (the default architecture is sm_80)
static __host__ __device__ int side() { NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return 1;), (return 2;)) }
extern "C" __global__ void nv_target(int *out) {
    out[0] = side();
    NV_DISPATCH_TARGET(NV_PROVIDES_SM_90, (out[1] = 90;), NV_PROVIDES_SM_80, (out[1] = 80;), NV_ANY_TARGET, (out[1] = 0;))
    NV_IF_TARGET(NV_IS_EXACTLY_SM_80, (out[2] = 1;), (out[2] = 0;))
    NV_IF_TARGET(NV_IS_HOST, (out[3] = 7;))
    // blocks without parentheses, as NVIDIA's cuda_fp16.h writes them
    NV_IF_ELSE_TARGET(NV_IS_DEVICE, out[4] = 5; out[4] += 1; , out[4] = -5;)
}

// cuda::atomic_ref / cuda::atomic and cuda::std basics; 64 threads
extern "C" __global__ void libcu(int *g, unsigned long long *u, float *f, long long *out) {
    cuda::atomic_ref<int, cuda::thread_scope_device> a0(g[0]);
    cuda::atomic_ref<int, cuda::thread_scope_block> a1(g[1]);
    cuda::std::atomic_ref<unsigned long long> a2(*u);
    cuda::atomic_ref<float, cuda::thread_scope_system> a3(*f);
    const int t = threadIdx.x;
    a0.fetch_add(t, cuda::memory_order_relaxed);
    a1.fetch_max(t * 3 - 50);
    a2.fetch_or(1ull << t);
    a3.fetch_add(0.5f);
    int expected = g[2];
    cuda::atomic_ref<int> a4(g[2]);
    while (!a4.compare_exchange_weak(expected, expected + 2, cuda::memory_order_acq_rel)) {
    }
    __shared__ cuda::atomic<int, cuda::thread_scope_block> counter;
    if (t == 0) counter.store(0, cuda::memory_order_relaxed);
    __syncthreads();
    ++counter;
    counter.fetch_sub(2);
    __syncthreads();
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
    if (t == 0) {
        out[0] = counter.load();
        out[1] = cuda::std::numeric_limits<cuda::std::int16_t>::max() + cuda::std::numeric_limits<cuda::std::uint8_t>::max();
        out[2] = cuda::std::numeric_limits<float>::max() == 3.4028234663852886e38f;
        int x = 3, y = 4;
        cuda::std::swap(x, y);
        const int old = cuda::std::exchange(x, 9);
        out[3] = x * 100 + y * 10 + old;
        out[4] = cuda::std::is_same<cuda::std::int32_t, int>::value + 2 * cuda::std::is_integral<float>::value;
        auto p = cuda::std::make_pair(5, 2.5);
        out[5] = p.first + (long long)(p.second * 2);
    }
}

// Device intrinsics of cuda_runtime.h, one kernel per group; the host side checks every value
// against numpy / exact Python references (tests/cuda_headers/test_intrinsics.py).

#define FULL 0xffffffffu

// 64 threads (two warps); 32 results per thread.
extern "C" __global__ void warp_ops(const int *in, long long *out) {
    const int t = threadIdx.x, l = t % 32;
    const int v = in[t];
    long long *o = out + t * 32;
    o[0] = __shfl_sync(FULL, v, (l * 7) % 32);
    o[1] = __shfl_sync(FULL, v, l + 3, 8);
    o[2] = __shfl_up_sync(FULL, v, 3);
    o[3] = __shfl_up_sync(FULL, v, 2, 16);
    o[4] = __shfl_down_sync(FULL, v, 5);
    o[5] = __shfl_down_sync(FULL, v, 3, 8);
    o[6] = __shfl_xor_sync(FULL, v, 6);
    o[7] = __shfl_xor_sync(FULL, v, 3, 4);
    o[8] = __shfl_sync(FULL, ((long long)v << 32) | (unsigned)(l * 3), (l + 1) % 32);
    o[9] = __double_as_longlong(__shfl_down_sync(FULL, (double)v * 0.5, 1));
    o[10] = __float_as_int(__shfl_xor_sync(FULL, (float)v * 1.25f, 1));
    o[11] = __ballot_sync(FULL, v & 1);
    o[12] = __all_sync(FULL, v > -1000000) * 2 + __all_sync(FULL, v & 1);
    o[13] = __any_sync(FULL, v == in[5]);
    o[14] = __uni_sync(FULL, v > -1000000) * 2 + __uni_sync(FULL, v & 1);
    if (l < 20) o[15] = __activemask();
    else o[15] = -1;
    o[16] = __reduce_add_sync(FULL, (unsigned)v);
    o[17] = __reduce_min_sync(FULL, v);
    o[18] = __reduce_max_sync(FULL, (unsigned)v);
    o[19] = __reduce_and_sync(FULL, (unsigned)v);
    o[20] = __reduce_or_sync(FULL, (unsigned)v);
    o[21] = __reduce_xor_sync(FULL, (unsigned)v);
    o[22] = __match_any_sync(FULL, v & 3);
    int pred = -1;
    o[23] = __match_all_sync(FULL, 7, &pred);
    o[24] = pred;
    o[25] = __match_all_sync(FULL, v, &pred) * 2 + pred;
    o[26] = __lanemask_lt();
    o[27] = __lanemask_ge() + ((long long)__lanemask_eq() << 32);
    if (l < 16) o[28] = __ballot_sync(0xffffu, v & 1);
    else o[28] = -1;
    o[29] = (long long)__shfl_up_sync(FULL, (unsigned long long)v * 0x100000001ull, 1);
    o[30] = __reduce_max_sync(FULL, v) + ((long long)__reduce_min_sync(FULL, (unsigned)v) << 32);
    o[31] = __match_any_sync(FULL, (double)(v & 1)) + ((long long)__lanemask_le() << 32);
    __syncwarp();
}

// Every atomic overload; launched with 2 blocks of 256 threads.
extern "C" __global__ void atomics(int *ai, unsigned *au, long long *al, unsigned long long *aul, float *af,
                                   double *ad, unsigned short *ah, int *exch_ret) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int sv = (t * 7919) % 1000 - 500;
    atomicAdd(ai + 0, t);
    atomicSub(ai + 1, t);
    atomicMin(ai + 2, sv);
    atomicMax(ai + 3, sv);
    atomicAnd(ai + 4, ~(1 << (t % 31)) | (t & 1));
    atomicOr(ai + 5, 1 << (t % 29));
    atomicXor(ai + 6, t);
    exch_ret[t] = atomicExch(ai + 7, t);
    const bool cas_loops = t < 64;  // compare-and-swap loops by 64 threads (they serialise)
    int old = ai[8], assumed;
    if (cas_loops) do { assumed = old; old = atomicCAS(ai + 8, assumed, assumed + 2); } while (old != assumed);
    atomicAdd_block(ai + 9, 1);
    atomicAdd_system(ai + 10, 3);
    atomicMax_block(ai + 11, sv);
    atomicMin_system(ai + 12, sv);
    atomicOr_block(ai + 13, 1 << (t % 17));
    atomicXor_system(ai + 14, t * 3);
    atomicSub_block(ai + 15, 2);
    atomicInc(au + 0, 17u);
    atomicDec(au + 1, 17u);
    atomicMin(au + 2, (unsigned)(sv + 1000));
    atomicMax(au + 3, (unsigned)(sv + 1000));
    atomicAdd(au + 4, 5u);
    atomicInc_block(au + 5, 100u);
    atomicDec_system(au + 6, 1000u);
    atomicExch_block(au + 7, 42u);
    atomicAnd_system(au + 8, ~(1u << (t % 32)));
    atomicMin(al + 0, (long long)sv * 100000000000ll);
    atomicMax(al + 1, (long long)sv * 100000000000ll);
    atomicMax_system(al + 2, (long long)sv);
    atomicMin_block(al + 3, (long long)sv);
    atomicAdd(aul + 0, (1ull << 40) + t);
    atomicMin(aul + 1, (unsigned long long)(t + 5) << 33);
    atomicMax(aul + 2, (unsigned long long)(t + 5) << 33);
    atomicAnd(aul + 3, ~(1ull << (t % 64)));
    atomicOr(aul + 4, 1ull << (t % 61));
    atomicXor(aul + 5, (unsigned long long)t << 20);
    unsigned long long o64 = aul[6], a64;
    if (cas_loops) do { a64 = o64; o64 = atomicCAS(aul + 6, a64, a64 + 3); } while (o64 != a64);
    atomicExch(aul + 7, 7ull << 40);
    atomicAdd_block(aul + 8, 1ull);
    unsigned long long c64 = aul[9], b64;
    if (cas_loops) do { b64 = c64; c64 = atomicCAS_system(aul + 9, b64, b64 + 1); } while (c64 != b64);
    atomicAdd(af + 0, 0.5f);
    atomicAdd_block(af + 1, 0.25f);
    atomicExch(af + 2, 1.5f);
    atomicAdd_system(af + 3, -1.0f);
    atomicAdd(ad + 0, 0.25);
    atomicAdd_block(ad + 1, 1e-3);
    atomicAdd_system(ad + 2, 2.0);
    unsigned short h = ah[0], g;
    if (cas_loops) do { g = h; h = atomicCAS(ah, g, (unsigned short)(g + 1)); } while (h != g);
    unsigned short h2 = ah[2], g2;
    if (cas_loops) do { g2 = h2; h2 = atomicCAS_block(ah + 2, g2, (unsigned short)(g2 + 3)); } while (h2 != g2);
}

// Cache-hint loads and stores: each thread copies element i with all of them.
#define COPY_KERNEL(T)                                                                              \
    extern "C" __global__ void copy_##T(const T *in, T *out, int n) {                              \
        const int i = threadIdx.x;                                                                  \
        if (i >= n) return;                                                                         \
        out[10 * i + 0] = __ldg(in + i);                                                            \
        out[10 * i + 1] = __ldca(in + i);                                                           \
        out[10 * i + 2] = __ldcg(in + i);                                                           \
        out[10 * i + 3] = __ldcs(in + i);                                                           \
        out[10 * i + 4] = __ldlu(in + i);                                                           \
        out[10 * i + 5] = __ldcv(in + i);                                                           \
        __stwb(out + 10 * i + 6, in[i]);                                                            \
        __stcg(out + 10 * i + 7, in[i]);                                                            \
        __stcs(out + 10 * i + 8, in[i]);                                                            \
        __stwt(out + 10 * i + 9, in[i]);                                                            \
    }
typedef signed char schar;
typedef unsigned short ushort_t;
typedef long long llong;
COPY_KERNEL(schar)
COPY_KERNEL(ushort_t)
COPY_KERNEL(int)
COPY_KERNEL(llong)
COPY_KERNEL(float)
COPY_KERNEL(double)
COPY_KERNEL(float4)
COPY_KERNEL(int2)
COPY_KERNEL(uchar4)
COPY_KERNEL(double2)
COPY_KERNEL(short2)

// Integer intrinsics over arrays of operands; 40 results per element.
extern "C" __global__ void integer_ops(const unsigned *a, const unsigned *b, const unsigned *c,
                                       const unsigned long long *w, long long *out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned x = a[i], y = b[i], z = c[i];
    const unsigned long long p = w[i], q = w[(i + 1) % n];
    long long *o = out + 40 * i;
    o[0] = __popc(x);
    o[1] = __popcll(p);
    o[2] = __clz((int)x);
    o[3] = __clzll((long long)p);
    o[4] = __ffs((int)x);
    o[5] = __ffsll((long long)p);
    o[6] = __brev(x);
    o[7] = (long long)__brevll(p);
    o[8] = __byte_perm(x, y, z & 0x7777u);
    o[9] = __funnelshift_l(x, y, z);
    o[10] = __funnelshift_lc(x, y, z & 63);
    o[11] = __funnelshift_r(x, y, z);
    o[12] = __funnelshift_rc(x, y, z & 63);
    o[13] = __mul24((int)x, (int)y);
    o[14] = __umul24(x, y);
    o[15] = __mulhi((int)x, (int)y);
    o[16] = __umulhi(x, y);
    o[17] = __mul64hi((long long)p, (long long)q);
    o[18] = (long long)__umul64hi(p, q);
    o[19] = __sad((int)x, (int)y, z);
    o[20] = __usad(x, y, z);
    o[21] = __hadd((int)x, (int)y);
    o[22] = __rhadd((int)x, (int)y);
    o[23] = __uhadd(x, y);
    o[24] = __urhadd(x, y);
    o[25] = __dp4a((int)x, (int)y, (int)z);
    o[26] = __dp4a(x, y, z);
    o[27] = __dp2a_lo((int)x, (int)y, (int)z);
    o[28] = __dp2a_hi((int)x, (int)y, (int)z);
    o[29] = __dp2a_lo(x, y, z);
    o[30] = __dp2a_hi(x, y, z);
    o[31] = __dp4a(make_char4(1, -2, 3, -4), make_char4((signed char)x, 5, -6, 7), (int)z);
    o[32] = __popc(0u) + __clz(0) * 100 + __ffs(0) * 10000 + (long long)__clzll(0) * 1000000;
}

// Conversions: float f[i], double d[i], long long v[i]; 64 results per element (raw bits).
extern "C" __global__ void conversions(const float *f, const double *d, const long long *v, long long *out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = f[i];
    const double y = d[i];
    const long long s = v[i];
    long long *o = out + 64 * i;
    o[0] = __float2int_rn(x); o[1] = __float2int_rz(x); o[2] = __float2int_ru(x); o[3] = __float2int_rd(x);
    o[4] = __float2uint_rn(x); o[5] = __float2uint_rz(x); o[6] = __float2uint_ru(x); o[7] = __float2uint_rd(x);
    o[8] = __float2ll_rn(x); o[9] = __float2ll_rz(x); o[10] = __float2ll_ru(x); o[11] = __float2ll_rd(x);
    o[12] = __float2ull_rn(x); o[13] = __float2ull_rz(x); o[14] = __float2ull_ru(x); o[15] = __float2ull_rd(x);
    o[16] = __double2int_rn(y); o[17] = __double2int_rz(y); o[18] = __double2int_ru(y); o[19] = __double2int_rd(y);
    o[20] = __double2uint_rn(y); o[21] = __double2uint_rz(y); o[22] = __double2uint_ru(y); o[23] = __double2uint_rd(y);
    o[24] = __double2ll_rn(y); o[25] = __double2ll_rz(y); o[26] = __double2ll_ru(y); o[27] = __double2ll_rd(y);
    o[28] = __double2ull_rn(y); o[29] = __double2ull_rz(y); o[30] = __double2ull_ru(y); o[31] = __double2ull_rd(y);
    o[32] = __float_as_uint(__double2float_rn(y)); o[33] = __float_as_uint(__double2float_rz(y));
    o[34] = __float_as_uint(__double2float_ru(y)); o[35] = __float_as_uint(__double2float_rd(y));
    const int si = (int)s;
    const unsigned su = (unsigned)s;
    o[36] = __float_as_uint(__int2float_rn(si)); o[37] = __float_as_uint(__int2float_rz(si));
    o[38] = __float_as_uint(__int2float_ru(si)); o[39] = __float_as_uint(__int2float_rd(si));
    o[40] = __float_as_uint(__uint2float_rn(su)); o[41] = __float_as_uint(__uint2float_rz(su));
    o[42] = __float_as_uint(__uint2float_ru(su)); o[43] = __float_as_uint(__uint2float_rd(su));
    o[44] = __float_as_uint(__ll2float_rn(s)); o[45] = __float_as_uint(__ll2float_rz(s));
    o[46] = __float_as_uint(__ll2float_ru(s)); o[47] = __float_as_uint(__ll2float_rd(s));
    const unsigned long long us = (unsigned long long)s;
    o[48] = __float_as_uint(__ull2float_rn(us)); o[49] = __float_as_uint(__ull2float_rz(us));
    o[50] = __float_as_uint(__ull2float_ru(us)); o[51] = __float_as_uint(__ull2float_rd(us));
    o[52] = __double_as_longlong(__ll2double_rn(s)); o[53] = __double_as_longlong(__ll2double_rz(s));
    o[54] = __double_as_longlong(__ll2double_ru(s)); o[55] = __double_as_longlong(__ll2double_rd(s));
    o[56] = __double_as_longlong(__ull2double_rn(us)); o[57] = __double_as_longlong(__ull2double_rz(us));
    o[58] = __double_as_longlong(__ull2double_ru(us)); o[59] = __double_as_longlong(__ull2double_rd(us));
    o[60] = __float_as_int(x) ^ __float_as_int(__int_as_float(__float_as_int(x))) ^ __float_as_uint(__uint_as_float(7u));
    o[61] = __double2hiint(y) + ((long long)__double2loint(y) << 32);
    o[62] = __double_as_longlong(__hiloint2double(__double2hiint(y), __double2loint(y))) ^
            __double_as_longlong(__longlong_as_double(__double_as_longlong(y)));
    o[63] = __double_as_longlong(__int2double_rn(si)) ^ __double_as_longlong(__uint2double_rn(su));
}

// Block-wide synchronisation intrinsics; one block of 128 threads; predicates from in[].
extern "C" __global__ void sync_ops(const int *in, int *out) {
    __shared__ int s[128];
    const int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    const int mine = s[127 - t];
    __threadfence_block();
    __threadfence();
    __threadfence_system();
    const int cnt = __syncthreads_count(mine > 0);
    const int all = __syncthreads_and(mine > -1000);
    const int any = __syncthreads_or(mine == 12345);
    const int none = __syncthreads_or(mine == 99999);
    out[4 * t + 0] = cnt;
    out[4 * t + 1] = all;
    out[4 * t + 2] = any * 2 + none;
    out[4 * t + 3] = mine;
}

// Time, sleep and address-space functions.
__device__ int g_global_var;
extern "C" __global__ void misc_ops(long long *out) {
    __shared__ int sh;
    int local = threadIdx.x;
    const long long c0 = clock64();
    const clock_t k0 = clock();
    __nanosleep(100);
    __prof_trigger(0);
    const long long c1 = clock64();
    const clock_t k1 = clock();
    out[0] = c1 >= c0;
    out[1] = (long long)(k1 - k0) >= 0;
    out[2] = __isGlobal(&g_global_var) * 1 + __isShared(&sh) * 2 + __isGlobal(&sh) * 4 + __isShared(&g_global_var) * 8;
    out[3] = (long long)__cvta_generic_to_shared(&sh);
    out[4] = __cvta_shared_to_generic(__cvta_generic_to_shared(&sh)) == (void *)&sh;
    out[5] = __cvta_global_to_generic(__cvta_generic_to_global(&g_global_var)) == (void *)&g_global_var;
    out[6] = __isLocal(&local) + 2 * __isGlobal(out);
    out[7] = warpSize;
}

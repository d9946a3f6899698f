// Atomics of every width and kind (int, unsigned, 64-bit, float, double, CAS loops for a double
// max and a 16-bit counter), integer intrinsics (__popc, __clz, __ffs, __brev, __byte_perm,
// funnel shifts, __mulhi, __sad, __dp4a, __vabsdiff4), warp votes, match, reduce and shuffles.
#include <cstdio>

__device__ double atomicMaxDouble(double *addr, double v) {
    unsigned long long *p = (unsigned long long *)addr, old = *p, assumed;
    do {
        assumed = old;
        if (__longlong_as_double(assumed) >= v) break;
        old = atomicCAS(p, assumed, __double_as_longlong(v));
    } while (old != assumed);
    return __longlong_as_double(old);
}

struct Counters {
    int i_add, i_min, i_max, i_and, i_or, i_xor;
    unsigned u_inc, u_dec, u_exch_seen;
    unsigned long long ull_add, ull_max;
    long long ll_min;
    float f_add;
    double d_add, d_max;
    unsigned short s16[2];
};

__global__ void atomics(Counters *c, const int *vals) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = vals[t];
    atomicAdd(&c->i_add, v);
    atomicMin(&c->i_min, v);
    atomicMax(&c->i_max, v);
    atomicAnd(&c->i_and, ~(1 << (t % 31)));
    atomicOr(&c->i_or, 1 << (t % 29));
    atomicXor(&c->i_xor, v);
    atomicInc(&c->u_inc, 100u);
    atomicDec(&c->u_dec, 1000u);
    atomicAdd(&c->ull_add, (unsigned long long)(v + 100000) << 20);
    atomicMax(&c->ull_max, (unsigned long long)(unsigned)v * 3u);
    atomicMin(&c->ll_min, (long long)v * -1000000000LL);
    atomicAdd(&c->f_add, 0.25f);
    atomicAdd(&c->d_add, v * 0.5);
    atomicMaxDouble(&c->d_max, v * 1.5);
    unsigned old = atomicExch(&c->u_exch_seen, (unsigned)t);
    (void)old;
    unsigned short *s = &c->s16[t & 1];
    unsigned short cur = *s, prev;
    do { prev = cur; cur = atomicCAS(s, prev, (unsigned short)(prev + 1)); } while (cur != prev);
}

__global__ void bits(const unsigned *a, const unsigned *b, unsigned *out) {
    int i = threadIdx.x;
    unsigned x = a[i], y = b[i];
    unsigned *o = out + i * 16;
    o[0] = __popc(x) | (__popcll(((unsigned long long)x << 32) | y) << 8);
    o[1] = __clz(x) | (__clzll((unsigned long long)y) << 8) | (__ffs(x) << 16) | (__ffsll((long long)y << 7) << 24);
    o[2] = __brev(x);
    o[3] = __byte_perm(x, y, 0x7531 ^ (i & 0x3333));
    o[4] = __funnelshift_l(x, y, i * 3);
    o[5] = __funnelshift_rc(x, y, i * 3);
    o[6] = __umulhi(x, y);
    o[7] = (unsigned)__mulhi((int)x, (int)y);
    o[8] = __sad((int)x, (int)y, 5u);
    o[9] = (unsigned)__dp4a((int)x, (int)y, -7);
    o[10] = __vabsdiffu4(x, y) ^ __vabsdiffs2(y, x);
    o[11] = __vadd2(x, y) ^ __vsubss4(x, y);
    o[12] = __ballot_sync(0xffffffffu, x > y);
    o[13] = __match_any_sync(0xffffffffu, x & 7);
    o[14] = __reduce_add_sync(0xffffffffu, x & 0xffff) ^ __reduce_max_sync(0xffffffffu, y >> 4);
    o[15] = __shfl_xor_sync(0xffffffffu, x, 5) + __shfl_up_sync(0xffffffffu, y, 3, 16);
}

int main() {
    const int blocks = 4, threads = 64, n = blocks * threads;
    int h[n];
    unsigned s = 99u;
    for (int i = 0; i < n; ++i) { s = s * 747796405u + 2891336453u; h[i] = (int)(s >> 12) % 5000 - 2500; }
    Counters c0{};
    c0.i_min = 1 << 30; c0.i_max = -(1 << 30); c0.i_and = -1; c0.u_dec = 50; c0.ll_min = 0; c0.d_max = -1e300;
    Counters *dc; int *dv;
    cudaMalloc(&dc, sizeof c0); cudaMalloc(&dv, sizeof h);
    cudaMemcpy(dc, &c0, sizeof c0, cudaMemcpyHostToDevice);
    cudaMemcpy(dv, h, sizeof h, cudaMemcpyHostToDevice);
    atomics<<<blocks, threads>>>(dc, dv);
    Counters c;
    cudaMemcpy(&c, dc, sizeof c, cudaMemcpyDeviceToHost);
    printf("int add %d min %d max %d and %08x or %08x xor %d\n", c.i_add, c.i_min, c.i_max, c.i_and, c.i_or, c.i_xor);
    printf("inc %u dec %u exch<n %d\n", c.u_inc, c.u_dec, c.u_exch_seen < (unsigned)n);
    printf("ull add %llu max %llu ll min %lld\n", c.ull_add, c.ull_max, c.ll_min);
    printf("float %.9g double %.17g dmax %.17g s16 %u %u\n", c.f_add, c.d_add, c.d_max, c.s16[0], c.s16[1]);

    unsigned ha[32], hb[32];
    for (int i = 0; i < 32; ++i) { s = s * 747796405u + 2891336453u; ha[i] = s; s = s * 747796405u + 2891336453u; hb[i] = s >> (i % 9); }
    ha[0] = 0; hb[0] = 0xffffffffu; ha[1] = 0x80000000u; hb[1] = 1;
    unsigned *da, *db, *dout, o[32 * 16];
    cudaMalloc(&da, sizeof ha); cudaMalloc(&db, sizeof hb); cudaMalloc(&dout, sizeof o);
    cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice);
    cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice);
    bits<<<1, 32>>>(da, db, dout);
    cudaMemcpy(o, dout, sizeof o, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 32; ++i) {
        printf("bits %2d", i);
        for (int j = 0; j < 16; ++j) printf(" %08x", o[i * 16 + j]);
        printf("\n");
    }
    printf("status %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}

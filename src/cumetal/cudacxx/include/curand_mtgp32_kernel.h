/* CuMetal clean-room CUDA headers: curand_mtgp32_kernel.h — cuRAND's MTGP32 device functions
 * (cuRAND documentation, "Bit Generation with the MTGP32 generator"). All threads of a block
 * share one curandStateMtgp32_t and must call these functions together (they synchronise the
 * block): thread t of d computes sequence element offset + t from elements offset + t,
 * offset + t + 1 and offset + t + pos (MTGP's recursion; pos <= 95, so 256 threads can), and the
 * state's offset then advances by d. Included by curand_kernel.h. */
#ifndef CURAND_MTGP32_KERNEL_H
#define CURAND_MTGP32_KERNEL_H

#include "curand_mtgp32.h"

#define CUMETAL_MTGP_FN static __device__ __forceinline__

CUMETAL_MTGP_FN unsigned int __cm_mtgp32_rec(const mtgp32_kernel_params_t *k, int p, unsigned int x1,
                                            unsigned int x2, unsigned int y) {
    unsigned int x = (x1 & k->mask[0]) ^ x2;
    x ^= x << k->sh1_tbl[p];
    y = x ^ (y >> k->sh2_tbl[p]);
    return y ^ k->param_tbl[p][y & 0x0f];
}
CUMETAL_MTGP_FN unsigned int __cm_mtgp32_temper_key(unsigned int t) {
    t ^= t >> 16;
    t ^= t >> 8;
    return t & 0x0f;
}

/* element `index` of the next `n` (threads 0..n-1 of the block take part) */
CUMETAL_MTGP_FN unsigned int __cm_mtgp32_next(curandStateMtgp32_t *state, unsigned int index, unsigned int n,
                                             bool single, bool leader) {
    const mtgp32_kernel_params_t *k = state->k;
    const int p = state->pIdx;
    const unsigned int pos = k->pos_tbl[p];
    const unsigned int o = (unsigned int)state->offset + index;
    unsigned int r = __cm_mtgp32_rec(k, p, state->s[o & MTGP32_STATE_MASK], state->s[(o + 1) & MTGP32_STATE_MASK],
                                     state->s[(o + pos) & MTGP32_STATE_MASK]);
    state->s[(o + MTGPDC_N) & MTGP32_STATE_MASK] = r;
    unsigned int key = __cm_mtgp32_temper_key(state->s[(o + pos - 1) & MTGP32_STATE_MASK]);
    unsigned int out = single ? (r >> 9) ^ k->single_temper_tbl[p][key] : r ^ k->temper_tbl[p][key];
    __syncthreads();
    if (leader) state->offset = (state->offset + (int)n) & MTGP32_STATE_MASK;
    __syncthreads();
    return out;
}
CUMETAL_MTGP_FN unsigned int __cm_mtgp32_thread() {
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}

/* 32 random bits: every thread of the block calls it; thread t gets element offset + t */
CUMETAL_MTGP_FN unsigned int curand(curandStateMtgp32_t *state) {
    const unsigned int t = __cm_mtgp32_thread();
    return __cm_mtgp32_next(state, t, blockDim.x * blockDim.y * blockDim.z, false, t == 0);
}
/* the same for the `n` threads that call it, the calling one taking element offset + index */
CUMETAL_MTGP_FN unsigned int curand_mtgp32_specific(curandStateMtgp32_t *state, unsigned char index,
                                                    unsigned char n) {
    return __cm_mtgp32_next(state, index, n, false, index == 0);
}
/* A float from the 23 high bits by MTGP's float tempering: NVIDIA's returns the tempered value in
 * [1, 2) as it is, and its curand_mtgp32_single gives thread t of a block the element after
 * offset + t (offset + t + blockDim.y * blockDim.z); both recorded on an H100 and reproduced here. */
CUMETAL_MTGP_FN float curand_mtgp32_single(curandStateMtgp32_t *state) {
    const unsigned int t = __cm_mtgp32_thread();
    return __uint_as_float(
        __cm_mtgp32_next(state, t + blockDim.y * blockDim.z, blockDim.x * blockDim.y * blockDim.z, true, t == 0));
}
CUMETAL_MTGP_FN float curand_mtgp32_single_specific(curandStateMtgp32_t *state, unsigned char index,
                                                   unsigned char n) {
    return __uint_as_float(__cm_mtgp32_next(state, index, n, true, index == 0));
}

/* Distributions take one 32-bit output each: uniforms x 2^-32 + 2^-33, doubles (x + 1) 2^-32
 * (as recorded on NVIDIA's), normals the inverse normal CDF (no pairs): float ones in the reflected
 * form the H100's host and device results show (libs/curand/host.py icdf_f32 / icdf_f64;
 * cumetal/curand_poisson.h). */
CUMETAL_MTGP_FN float __cm_mtgp32_icdf(unsigned int x) { return __cm_curand_icdf(x); }
CUMETAL_MTGP_FN double __cm_mtgp32_icdf_double(unsigned int x) { return __cm_curand_normal_double(x); }
CUMETAL_MTGP_FN float curand_uniform(curandStateMtgp32_t *state) {
    return curand(state) * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2.0f);
}
CUMETAL_MTGP_FN double curand_uniform_double(curandStateMtgp32_t *state) {
    return curand(state) * CURAND_2POW32_INV_DOUBLE + CURAND_2POW32_INV_DOUBLE;
}
CUMETAL_MTGP_FN float curand_normal(curandStateMtgp32_t *state) { return __cm_mtgp32_icdf(curand(state)); }
CUMETAL_MTGP_FN double curand_normal_double(curandStateMtgp32_t *state) {
    return __cm_mtgp32_icdf_double(curand(state));
}
CUMETAL_MTGP_FN float curand_log_normal(curandStateMtgp32_t *state, float mean, float stddev) {
    return expf(mean + stddev * curand_normal(state));
}
CUMETAL_MTGP_FN double curand_log_normal_double(curandStateMtgp32_t *state, double mean, double stddev) {
    return exp(mean + stddev * curand_normal_double(state));
}
/* one output per draw (cumetal/curand_poisson.h): all threads of the block stay in step */
CUMETAL_MTGP_FN unsigned int curand_poisson(curandStateMtgp32_t *state, double lambda) {
    return __cm_poisson_from_output(curand(state), lambda);
}

#undef CUMETAL_MTGP_FN
#endif /* CURAND_MTGP32_KERNEL_H */

/* CuMetal clean-room CUDA headers: cuRAND's quasi-random device states (included by curand_kernel.h).
 *
 * A Sobol state holds the 32 (64) direction numbers of one dimension, the index i of the next point,
 * the point x itself and the scramble constant c (0 when not scrambled). Points are taken in Gray-code
 * order (Antonov and Saleev, 1979): point i is c XOR the direction numbers v_k of the bits k set in
 * i ^ (i >> 1), and point i + 1 is point i XOR v_j with j the number of trailing ones of i.
 * curand_init starts at point `offset`; skipahead(n) moves n points on. The direction numbers and
 * scramble constants come from curandGetDirectionVectors32/64 and curandGetScrambleConstants32/64
 * (host API), copied to device memory by the program, as with NVIDIA's library.
 * Distributions take one point each: uniforms as for the pseudo-random generators, normals the normal
 * quantile of the point, Poisson the inversion of cumetal/curand_poisson.h. Checked against an H100:
 * tests/libs/test_curand_sobol_device.py. */
#ifndef CUMETAL_CURAND_SOBOL_H_
#define CUMETAL_CURAND_SOBOL_H_

struct curandStateSobol32 { unsigned int i, x, c; unsigned int direction_vectors[32]; };
struct curandStateScrambledSobol32 { unsigned int i, x, c; unsigned int direction_vectors[32]; };
struct curandStateSobol64 { unsigned long long i, x, c; unsigned long long direction_vectors[64]; };
struct curandStateScrambledSobol64 { unsigned long long i, x, c; unsigned long long direction_vectors[64]; };
typedef struct curandStateSobol32 curandStateSobol32_t;
typedef struct curandStateScrambledSobol32 curandStateScrambledSobol32_t;
typedef struct curandStateSobol64 curandStateSobol64_t;
typedef struct curandStateScrambledSobol64 curandStateScrambledSobol64_t;

#if !defined(CUMETAL_CURAND_TYPES_ONLY) /* device functions: CUDA compilation only (curand_kernel.h) */

template <class S, class W>
CUMETAL_CURAND_FN void __cm_sobol_seek(S *state, W index) {
    state->i = index;
    W gray = index ^ (index >> 1), x = state->c;
    for (int k = 0; k < (int)(8 * sizeof(W)); k++)
        if ((gray >> k) & 1u) x ^= state->direction_vectors[k];
    state->x = x;
}

#define CUMETAL_SOBOL_STATE(STATE, W, BITS)                                                                          \
    CUMETAL_CURAND_FN void skipahead(W n, STATE *state) { __cm_sobol_seek(state, (W)(state->i + n)); }                \
    CUMETAL_CURAND_FN W curand(STATE *state) {                                                                         \
        W r = state->x;                                                                                                \
        W ones = ~state->i;                                                                                            \
        int j = ones ? (int)__builtin_ctzll((unsigned long long)ones) : (BITS) - 1;                                    \
        state->x ^= state->direction_vectors[j];                                                                       \
        state->i++;                                                                                                    \
        return r;                                                                                                      \
    }                                                                                                                  \
    CUMETAL_CURAND_FN unsigned int curand_poisson(STATE *state, double lambda) {                                       \
        return __cm_poisson_from_output(curand(state), lambda);                                                        \
    }
CUMETAL_SOBOL_STATE(curandStateSobol32_t, unsigned int, 32)
CUMETAL_SOBOL_STATE(curandStateScrambledSobol32_t, unsigned int, 32)
CUMETAL_SOBOL_STATE(curandStateSobol64_t, unsigned long long, 64)
CUMETAL_SOBOL_STATE(curandStateScrambledSobol64_t, unsigned long long, 64)
#undef CUMETAL_SOBOL_STATE

CUMETAL_CURAND_FN void curand_init(curandDirectionVectors32_t direction_vectors, unsigned int offset,
                                   curandStateSobol32_t *state) {
    for (int k = 0; k < 32; k++) state->direction_vectors[k] = direction_vectors[k];
    state->c = 0u;
    __cm_sobol_seek(state, offset);
}
CUMETAL_CURAND_FN void curand_init(curandDirectionVectors32_t direction_vectors, unsigned int scramble_c,
                                   unsigned int offset, curandStateScrambledSobol32_t *state) {
    for (int k = 0; k < 32; k++) state->direction_vectors[k] = direction_vectors[k];
    state->c = scramble_c;
    __cm_sobol_seek(state, offset);
}
CUMETAL_CURAND_FN void curand_init(curandDirectionVectors64_t direction_vectors, unsigned long long offset,
                                   curandStateSobol64_t *state) {
    for (int k = 0; k < 64; k++) state->direction_vectors[k] = direction_vectors[k];
    state->c = 0ull;
    __cm_sobol_seek(state, offset);
}
CUMETAL_CURAND_FN void curand_init(curandDirectionVectors64_t direction_vectors, unsigned long long scramble_c,
                                   unsigned long long offset, curandStateScrambledSobol64_t *state) {
    for (int k = 0; k < 64; k++) state->direction_vectors[k] = direction_vectors[k];
    state->c = scramble_c;
    __cm_sobol_seek(state, offset);
}

/* one point per value; 32-bit points: uniform x 2^-32 + 2^-33, double (x + 1) 2^-32; 64-bit points:
 * the float from the top 32 bits, the double from the top 53 */
#define CUMETAL_SOBOL32_DISTRIBUTIONS(STATE)                                                                         \
    CUMETAL_CURAND_FN float curand_uniform(STATE *state) { return __cm_uniform(curand(state)); }                       \
    CUMETAL_CURAND_FN double curand_uniform_double(STATE *state) {                                                     \
        return curand(state) * CURAND_2POW32_INV_DOUBLE + CURAND_2POW32_INV_DOUBLE;                                    \
    }                                                                                                                  \
    CUMETAL_CURAND_FN float curand_normal(STATE *state) { return __cm_curand_icdf(curand(state)); }                    \
    CUMETAL_CURAND_FN double curand_normal_double(STATE *state) { return __cm_curand_normal_double(curand(state)); }   \
    CUMETAL_CURAND_FN float curand_log_normal(STATE *state, float mean, float stddev) {                                \
        return expf(mean + stddev * curand_normal(state));                                                             \
    }                                                                                                                  \
    CUMETAL_CURAND_FN double curand_log_normal_double(STATE *state, double mean, double stddev) {                      \
        return exp(mean + stddev * curand_normal_double(state));                                                       \
    }
#define CUMETAL_SOBOL64_DISTRIBUTIONS(STATE)                                                                         \
    CUMETAL_CURAND_FN float curand_uniform(STATE *state) { return __cm_uniform((unsigned int)(curand(state) >> 32)); } \
    CUMETAL_CURAND_FN double curand_uniform_double(STATE *state) {                                                     \
        return (curand(state) >> 11) * CURAND_2POW53_INV_DOUBLE + CURAND_2POW53_INV_DOUBLE / 2.0;                      \
    }                                                                                                                  \
    CUMETAL_CURAND_FN float curand_normal(STATE *state) { return __cm_curand_icdf(curand(state)); }                    \
    CUMETAL_CURAND_FN double curand_normal_double(STATE *state) { return __cm_curand_normal_double(curand(state)); }   \
    CUMETAL_CURAND_FN float curand_log_normal(STATE *state, float mean, float stddev) {                                \
        return expf(mean + stddev * curand_normal(state));                                                             \
    }                                                                                                                  \
    CUMETAL_CURAND_FN double curand_log_normal_double(STATE *state, double mean, double stddev) {                      \
        return exp(mean + stddev * curand_normal_double(state));                                                       \
    }
CUMETAL_SOBOL32_DISTRIBUTIONS(curandStateSobol32_t)
CUMETAL_SOBOL32_DISTRIBUTIONS(curandStateScrambledSobol32_t)
CUMETAL_SOBOL64_DISTRIBUTIONS(curandStateSobol64_t)
CUMETAL_SOBOL64_DISTRIBUTIONS(curandStateScrambledSobol64_t)
#undef CUMETAL_SOBOL32_DISTRIBUTIONS
#undef CUMETAL_SOBOL64_DISTRIBUTIONS

#endif /* !CUMETAL_CURAND_TYPES_ONLY */
#endif /* CUMETAL_CURAND_SOBOL_H_ */

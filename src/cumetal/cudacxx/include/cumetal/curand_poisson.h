/* CuMetal clean-room CUDA headers: cuRAND's device Poisson draws (included by curand_kernel.h).
 *
 * Written from the cuRAND documentation and the published algorithms, then matched to draws of
 * NVIDIA's curand_kernel.h recorded on an H100 (tests/libs/golden/curand_poisson_sobol_goldens.npz,
 * tests/libs/test_curand_sobol_device.py):
 *
 * - XORWOW, Philox4_32_10, MRG32k3a: lambda < 64 multiplies uniforms until the product of
 *   e^lambda and them reaches 1 (Knuth, TAOCP vol. 2, 3.4.1); lambda > 4000 rounds
 *   lambda + sqrt(lambda) * curand_normal_double(); in between, a rejection sampler whose
 *   proposal inverts a two-parameter logistic approximation of the regularised incomplete gamma
 *   function P(lambda, x), accepted against the Poisson probability with ln k! from a Stirling
 *   series (Hart et al., Computer Approximations, 1968, no. 5404). The approximation is evaluated
 *   with the GPU's approximate reciprocal square root, base-2 exponential and logarithm and
 *   reciprocal, as cuRAND does, so that the draws are the same.
 * - MTGP32 and the Sobol generators: one output per draw; lambda < 1000 is sequential inversion
 *   of the CDF in double (Fishman's ITR, terms rescaled every 500 units of lambda to stay clear of
 *   underflow), larger lambdas round lambda + sqrt(lambda) * (the normal quantile of the output).
 */
#ifndef CUMETAL_CURAND_POISSON_H_
#define CUMETAL_CURAND_POISSON_H_

/* the GPU's approximate operations, as PTX names them */
CUMETAL_CURAND_FN float __cm_rsqrt_approx(float a) {
    float r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
    return r;
}
CUMETAL_CURAND_FN float __cm_rcp_approx(float a) {
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
    return r;
}
/* e^a and ln a: the scale by log2(e) / ln(2) is a double product rounded to float */
CUMETAL_CURAND_FN float __cm_exp_approx(float a) {
    float t = (float)((double)a * 1.4426950408889634074), r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(t));
    return r;
}
CUMETAL_CURAND_FN float __cm_log_approx(float a) {
    float r;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
    return (float)((double)r * 0.69314718055994530942);
}

/* the logistic approximation's shape parameters for a = lambda */
CUMETAL_CURAND_FN void __cm_gammainc_shape(float a, float *alpha, float *beta) {
    const float ma1 = 1.43248035075540910f, ma2 = 0.12400979329415655f, ma3 = 0.00025361074907033f;
    const float mb1 = 0.21096734870196546f, mb2 = 1.97381164089999420f, mb3 = 0.94201734077887530f;
    *alpha = ma1 * __cm_rsqrt_approx(a - ma2) + ma3;
    *beta = mb1 * __cm_rsqrt_approx(a - mb2) + mb3;
}
/* P(a, x) ~ 1 / (1 + e^(alpha (a - x) - beta))^2 */
CUMETAL_CURAND_FN float __cm_gammainc_approx(float a, float x) {
    float alpha, beta;
    __cm_gammainc_shape(a, &alpha, &beta);
    float t = alpha * (a - x) - beta;
    t = 1.0f + __cm_exp_approx(t);
    return __cm_rcp_approx(t * t);
}
/* its inverse in x */
CUMETAL_CURAND_FN float __cm_gammaincinv_approx(float a, float y) {
    float alpha, beta;
    __cm_gammainc_shape(a, &alpha, &beta);
    float t = __cm_log_approx(__cm_rsqrt_approx(y) - 1.0f) + beta;
    return -t * __cm_rcp_approx(alpha) + a;
}

/* ln((k - 1)!) for k >= 1: a table to 9, then Stirling's series */
CUMETAL_CURAND_FN double __cm_log_factorial_of_predecessor(int k) {
    const double fk = (double)fabsf((float)k);
    if (k > 8) {
        double s = 1.0 / fk, t = s * s;
        double sum = -0.1633436431e-2;
        sum = sum * t + 0.83645878922e-3;
        sum = sum * t - 0.5951896861197e-3;
        sum = sum * t + 0.793650576493454e-3;
        sum = sum * t - 0.277777777735865004e-2;
        sum = sum * t + 0.833333333333331018375e-1;
        sum = sum * s + 0.918938533204672;
        double h = 0.5 * log(fk) * (fk - 0.5);
        return (h - fk) + (h + sum);
    }
    const double table[9] = {0.0, 0.0, 6.931471805599453094e-1, 1.791759469228055001e0, 3.178053830347945620e0,
                             4.787491742782045994e0, 6.579251212010100995e0, 8.525161361065414300e0,
                             1.060460290274525023e1};
    int i = (int)fk - 1;
    return table[i < 0 ? 0 : i];
}

template <class S>
CUMETAL_CURAND_FN unsigned int __cm_poisson_knuth(S *state, float lambda) {
    float p = expf(lambda);
    unsigned int k = 0;
    do {
        k++;
        p *= curand_uniform(state);
    } while (p > 1.0f);
    return k - 1;
}

template <class S>
CUMETAL_CURAND_FN unsigned int __cm_poisson_rejection(S *state, float lambda) {
    const float log_lambda = __cm_log_approx(lambda);
    for (;;) {
        float y = curand_uniform(state);
        float x = floorf(__cm_gammaincinv_approx(lambda, y));
        float z = curand_uniform(state);
        float v = (__cm_gammainc_approx(lambda, x + 1.0f) - __cm_gammainc_approx(lambda, x)) * 1.3f;
        z = z * v;
        float t = __cm_exp_approx(-lambda + x * log_lambda -
                                  (float)__cm_log_factorial_of_predecessor((int)(1.0f + x)));
        if (z < t && v >= 1e-20f) return (unsigned int)x;
    }
}

template <class S>
CUMETAL_CURAND_FN unsigned int __cm_poisson_pseudo(S *state, double lambda) {
    if (lambda < 64.0) return __cm_poisson_knuth(state, (float)lambda);
    if (lambda > 4000.0) return (unsigned int)(sqrt(lambda) * curand_normal_double(state) + lambda + 0.5);
    return __cm_poisson_rejection(state, (float)lambda);
}

/* sequential inversion on u in (0, 1): the smallest k with u <= P(0) + ... + P(k) */
CUMETAL_CURAND_FN unsigned int __cm_poisson_itr(double u, double lambda) {
    double p = 1.0, q = 1.0;
    unsigned int k = 0;
    int done = 0;
    do {
        double scale = lambda > (double)(done + 500) ? exp(-500.0) : exp((double)done - lambda);
        p *= scale;
        q *= scale;
        done += 500;
        while (u > q && k < 0xffffffffu) {
            k++;
            p *= lambda / (double)k;
            q += p;
            if (p == 0.0 && q < u && (double)k > lambda) break; /* rounding left q short of u */
        }
    } while ((double)done < lambda);
    return k;
}

/* the normal quantile of an output (increasing in x), as NVIDIA's inverse-CDF generators compute it:
 * the upper half of the words reflected (j = ~x), p = (j + 1/2) 2^-32 in float, z = -/+ sqrt2 erfcinvf(2p)
 * (libs/curand/host.py icdf_f32, from H100 recordings; erfcinvf is the H100's in its central range) */
CUMETAL_CURAND_FN float __cm_curand_icdf(unsigned int x) {
    const bool upper = x >= 0x80000000u;
    const float p = (upper ? ~x : x) * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2.0f);
    const float q = -(1.41421356f * erfcinvf(p + p));
    return upper ? -q : q;
}
CUMETAL_CURAND_FN double __cm_curand_icdf_double(unsigned int x) {
    return normcdfinv(x * CURAND_2POW32_INV_DOUBLE + CURAND_2POW32_INV_DOUBLE / 2.0);
}
/* curand_normal_double of the inverse-CDF states (MTGP32, Sobol): the upper half of the words reflected
 * (j = ~x), u = (j + 1/2) 2^-32 (64-bit: (j >> 11) 2^-53 + 2^-54), z = -/+ sqrt2 erfcinv(2u) (libs/curand/
 * host.py icdf_f64, from H100 recordings; erfcinv is the H100's in its central range) */
CUMETAL_CURAND_FN double __cm_curand_normal_double(unsigned int x) {
    const bool upper = x >= 0x80000000u;
    const double u = (upper ? ~x : x) * CURAND_2POW32_INV_DOUBLE + CURAND_2POW32_INV_DOUBLE / 2.0;
    const double q = 1.4142135623730951 * erfcinv(u + u);
    return upper ? q : -q;
}
CUMETAL_CURAND_FN double __cm_curand_normal_double(unsigned long long x) {
    const bool upper = x >= 0x8000000000000000ull;
    const double u = ((upper ? ~x : x) >> 11) * CURAND_2POW53_INV_DOUBLE + CURAND_2POW53_INV_DOUBLE / 2.0;
    const double q = 1.4142135623730951 * erfcinv(u + u);
    return upper ? q : -q;
}
/* 64-bit outputs: the float from the top 32 bits, the double from the top 53 ((x + 1/2) 2^-53) */
CUMETAL_CURAND_FN float __cm_curand_icdf(unsigned long long x) { return __cm_curand_icdf((unsigned int)(x >> 32)); }
CUMETAL_CURAND_FN double __cm_curand_icdf_double(unsigned long long x) {
    return normcdfinv((x >> 11) * CURAND_2POW53_INV_DOUBLE + CURAND_2POW53_INV_DOUBLE / 2.0);
}

CUMETAL_CURAND_FN unsigned int __cm_poisson_from_output(unsigned int x, double lambda) {
    if (lambda < 1000.0) return __cm_poisson_itr(x * CURAND_2POW32_INV_DOUBLE + CURAND_2POW32_INV_DOUBLE / 2.0, lambda);
    return (unsigned int)(sqrt(lambda) * __cm_curand_icdf_double(x) + lambda + 0.5);
}
CUMETAL_CURAND_FN unsigned int __cm_poisson_from_output(unsigned long long x, double lambda) {
    if (lambda < 1000.0) return __cm_poisson_itr((x >> 11) * CURAND_2POW53_INV_DOUBLE + CURAND_2POW53_INV_DOUBLE / 4.0, lambda);
    return (unsigned int)(sqrt(lambda) * __cm_curand_icdf_double(x) + lambda + 0.5);
}

#endif /* CUMETAL_CURAND_POISSON_H_ */

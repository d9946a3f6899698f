/* CuMetal clean-room CUDA headers: cuRAND's discrete distributions in device code (included by
 * curand_kernel.h). curandCreatePoissonDistribution (host API) builds the square histogram
 * (Marsaglia, Tsang and Wang, J. Stat. Softw. 11, 2004) that curandGeneratePoisson uses; a draw takes
 * one output x: u = (x + 1) 2^-32, column j = floor(length u), the value shift + j if u < V[j], else
 * shift + K[j]. Distributions too wide for a table (NVIDIA's CURAND_DISCRETE_GAUSS) hold the mean and
 * standard deviation of the rounded normal approximation instead, drawn from curand_normal_double, as
 * recorded on an H100 (the Philox curand_discrete4 of such a distribution is four single draws, as
 * NVIDIA's: tests/libs/test_curand_switches.py). tests/libs/test_curand_discrete.py checks the draws against NVIDIA's
 * curandGeneratePoisson recordings. */
#ifndef CUMETAL_CURAND_DISCRETE_H_
#define CUMETAL_CURAND_DISCRETE_H_

/* column lookup of a square histogram for one output x */
CUMETAL_CURAND_FN unsigned int __cm_histogram_draw(unsigned int x, curandDiscreteDistribution_t d) {
    double u = x * CURAND_2POW32_INV_DOUBLE + CURAND_2POW32_INV_DOUBLE;
    unsigned int j = (unsigned int)floor(d->length * u);
    if (j >= d->length) j = d->length - 1u; /* u == 1 */
    return d->shift + (u < d->V[j] ? j : d->K[j]);
}

/* a draw: the histogram takes one output, the rounded normal one curand_normal_double (as recorded) */
template <class S>
CUMETAL_CURAND_FN unsigned int curand_discrete(S *state, curandDiscreteDistribution_t d) {
    if (d->method != CURAND_DISCRETE_GAUSS) return __cm_histogram_draw(curand(state), d);
    return (unsigned int)(d->stddev * curand_normal_double(state) + d->mean + 0.5);
}
/* curand_poisson with a distribution made by curandCreatePoissonDistribution */
template <class S>
CUMETAL_CURAND_FN unsigned int curand_poisson(S *state, curandDiscreteDistribution_t d) {
    return curand_discrete(state, d);
}
CUMETAL_CURAND_FN uint4 curand_discrete4(curandStatePhilox4_32_10_t *state, curandDiscreteDistribution_t d) {
    if (d->method != CURAND_DISCRETE_GAUSS) {
        uint4 x = curand4(state);
        return make_uint4(__cm_histogram_draw(x.x, d), __cm_histogram_draw(x.y, d), __cm_histogram_draw(x.z, d),
                          __cm_histogram_draw(x.w, d));
    }
    uint4 r;
    r.x = curand_discrete(state, d);
    r.y = curand_discrete(state, d);
    r.z = curand_discrete(state, d);
    r.w = curand_discrete(state, d);
    return r;
}

#endif /* CUMETAL_CURAND_DISCRETE_H_ */

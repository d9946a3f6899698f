/* CuMetal clean-room CUDA headers: cuRAND's discrete distributions in device code (included by
 * curand_kernel.h). curandCreatePoissonDistribution (host API) builds the square histogram
 * (Marsaglia, Tsang and Wang, J. Stat. Softw. 11, 2004) that curandGeneratePoisson uses; a draw takes
 * one output x: u = (x + 1) 2^-32, column j = floor(length u), the value shift + j if u < V[j], else
 * shift + K[j]. Distributions too wide for a table hold the mean and standard deviation of the rounded
 * normal approximation instead. tests/libs/test_curand_discrete.py checks the draws against NVIDIA's
 * curandGeneratePoisson recordings. */
#ifndef CUMETAL_CURAND_DISCRETE_H_
#define CUMETAL_CURAND_DISCRETE_H_

CUMETAL_CURAND_FN unsigned int __cm_discrete_draw(unsigned int x, curandDiscreteDistribution_t d) {
    if (d->method == 0u) {
        double u = x * CURAND_2POW32_INV_DOUBLE + CURAND_2POW32_INV_DOUBLE;
        unsigned int j = (unsigned int)floor(d->length * u);
        if (j >= d->length) j = d->length - 1u; /* u == 1 */
        return d->shift + (u < d->V[j] ? j : d->K[j]);
    }
    return (unsigned int)(d->stddev * __cm_curand_icdf_double(x) + d->mean + 0.5);
}

template <class S>
CUMETAL_CURAND_FN unsigned int curand_discrete(S *state, curandDiscreteDistribution_t d) {
    return __cm_discrete_draw(curand(state), d);
}
/* curand_poisson with a distribution made by curandCreatePoissonDistribution */
template <class S>
CUMETAL_CURAND_FN unsigned int curand_poisson(S *state, curandDiscreteDistribution_t d) {
    return __cm_discrete_draw(curand(state), d);
}
CUMETAL_CURAND_FN uint4 curand_discrete4(curandStatePhilox4_32_10_t *state, curandDiscreteDistribution_t d) {
    uint4 x = curand4(state);
    return make_uint4(__cm_discrete_draw(x.x, d), __cm_discrete_draw(x.y, d), __cm_discrete_draw(x.z, d),
                      __cm_discrete_draw(x.w, d));
}

#endif /* CUMETAL_CURAND_DISCRETE_H_ */

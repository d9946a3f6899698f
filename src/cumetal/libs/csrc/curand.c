/* libcumetal_libs: cuRAND's host API. Arguments go to cumetal.libs.curand.capi as integers and
 * floats; the declarations come from CuMetal's curand.h. */
#include "curand.h"

#include "cml_core.h"

static curandStatus_t rs(long long v) {
    return v == CML_FAILED ? CURAND_STATUS_INITIALIZATION_FAILED : (curandStatus_t)v;
}
#define CR(name, fmt, ...) return rs(cml_call(CML_CURAND, name, fmt, __VA_ARGS__))
#define P(x) CML_P(x)
#define U(x) ((unsigned long long)(x))

CML_EXPORT curandStatus_t curandCreateGenerator(curandGenerator_t *g, curandRngType_t type) {
    CR("create", "(Kii)", P(g), (int)type, 0);
}
CML_EXPORT curandStatus_t curandCreateGeneratorHost(curandGenerator_t *g, curandRngType_t type) {
    CR("create", "(Kii)", P(g), (int)type, 1);
}
CML_EXPORT curandStatus_t curandDestroyGenerator(curandGenerator_t g) { CR("destroy", "(K)", P(g)); }
CML_EXPORT curandStatus_t curandGetVersion(int *version) { CR("get_version", "(K)", P(version)); }
CML_EXPORT curandStatus_t curandGetProperty(libraryPropertyType type, int *value) {
    CR("get_property", "(iK)", (int)type, P(value));
}
CML_EXPORT curandStatus_t curandSetStream(curandGenerator_t g, cudaStream_t stream) {
    CR("set_stream", "(KK)", P(g), P(stream));
}
CML_EXPORT curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t g, unsigned long long seed) {
    CR("set_seed", "(KK)", P(g), U(seed));
}
CML_EXPORT curandStatus_t curandSetGeneratorOffset(curandGenerator_t g, unsigned long long offset) {
    CR("set_offset", "(KK)", P(g), U(offset));
}
CML_EXPORT curandStatus_t curandSetGeneratorOrdering(curandGenerator_t g, curandOrdering_t order) {
    CR("set_ordering", "(Ki)", P(g), (int)order);
}
CML_EXPORT curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t g, unsigned int dims) {
    CR("set_dims", "(KI)", P(g), dims);
}
CML_EXPORT curandStatus_t curandGenerateSeeds(curandGenerator_t g) { CR("generate_seeds", "(K)", P(g)); }

#define GEN(kind, ptr, n, a, b) CR("generate", "(KsKKdd)", P(g), kind, P(ptr), U(n), (double)(a), (double)(b))
CML_EXPORT curandStatus_t curandGenerate(curandGenerator_t g, unsigned int *out, size_t n) { GEN("u32", out, n, 0, 0); }
CML_EXPORT curandStatus_t curandGenerateUniform(curandGenerator_t g, float *out, size_t n) {
    GEN("uniform", out, n, 0, 0);
}
CML_EXPORT curandStatus_t curandGenerateUniformDouble(curandGenerator_t g, double *out, size_t n) {
    GEN("uniform_double", out, n, 0, 0);
}
CML_EXPORT curandStatus_t curandGenerateNormal(curandGenerator_t g, float *out, size_t n, float mean, float stddev) {
    GEN("normal", out, n, mean, stddev);
}
CML_EXPORT curandStatus_t curandGenerateNormalDouble(curandGenerator_t g, double *out, size_t n, double mean,
                                                     double stddev) {
    GEN("normal_double", out, n, mean, stddev);
}
CML_EXPORT curandStatus_t curandGenerateLogNormal(curandGenerator_t g, float *out, size_t n, float mean,
                                                  float stddev) {
    GEN("lognormal", out, n, mean, stddev);
}
CML_EXPORT curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t g, double *out, size_t n, double mean,
                                                        double stddev) {
    GEN("lognormal_double", out, n, mean, stddev);
}
CML_EXPORT curandStatus_t curandGeneratePoisson(curandGenerator_t g, unsigned int *out, size_t n, double lambda) {
    GEN("poisson", out, n, lambda, 0);
}
CML_EXPORT curandStatus_t curandGenerateLongLong(curandGenerator_t g, unsigned long long *out, size_t n) {
    GEN("u64", out, n, 0, 0);
}

CML_EXPORT curandStatus_t curandGetDirectionVectors32(curandDirectionVectors32_t *vectors[],
                                                      curandDirectionVectorSet_t set) {
    CR("get_table", "(Kii)", P(vectors), (int)set, 32);
}
CML_EXPORT curandStatus_t curandGetDirectionVectors64(curandDirectionVectors64_t *vectors[],
                                                      curandDirectionVectorSet_t set) {
    CR("get_table", "(Kii)", P(vectors), (int)set, 64);
}
CML_EXPORT curandStatus_t curandGetScrambleConstants32(unsigned int **constants) {
    CR("get_table", "(Kii)", P(constants), 0, 32);
}
CML_EXPORT curandStatus_t curandGetScrambleConstants64(unsigned long long **constants) {
    CR("get_table", "(Kii)", P(constants), 0, 64);
}
CML_EXPORT curandStatus_t curandCreatePoissonDistribution(double lambda, curandDiscreteDistribution_t *dist) {
    CR("create_poisson_distribution", "(dK)", lambda, P(dist));
}
CML_EXPORT curandStatus_t curandDestroyDistribution(curandDiscreteDistribution_t dist) {
    CR("destroy_distribution", "(K)", P(dist));
}

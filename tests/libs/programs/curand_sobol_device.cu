// CuMetal cuRAND test program: the host tables for Sobol device states (curandGetDirectionVectors32/64,
// curandGetScrambleConstants32/64), copied to the device and used by curand_init in a kernel, as
// NVIDIA's documentation shows. Thread d draws 64 points of dimension d; the test compares them with
// the host API's SOBOL32 / SCRAMBLED_SOBOL64 generators (dimension-major output, offset 7).
#include <curand.h>
#include <curand_kernel.h>
#include <stdio.h>

enum { DIMS = 5, POINTS = 64, OFFSET = 7 };

__global__ void sobol32(const curandDirectionVectors32_t *v, unsigned int *out) {
    int d = threadIdx.x;
    curandStateSobol32_t s;
    curand_init((unsigned int *)v[d], OFFSET, &s);
    for (int k = 0; k < POINTS; k++) out[d * POINTS + k] = curand(&s);
}

__global__ void scrambled64(const curandDirectionVectors64_t *v, const unsigned long long *c, unsigned long long *out) {
    int d = threadIdx.x;
    curandStateScrambledSobol64_t s;
    curand_init((unsigned long long *)v[d], c[d], 0, &s);
    skipahead((unsigned long long)OFFSET, &s);
    for (int k = 0; k < POINTS; k++) out[d * POINTS + k] = curand(&s);
}

#define CHECK(call)                                                                                  \
    do {                                                                                             \
        int s_ = (int)(call);                                                                        \
        if (s_ != 0) {                                                                               \
            printf("FAIL %s -> %d\n", #call, s_);                                                    \
            return 1;                                                                                \
        }                                                                                            \
    } while (0)

int main(void) {
    curandDirectionVectors32_t *h_v32;
    curandDirectionVectors64_t *h_v64;
    unsigned long long *h_c64;
    CHECK(curandGetDirectionVectors32(&h_v32, CURAND_DIRECTION_VECTORS_32_JOEKUO6));
    CHECK(curandGetDirectionVectors64(&h_v64, CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6));
    CHECK(curandGetScrambleConstants64(&h_c64));
    printf("wrong_set %d\n", (int)curandGetDirectionVectors32(&h_v32, CURAND_DIRECTION_VECTORS_64_JOEKUO6));
    curandDirectionVectors32_t *d_v32;
    curandDirectionVectors64_t *d_v64;
    unsigned long long *d_c64, *d_o64;
    unsigned int *d_o32;
    CHECK(cudaMalloc((void **)&d_v32, DIMS * sizeof(curandDirectionVectors32_t)));
    CHECK(cudaMalloc((void **)&d_v64, DIMS * sizeof(curandDirectionVectors64_t)));
    CHECK(cudaMalloc((void **)&d_c64, DIMS * sizeof(unsigned long long)));
    CHECK(cudaMalloc((void **)&d_o32, DIMS * POINTS * sizeof(unsigned int)));
    CHECK(cudaMalloc((void **)&d_o64, DIMS * POINTS * sizeof(unsigned long long)));
    CHECK(cudaMemcpy(d_v32, h_v32, DIMS * sizeof(curandDirectionVectors32_t), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_v64, h_v64, DIMS * sizeof(curandDirectionVectors64_t), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_c64, h_c64, DIMS * sizeof(unsigned long long), cudaMemcpyHostToDevice));
    sobol32<<<1, DIMS>>>(d_v32, d_o32);
    scrambled64<<<1, DIMS>>>(d_v64, d_c64, d_o64);
    CHECK(cudaDeviceSynchronize());
    static unsigned int dev32[DIMS * POINTS], host32[DIMS * POINTS];
    static unsigned long long dev64[DIMS * POINTS], host64[DIMS * POINTS];
    CHECK(cudaMemcpy(dev32, d_o32, sizeof dev32, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(dev64, d_o64, sizeof dev64, cudaMemcpyDeviceToHost));
    curandGenerator_t g;
    CHECK(curandCreateGeneratorHost(&g, CURAND_RNG_QUASI_SOBOL32));
    CHECK(curandSetQuasiRandomGeneratorDimensions(g, DIMS));
    CHECK(curandSetGeneratorOffset(g, OFFSET));
    CHECK(curandGenerate(g, host32, DIMS * POINTS));
    CHECK(curandDestroyGenerator(g));
    CHECK(curandCreateGeneratorHost(&g, CURAND_RNG_QUASI_SCRAMBLED_SOBOL64));
    CHECK(curandSetQuasiRandomGeneratorDimensions(g, DIMS));
    CHECK(curandSetGeneratorOffset(g, OFFSET));
    CHECK(curandGenerateLongLong(g, host64, DIMS * POINTS));
    CHECK(curandDestroyGenerator(g));
    int bad32 = 0, bad64 = 0;
    for (int i = 0; i < DIMS * POINTS; i++) {
        bad32 += dev32[i] != host32[i];
        bad64 += dev64[i] != host64[i];
    }
    printf("first %u %llu\n", dev32[1], dev64[0]);
    printf("mismatches %d %d\n", bad32, bad64);
    return 0;
}

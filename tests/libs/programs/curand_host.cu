// CuMetal cuRAND host-API test program: writes raw outputs to the file named by argv[1] (the test
// compares them with NVIDIA's, recorded on an H100) and prints status checks.
#include <curand.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                  \
    do {                                                                                             \
        curandStatus_t s_ = (call);                                                                  \
        if (s_ != CURAND_STATUS_SUCCESS) {                                                           \
            printf("FAIL %s -> %d\n", #call, (int)s_);                                               \
            return 1;                                                                                \
        }                                                                                            \
    } while (0)

enum { N = 10000 };

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    FILE *f = fopen(argv[1], "wb");
    if (!f) return 2;
    int version = 0;
    CHECK(curandGetVersion(&version));
    printf("version %d\n", version);
    unsigned int *d_u;
    float *d_f;
    cudaMalloc((void **)&d_u, N * sizeof(unsigned int));
    cudaMalloc((void **)&d_f, N * sizeof(float));
    static unsigned int h_u[N];
    static float h_f[N];
    static double h_d[N];

    // XORWOW device generator: seed 1234, 10000 integers in two calls (the sequence continues)
    curandGenerator_t gen;
    CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    CHECK(curandSetPseudoRandomGeneratorSeed(gen, 1234ULL));
    CHECK(curandGenerate(gen, d_u, 4000));
    CHECK(curandGenerate(gen, d_u + 4000, N - 4000));
    cudaMemcpy(h_u, d_u, sizeof h_u, cudaMemcpyDeviceToHost);
    fwrite(h_u, sizeof h_u, 1, f);
    CHECK(curandDestroyGenerator(gen));

    // Philox on a stream: uniform floats
    cudaStream_t s;
    cudaStreamCreate(&s);
    CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CHECK(curandSetStream(gen, s));
    CHECK(curandSetPseudoRandomGeneratorSeed(gen, 1234ULL));
    CHECK(curandGenerateUniform(gen, d_f, 4096));
    cudaStreamSynchronize(s);
    cudaMemcpy(h_f, d_f, 4096 * sizeof(float), cudaMemcpyDeviceToHost);
    fwrite(h_f, 4096 * sizeof(float), 1, f);
    printf("odd_normal %d\n", (int)curandGenerateNormal(gen, d_f, 3, 0.0f, 1.0f));
    CHECK(curandDestroyGenerator(gen));

    // host generator: XORWOW uniform doubles with an offset, written straight to host memory
    CHECK(curandCreateGeneratorHost(&gen, CURAND_RNG_PSEUDO_XORWOW));
    CHECK(curandSetPseudoRandomGeneratorSeed(gen, 1234ULL));
    CHECK(curandGenerateUniformDouble(gen, h_d, 4096));
    fwrite(h_d, 4096 * sizeof(double), 1, f);
    CHECK(curandDestroyGenerator(gen));

    // Sobol32 with 3 dimensions, starting at point 5: dimension-major output
    CHECK(curandCreateGenerator(&gen, CURAND_RNG_QUASI_SOBOL32));
    CHECK(curandSetQuasiRandomGeneratorDimensions(gen, 3));
    CHECK(curandSetGeneratorOffset(gen, 5));
    CHECK(curandGenerate(gen, d_u, 3 * 64));
    cudaMemcpy(h_u, d_u, 3 * 64 * sizeof(unsigned int), cudaMemcpyDeviceToHost);
    fwrite(h_u, 3 * 64 * sizeof(unsigned int), 1, f);
    printf("sobol_not_multiple %d\n", (int)curandGenerate(gen, d_u, 4));
    CHECK(curandDestroyGenerator(gen));

    curandGenerator_t other;
    int mt_status = (int)curandCreateGenerator(&other, CURAND_RNG_PSEUDO_MT19937);
    unsigned int mt_first = 0;
    if (mt_status == 0) {
        CHECK(curandSetPseudoRandomGeneratorSeed(other, 1234));
        CHECK(curandGenerate(other, d_u, 8));
        cudaMemcpy(&mt_first, d_u, sizeof(unsigned int), cudaMemcpyDeviceToHost);
        CHECK(curandDestroyGenerator(other));
    }
    printf("mt19937 %d %u\n", mt_status, mt_first);
    printf("bad_generator %d\n", (int)curandGenerate((curandGenerator_t)0, d_u, 16));
    fclose(f);
    printf("done 1\n");
    return 0;
}

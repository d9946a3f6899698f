// cuComplex.h's helpers (cuCabs/cuCdiv/cuCfma, float and double, and the float<->double
// conversions) on the host and in a kernel; prints each result with %a so the test compares
// bits against its own Python references.
#include <cstdio>
#include <cuComplex.h>
#include <cuda_runtime.h>

struct Case { float ar, ai, br, bi, dr, di; };

static const Case kCases[] = {
    {3.0f, 4.0f, 1.0f, 2.0f, 0.5f, -0.25f},
    {-1.5f, 0.0f, 0.0f, -2.0f, 1.0f, 1.0f},
    {3e30f, -4e30f, 2e30f, 1e30f, 0.0f, 0.0f},     // squares overflow float: scaled forms stay finite
    {3e-30f, 4e-30f, -1e-30f, 5e-31f, 0.0f, 0.0f}, // squares underflow
    {0.0f, 0.0f, 7.0f, -1.0f, -3.0f, 2.0f},
};
const int N = sizeof(kCases) / sizeof(kCases[0]);

__global__ void ops(const Case *c, float *f, double *d, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    cuFloatComplex a = make_cuFloatComplex(c[i].ar, c[i].ai), b = make_cuFloatComplex(c[i].br, c[i].bi);
    cuFloatComplex e = make_cuFloatComplex(c[i].dr, c[i].di);
    cuFloatComplex q = cuCdivf(a, b), m = cuCfmaf(a, b, e);
    f[i * 5 + 0] = cuCabsf(a); f[i * 5 + 1] = cuCrealf(q); f[i * 5 + 2] = cuCimagf(q);
    f[i * 5 + 3] = cuCrealf(m); f[i * 5 + 4] = cuCimagf(m);
    cuDoubleComplex A = cuComplexFloatToDouble(a), B = cuComplexFloatToDouble(b), E = cuComplexFloatToDouble(e);
    cuDoubleComplex Q = cuCdiv(A, B), M = cuCfma(A, B, E);
    d[i * 5 + 0] = cuCabs(A); d[i * 5 + 1] = cuCreal(Q); d[i * 5 + 2] = cuCimag(Q);
    d[i * 5 + 3] = cuCreal(M); d[i * 5 + 4] = cuCimag(M);
}

int main() {
    Case *dc; float *df; double *dd;
    cudaMalloc(&dc, sizeof(kCases)); cudaMalloc(&df, N * 5 * sizeof(float)); cudaMalloc(&dd, N * 5 * sizeof(double));
    cudaMemcpy(dc, kCases, sizeof(kCases), cudaMemcpyHostToDevice);
    ops<<<1, 32>>>(dc, df, dd, N);
    float hf[N * 5]; double hd[N * 5];
    cudaMemcpy(hf, df, sizeof(hf), cudaMemcpyDeviceToHost);
    cudaMemcpy(hd, dd, sizeof(hd), cudaMemcpyDeviceToHost);
    for (int i = 0; i < N; ++i) {
        const Case &c = kCases[i];
        cuFloatComplex a = make_cuFloatComplex(c.ar, c.ai), b = make_cuFloatComplex(c.br, c.bi);
        cuFloatComplex q = cuCdivf(a, b), m = cuCfmaf(a, b, make_cuFloatComplex(c.dr, c.di));
        cuDoubleComplex Q = cuCdiv(cuComplexFloatToDouble(a), cuComplexFloatToDouble(b));
        cuFloatComplex back = cuComplexDoubleToFloat(Q);
        printf("host %d %a %a %a %a %a %.17g %.17g %.17g %a %a\n", i, cuCabsf(a), q.x, q.y, m.x, m.y,
               cuCabs(cuComplexFloatToDouble(a)), Q.x, Q.y, back.x, back.y);
        printf("dev %d %a %a %a %a %a %.17g %.17g %.17g %.17g %.17g\n", i, hf[i * 5], hf[i * 5 + 1], hf[i * 5 + 2],
               hf[i * 5 + 3], hf[i * 5 + 4], hd[i * 5], hd[i * 5 + 1], hd[i * 5 + 2], hd[i * 5 + 3], hd[i * 5 + 4]);
    }
    printf("done 1\n");
    return 0;
}

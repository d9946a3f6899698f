// erfinv/erfcinv/normcdfinv (and float forms) called from host code, and from a __host__ __device__
// function on both sides (as CCCL's thrust::random::normal_distribution does): prints
// "x erfcinv_host erfcinv_device erfinv_host normcdfinv_host erfcinvf_host" per input of stdin.
#include <cstdio>
#include <vector>
__host__ __device__ double inverse(double c) { return erfcinv(c); }
__global__ void on_device(const double *in, double *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = inverse(in[i]);
}
int main() {
    std::vector<double> c;
    double v;
    while (std::scanf("%lf", &v) == 1) c.push_back(v);
    int n = (int)c.size();
    std::vector<double> dev(n);
    double *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(double));
    cudaMalloc(&d_out, n * sizeof(double));
    cudaMemcpy(d_in, c.data(), n * sizeof(double), cudaMemcpyHostToDevice);
    on_device<<<(n + 127) / 128, 128>>>(d_in, d_out, n);
    if (cudaMemcpy(dev.data(), d_out, n * sizeof(double), cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    for (int i = 0; i < n; i++)
        std::printf("%.17g %.17g %.17g %.17g %.17g %.9g\n", c[i], inverse(c[i]), dev[i], erfinv(1.0 - c[i]),
                    normcdfinv(c[i] / 2), (double)erfcinvf((float)c[i]));
    return 0;
}

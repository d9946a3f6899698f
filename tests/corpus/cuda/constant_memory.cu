// __constant__ memory: coefficient tables, a struct in constant space, indexed and uniform reads.
struct Params { float scale; float bias; int order; int pad; };
__constant__ float poly_coeffs[16] = {1.f, 0.5f, 0.25f, 0.125f, 1e-2f, 1e-3f, 1e-4f, 1e-5f};
__constant__ Params params = {2.0f, -1.0f, 8, 0};
__constant__ int lut[256];
__constant__ double dconst[4] = {3.141592653589793, 2.718281828459045, 1.4142135623730951, 0.5};

__global__ void polynomial(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i], acc = 0.f;
  for (int k = params.order - 1; k >= 0; --k) acc = acc * v + poly_coeffs[k];
  y[i] = params.scale * acc + params.bias;
}

__global__ void lookup(const unsigned char *in, int *out, double *dout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { out[i] = lut[in[i]]; dout[i] = dconst[in[i] & 3] * i; }
}

// Virtual functions in device code: objects built in the kernel (placement new and device new),
// overrides through base pointers, virtual destructors, multiple inheritance, pure virtual bases,
// an array of function pointers and a __device__ function-pointer variable.
#include <cstdio>
#include <new>

struct Shape {
    __device__ virtual ~Shape() {}
    __device__ virtual float area() const = 0;
    __device__ virtual int sides() const { return 0; }
};
struct Circle : Shape {
    float r;
    __device__ explicit Circle(float r_) : r(r_) {}
    __device__ float area() const override { return 3.0f * r * r; }
};
struct Poly : Shape {
    int n; float s;
    __device__ Poly(int n_, float s_) : n(n_), s(s_) {}
    __device__ float area() const override { return n * s * s / 4.0f; }
    __device__ int sides() const override { return n; }
};
struct Square final : Poly {
    __device__ explicit Square(float s_) : Poly(4, s_) {}
    __device__ float area() const override { return s * s; }
};
struct Named { __device__ virtual int code() const { return 7; } __device__ virtual ~Named() {} };
struct Tagged : Shape, Named {
    __device__ float area() const override { return 1.0f; }
    __device__ int code() const override { return 99; }
};

__device__ int destroyed;

__device__ int op_add(int a, int b) { return a + b; }
__device__ int op_mul(int a, int b) { return a * b; }
__device__ int op_sub(int a, int b) { return a - b; }
__device__ int (*const table[3])(int, int) = {op_add, op_mul, op_sub};
__device__ int (*chosen)(int, int) = op_mul;

struct Dtor : Shape {
    __device__ ~Dtor() override { atomicAdd(&destroyed, 1); }
    __device__ float area() const override { return 0.0f; }
};

__global__ void shapes(float *areas, int *sides, int *codes) {
    int i = threadIdx.x;
    alignas(16) unsigned char buf[64];
    Shape *s;
    switch (i % 4) {
    case 0: s = new (buf) Circle(1.0f + i); break;
    case 1: s = new (buf) Poly(3 + i % 5, 2.0f); break;
    case 2: s = new (buf) Square(0.5f * i); break;
    default: s = new (buf) Tagged(); break;
    }
    areas[i] = s->area();
    sides[i] = s->sides();
    codes[i] = (i % 4 == 3) ? static_cast<Tagged *>(s)->code() + static_cast<Named *>(static_cast<Tagged *>(s))->code() : -1;
    s->~Shape();
    Shape *h = new Dtor();
    delete h;
    codes[i] += table[i % 3](i, 3) * 1000 + chosen(i, 2) * 100000;
}

int main() {
    const int n = 32;
    float *da; int *ds, *dc;
    cudaMalloc(&da, n * 4); cudaMalloc(&ds, n * 4); cudaMalloc(&dc, n * 4);
    shapes<<<1, n>>>(da, ds, dc);
    cudaError_t e = cudaDeviceSynchronize();
    float a[n]; int s[n], c[n];
    cudaMemcpy(a, da, sizeof a, cudaMemcpyDeviceToHost);
    cudaMemcpy(s, ds, sizeof s, cudaMemcpyDeviceToHost);
    cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i += 3) printf("%2d area %g sides %d code %d\n", i, a[i], s[i], c[i]);
    int dest = 0;
    cudaMemcpyFromSymbol(&dest, destroyed, sizeof dest);
    printf("destroyed %d status %s\n", dest, cudaGetErrorString(e));
    return 0;
}

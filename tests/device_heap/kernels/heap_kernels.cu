// Device-heap kernels for tests/device_heap: run on every engine and compared with the cpu
// backend's own heap, and compiled for Metal (AIR and MSL).
#include <cstdint>

struct Particle {
    float x, y;
    int id;
    __device__ Particle(int i) : x(0.5f * i), y(-1.0f * i), id(i) {}
    __device__ float energy() const { return x * x + y * y + id; }
};

// Each thread mallocs n ints, writes them, reads them back and frees them.
extern "C" __global__ void per_thread(int *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int *buf = (int *)malloc(n * sizeof(int));
    if (buf == nullptr) { out[t] = -1; return; }
    for (int i = 0; i < n; i++) buf[i] = t * i + 1;
    int s = 0;
    for (int i = 0; i < n; i++) s += buf[i] ^ i;
    free(buf);
    out[t] = s;
}

// One block-wide buffer: thread 0 mallocs, every thread writes its part, thread 0 frees.
extern "C" __global__ void per_block(int *out, int per) {
    __shared__ int *block_buf;
    if (threadIdx.x == 0) block_buf = (int *)malloc(blockDim.x * per * sizeof(int));
    __syncthreads();
    int *b = block_buf;
    if (b != nullptr) {
        for (int i = 0; i < per; i++) b[threadIdx.x * per + i] = blockIdx.x * 1000 + threadIdx.x * per + i;
    }
    __syncthreads();
    int s = -1;
    if (b != nullptr) {
        s = 0;
        int other = (threadIdx.x + 1) % blockDim.x;  // read a neighbour's part: the buffer is shared
        for (int i = 0; i < per; i++) s += b[other * per + i];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) free(b);
}

// new/delete of a struct and of an array of structs.
extern "C" __global__ void structs(float *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    Particle *one = new Particle(t);
    Particle *many = (Particle *)malloc(n * sizeof(Particle));
    float e = one->energy();
    if (many != nullptr) {
        for (int i = 0; i < n; i++) new (&many[i]) Particle(t + i);
        for (int i = 0; i < n; i++) e += many[i].energy();
        free(many);
    }
    int *ints = new int[n + 1];
    ints[n] = 7;
    e += ints[n];
    delete[] ints;
    delete one;
    out[t] = e;
}

// Keeps what it gets: the heap runs out and malloc returns NULL.
extern "C" __global__ void grab(unsigned long long bytes, unsigned long long *out) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = (unsigned long long)(uintptr_t)malloc(bytes);
}

extern "C" __global__ void give_back(unsigned long long *ptrs) {
    free((void *)(uintptr_t)ptrs[blockIdx.x * blockDim.x + threadIdx.x]);
}

// CUDA's device heap: malloc/free and new/delete in kernels (test_device_heap.py).
struct Shape {
    __device__ virtual ~Shape() {}
    __device__ virtual int area() const = 0;
};
struct Rect : Shape {
    int w, h;
    __device__ Rect(int w_, int h_) : w(w_), h(h_) {}
    __device__ int area() const override { return w * h; }
};

// Each thread allocates n ints, fills them, sums them back and frees them.
extern "C" __global__ void per_thread_buffers(int *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int *p = (int *)malloc(n * sizeof(int));
    if (p == nullptr) { out[t] = -1; return; }
    for (int i = 0; i < n; i++) p[i] = t + i;
    int s = 0;
    for (int i = 0; i < n; i++) s += p[i];
    free(p);
    out[t] = s;
}

// new in one kernel, a virtual call and delete (through the virtual destructor) in another.
extern "C" __global__ void make_objects(Shape **objs) {
    int t = threadIdx.x;
    objs[t] = new Rect(t, t + 1);
}
extern "C" __global__ void use_objects(Shape **objs, int *out) {
    int t = threadIdx.x;
    out[t] = objs[t]->area();
    delete objs[t];
}

// Keeps its blocks: the heap runs out and malloc returns NULL.
extern "C" __global__ void leak(unsigned long long bytes, unsigned long long **out) {
    out[threadIdx.x] = (unsigned long long *)malloc(bytes);
}

extern "C" __global__ void release(unsigned long long **ptrs) { free(ptrs[threadIdx.x]); }

/* The same operations through PoCL's OpenCL C API (the anchor): an empty kernel enqueue + clFinish,
 * blocking buffer writes/reads, and clGetPlatformIDs as a trivial call. Output as cumetal_overhead.cu. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* CPU time of the whole process (all its threads): what a loaded machine multiplies */
static double cpu_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
    int iters = argc > 1 ? atoi(argv[1]) : 200;
    size_t bytes = argc > 2 ? (size_t)atol(argv[2]) : 4096;
    cl_platform_id platform;
    cl_device_id device;
    cl_int err = clGetPlatformIDs(1, &platform, NULL);
    err |= clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "no OpenCL device\n");
        return 1;
    }
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
    const char *src = "__kernel void empty_kernel(void) {}";
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    if (clBuildProgram(prog, 1, &device, "", NULL, NULL) != CL_SUCCESS) return 1;
    cl_kernel k = clCreateKernel(prog, "empty_kernel", &err);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    char *host = (char *)calloc(1, bytes);
    size_t one = 1;
    for (int i = 0; i < 10; i++) {
        clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL);
        clFinish(q);
        clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    }
    double c0 = cpu_us(), t0 = now_us();
    for (int i = 0; i < iters; i++) {
        clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL);
        clFinish(q);
    }
    double t1 = now_us(), c1 = cpu_us();
    for (int i = 0; i < iters; i++) clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    double t2 = now_us();
    for (int i = 0; i < iters; i++) clEnqueueReadBuffer(q, buf, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    double t3 = now_us();
    cl_uint n;
    for (int i = 0; i < iters; i++) clGetPlatformIDs(0, NULL, &n);
    double t4 = now_us(), c4 = cpu_us();
    for (int i = 0; i < iters; i++) clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL);
    double t5 = now_us();
    clFinish(q);
    double t6 = now_us(), c6 = cpu_us();
    printf("launch_sync %.2f\n", (t1 - t0) / iters);
    printf("memcpy_h2d %.2f\n", (t2 - t1) / iters);
    printf("memcpy_d2h %.2f\n", (t3 - t2) / iters);
    printf("trivial_call %.2f\n", (t4 - t3) / iters);
    printf("launch_enqueue %.2f\n", (t5 - t4) / iters);
    printf("launch_sync_cpu %.2f\n", (c1 - c0) / iters);
    printf("launch_batch %.2f\n", (t6 - t4) / iters); /* the launches and the one synchronisation */
    printf("launch_batch_cpu %.2f\n", (c6 - c4) / iters);
    return 0;
}

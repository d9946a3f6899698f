/* The driver API's cuLaunchKernel from C through the native launch path: repeated launches on the
 * null stream and on two non-blocking streams ordered by events, a copy in the middle, the `extra`
 * form, and (argv[1] == "fault") a fault of a natively enqueued launch reported at the next
 * synchronisation. tests/c_abi/test_native_launch.py runs it with the native path on and off. */
#include <stdio.h>
#include <string.h>

#include <cuda.h>

static const char *PTX =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry inc(.param .u64 p, .param .u32 n, .param .u32 by)\n{\n"
    "  .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %p1;\n"
    "  ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n]; ld.param.u32 %r6, [by];\n"
    "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;\n"
    "  mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "  setp.ge.u32 %p1, %r5, %r1;\n"
    "  @%p1 bra DONE;\n"
    "  cvta.to.global.u64 %rd2, %rd1; mul.wide.u32 %rd3, %r5, 4; add.s64 %rd2, %rd2, %rd3;\n"
    "  ld.global.u32 %r7, [%rd2]; add.s32 %r7, %r7, %r6; st.global.u32 [%rd2], %r7;\n"
    "DONE:\n  ret;\n}\n";

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        CUresult r_ = (x);                                                                         \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            printf("FAIL line %d: %s -> %d\n", __LINE__, #x, (int)r_);                             \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static long total(const unsigned *h, int n) {
    long s = 0;
    for (int i = 0; i < n; i++) s += h[i];
    return s;
}

int main(int argc, char **argv) {
    int fault = argc > 1 && strcmp(argv[1], "fault") == 0;
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction inc;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(&ctx, NULL, 0, dev));
    CHECK(cuModuleLoadData(&mod, PTX));
    CHECK(cuModuleGetFunction(&inc, mod, "inc"));
    enum { N = 700 };
    unsigned n = N, one = 1, h[N];
    CUdeviceptr a, b;
    CHECK(cuMemAlloc(&a, sizeof h));
    CHECK(cuMemAlloc(&b, sizeof h));
    CHECK(cuMemsetD8(a, 0, sizeof h));
    CHECK(cuMemsetD8(b, 0, sizeof h));
    void *pa[] = {&a, &n, &one};
    if (fault) {
        for (int k = 0; k < 10; k++) CHECK(cuLaunchKernel(inc, 3, 1, 1, 256, 1, 1, 0, 0, pa, NULL));
        CHECK(cuCtxSynchronize());
        for (int k = 0; k < 10; k++) CHECK(cuLaunchKernel(inc, 3, 1, 1, 256, 1, 1, 0, 0, pa, NULL));
        CUdeviceptr bad = 64;
        void *pbad[] = {&bad, &n, &one};
        CUresult launched = cuLaunchKernel(inc, 3, 1, 1, 256, 1, 1, 0, 0, pbad, NULL);
        CUresult synced = cuCtxSynchronize();
        printf("fault: launch %d, sync %d (want %d)\n", (int)launched, (int)synced, (int)CUDA_ERROR_ILLEGAL_ADDRESS);
        return 0;
    }
    for (int k = 0; k < 150; k++) CHECK(cuLaunchKernel(inc, 3, 1, 1, 256, 1, 1, 0, 0, pa, NULL));
    CHECK(cuMemcpyDtoHAsync(h, a, sizeof h, 0));
    for (int k = 0; k < 150; k++) CHECK(cuLaunchKernel(inc, 3, 1, 1, 256, 1, 1, 0, 0, pa, NULL));
    CHECK(cuStreamSynchronize(0));
    printf("null stream: snapshot %ld (want %ld)\n", total(h, N), 150L * N);
    CHECK(cuMemcpyDtoH(h, a, sizeof h));
    printf("null stream: final %ld (want %ld)\n", total(h, N), 300L * N);

    /* two non-blocking streams in lockstep: b += 10 * (a's round count) */
    CUstream s1, s2;
    CUevent e1, e2;
    CHECK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    CHECK(cuEventCreate(&e1, CU_EVENT_DISABLE_TIMING));
    CHECK(cuEventCreate(&e2, CU_EVENT_DISABLE_TIMING));
    CHECK(cuMemsetD8(a, 0, sizeof h));
    unsigned ten = 10;
    void *pb[] = {&b, &n, &ten};
    for (int round = 0; round < 6; round++) {
        if (round) CHECK(cuStreamWaitEvent(s1, e2, 0));
        for (int k = 0; k < 30; k++) CHECK(cuLaunchKernel(inc, 3, 1, 1, 256, 1, 1, 0, s1, pa, NULL));
        CHECK(cuEventRecord(e1, s1));
        CHECK(cuStreamWaitEvent(s2, e1, 0));
        CHECK(cuMemcpyDtoDAsync(b, a, sizeof h, s2)); /* b = a, then 20 launches add 10 each */
        for (int k = 0; k < 20; k++) CHECK(cuLaunchKernel(inc, 3, 1, 1, 256, 1, 1, 0, s2, pb, NULL));
        CHECK(cuEventRecord(e2, s2));
    }
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(h, b, sizeof h));
    printf("streams: b %ld (want %ld)\n", total(h, N), (180L + 200L) * N);

    /* the packed-argument form (extra) takes the Python path, in order with the rest */
    struct {
        CUdeviceptr p;
        unsigned n, by;
    } packed = {a, n, 1000};
    size_t size = sizeof packed;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    for (int k = 0; k < 5; k++) {
        CHECK(cuLaunchKernel(inc, 3, 1, 1, 256, 1, 1, 0, 0, pa, NULL));
        CHECK(cuLaunchKernel(inc, 3, 1, 1, 256, 1, 1, 0, 0, NULL, extra));
    }
    CHECK(cuMemcpyDtoH(h, a, sizeof h));
    printf("extra: a %ld (want %ld)\n", total(h, N), (180L + 5 * 1001L) * N);
    printf("done\n");
    return 0;
}

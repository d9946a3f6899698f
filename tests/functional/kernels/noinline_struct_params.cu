// __noinline__ device functions passing and returning structs of a uint4 and a 64-bit value
// through .param (each call block declares its own param0/retval0): test_noinline_struct_params.py
struct S { uint4 v; unsigned long long c; };
struct D { uint4 v; double d; };
__device__ __noinline__ S make(unsigned a) { S s; s.v = make_uint4(a, a + 1, a + 2, a + 3); s.c = 0x100000000ull * a + 7; return s; }
__device__ __noinline__ unsigned long long take(S s) { return s.v.x + s.v.y + s.v.z + s.v.w + s.c; }
__device__ __noinline__ D maked(unsigned a) { D s; s.v = make_uint4(a, a, a, a); s.d = a * 0.5; return s; }
extern "C" __global__ void k(unsigned long long *out, double *outd) {
    unsigned t = threadIdx.x;
    S s = make(t);
    out[t] = take(s);
    outd[t] = maked(t).d;
}

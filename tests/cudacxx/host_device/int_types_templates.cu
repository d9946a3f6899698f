// Kernels instantiated for every <cstdint> type whose definition differs between C libraries:
// on macOS int64_t is long long and int_fast16_t short, on glibc int_fast16_t is long, on musl int.
// Each instantiation below is a distinct type on Darwin, so the device pass must see Darwin's types
// there (else fill<long> is instantiated twice) and name each kernel as the host compile does.
#include <cstdint>

template <typename T> __global__ void fill(T *p, T v) { p[threadIdx.x] = v; }
template __global__ void fill<int64_t>(int64_t *, int64_t);
template __global__ void fill<uint64_t>(uint64_t *, uint64_t);
template __global__ void fill<int_fast16_t>(int_fast16_t *, int_fast16_t);
template __global__ void fill<uint_fast32_t>(uint_fast32_t *, uint_fast32_t);
template __global__ void fill<intmax_t>(intmax_t *, intmax_t);

template <typename T> __global__ void from_literal(T *p) { *p = 1; }
template <typename T> void launch_from(T v) { from_literal<<<1, 1>>>(static_cast<T *>(nullptr)); (void)v; }
void launch_all() { launch_from(INT64_C(5)); launch_from(UINT64_C(5)); }

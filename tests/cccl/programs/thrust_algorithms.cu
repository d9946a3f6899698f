// Common Thrust algorithms on device_vector, built by cumetalc against the user's CCCL
// (tests/cccl/test_cccl_programs.py). Every result is compared with the C++ standard library's
// algorithm on the same data on the host; one "ok NAME" / "FAIL NAME" line per check, then
// PASSED or FAILED. Arguments: sizes (numbers of elements), each checked in turn.
#include <thrust/binary_search.h>
#include <thrust/complex.h>
#include <thrust/copy.h>
#include <thrust/device_free.h>
#include <thrust/device_malloc.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/fill.h>
#include <thrust/gather.h>
#include <thrust/host_vector.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/merge.h>
#include <thrust/partition.h>
#include <thrust/random.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/tabulate.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/tuple.h>
#include <thrust/unique.h>

#include <cuda/atomic>
#include <cuda/std/array>
#include <cuda/std/complex>
#include <cuda/std/functional>
#include <cuda/std/optional>
#include <cuda/std/span>
#include <cuda/std/tuple>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

static int fails = 0;
#define CHECK(c, name)                   \
    do {                                 \
        if (!(c)) {                      \
            printf("FAIL %s\n", name);   \
            ++fails;                     \
        } else {                         \
            printf("ok %s\n", name);     \
        }                                \
    } while (0)

struct is_odd {
    __host__ __device__ bool operator()(int x) const { return x & 1; }
};
struct is_negative {
    __host__ __device__ bool operator()(int x) const { return x < 0; }
};
struct twice_plus1 {
    __host__ __device__ int operator()(int x) const { return 2 * x + 1; }
};
struct square {
    __host__ __device__ long long operator()(int x) const { return (long long)x * x; }
};
struct by_mod7 {  // a comparator that is not a plain less: Thrust takes its merge sort
    __host__ __device__ bool operator()(int a, int b) const { return (a % 7) < (b % 7); }
};
struct uniform_at {  // thrust::random on the device and on the host
    __host__ __device__ float operator()(int i) const {
        thrust::default_random_engine e(1234);
        e.discard(i);
        thrust::uniform_real_distribution<float> d(0.0f, 1.0f);
        return d(e);
    }
};

__global__ void atomic_sum(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        cuda::atomic_ref<int, cuda::thread_scope_device> r(*p);
        r.fetch_add(i);
    }
}
struct add_one {
    __host__ __device__ void operator()(int &x) const { x += 1; }
};
__global__ void span_optional_tuple(int *p, int n) {
    cuda::std::span<int> s(p, n);
    cuda::std::optional<int> o;
    if (threadIdx.x < n) {
        o = s[threadIdx.x];
        auto t = cuda::std::make_tuple(*o, 2);
        s[threadIdx.x] = cuda::std::get<0>(t) * cuda::std::get<1>(t);
    }
}
__global__ void complex_square(float *out) {
    cuda::std::complex<float> z(1.0f, 2.0f);
    z = z * z;
    cuda::std::array<float, 2> a{z.real(), z.imag()};
    out[0] = a[0];
    out[1] = a[1];
    out[2] = cuda::std::abs(z);
}

template <class T>
static std::vector<T> to_std(const thrust::device_vector<T> &d, size_t n) {
    thrust::host_vector<T> h(d.begin(), d.begin() + n);
    return std::vector<T>(h.begin(), h.end());
}

static void run(int n) {
    std::vector<int> ref(n);
    unsigned s = 12345;
    for (int i = 0; i < n; ++i) {
        s = s * 1103515245u + 12345u;
        ref[i] = (int)((s >> 8) % 1000) - 500;
    }
    std::vector<int> sorted_ref = ref;
    std::sort(sorted_ref.begin(), sorted_ref.end());

    thrust::host_vector<int> h(ref.begin(), ref.end());
    thrust::device_vector<int> d = h;
    CHECK(to_std(d, n) == ref, "device_vector copy host->device->host");

    thrust::device_vector<int> t(n);
    thrust::transform(d.begin(), d.end(), t.begin(), twice_plus1());
    {
        std::vector<int> e(n);
        std::transform(ref.begin(), ref.end(), e.begin(), twice_plus1());
        CHECK(to_std(t, n) == e, "transform");
    }
    CHECK(thrust::reduce(d.begin(), d.end(), 0LL) == std::accumulate(ref.begin(), ref.end(), 0LL), "reduce");
    CHECK(thrust::reduce(d.begin(), d.end(), -100000, cuda::maximum<int>()) == sorted_ref.back(), "reduce max");

    thrust::device_vector<int> sorted = d;
    thrust::sort(sorted.begin(), sorted.end());
    CHECK(to_std(sorted, n) == sorted_ref, "sort");
    {
        thrust::device_vector<int> keys = d, vals(n);
        thrust::sequence(vals.begin(), vals.end());
        thrust::stable_sort_by_key(keys.begin(), keys.end(), vals.begin());
        std::vector<int> idx(n);
        std::iota(idx.begin(), idx.end(), 0);
        std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return ref[a] < ref[b]; });
        CHECK(to_std(vals, n) == idx && to_std(keys, n) == sorted_ref, "stable_sort_by_key + sequence");
    }
    {
        thrust::device_vector<float> f(n);
        thrust::transform(d.begin(), d.end(), f.begin(), [] __device__(int x) { return x * 0.5f; });
        thrust::sort(f.begin(), f.end(), cuda::std::greater<float>());
        std::vector<float> e(n);
        for (int i = 0; i < n; ++i) e[i] = sorted_ref[n - 1 - i] * 0.5f;
        CHECK(to_std(f, n) == e, "device lambda transform + sort descending (float)");
    }
    {
        thrust::device_vector<int> c = d;
        thrust::stable_sort(c.begin(), c.end(), by_mod7());
        std::vector<int> e = ref;
        std::stable_sort(e.begin(), e.end(), by_mod7());
        CHECK(to_std(c, n) == e, "stable_sort with a custom comparator (merge sort)");
    }
    {
        thrust::device_vector<int> sc(n);
        thrust::inclusive_scan(d.begin(), d.end(), sc.begin());
        std::vector<int> e(n);
        std::partial_sum(ref.begin(), ref.end(), e.begin());
        CHECK(to_std(sc, n) == e, "inclusive_scan");
        thrust::exclusive_scan(d.begin(), d.end(), sc.begin(), 7);
        int acc = 7;
        for (int i = 0; i < n; ++i) {
            e[i] = acc;
            acc += ref[i];
        }
        CHECK(to_std(sc, n) == e, "exclusive_scan");
    }
    {
        thrust::device_vector<int> odd(n);
        auto end = thrust::copy_if(d.begin(), d.end(), odd.begin(), is_odd());
        std::vector<int> e;
        std::copy_if(ref.begin(), ref.end(), std::back_inserter(e), is_odd());
        CHECK(to_std(odd, end - odd.begin()) == e, "copy_if");
        CHECK(thrust::count_if(d.begin(), d.end(), is_odd()) == (long)e.size(), "count_if");
        CHECK(thrust::count(d.begin(), d.end(), ref[3]) == std::count(ref.begin(), ref.end(), ref[3]), "count");
    }
    {
        thrust::device_vector<int> f(n);
        thrust::fill(f.begin(), f.end(), 42);
        CHECK(to_std(f, n) == std::vector<int>(n, 42), "fill");
    }
    {
        thrust::device_vector<int> u = sorted;
        auto ue = thrust::unique(u.begin(), u.end());
        std::vector<int> e = sorted_ref;
        e.erase(std::unique(e.begin(), e.end()), e.end());
        CHECK(to_std(u, ue - u.begin()) == e, "unique");
    }
    {
        std::vector<int> k(n);
        for (int i = 0; i < n; ++i) k[i] = i / 7;
        thrust::device_vector<int> dk(k.begin(), k.end()), ok(n), ov(n);
        auto e = thrust::reduce_by_key(dk.begin(), dk.end(), d.begin(), ok.begin(), ov.begin());
        std::vector<int> sums((n + 6) / 7, 0);
        for (int i = 0; i < n; ++i) sums[i / 7] += ref[i];
        CHECK(to_std(ov, e.first - ok.begin()) == sums, "reduce_by_key");
    }
    {
        long long e = 0;
        for (int v : ref) e += (long long)v * v;
        CHECK(thrust::transform_reduce(d.begin(), d.end(), square(), 0LL, cuda::std::plus<long long>()) == e,
              "transform_reduce");
        CHECK(thrust::inner_product(d.begin(), d.end(), d.begin(), 0LL) == e, "inner_product");
    }
    {
        thrust::device_vector<int> idx(n), g(n), sc(n);
        thrust::sequence(idx.begin(), idx.end(), n - 1, -1);
        thrust::gather(idx.begin(), idx.end(), d.begin(), g.begin());
        std::vector<int> rev(ref.rbegin(), ref.rend());
        CHECK(to_std(g, n) == rev, "gather");
        thrust::scatter(d.begin(), d.end(), idx.begin(), sc.begin());
        CHECK(to_std(sc, n) == rev, "scatter");
    }
    {
        auto mm = thrust::minmax_element(d.begin(), d.end());
        CHECK(*mm.first == sorted_ref.front() &&
                  mm.second - d.begin() == std::max_element(ref.begin(), ref.end()) - ref.begin(),
              "minmax_element");
    }
    {
        thrust::device_vector<int> q(thrust::counting_iterator<int>(-520), thrust::counting_iterator<int>(520)), lb(1040);
        thrust::lower_bound(sorted.begin(), sorted.end(), q.begin(), q.end(), lb.begin());
        std::vector<int> e(1040);
        for (int i = 0; i < 1040; ++i)
            e[i] = std::lower_bound(sorted_ref.begin(), sorted_ref.end(), i - 520) - sorted_ref.begin();
        CHECK(to_std(lb, 1040) == e, "vectorized lower_bound");
        thrust::device_vector<int> m(2 * n);
        thrust::merge(sorted.begin(), sorted.end(), sorted.begin(), sorted.end(), m.begin());
        std::vector<int> em(2 * n);
        std::merge(sorted_ref.begin(), sorted_ref.end(), sorted_ref.begin(), sorted_ref.end(), em.begin());
        CHECK(to_std(m, 2 * n) == em, "merge");
    }
    {
        thrust::device_vector<int> p = d;
        auto mid = thrust::stable_partition(p.begin(), p.end(), is_negative());
        std::vector<int> e = ref;
        auto emid = std::stable_partition(e.begin(), e.end(), is_negative());
        CHECK(mid - p.begin() == emid - e.begin() && to_std(p, n) == e, "stable_partition");
        thrust::device_vector<int> r = d;
        auto re = thrust::remove_if(r.begin(), r.end(), is_negative());
        std::vector<int> er = ref;
        er.erase(std::remove_if(er.begin(), er.end(), is_negative()), er.end());
        CHECK(to_std(r, re - r.begin()) == er, "remove_if");
    }
    {
        auto z = thrust::make_zip_iterator(thrust::make_tuple(d.begin(), thrust::counting_iterator<int>(0)));
        thrust::device_vector<int> o(n);
        thrust::transform(z, z + n, o.begin(),
                          [] __device__(thrust::tuple<int, int> v) { return thrust::get<0>(v) * thrust::get<1>(v); });
        std::vector<int> e(n);
        for (int i = 0; i < n; ++i) e[i] = ref[i] * i;
        CHECK(to_std(o, n) == e, "zip_iterator + counting_iterator");
    }
    {
        thrust::device_vector<float> r(64);
        thrust::tabulate(r.begin(), r.end(), uniform_at());
        std::vector<float> e(64);
        for (int i = 0; i < 64; ++i) e[i] = uniform_at()(i);
        CHECK(to_std(r, 64) == e, "tabulate + thrust::random (device equals host)");
    }
    {
        thrust::device_vector<thrust::complex<float>> c(4, thrust::complex<float>(1, 1));
        thrust::complex<float> sum = thrust::reduce(c.begin(), c.end());
        CHECK(sum.real() == 4 && sum.imag() == 4, "thrust::complex reduce");
    }
    {
        int *p;
        cudaMalloc(&p, sizeof(int));
        cudaMemset(p, 0, sizeof(int));
        atomic_sum<<<(n + 127) / 128, 128>>>(p, n);
        int v = 0;
        cudaMemcpy(&v, p, sizeof(int), cudaMemcpyDeviceToHost);
        CHECK(v == n * (n - 1) / 2, "cuda::atomic_ref in a kernel (libcu++)");
        float *f, hf[3];
        cudaMalloc(&f, sizeof(hf));
        complex_square<<<1, 1>>>(f);
        cudaMemcpy(hf, f, sizeof(hf), cudaMemcpyDeviceToHost);
        CHECK(hf[0] == -3 && hf[1] == 4 && hf[2] == 5, "cuda::std::complex and array in a kernel");
        cudaFree(p);
        cudaFree(f);
    }
    CHECK(thrust::reduce(thrust::host, ref.data(), ref.data() + n) == std::accumulate(ref.begin(), ref.end(), 0),
          "thrust::host execution policy");
    {
        using namespace thrust::placeholders;
        thrust::device_vector<int> o(n);
        thrust::transform(d.begin(), d.end(), o.begin(), _1 * 2 + 1);
        std::vector<int> e(n);
        std::transform(ref.begin(), ref.end(), e.begin(), twice_plus1());
        CHECK(to_std(o, n) == e, "placeholder expressions");
        thrust::for_each(o.begin(), o.end(), add_one());
        for (int &x : e) x += 1;
        CHECK(to_std(o, n) == e, "for_each");
    }
    {
        cudaStream_t stream;
        cudaStreamCreate(&stream);
        std::vector<float> hk(n);
        for (int i = 0; i < n; ++i) hk[i] = ref[i] * 0.25f;
        thrust::device_vector<float> k(hk.begin(), hk.end());
        thrust::device_vector<int> v(n);
        thrust::sequence(thrust::cuda::par.on(stream), v.begin(), v.end());
        thrust::sort_by_key(thrust::cuda::par.on(stream), k.begin(), k.end(), v.begin());
        cudaStreamSynchronize(stream);
        std::vector<int> idx(n);
        std::iota(idx.begin(), idx.end(), 0);
        std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return hk[a] < hk[b]; });
        CHECK(to_std(v, n) == idx, "sort_by_key (float keys) on a stream: thrust::cuda::par.on");
        cudaStreamDestroy(stream);
    }
    {
        thrust::device_ptr<int> p = thrust::device_malloc<int>(16);
        thrust::fill(p, p + 16, 7);
        CHECK(thrust::reduce(p, p + 16) == 112, "device_malloc / device_ptr");
        thrust::device_free(p);
        int *q;
        cudaMalloc(&q, 64 * sizeof(int));
        cudaMemcpy(q, ref.data(), 64 * sizeof(int), cudaMemcpyHostToDevice);
        span_optional_tuple<<<1, 64>>>(q, 64);
        std::vector<int> o(64), e(64);
        cudaMemcpy(o.data(), q, 64 * sizeof(int), cudaMemcpyDeviceToHost);
        for (int i = 0; i < 64; ++i) e[i] = 2 * ref[i];
        CHECK(o == e, "cuda::std::span, optional and tuple in a kernel");
        cudaFree(q);
    }
}

int main(int argc, char **argv) {  // every size in one process: loading the module is most of a run
    for (int a = 1; a < argc; ++a) run(atoi(argv[a]));
    if (argc < 2) run(300);
    printf("%s\n", fails ? "FAILED" : "PASSED");
    return fails != 0;
}

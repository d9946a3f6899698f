// More Thrust algorithms, key types, iterators and policies, built by cumetalc against the user's CCCL
// (tests/cccl/test_cccl_breadth.py). Every result is compared with the C++ standard library's
// algorithm on the same data on the host; one "ok NAME" / "FAIL NAME" line per check, then PASSED or
// FAILED. Arguments: sizes (numbers of elements), each checked in turn.
// thrust::constant_iterator is deprecated in CCCL 3 (nvcc warns too); this program still checks it
#define CCCL_IGNORE_DEPRECATED_API
#include <thrust/adjacent_difference.h>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/device_free.h>
#include <thrust/device_malloc.h>
#include <thrust/device_vector.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/fill.h>
#include <thrust/find.h>
#include <thrust/functional.h>
#include <thrust/generate.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/reverse_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/pair.h>
#include <thrust/tuple.h>
#include <thrust/logical.h>
#include <thrust/mismatch.h>
#include <thrust/partition.h>
#include <thrust/random.h>
#include <thrust/reduce.h>
#include <thrust/replace.h>
#include <thrust/reverse.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/shuffle.h>
#include <thrust/sort.h>
#include <thrust/system_error.h>
#include <thrust/transform.h>
#include <thrust/transform_scan.h>
#include <thrust/uninitialized_copy.h>
#include <thrust/uninitialized_fill.h>
#include <thrust/unique.h>
#include <thrust/universal_vector.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <new>
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

struct point {  // a key that is not an arithmetic type: Thrust sorts it with merge sort
    int x;
    float y;
};
struct by_x_then_y {
    __host__ __device__ bool operator()(const point &a, const point &b) const {
        return a.x < b.x || (a.x == b.x && a.y < b.y);
    }
};
struct is_even {
    __host__ __device__ bool operator()(int x) const { return (x & 1) == 0; }
};
struct is_negative {
    __host__ __device__ bool operator()(int x) const { return x < 0; }
};
struct absval {
    __host__ __device__ int operator()(int x) const { return x < 0 ? -x : x; }
};
struct by_abs {
    __host__ __device__ bool operator()(int a, int b) const { return absval()(a) < absval()(b); }
};
struct lcg_at {  // generate(): a functor with state copied to every thread
    __host__ __device__ int operator()() const { return 17; }
};
struct nonneg_square {
    __host__ __device__ long long operator()(int x) const { return (long long)x * x; }
};

template <class T>
static std::vector<T> to_std(const thrust::device_vector<T> &d, size_t n) {
    thrust::host_vector<T> h(d.begin(), d.begin() + n);
    return std::vector<T>(h.begin(), h.end());
}
template <class T>
static std::vector<T> to_std(const thrust::device_vector<T> &d) {
    return to_std(d, d.size());
}

static void run(int n) {
    std::vector<int> ref(n);
    unsigned s = 987654321u;
    for (int i = 0; i < n; ++i) {
        s = s * 1103515245u + 12345u;
        ref[i] = (int)((s >> 8) % 1000) - 500;
    }
    std::vector<int> sorted_ref = ref;
    std::sort(sorted_ref.begin(), sorted_ref.end());
    thrust::device_vector<int> d(ref.begin(), ref.end());
    thrust::device_vector<int> sorted(sorted_ref.begin(), sorted_ref.end());

    // ---- sort on other key types
    {
        std::vector<int64_t> h(n);
        for (int i = 0; i < n; ++i) h[i] = (int64_t)ref[i] * 10000000019LL + i;
        thrust::device_vector<int64_t> k(h.begin(), h.end());
        thrust::sort(k.begin(), k.end());
        std::sort(h.begin(), h.end());
        CHECK(to_std(k) == h, "sort int64");
    }
    {
        std::vector<double> h(n);
        for (int i = 0; i < n; ++i) h[i] = ref[i] * 0.001 - (i % 3) * 1e-9;
        h[0] = -0.0;
        thrust::device_vector<double> k(h.begin(), h.end());
        thrust::sort(k.begin(), k.end());
        std::sort(h.begin(), h.end());
        CHECK(to_std(k) == h, "sort double");
    }
    {
        std::vector<uint8_t> h(n);
        for (int i = 0; i < n; ++i) h[i] = (uint8_t)(ref[i] * 7);
        thrust::device_vector<uint8_t> k(h.begin(), h.end());
        thrust::sort(k.begin(), k.end(), cuda::std::greater<uint8_t>());
        std::sort(h.begin(), h.end(), std::greater<uint8_t>());
        CHECK(to_std(k) == h, "sort uint8 descending");
    }
    {
        std::vector<point> h(n);
        for (int i = 0; i < n; ++i) h[i] = point{ref[i] / 10, (float)(ref[(i * 7) % n])};
        thrust::device_vector<point> k(h.begin(), h.end());
        thrust::sort(k.begin(), k.end(), by_x_then_y());
        std::sort(h.begin(), h.end(), by_x_then_y());
        std::vector<point> o = to_std(k);
        bool same = true;
        for (int i = 0; i < n; ++i) same = same && o[i].x == h[i].x && o[i].y == h[i].y;
        CHECK(same, "sort custom struct keys (comparator)");
    }
    {
        thrust::device_vector<int> k = d, v(n);
        thrust::sequence(v.begin(), v.end());
        thrust::sort_by_key(k.begin(), k.end(), v.begin(), cuda::std::greater<int>());
        std::vector<int> idx(n);
        std::iota(idx.begin(), idx.end(), 0);
        std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return ref[a] > ref[b]; });
        std::vector<int> ek(n), ov = to_std(v);
        for (int i = 0; i < n; ++i) ek[i] = ref[idx[i]];
        // sort_by_key need not be stable: each value must be a position holding its key
        bool perm_ok = true;
        std::vector<int> seen(n, 0);
        for (int i = 0; i < n; ++i) {
            perm_ok = perm_ok && ov[i] >= 0 && ov[i] < n && !seen[ov[i]]++ && ref[ov[i]] == ek[i];
        }
        CHECK(to_std(k) == ek && perm_ok, "sort_by_key descending");
    }
    // ---- by-key algorithms
    std::vector<int> keys(n);
    for (int i = 0; i < n; ++i) keys[i] = (i / 5) + ((i % 11) == 0);  // runs of unequal lengths
    thrust::device_vector<int> dk(keys.begin(), keys.end());
    {
        thrust::device_vector<int> k = dk, v = d;
        auto e = thrust::unique_by_key(k.begin(), k.end(), v.begin());
        std::vector<int> ek, ev;
        for (int i = 0; i < n; ++i) {
            if (i == 0 || keys[i] != keys[i - 1]) {
                ek.push_back(keys[i]);
                ev.push_back(ref[i]);
            }
        }
        CHECK(to_std(k, e.first - k.begin()) == ek && to_std(v, e.second - v.begin()) == ev, "unique_by_key");
    }
    {
        thrust::device_vector<int> o(n);
        thrust::inclusive_scan_by_key(dk.begin(), dk.end(), d.begin(), o.begin());
        std::vector<int> e(n);
        for (int i = 0; i < n; ++i) e[i] = (i > 0 && keys[i] == keys[i - 1]) ? e[i - 1] + ref[i] : ref[i];
        CHECK(to_std(o) == e, "inclusive_scan_by_key");
        thrust::exclusive_scan_by_key(dk.begin(), dk.end(), d.begin(), o.begin(), 100);
        for (int i = 0; i < n; ++i) e[i] = (i > 0 && keys[i] == keys[i - 1]) ? e[i - 1] + ref[i - 1] : 100;
        CHECK(to_std(o) == e, "exclusive_scan_by_key (init 100)");
        thrust::inclusive_scan_by_key(dk.begin(), dk.end(), d.begin(), o.begin(), cuda::std::equal_to<int>(),
                                      cuda::maximum<int>());
        for (int i = 0; i < n; ++i)
            e[i] = (i > 0 && keys[i] == keys[i - 1]) ? std::max(e[i - 1], ref[i]) : ref[i];
        CHECK(to_std(o) == e, "inclusive_scan_by_key with a max operator");
    }
    // ---- scans and differences
    {
        thrust::device_vector<int> o(n);
        thrust::adjacent_difference(d.begin(), d.end(), o.begin());
        std::vector<int> e(n);
        std::adjacent_difference(ref.begin(), ref.end(), e.begin());
        CHECK(to_std(o) == e, "adjacent_difference");
        thrust::adjacent_difference(d.begin(), d.end(), o.begin(), cuda::maximum<int>());
        std::adjacent_difference(ref.begin(), ref.end(), e.begin(), [](int a, int b) { return std::max(a, b); });
        CHECK(to_std(o) == e, "adjacent_difference with max");
    }
    {
        thrust::device_vector<long long> o(n);
        thrust::transform_inclusive_scan(d.begin(), d.end(), o.begin(), nonneg_square(), cuda::std::plus<long long>());
        std::vector<long long> e(n);
        long long acc = 0;
        for (int i = 0; i < n; ++i) e[i] = acc += (long long)ref[i] * ref[i];
        CHECK(to_std(o) == e, "transform_inclusive_scan");
        thrust::transform_exclusive_scan(d.begin(), d.end(), o.begin(), nonneg_square(), 5LL,
                                         cuda::std::plus<long long>());
        acc = 5;
        for (int i = 0; i < n; ++i) {
            e[i] = acc;
            acc += (long long)ref[i] * ref[i];
        }
        CHECK(to_std(o) == e, "transform_exclusive_scan");
    }
    // ---- searching
    {
        const int q = 1100;
        thrust::device_vector<int> qs(thrust::counting_iterator<int>(-550), thrust::counting_iterator<int>(-550 + q));
        thrust::device_vector<bool> found(q);
        thrust::device_vector<int> ub(q);
        thrust::binary_search(sorted.begin(), sorted.end(), qs.begin(), qs.end(), found.begin());
        thrust::upper_bound(sorted.begin(), sorted.end(), qs.begin(), qs.end(), ub.begin());
        std::vector<bool> ef(q);
        std::vector<int> eu(q);
        for (int i = 0; i < q; ++i) {
            ef[i] = std::binary_search(sorted_ref.begin(), sorted_ref.end(), i - 550);
            eu[i] = std::upper_bound(sorted_ref.begin(), sorted_ref.end(), i - 550) - sorted_ref.begin();
        }
        thrust::host_vector<bool> hf = found;
        CHECK(std::vector<bool>(hf.begin(), hf.end()) == ef, "vectorized binary_search");
        CHECK(to_std(ub) == eu, "vectorized upper_bound");
        bool scalar = thrust::binary_search(sorted.begin(), sorted.end(), ref[n / 2]) &&
                      !thrust::binary_search(sorted.begin(), sorted.end(), 777) &&
                      thrust::upper_bound(sorted.begin(), sorted.end(), ref[1]) - sorted.begin() ==
                          std::upper_bound(sorted_ref.begin(), sorted_ref.end(), ref[1]) - sorted_ref.begin();
        CHECK(scalar, "scalar binary_search / upper_bound");
    }
    {
        thrust::device_vector<int> c = d;
        bool eq1 = thrust::equal(d.begin(), d.end(), c.begin());
        c[n - 1] += 1;
        bool eq2 = thrust::equal(d.begin(), d.end(), c.begin());
        auto mm = thrust::mismatch(d.begin(), d.end(), c.begin());
        c[n / 3] += 1;
        auto mm2 = thrust::mismatch(d.begin(), d.end(), c.begin());
        CHECK(eq1 && !eq2 && mm.first - d.begin() == n - 1 && mm.second - c.begin() == n - 1 &&
                  mm2.first - d.begin() == n / 3,
              "equal / mismatch");
    }
    {
        int target = ref[(2 * n) / 3];
        auto f = thrust::find(d.begin(), d.end(), target);
        auto f2 = thrust::find(d.begin(), d.end(), 4242);
        auto fi = thrust::find_if(d.begin(), d.end(), [] __device__(int x) { return x > 490; });
        auto fn = thrust::find_if_not(d.begin(), d.end(), is_negative());
        CHECK(f - d.begin() == std::find(ref.begin(), ref.end(), target) - ref.begin() && f2 == d.end() &&
                  fi - d.begin() == std::find_if(ref.begin(), ref.end(), [](int x) { return x > 490; }) - ref.begin() &&
                  fn - d.begin() == std::find_if_not(ref.begin(), ref.end(), is_negative()) - ref.begin(),
              "find / find_if / find_if_not");
    }
    {
        auto u = thrust::is_sorted_until(d.begin(), d.end());
        thrust::device_vector<int> part(sorted);
        part[n - 2] = 10000;  // sorted up to the last element
        auto u2 = thrust::is_sorted_until(part.begin(), part.end());
        CHECK(thrust::is_sorted(sorted.begin(), sorted.end()) && !thrust::is_sorted(d.begin(), d.end()) &&
                  u - d.begin() == std::is_sorted_until(ref.begin(), ref.end()) - ref.begin() &&
                  u2 - part.begin() == n - 1,
              "is_sorted / is_sorted_until");
        CHECK(thrust::all_of(sorted.begin(), sorted.end(), [] __device__(int x) { return x >= -500; }) &&
                  thrust::any_of(d.begin(), d.end(), is_negative()) &&
                  !thrust::none_of(d.begin(), d.end(), is_negative()),
              "all_of / any_of / none_of");
    }
    // ---- partitioning and rearranging
    {
        thrust::device_vector<int> p = d;
        auto mid = thrust::partition(p.begin(), p.end(), is_even());
        std::vector<int> hp = to_std(p);
        int k = mid - p.begin();
        bool ok = k == std::count_if(ref.begin(), ref.end(), is_even()) &&
                  std::is_partitioned(hp.begin(), hp.end(), is_even());
        std::vector<int> a = hp, b = ref;
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        ok = ok && a == b;
        CHECK(ok && thrust::is_partitioned(p.begin(), p.end(), is_even()) &&
                  !thrust::is_partitioned(d.begin(), d.end(), is_even()),
              "partition / is_partitioned");
        thrust::device_vector<int> yes(n), no(n);
        auto ends = thrust::partition_copy(d.begin(), d.end(), yes.begin(), no.begin(), is_even());
        std::vector<int> ey, en;
        std::partition_copy(ref.begin(), ref.end(), std::back_inserter(ey), std::back_inserter(en), is_even());
        CHECK(to_std(yes, ends.first - yes.begin()) == ey && to_std(no, ends.second - no.begin()) == en,
              "partition_copy");
    }
    {
        thrust::device_vector<int> r = d;
        std::vector<int> e = ref;
        thrust::replace(r.begin(), r.end(), ref[0], 9999);
        std::replace(e.begin(), e.end(), ref[0], 9999);
        thrust::replace_if(r.begin(), r.end(), is_negative(), -1);
        std::replace_if(e.begin(), e.end(), is_negative(), -1);
        CHECK(to_std(r) == e, "replace / replace_if");
        thrust::reverse(r.begin(), r.end());
        std::reverse(e.begin(), e.end());
        CHECK(to_std(r) == e, "reverse");
    }
    {
        thrust::device_vector<int> sh(thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n));
        thrust::default_random_engine g(2024);
        thrust::shuffle(sh.begin(), sh.end(), g);
        std::vector<int> h = to_std(sh), idn(n);
        std::iota(idn.begin(), idn.end(), 0);
        bool moved = h != idn;
        std::sort(h.begin(), h.end());
        CHECK(moved && h == idn, "shuffle (a permutation)");
    }
    {
        auto m = thrust::max_element(d.begin(), d.end(), by_abs());
        auto mi = thrust::min_element(d.begin(), d.end(), by_abs());
        CHECK(m - d.begin() == std::max_element(ref.begin(), ref.end(), by_abs()) - ref.begin() &&
                  mi - d.begin() == std::min_element(ref.begin(), ref.end(), by_abs()) - ref.begin(),
              "max_element / min_element with a comparator");
    }
    {
        thrust::device_vector<int> g(n);
        thrust::generate(g.begin(), g.end(), lcg_at());
        thrust::device_vector<int> g2(n);
        thrust::generate_n(g2.begin(), n / 2, lcg_at());
        std::vector<int> e2(n, 0);
        std::fill(e2.begin(), e2.begin() + n / 2, 17);
        CHECK(to_std(g) == std::vector<int>(n, 17) && to_std(g2) == e2, "generate / generate_n");
    }
    {
        thrust::device_ptr<point> p = thrust::device_malloc<point>(n);
        thrust::uninitialized_fill(p, p + n, point{3, 1.5f});
        thrust::device_vector<point> v(p, p + n);
        bool ok = true;
        for (const point &q : to_std(v)) ok = ok && q.x == 3 && q.y == 1.5f;
        thrust::device_ptr<int> pi = thrust::device_malloc<int>(n);
        thrust::uninitialized_copy(d.begin(), d.end(), pi);
        thrust::device_vector<int> vi(pi, pi + n);
        CHECK(ok && to_std(vi) == ref, "uninitialized_fill / uninitialized_copy");
        thrust::device_free(p);
        thrust::device_free(pi);
    }
    // ---- fancy iterators
    {
        auto ti = thrust::make_transform_iterator(d.begin(), absval());
        long long sum = thrust::reduce(ti, ti + n, 0LL);
        long long e = 0;
        for (int v : ref) e += std::abs(v);
        thrust::device_vector<int> idx(n), pv(n);
        for (int i = 0; i < n; ++i) idx[i] = (i * 37) % n;
        auto pi = thrust::make_permutation_iterator(d.begin(), idx.begin());
        thrust::copy(pi, pi + n, pv.begin());
        std::vector<int> ep(n);
        for (int i = 0; i < n; ++i) ep[i] = ref[(i * 37) % n];
        CHECK(sum == e, "transform_iterator");
        CHECK(to_std(pv) == ep, "permutation_iterator");
        thrust::device_vector<int> c(n);
        thrust::transform(d.begin(), d.end(), thrust::make_constant_iterator(3), c.begin(), cuda::std::multiplies<int>());
        std::vector<int> ec(n);
        for (int i = 0; i < n; ++i) ec[i] = 3 * ref[i];
        CHECK(to_std(c) == ec, "constant_iterator");
        // reduce_by_key with the keys discarded: only the sums are kept
        thrust::device_vector<int> sums(n);
        auto r = thrust::reduce_by_key(dk.begin(), dk.end(), d.begin(), thrust::make_discard_iterator(), sums.begin());
        std::vector<int> es;
        for (int i = 0; i < n; ++i) {
            if (i == 0 || keys[i] != keys[i - 1]) es.push_back(0);
            es.back() += ref[i];
        }
        CHECK(to_std(sums, r.second - sums.begin()) == es, "discard_iterator (reduce_by_key keys dropped)");
        thrust::device_vector<int> rv(n);
        thrust::copy(thrust::make_reverse_iterator(d.end()), thrust::make_reverse_iterator(d.begin()), rv.begin());
        thrust::device_vector<int> rs(n);
        thrust::inclusive_scan(d.rbegin(), d.rend(), rs.begin());
        std::vector<int> er(ref.rbegin(), ref.rend()), ers(n);
        std::partial_sum(er.begin(), er.end(), ers.begin());
        CHECK(to_std(rv) == er && to_std(rs) == ers, "reverse_iterator (copy, inclusive_scan over rbegin)");
    }
    // ---- more idioms: zip keys, _n forms, transform_if, by-key with a predicate, unique_count
    {
        std::vector<int> ha(n), hb(n);
        for (int i = 0; i < n; ++i) {
            ha[i] = ref[i] % 7;
            hb[i] = ref[(i * 13) % n];
        }
        thrust::device_vector<int> a(ha.begin(), ha.end()), b(hb.begin(), hb.end());
        auto zb = thrust::make_zip_iterator(thrust::make_tuple(a.begin(), b.begin()));
        thrust::sort(zb, zb + n);  // tuples compare lexicographically
        std::vector<std::pair<int, int>> e(n);
        for (int i = 0; i < n; ++i) e[i] = {ha[i], hb[i]};
        std::sort(e.begin(), e.end());
        std::vector<int> oa = to_std(a), ob = to_std(b);
        bool ok = true;
        for (int i = 0; i < n; ++i) ok = ok && oa[i] == e[i].first && ob[i] == e[i].second;
        CHECK(ok, "sort over a zip_iterator (tuple keys)");
        thrust::device_vector<thrust::pair<int, short>> pv(n);
        thrust::device_vector<int> k = d;
        thrust::transform(thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n), pv.begin(),
                          [] __device__(int i) { return thrust::make_pair(i, (short)(i % 5)); });
        thrust::stable_sort_by_key(k.begin(), k.end(), pv.begin());
        std::vector<int> idx(n);
        std::iota(idx.begin(), idx.end(), 0);
        std::stable_sort(idx.begin(), idx.end(), [&](int x, int y) { return ref[x] < ref[y]; });
        thrust::host_vector<thrust::pair<int, short>> hp = pv;
        ok = true;
        for (int i = 0; i < n; ++i) ok = ok && hp[i].first == idx[i] && hp[i].second == idx[i] % 5;
        CHECK(ok, "stable_sort_by_key with thrust::pair values");
    }
    {
        thrust::device_vector<int> o(n, -1);
        thrust::copy_n(d.begin(), n / 2, o.begin());
        thrust::fill_n(o.begin() + n / 2, n / 4, 8);
        thrust::sequence(o.begin() + n / 2 + n / 4, o.end(), 100, 3);
        thrust::for_each_n(o.begin(), n / 3, [] __device__(int &x) { x = -x; });
        std::vector<int> e(n, -1);
        std::copy_n(ref.begin(), n / 2, e.begin());
        std::fill_n(e.begin() + n / 2, n / 4, 8);
        for (int i = n / 2 + n / 4, v = 100; i < n; ++i, v += 3) e[i] = v;
        for (int i = 0; i < n / 3; ++i) e[i] = -e[i];
        CHECK(to_std(o) == e, "copy_n / fill_n / sequence with a step / for_each_n");
        thrust::device_vector<int> t(n, 0);
        thrust::transform_if(d.begin(), d.end(), t.begin(), absval(), is_negative());
        std::vector<int> et(n, 0);
        for (int i = 0; i < n; ++i) if (ref[i] < 0) et[i] = -ref[i];
        thrust::inclusive_scan(t.begin(), t.end(), t.begin(), [] __device__(int x, int y) { return x > y ? x : y; });
        for (int i = 1; i < n; ++i) et[i] = std::max(et[i], et[i - 1]);
        CHECK(to_std(t) == et, "transform_if + in-place inclusive_scan (device lambda)");
        // runs of "same sign" under a user predicate, reduced with max
        thrust::device_vector<int> rk(n), rv(n);
        auto same_sign = [] __host__ __device__(int x, int y) { return (x < 0) == (y < 0); };
        auto r = thrust::reduce_by_key(d.begin(), d.end(), d.begin(), rk.begin(), rv.begin(), same_sign,
                                       cuda::maximum<int>());
        // the key written for a run is its last one: CUB's reduce-by-key scatters the key before each
        // head flag (the same as Thrust's documented "first" when the predicate is true equality)
        std::vector<int> ek, ev;
        for (int i = 0; i < n; ++i) {
            if (i == 0 || !same_sign(ref[i], ref[i - 1])) {
                ek.push_back(ref[i]);
                ev.push_back(ref[i]);
            } else {
                ek.back() = ref[i];
                ev.back() = std::max(ev.back(), ref[i]);
            }
        }
        CHECK(to_std(rk, r.first - rk.begin()) == ek && to_std(rv, r.second - rv.begin()) == ev,
              "reduce_by_key with a user predicate and max");
        std::vector<int> eu = sorted_ref;
        long long uc = std::unique(eu.begin(), eu.end()) - eu.begin();
        CHECK(thrust::unique_count(sorted.begin(), sorted.end()) == uc, "unique_count");
    }
    // ---- memory and policies
    {
        thrust::universal_vector<int> u(n);
        thrust::sequence(u.begin(), u.end(), 1);
        cudaDeviceSynchronize();
        long long host_sum = 0;
        for (int i = 0; i < n; ++i) host_sum += u[i];  // read on the host: managed memory
        u[0] = -1000;                                    // written on the host, seen by the device
        int mn = thrust::reduce(u.begin(), u.end(), 1 << 30, cuda::minimum<int>());
        CHECK(host_sum == (long long)n * (n + 1) / 2 && mn == -1000, "universal_vector (managed memory)");
    }
    {
        bool threw = false;
        try {
            thrust::device_vector<double> huge((size_t)1 << 50);  // 8 PiB
        } catch (const std::bad_alloc &) {
            threw = true;
        }
        bool err = false;
        try {
            thrust::system_error e(cudaErrorInvalidValue, thrust::cuda_category(), "here");
            throw e;
        } catch (const thrust::system_error &e) {
            err = e.code().value() == cudaErrorInvalidValue;
        }
        cudaGetLastError();
        CHECK(threw && err, "bad allocation throws std::bad_alloc; thrust::system_error");
    }
    {
        cudaStream_t st;
        cudaStreamCreate(&st);
        thrust::device_vector<int> o(n);
        thrust::transform(thrust::cuda::par_nosync.on(st), d.begin(), d.end(), o.begin(), absval());
        thrust::sort(thrust::cuda::par_nosync.on(st), o.begin(), o.end());
        cudaStreamSynchronize(st);
        long long r = thrust::reduce(thrust::device, o.begin(), o.end(), 0LL);
        std::vector<int> e(n);
        std::transform(ref.begin(), ref.end(), e.begin(), absval());
        std::sort(e.begin(), e.end());
        CHECK(to_std(o) == e && r == std::accumulate(e.begin(), e.end(), 0LL),
              "par_nosync.on(stream) + thrust::device policy");
        cudaStreamDestroy(st);
    }
}

int main(int argc, char **argv) {  // every size in one process: loading the module is most of a run
    for (int a = 1; a < argc; ++a) run(atoi(argv[a]));
    if (argc < 2) run(300);
    printf("%s\n", fails ? "FAILED" : "PASSED");
    return fails != 0;
}

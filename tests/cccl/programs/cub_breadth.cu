// More CUB device, block and warp algorithms and libcu++ in kernels, built by cumetalc against the
// user's CCCL (tests/cccl/test_cccl_breadth.py). Every result is compared with the C++ standard
// library on the host; one "ok NAME" / "FAIL NAME" line per check, then PASSED or FAILED.
// Arguments: sizes (numbers of items for the device-wide algorithms), each checked in turn.
#include <cub/block/block_shuffle.cuh>  // not in the umbrella header
#include <cub/cub.cuh>

#include <cooperative_groups.h>  // CuMetal's, together with CCCL's <cuda/barrier> and <cuda/pipeline>
#include <cuda/atomic>
#include <cuda/barrier>
#if CCCL_MAJOR_VERSION >= 3
#include <cuda/iterator>
#endif
#include <cuda/pipeline>
#include <cuda/latch>
#include <cuda/semaphore>
#if __has_include(<cuda/std/algorithm>)
#include <cuda/std/algorithm>
#else  // CCCL 2.8 has the pieces only
#include <cuda/std/__algorithm/max_element.h>
#include <cuda/std/__algorithm/reverse.h>
#endif
#include <cuda/std/atomic>
#include <cuda/std/chrono>
#include <cuda/std/cmath>
#include <cuda/std/expected>
#include <cuda/std/inplace_vector>
#include <cuda/std/numeric>
#include <cuda/std/variant>
#include <cuda/std/bit>
#include <cuda/std/limits>
#include <cuda/std/mdspan>
#include <cuda/std/tuple>
#include <cuda/std/utility>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <vector>

static int fails = 0;
#define CHECK(c, name) do { if (!(c)) { printf("FAIL %s\n", name); ++fails; } else printf("ok %s\n", name); } while (0)
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); exit(2); } } while (0)
// CUB's two-phase calls: size the temporary storage, allocate it, run
#define TWO_PHASE(call)                                  \
  do {                                                   \
    void *d_temp_storage = nullptr;                      \
    size_t temp_storage_bytes = 0;                       \
    CK(call);                                            \
    CK(cudaMalloc(&d_temp_storage, temp_storage_bytes)); \
    CK(call);                                            \
    CK(cudaFree(d_temp_storage));                        \
  } while (0)

template <class T> struct dev {  // a device buffer
  T *p = nullptr; size_t n = 0;
  explicit dev(size_t n_) : n(n_) { CK(cudaMalloc(&p, (n ? n : 1) * sizeof(T))); }
  explicit dev(const std::vector<T> &h) : dev(h.size()) { CK(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice)); }
  ~dev() { cudaFree(p); }
  std::vector<T> get(size_t m) const { std::vector<T> h(m); if (m) CK(cudaMemcpy(h.data(), p, m * sizeof(T), cudaMemcpyDeviceToHost)); return h; }
  std::vector<T> get() const { return get(n); }
  T one(size_t i = 0) const { return get(i + 1)[i]; }
};

struct max_abs {  // a reduction operator of the user's
  __host__ __device__ int operator()(int a, int b) const { return (a < 0 ? -a : a) > (b < 0 ? -b : b) ? a : b; }
};
struct div3 {
  __host__ __device__ bool operator()(int x) const { return x % 3 == 0; }
};
struct sq_op {  // DeviceFor::Bulk: the operator writes through a pointer it holds
  int *out;
  __device__ void operator()(int i) const { out[i] = i * i - 7; }
};
struct incr {
  __device__ void operator()(int &x) const { x += 5; }
};
struct fma_op {
  __host__ __device__ float operator()(float a, int b) const { return a * 2.0f + (float)b; }
};

// ---- block and warp primitives: one block of 64 threads x 4 items
constexpr int BT = 64, IPT = 4;
__global__ void block_more(const int *in, int *out) {
  using Shuffle = cub::BlockShuffle<int, BT>;
  using AdjDiff = cub::BlockAdjacentDifference<int, BT>;
  using MergeSort = cub::BlockMergeSort<int, BT, IPT>;
  __shared__ union { typename Shuffle::TempStorage sh; typename AdjDiff::TempStorage ad; typename MergeSort::TempStorage ms; } t;
  const int tid = threadIdx.x;
  int v[IPT], o[IPT];
  for (int i = 0; i < IPT; ++i) v[i] = in[tid * IPT + i];
  int next;
  Shuffle(t.sh).Offset(v[0], next, 1);  // thread t gets thread t+1's first item (the last thread: unset)
  if (tid < BT - 1) out[tid] = next;
  __syncthreads();
  Shuffle(t.sh).Up(v, o);  // o[i] = the item before v[i] in the blocked order (o[0] of thread 0 undefined)
  for (int i = 0; i < IPT; ++i) out[BT + tid * IPT + i] = o[i];
  __syncthreads();
  AdjDiff(t.ad).SubtractLeft(v, o, cuda::std::minus<int>());  // o[i] = v[i] - previous; first item kept
  for (int i = 0; i < IPT; ++i) out[BT + BT * IPT + tid * IPT + i] = o[i];
  __syncthreads();
  MergeSort(t.ms).Sort(v, cuda::std::greater<int>());
  for (int i = 0; i < IPT; ++i) out[BT + 2 * BT * IPT + tid * IPT + i] = v[i];
}

constexpr int WT = 16;  // a logical warp of 16 threads
__global__ void warp_more(const int *in, int *out) {
  using WL = cub::WarpLoad<int, IPT, cub::WARP_LOAD_TRANSPOSE, WT>;
  using WX = cub::WarpExchange<int, IPT, WT>;
  using WM = cub::WarpMergeSort<int, IPT, WT>;
  using WS = cub::WarpStore<int, IPT, cub::WARP_STORE_TRANSPOSE, WT>;
  constexpr int warps = BT / WT;
  __shared__ typename WL::TempStorage tl[warps];
  __shared__ typename WX::TempStorage tx[warps];
  __shared__ typename WM::TempStorage tm[warps];
  __shared__ typename WS::TempStorage ts[warps];
  const int w = threadIdx.x / WT, lane = threadIdx.x % WT, base = w * WT * IPT;
  int v[IPT], s[IPT];
  WL(tl[w]).Load(in + base, v);  // blocked: lane holds items lane*IPT ..
  for (int i = 0; i < IPT; ++i) out[base + lane * IPT + i] = v[i];
  WX(tx[w]).BlockedToStriped(v, s);  // striped: lane holds items lane, lane+WT, ..
  for (int i = 0; i < IPT; ++i) out[BT * IPT + base + lane * IPT + i] = s[i];
  WM(tm[w]).Sort(v, cuda::std::less<int>());
  WS(ts[w]).Store(out + 2 * BT * IPT + base, v);
}

// ---- libcu++ in kernels
struct pt { short a; short b; };
__global__ void libcudacxx_kernel(int *atom, unsigned *bits, long long *lim, int *misc, int rows, int cols) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  auto *a = reinterpret_cast<cuda::std::atomic<int> *>(atom);
  a[0].fetch_add(1, cuda::std::memory_order_relaxed);
  int cur = a[1].load();
  while (cur < tid && !a[1].compare_exchange_weak(cur, tid)) {}  // a CAS loop: the maximum tid
  cuda::atomic_ref<int, cuda::thread_scope_device>(atom[2]).fetch_max(tid * 3 % 101);
  auto *m = reinterpret_cast<cuda::atomic<int, cuda::thread_scope_device> *>(atom + 3);
  m->fetch_or(1 << (tid % 31));
  if (tid == 0) {
    bits[0] = cuda::std::bit_cast<unsigned>(-1.5f);
    bits[1] = cuda::std::bit_cast<unsigned>(pt{0x1234, -2});
    bits[2] = cuda::std::popcount(0xF0F0u) + 100 * cuda::std::countl_zero(1u) + 10000 * cuda::std::bit_width(1000u);
    bits[3] = (unsigned)(cuda::std::bit_cast<unsigned long long>(1.0) >> 32);
    lim[0] = cuda::std::numeric_limits<int>::max();
    lim[1] = cuda::std::numeric_limits<int>::min();
    lim[2] = cuda::std::numeric_limits<unsigned short>::max();
    lim[3] = cuda::std::numeric_limits<long long>::lowest();
    lim[4] = cuda::std::bit_cast<int>(cuda::std::numeric_limits<float>::epsilon());
    lim[5] = cuda::std::bit_cast<int>(cuda::std::numeric_limits<float>::infinity());
    lim[6] = cuda::std::bit_cast<long long>(cuda::std::numeric_limits<double>::max());
    lim[7] = cuda::std::numeric_limits<double>::digits * 1000 + cuda::std::numeric_limits<float>::digits10;
    lim[8] = cuda::std::bit_cast<int>(cuda::std::numeric_limits<float>::denorm_min());
    // pair and tuple: comparisons, make_pair, tie, tuple_cat, apply, swap
    cuda::std::pair<int, int> p1 = cuda::std::make_pair(3, 9), p2{3, 4};
    auto mx = cuda::std::max(p1, p2), mn = cuda::std::min(p1, p2);
    misc[0] = mx.second * 10 + mn.second;  // 94
    auto t = cuda::std::tuple_cat(cuda::std::make_tuple(1, 2.5f), cuda::std::make_tuple(short(7)));
    misc[1] = cuda::std::apply([](int x, float y, short z) { return x * 100 + (int)(y * 10) + z * 1000; }, t);  // 7125
    int x, z; float y;
    cuda::std::tie(x, y, z) = t;
    cuda::std::swap(p1, p2);
    misc[2] = x + (int)y + z + p1.second * 100 + (int)cuda::std::tuple_size<decltype(t)>::value * 1000;  // p1 is now (3, 4)
    misc[3] = cuda::std::make_tuple(1, 2, 3) < cuda::std::make_tuple(1, 3, 0);
  }
  // mdspan: a rows x cols row-major view of misc[8..]; each thread writes its (r, c)
  cuda::std::mdspan<int, cuda::std::dextents<int, 2>> md(misc + 8, rows, cols);
  if (tid < rows * cols) {
    int r = tid / cols, c = tid % cols;
    md(r, c) = r * 1000 + c + (int)md.extent(1) * 100000;
  }
  // and a column-major (layout_left) view of the same storage, static extent 4 for the rows
  if (tid == 0) {
    cuda::std::mdspan<int, cuda::std::extents<int, 4, cuda::std::dynamic_extent>, cuda::std::layout_left> ml(misc + 8 + rows * cols, cols);
    for (int c = 0; c < cols; ++c)
      for (int r = 0; r < 4; ++r) ml(r, c) = r * 10 + c;
    misc[4] = (int)ml.size() + 1000 * (int)ml.stride(1);
  }
}

// CCCL's block-scope barrier: clang refuses `__shared__ block_barrier bar;` (the barrier's destructor
// is not empty; nvcc only warns and runs neither constructor nor destructor), so the program declares
// raw __shared__ storage and a reference to it, which both compilers accept
using block_barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cg = cooperative_groups;
__global__ void barrier_pipeline(const int *in, int *out) {
  __shared__ alignas(block_barrier) unsigned char bar_storage[sizeof(block_barrier)];
  block_barrier &bar = *reinterpret_cast<block_barrier *>(bar_storage);
  __shared__ int buf[2][BT];
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, buf[0], in, sizeof(int) * BT, bar);  // the whole block copies, the barrier waits
  bar.arrive_and_wait();
  out[threadIdx.x] = buf[0][BT - 1 - threadIdx.x] * 2;
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();  // one thread's own pipeline
  pipe.producer_acquire();
  cuda::memcpy_async(&buf[1][threadIdx.x], &in[BT + threadIdx.x], sizeof(int), pipe);
  pipe.producer_commit();
  pipe.consumer_wait();
  out[BT + threadIdx.x] = buf[1][threadIdx.x] + 1;
  pipe.consumer_release();
}

// the other algorithm choices of the block primitives
__global__ void block_variants(const int *in, int *out) {
  using LoadV = cub::BlockLoad<int, BT, IPT, cub::BLOCK_LOAD_VECTORIZE>;
  using LoadW = cub::BlockLoad<int, BT, IPT, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using StoreS = cub::BlockStore<int, BT, IPT, cub::BLOCK_STORE_STRIPED>;
  using RedC = cub::BlockReduce<int, BT, cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY>;
  using RedW = cub::BlockReduce<int, BT, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
  using ScanW = cub::BlockScan<int, BT, cub::BLOCK_SCAN_WARP_SCANS>;
  using ScanM = cub::BlockScan<int, BT, cub::BLOCK_SCAN_RAKING_MEMOIZE>;
  using Sort = cub::BlockRadixSort<int, BT, IPT, int>;
  using Hist = cub::BlockHistogram<unsigned char, BT, IPT, 32, cub::BLOCK_HISTO_ATOMIC>;
  __shared__ union {
    typename LoadW::TempStorage lw; typename StoreS::TempStorage ss; typename RedC::TempStorage rc;
    typename RedW::TempStorage rw; typename ScanW::TempStorage sw; typename ScanM::TempStorage sm;
    typename Sort::TempStorage so; typename Hist::TempStorage hi;
  } t;
  __shared__ unsigned hist[32];
  const int tid = threadIdx.x, N = BT * IPT;
  int a[IPT], b[IPT], v[IPT];
  LoadV().Load(in, a);        // blocked, vector loads where aligned
  LoadW(t.lw).Load(in, b);    // blocked, through a warp transpose
  __syncthreads();
  bool same = true;
  for (int i = 0; i < IPT; ++i) same &= a[i] == in[tid * IPT + i] && b[i] == a[i];
  out[tid] = same;
  StoreS(t.ss).Store(out + BT, a);  // striped store of blocked items: out[BT + i * BT + tid] = a[i]
  __syncthreads();
  int s1 = RedC(t.rc).Sum(a);
  __syncthreads();
  int m1 = RedW(t.rw).Reduce(a, cuda::maximum<int>());
  __syncthreads();
  if (tid == 0) { out[BT + N] = s1; out[BT + N + 1] = m1; }
  int aggregate;
  ScanW(t.sw).ExclusiveSum(a, v, aggregate);
  for (int i = 0; i < IPT; ++i) out[BT + N + 2 + tid * IPT + i] = v[i];
  if (tid == 0) out[BT + 2 * N + 2] = aggregate;
  __syncthreads();
  ScanM(t.sm).InclusiveScan(a, v, cuda::maximum<int>());
  for (int i = 0; i < IPT; ++i) out[BT + 2 * N + 3 + tid * IPT + i] = v[i];
  __syncthreads();
  int k[IPT], val[IPT];
  for (int i = 0; i < IPT; ++i) { k[i] = a[i]; val[i] = tid * IPT + i; }
  Sort(t.so).SortDescendingBlockedToStriped(k, val);  // thread tid holds ranks tid, tid + BT, ...
  for (int i = 0; i < IPT; ++i) { out[BT + 3 * N + 3 + i * BT + tid] = k[i]; out[BT + 4 * N + 3 + i * BT + tid] = val[i]; }
  __syncthreads();
  if (tid < 32) hist[tid] = 0;
  __syncthreads();
  unsigned char c[IPT];
  for (int i = 0; i < IPT; ++i) c[i] = (unsigned char)(a[i] & 31);
  Hist(t.hi).Composite(c, hist);
  __syncthreads();
  if (tid < 32) out[BT + 5 * N + 3 + tid] = hist[tid];
}

// more of libcu++: vocabulary types, algorithms, chrono, cmath, a latch and a counting semaphore in
// managed memory (constructed on the host with placement new), atomic_ref on float and double
using dev_latch = cuda::latch<cuda::thread_scope_device>;
using dev_semaphore = cuda::counting_semaphore<cuda::thread_scope_device, 4>;
__global__ void libcudacxx_more(float *f, double *d, int *out, dev_latch *l, dev_semaphore *sem) {
  cuda::atomic_ref<float, cuda::thread_scope_device>(f[0]).fetch_add(0.5f);
  cuda::std::atomic_ref<double>(d[0]).fetch_add(0.25);
  cuda::atomic_ref<float, cuda::thread_scope_device>(f[1]).fetch_max((float)threadIdx.x);
  sem->acquire();
  atomicAdd(&out[5], 1);
  sem->release();
  l->count_down();
  if (threadIdx.x == 0) {
    cuda::std::variant<int, float> v = 2.5f;
    out[0] = cuda::std::holds_alternative<float>(v) ? (int)(cuda::std::get<float>(v) * 2) : -1;
    cuda::std::expected<int, short> e = cuda::std::unexpected<short>(7);
    out[1] = e.has_value() ? -1 : e.error();
    cuda::std::inplace_vector<int, 8> iv;
    iv.push_back(3); iv.push_back(1); iv.push_back(2);
    cuda::std::reverse(iv.begin(), iv.end());
    out[2] = iv[0] * 100 + iv[1] * 10 + iv[2] + 1000 * (int)iv.size();
    int a[5] = {5, 3, 9, 1, 7};
    out[3] = *cuda::std::max_element(a, a + 5) * 10 + cuda::std::accumulate(a, a + 5, 0) % 10;
    out[4] = (int)cuda::std::chrono::duration_cast<cuda::std::chrono::microseconds>(cuda::std::chrono::nanoseconds(1500)).count();
    out[6] = (int)(cuda::std::sqrt(2.0f) * 1000) + (cuda::std::isnan(cuda::std::nanf("")) ? 10000 : 0);
  }
}

static void block_warp_checks() {
  std::vector<int> h(BT * IPT);
  unsigned s = 99;
  for (auto &x : h) { s = s * 1664525u + 1013904223u; x = (int)(s >> 22) - 500; }
  dev<int> din(h), dout(BT + 3 * BT * IPT);
  block_more<<<1, BT>>>(din.p, dout.p);
  CK(cudaGetLastError());
  std::vector<int> o = dout.get();
  bool off = true, up = true, ad = true;
  for (int t = 0; t < BT - 1; ++t) off &= o[t] == h[(t + 1) * IPT];
  for (int j = 1; j < BT * IPT; ++j) up &= o[BT + j] == h[j - 1];
  for (int j = 0; j < BT * IPT; ++j) ad &= o[BT + BT * IPT + j] == (j ? h[j] - h[j - 1] : h[0]);
  std::vector<int> e = h;
  std::sort(e.begin(), e.end(), std::greater<int>());
  CHECK(off && up, "BlockShuffle::Offset / Up");
  CHECK(ad, "BlockAdjacentDifference::SubtractLeft");
  CHECK(std::vector<int>(o.begin() + BT + 2 * BT * IPT, o.end()) == e, "BlockMergeSort (descending)");

  dev<int> wout(3 * BT * IPT);
  warp_more<<<1, BT>>>(din.p, wout.p);
  CK(cudaGetLastError());
  o = wout.get();
  bool load = true, striped = true, sorted = true;
  for (int w = 0; w < BT / WT; ++w) {
    const int base = w * WT * IPT;
    std::vector<int> seg(h.begin() + base, h.begin() + base + WT * IPT);
    for (int l = 0; l < WT; ++l)
      for (int i = 0; i < IPT; ++i) {
        load &= o[base + l * IPT + i] == seg[l * IPT + i];
        striped &= o[BT * IPT + base + l * IPT + i] == seg[i * WT + l];
      }
    std::sort(seg.begin(), seg.end());
    sorted &= std::equal(seg.begin(), seg.end(), o.begin() + 2 * BT * IPT + base);
  }
  CHECK(load, "WarpLoad (transpose, 16-thread logical warps)");
  CHECK(striped, "WarpExchange::BlockedToStriped");
  CHECK(sorted, "WarpMergeSort + WarpStore (transpose)");

  {
    const int N = BT * IPT;
    dev<int> vout(BT + 5 * N + 3 + 32);
    block_variants<<<1, BT>>>(din.p, vout.p);
    CK(cudaGetLastError());
    std::vector<int> v = vout.get();
    bool loads = true, striped = true, scan = true, mscan = true, sorted = true, hist = true;
    for (int t = 0; t < BT; ++t) loads &= v[t] == 1;
    for (int t = 0; t < BT; ++t)
      for (int i = 0; i < IPT; ++i) striped &= v[BT + i * BT + t] == h[t * IPT + i];
    int acc = 0, mx = INT_MIN;
    for (int j = 0; j < N; ++j) {
      scan &= v[BT + N + 2 + j] == acc;
      acc += h[j];
      mx = std::max(mx, h[j]);
      mscan &= v[BT + 2 * N + 3 + j] == mx;
    }
    std::vector<int> idx(N);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int x, int y) { return h[x] > h[y]; });
    for (int r = 0; r < N; ++r) sorted &= v[BT + 3 * N + 3 + r] == h[idx[r]] && v[BT + 4 * N + 3 + r] == idx[r];
    std::vector<int> eh(32, 0);
    for (int x : h) eh[x & 31]++;
    for (int b = 0; b < 32; ++b) hist &= v[BT + 5 * N + 3 + b] == eh[b];
    CHECK(loads && striped, "BlockLoad vectorize / warp transpose, BlockStore striped");
    CHECK(v[BT + N] == std::accumulate(h.begin(), h.end(), 0) && v[BT + N + 1] == mx,
          "BlockReduce raking-commutative Sum / warp-reductions max");
    CHECK(scan && v[BT + 2 * N + 2] == acc && mscan, "BlockScan warp-scans ExclusiveSum / raking-memoize max");
    CHECK(sorted, "BlockRadixSort SortDescendingBlockedToStriped (pairs)");
    CHECK(hist, "BlockHistogram atomic Composite");
  }
  dev<int> bout(2 * BT);
  barrier_pipeline<<<1, BT>>>(din.p, bout.p);
  CK(cudaGetLastError());
  o = bout.get();
  bool bp = true;
  for (int t = 0; t < BT; ++t) bp &= o[t] == h[BT - 1 - t] * 2 && o[BT + t] == h[BT + t] + 1;
  CHECK(bp, "cuda::barrier + cuda::memcpy_async (cooperative_groups block) + cuda::pipeline");
}

static void libcudacxx_checks() {
  const int blocks = 3, threads = 128, rows = 5, cols = 7;
  std::vector<int> a0 = {0, -1, 0, 0};
  dev<int> atom(a0), misc(8 + rows * cols + 4 * cols);
  dev<unsigned> bits(4);
  dev<long long> lim(9);
  libcudacxx_kernel<<<blocks, threads>>>(atom.p, bits.p, lim.p, misc.p, rows, cols);
  CK(cudaGetLastError());
  std::vector<int> a = atom.get();
  int emax = 0;
  for (int t = 0; t < blocks * threads; ++t) emax = std::max(emax, t * 3 % 101);
  CHECK(a[0] == blocks * threads && a[1] == blocks * threads - 1 && a[2] == emax && a[3] == 0x7fffffff,
        "cuda::std::atomic / cuda::atomic (fetch_add, CAS loop, fetch_max, fetch_or)");
  std::vector<unsigned> b = bits.get();
  float f = -1.5f; unsigned uf; memcpy(&uf, &f, 4);
  pt q{0x1234, -2}; unsigned uq; memcpy(&uq, &q, 4);
  double one = 1.0; unsigned long long u1; memcpy(&u1, &one, 8);
  CHECK(b[0] == uf && b[1] == uq && b[2] == 8 + 100 * 31 + 10000 * 10 && b[3] == (unsigned)(u1 >> 32),
        "cuda::std::bit_cast and <bit>");
  std::vector<long long> l = lim.get();
  float eps = FLT_EPSILON, inf = INFINITY, dm = std::numeric_limits<float>::denorm_min(); double dmax = DBL_MAX;
  int ieps, iinf, idm; long long idmax;
  memcpy(&ieps, &eps, 4); memcpy(&iinf, &inf, 4); memcpy(&idm, &dm, 4); memcpy(&idmax, &dmax, 8);
  CHECK(l[0] == INT_MAX && l[1] == INT_MIN && l[2] == USHRT_MAX && l[3] == LLONG_MIN && l[4] == ieps &&
        l[5] == iinf && l[6] == idmax && l[7] == DBL_MANT_DIG * 1000 + FLT_DIG && l[8] == idm,
        "cuda::std::numeric_limits");
  {
    float *f; double *d; int *o; dev_latch *lt; dev_semaphore *sem;
    CK(cudaMallocManaged(&f, 2 * sizeof(float))); CK(cudaMallocManaged(&d, sizeof(double)));
    CK(cudaMallocManaged(&o, 8 * sizeof(int))); CK(cudaMallocManaged(&lt, sizeof(dev_latch)));
    CK(cudaMallocManaged(&sem, sizeof(dev_semaphore)));
    f[0] = 0; f[1] = -1; d[0] = 0;
    for (int i = 0; i < 8; ++i) o[i] = 0;
    new (lt) dev_latch(64);
    new (sem) dev_semaphore(4);
    libcudacxx_more<<<1, 64>>>(f, d, o, lt, sem);
    CK(cudaDeviceSynchronize());
    CHECK(f[0] == 32.0f && f[1] == 63.0f && d[0] == 16.0 && o[5] == 64 && lt->try_wait(),
          "atomic_ref<float/double> fetch_add/fetch_max, cuda::latch, cuda::counting_semaphore");
    CHECK(o[0] == 5 && o[1] == 7 && o[2] == 3213 && o[3] == 95 && o[4] == 1 && o[6] == (int)(std::sqrt(2.0f) * 1000) + 10000,
          "cuda::std::variant, expected, inplace_vector, algorithms, chrono, cmath");
    cudaFree(f); cudaFree(d); cudaFree(o); cudaFree(lt); cudaFree(sem);
  }
  std::vector<int> m = misc.get();
  CHECK(m[0] == 94 && m[1] == 7125 && m[2] == 1 + 2 + 7 + 400 + 3000 && m[3] == 1, "cuda::std::pair / tuple");
  bool md = m[4] == 4 * cols + 1000 * 4;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) md &= m[8 + r * cols + c] == r * 1000 + c + cols * 100000;
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < 4; ++r) md &= m[8 + rows * cols + c * 4 + r] == r * 10 + c;
  CHECK(md, "cuda::std::mdspan (layout_right dextents, layout_left)");
}

static void device_checks(int n) {
  std::vector<int> h(n);
  unsigned s = 2024u + n;
  for (auto &x : h) { s = s * 1664525u + 1013904223u; x = (int)(s >> 12) % 20001 - 10000; }
  dev<int> din(h);
  // ---- reductions
  {
    dev<int> mx(1), mn(1), r(1), vmax(1), vmin(1);
    dev<int64_t> imx(1), imn(1);
    TWO_PHASE(cub::DeviceReduce::ArgMax(d_temp_storage, temp_storage_bytes, din.p, vmax.p, imx.p, n));
    TWO_PHASE(cub::DeviceReduce::ArgMin(d_temp_storage, temp_storage_bytes, din.p, vmin.p, imn.p, n));
    TWO_PHASE(cub::DeviceReduce::Max(d_temp_storage, temp_storage_bytes, din.p, mx.p, n));
    TWO_PHASE(cub::DeviceReduce::Min(d_temp_storage, temp_storage_bytes, din.p, mn.p, n));
    TWO_PHASE(cub::DeviceReduce::Reduce(d_temp_storage, temp_storage_bytes, din.p, r.p, n, max_abs(), 0));
    auto emx = std::max_element(h.begin(), h.end()), emn = std::min_element(h.begin(), h.end());
    CHECK(vmax.one() == *emx && imx.one() == emx - h.begin() && vmin.one() == *emn && imn.one() == emn - h.begin(),
          "DeviceReduce::ArgMax / ArgMin (first extremum)");
    CHECK(mx.one() == *emx && mn.one() == *emn, "DeviceReduce::Max / Min");
    CHECK(r.one() == std::accumulate(h.begin(), h.end(), 0, max_abs()), "DeviceReduce::Reduce (custom operator)");
  }
  // ---- scans
  std::vector<int> keys(n);
  for (int i = 0; i < n; ++i) keys[i] = i / 9 + (i % 13 == 0);
  dev<int> dk(keys), out(n);
  {
    TWO_PHASE(cub::DeviceScan::ExclusiveSumByKey(d_temp_storage, temp_storage_bytes, dk.p, din.p, out.p, n));
    std::vector<int> e(n);
    for (int i = 0; i < n; ++i) e[i] = (i > 0 && keys[i] == keys[i - 1]) ? e[i - 1] + h[i - 1] : 0;
    CHECK(out.get() == e, "DeviceScan::ExclusiveSumByKey");
    TWO_PHASE(cub::DeviceScan::InclusiveScan(d_temp_storage, temp_storage_bytes, din.p, out.p, cuda::maximum<int>(), n));
    std::vector<int> em(n);
    for (int i = 0; i < n; ++i) em[i] = i ? std::max(em[i - 1], h[i]) : h[0];
    TWO_PHASE(cub::DeviceScan::ExclusiveScan(d_temp_storage, temp_storage_bytes, din.p, dk.p, max_abs(), 0, n));
    std::vector<int> ea(n);
    for (int i = 0; i < n; ++i) ea[i] = i ? max_abs()(ea[i - 1], h[i - 1]) : 0;
    CHECK(out.get() == em && dk.get() == ea, "DeviceScan::InclusiveScan / ExclusiveScan (custom operators)");
    CK(cudaMemcpy(dk.p, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  }
  // ---- selection and partition
  {
    dev<int> sel(n), num(1);
    TWO_PHASE(cub::DeviceSelect::If(d_temp_storage, temp_storage_bytes, din.p, sel.p, num.p, n, div3()));
    std::vector<int> e;
    std::copy_if(h.begin(), h.end(), std::back_inserter(e), div3());
    CHECK(sel.get(num.one()) == e, "DeviceSelect::If");
    TWO_PHASE(cub::DeviceSelect::Unique(d_temp_storage, temp_storage_bytes, dk.p, sel.p, num.p, n));
    std::vector<int> eu = keys;
    eu.erase(std::unique(eu.begin(), eu.end()), eu.end());
    CHECK(sel.get(num.one()) == eu, "DeviceSelect::Unique");
    TWO_PHASE(cub::DevicePartition::If(d_temp_storage, temp_storage_bytes, din.p, sel.p, num.p, n, div3()));
    std::vector<int> ep = e;  // selected in order, then the rejected in reverse order
    for (int i = n - 1; i >= 0; --i) if (!div3()(h[i])) ep.push_back(h[i]);
    CHECK(num.one() == (int)e.size() && sel.get() == ep, "DevicePartition::If");
  }
  // ---- sorting
  {
    std::vector<unsigned> u(n);
    for (int i = 0; i < n; ++i) u[i] = (unsigned)h[i] * 2654435761u;
    dev<unsigned> du(u), uo(n);
    TWO_PHASE(cub::DeviceRadixSort::SortKeysDescending(d_temp_storage, temp_storage_bytes, du.p, uo.p, n, 4, 20));
    std::vector<unsigned> e = u;  // only bits [4, 20) order the keys; equal ones keep their order
    std::stable_sort(e.begin(), e.end(), [](unsigned a, unsigned b) { return ((a >> 4) & 0xffff) > ((b >> 4) & 0xffff); });
    CHECK(uo.get() == e, "DeviceRadixSort::SortKeysDescending (bits 4..20)");
    std::vector<int> off = {0, 0, 1, 5, n / 3, n / 3, n - 40, n};  // empty, single, small, large segments
    dev<int> doff(off), so(n);
    const int segs = (int)off.size() - 1;
    TWO_PHASE(cub::DeviceSegmentedSort::SortKeys(d_temp_storage, temp_storage_bytes, din.p, so.p, n, segs, doff.p, doff.p + 1));
    std::vector<int> es = h;
    for (int j = 0; j < segs; ++j) std::sort(es.begin() + off[j], es.begin() + off[j + 1]);
    CHECK(so.get() == es, "DeviceSegmentedSort::SortKeys");
    std::vector<int> iv(n);
    std::iota(iv.begin(), iv.end(), 0);
    dev<int> vin(iv), vo(n);
    TWO_PHASE(cub::DeviceSegmentedSort::StableSortPairsDescending(d_temp_storage, temp_storage_bytes, din.p, so.p, vin.p,
                                                                  vo.p, n, segs, doff.p, doff.p + 1));
    std::vector<int> ev = iv;
    for (int j = 0; j < segs; ++j)
      std::stable_sort(ev.begin() + off[j], ev.begin() + off[j + 1], [&](int a, int b) { return h[a] > h[b]; });
    CHECK(vo.get() == ev, "DeviceSegmentedSort::StableSortPairsDescending");
  }
  // ---- histogram with custom levels
  {
    std::vector<int> levels = {-10000, -5000, -100, 0, 1, 250, 7000, 10001};
    dev<int> lv(levels), hist(levels.size() - 1);
    TWO_PHASE(cub::DeviceHistogram::HistogramRange(d_temp_storage, temp_storage_bytes, din.p, hist.p, (int)levels.size(), lv.p, n));
    std::vector<int> e(levels.size() - 1, 0);
    for (int x : h) {
      auto it = std::upper_bound(levels.begin(), levels.end(), x);
      if (it != levels.begin() && it != levels.end()) e[it - levels.begin() - 1]++;
    }
    CHECK(hist.get() == e, "DeviceHistogram::HistogramRange");
  }
  // ---- adjacent difference, for, transform
  {
    TWO_PHASE(cub::DeviceAdjacentDifference::SubtractLeftCopy(d_temp_storage, temp_storage_bytes, din.p, out.p, n, cuda::std::minus<int>()));
    std::vector<int> e(n);
    std::adjacent_difference(h.begin(), h.end(), e.begin());
    CHECK(out.get() == e, "DeviceAdjacentDifference::SubtractLeftCopy");
    CK(cub::DeviceFor::Bulk(n, sq_op{out.p}));
    std::vector<int> eb(n);
    for (int i = 0; i < n; ++i) eb[i] = i * i - 7;
    bool bulk = out.get() == eb;
    CK(cub::DeviceFor::ForEachN(out.p, n, incr()));
    for (int &x : eb) x += 5;
    CHECK(bulk && out.get() == eb, "DeviceFor::Bulk / ForEachN");
    std::vector<float> fh(n);
    for (int i = 0; i < n; ++i) fh[i] = h[i] * 0.25f;
    dev<float> fin(fh), fo(n);
    CK(cub::DeviceTransform::Transform(cuda::std::make_tuple(fin.p, din.p), fo.p, n, fma_op()));
    std::vector<float> ef(n);
    for (int i = 0; i < n; ++i) ef[i] = fma_op()(fh[i], h[i]);
    CHECK(fo.get() == ef, "DeviceTransform::Transform (two inputs)");
  }
  // ---- DoubleBuffer radix sort, ReduceByKey, NonTrivialRuns, UniqueByKey, MergeKeys, fancy inputs
  {
    std::vector<int> hk(n);
    for (int i = 0; i < n; ++i) hk[i] = h[i] / 50;  // many equal keys
    dev<int> k1(hk), k2(n), v1(n), v2(n);
    std::vector<int> iv(n);
    std::iota(iv.begin(), iv.end(), 0);
    CK(cudaMemcpy(v1.p, iv.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    cub::DoubleBuffer<int> dkeys(k1.p, k2.p), dvals(v1.p, v2.p);
    TWO_PHASE(cub::DeviceRadixSort::SortPairs(d_temp_storage, temp_storage_bytes, dkeys, dvals, n));
    std::vector<int> ks(n), vs(n), idx = iv;
    CK(cudaMemcpy(ks.data(), dkeys.Current(), n * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(vs.data(), dvals.Current(), n * sizeof(int), cudaMemcpyDeviceToHost));
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return hk[a] < hk[b]; });
    bool ok = vs == idx;
    for (int i = 0; i < n; ++i) ok &= ks[i] == hk[idx[i]];
    CHECK(ok, "DeviceRadixSort::SortPairs with cub::DoubleBuffer");
    // the sorted keys have runs: reduce the original values by them
    dev<int> sk(ks), sv(n), uk(n), rv(n), num(1);
    std::vector<int> hv(n);
    for (int i = 0; i < n; ++i) hv[i] = h[idx[i]];
    CK(cudaMemcpy(sv.p, hv.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    TWO_PHASE(cub::DeviceReduce::ReduceByKey(d_temp_storage, temp_storage_bytes, sk.p, uk.p, sv.p, rv.p, num.p,
                                             cuda::maximum<int>(), n));
    std::vector<int> ek, ev;
    for (int i = 0; i < n; ++i) {
      if (i == 0 || ks[i] != ks[i - 1]) { ek.push_back(ks[i]); ev.push_back(hv[i]); }
      else ev.back() = std::max(ev.back(), hv[i]);
    }
    int m = num.one();
    CHECK(uk.get(m) == ek && rv.get(m) == ev, "DeviceReduce::ReduceByKey (max)");
    dev<int> offs(n), lens(n);
    TWO_PHASE(cub::DeviceRunLengthEncode::NonTrivialRuns(d_temp_storage, temp_storage_bytes, sk.p, offs.p, lens.p, num.p, n));
    std::vector<int> eo, el;
    for (int i = 0; i < n;) {
      int j = i;
      while (j < n && ks[j] == ks[i]) ++j;
      if (j - i > 1) { eo.push_back(i); el.push_back(j - i); }
      i = j;
    }
    m = num.one();
    CHECK(offs.get(m) == eo && lens.get(m) == el, "DeviceRunLengthEncode::NonTrivialRuns");
    TWO_PHASE(cub::DeviceSelect::UniqueByKey(d_temp_storage, temp_storage_bytes, sk.p, sv.p, uk.p, rv.p, num.p, n));
    std::vector<int> uv;
    for (int i = 0; i < n; ++i) if (i == 0 || ks[i] != ks[i - 1]) uv.push_back(hv[i]);
    m = num.one();
    CHECK(uk.get(m) == ek && rv.get(m) == uv, "DeviceSelect::UniqueByKey");
    const int n2 = n / 3;
    std::vector<int> other(n2);
    for (int i = 0; i < n2; ++i) other[i] = i * 7 % 401 - 200;
    std::sort(other.begin(), other.end());
    dev<int> d2(other), merged(n + n2);
    TWO_PHASE(cub::DeviceMerge::MergeKeys(d_temp_storage, temp_storage_bytes, sk.p, n, d2.p, n2, merged.p,
                                          cuda::std::less<int>()));
    std::vector<int> em(n + n2);
    std::merge(ks.begin(), ks.end(), other.begin(), other.end(), em.begin());
    CHECK(merged.get() == em, "DeviceMerge::MergeKeys");
    dev<long long> total(1);
    auto square_mod = [] __device__(int x) { return x * x % 1000; };
#if CCCL_MAJOR_VERSION >= 3
    auto cin = cuda::counting_iterator<long long>(5);
    auto tin = cuda::make_transform_iterator(din.p, square_mod);
#else  // CCCL 2: CUB's own iterators (removed in CCCL 3)
    auto cin = cub::CountingInputIterator<long long>(5);
    auto tin = cub::TransformInputIterator<int, decltype(square_mod), int *>(din.p, square_mod);
#endif
    TWO_PHASE(cub::DeviceReduce::Sum(d_temp_storage, temp_storage_bytes, cin, total.p, n));
    dev<int> sq(n);
    TWO_PHASE(cub::DeviceScan::InclusiveSum(d_temp_storage, temp_storage_bytes, tin, sq.p, n));
    std::vector<int> es(n);
    int a = 0;
    for (int i = 0; i < n; ++i) es[i] = a += h[i] * h[i] % 1000;
    CHECK(total.one() == (long long)n * (n - 1) / 2 + 5LL * n && sq.get() == es,
          "cuda::counting_iterator / transform_iterator (device lambda) as CUB inputs");
  }
  // ---- batched copies: buffers of 0 .. ~n/4 ints, gathered from din into one packed output
  {
    std::vector<int> sizes, src_off, dst_off;
    int pos = 0, dpos = 0;
    for (int b = 0; pos < n; ++b) {
      int len = std::min(n - pos, (b * 37) % (n / 4 + 3));
      sizes.push_back(len);
      src_off.push_back(pos);
      dst_off.push_back(dpos);
      pos += len + 1;  // skip one element between buffers
      dpos += len;
    }
    const int nb = (int)sizes.size();
    std::vector<const void *> srcs(nb);
    std::vector<void *> dsts(nb);
    std::vector<size_t> bytes(nb);
    dev<int> packed(dpos), packed2(dpos);
    std::vector<int *> srci(nb), dsti(nb);
    for (int b = 0; b < nb; ++b) {
      srcs[b] = din.p + src_off[b]; dsts[b] = packed.p + dst_off[b]; bytes[b] = sizes[b] * sizeof(int);
      srci[b] = din.p + src_off[b]; dsti[b] = packed2.p + dst_off[b];
    }
    dev<const void *> ds(srcs); dev<void *> dd(dsts); dev<size_t> db(bytes);
    dev<int *> dsi(srci), ddi(dsti); dev<int> dsz(sizes);
    TWO_PHASE(cub::DeviceMemcpy::Batched(d_temp_storage, temp_storage_bytes, ds.p, dd.p, db.p, nb));
    TWO_PHASE(cub::DeviceCopy::Batched(d_temp_storage, temp_storage_bytes, dsi.p, ddi.p, dsz.p, nb));
    std::vector<int> e;
    for (int b = 0; b < nb; ++b) e.insert(e.end(), h.begin() + src_off[b], h.begin() + src_off[b] + sizes[b]);
    CHECK(packed.get() == e && packed2.get() == e, "DeviceMemcpy::Batched / DeviceCopy::Batched");
  }
}

int main(int argc, char **argv) {
  block_warp_checks();
  libcudacxx_checks();
  for (int a = 1; a < argc; ++a) device_checks(atoi(argv[a]));
  if (argc < 2) device_checks(1000);
  printf("%s\n", fails ? "FAILED" : "PASSED");
  return fails != 0;
}

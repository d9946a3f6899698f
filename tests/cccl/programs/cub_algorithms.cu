// CUB block, warp and device primitives, built by cumetalc against the user's CCCL
// (tests/cccl/test_cccl_programs.py). Results are compared with the C++ standard library on the
// host; one "ok NAME" / "FAIL NAME" line per check, then PASSED or FAILED. Arguments: numbers of
// blocks, each checked in turn.
#include <cub/cub.cuh>  // the umbrella header, as most CUB programs include it
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

static int fails = 0;
#define CHECK(c, name) do { if (!(c)) { printf("FAIL %s\n", name); ++fails; } else printf("ok %s\n", name); } while (0)
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at %d\n", cudaGetErrorString(e_), __LINE__); return 2; } } while (0)

constexpr int BLOCK = 128, IPT = 4;

__global__ void block_reduce_scan(const int *in, int *sums, int *incl, int *excl) {
  using BR = cub::BlockReduce<int, BLOCK>;
  using BS = cub::BlockScan<int, BLOCK>;
  using BL = cub::BlockLoad<int, BLOCK, IPT, cub::BLOCK_LOAD_TRANSPOSE>;
  __shared__ union { typename BR::TempStorage r; typename BS::TempStorage s; typename BL::TempStorage l; } tmp;
  int items[IPT];
  const int base = blockIdx.x * BLOCK * IPT;
  BL(tmp.l).Load(in + base, items);
  __syncthreads();
  int total = BR(tmp.r).Sum(items);
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
  __syncthreads();
  int out[IPT];
  BS(tmp.s).InclusiveSum(items, out);
  for (int i = 0; i < IPT; ++i) incl[base + threadIdx.x * IPT + i] = out[i];
  __syncthreads();
  int v = items[0];
  int ex;
  BS(tmp.s).ExclusiveScan(v, ex, 0, cuda::maximum<int>());
  excl[blockIdx.x * BLOCK + threadIdx.x] = ex;
}

__global__ void warp_reduce(const int *in, int *out) {
  using WR = cub::WarpReduce<int>;
  __shared__ typename WR::TempStorage tmp[BLOCK / 32];
  int warp = threadIdx.x / 32;
  int v = in[blockIdx.x * BLOCK + threadIdx.x];
  int s = WR(tmp[warp]).Sum(v);
  int m = WR(tmp[warp]).Reduce(v, cuda::minimum<int>());
  if (threadIdx.x % 32 == 0) { out[2 * (blockIdx.x * (BLOCK / 32) + warp)] = s; out[2 * (blockIdx.x * (BLOCK / 32) + warp) + 1] = m; }
}

__global__ void brs(int *d) {
  using S = cub::BlockRadixSort<int, 64, 4>; __shared__ typename S::TempStorage t;
  int k[4]; for (int i = 0; i < 4; ++i) k[i] = d[threadIdx.x * 4 + i];
  S(t).Sort(k); for (int i = 0; i < 4; ++i) d[threadIdx.x * 4 + i] = k[i];
}
__global__ void bh(const unsigned char *in, unsigned *hist) {
  using H = cub::BlockHistogram<unsigned char, 64, 4, 16>; __shared__ typename H::TempStorage t; __shared__ unsigned h[16];
  unsigned char v[4]; for (int i = 0; i < 4; ++i) v[i] = in[threadIdx.x * 4 + i];
  H(t).Histogram(v, h); __syncthreads(); if (threadIdx.x < 16) hist[threadIdx.x] = h[threadIdx.x];
}
__global__ void ws(const int *in, int *out) {
  using W = cub::WarpScan<int>; __shared__ typename W::TempStorage t[2];
  int w = threadIdx.x / 32, v = in[threadIdx.x], o; W(t[w]).ExclusiveSum(v, o); out[threadIdx.x] = o;
}
__global__ void exchange_store_flags(const int *in, int *out) {
  using BE = cub::BlockExchange<int, 64, 4>;
  using BS = cub::BlockStore<int, 64, 4, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using BD = cub::BlockDiscontinuity<int, 64>;
  __shared__ union { typename BE::TempStorage e; typename BS::TempStorage s; typename BD::TempStorage d; } t;
  int v[4], f[4];
  for (int i = 0; i < 4; ++i) v[i] = in[threadIdx.x * 4 + i] / 300;
  BD(t.d).FlagHeads(f, v, cuda::std::not_equal_to<int>());
  for (int i = 0; i < 4; ++i) out[512 + threadIdx.x * 4 + i] = f[i];
  for (int i = 0; i < 4; ++i) v[i] = in[threadIdx.x * 4 + i];
  __syncthreads();
  BS(t.s).Store(out, v);                   // blocked store through a warp transpose (reorders v)
  __syncthreads();
  for (int i = 0; i < 4; ++i) v[i] = in[threadIdx.x * 4 + i];
  BE(t.e).BlockedToStriped(v);             // thread t now holds items t, t + 64, t + 128, t + 192
  for (int i = 0; i < 4; ++i) out[256 + threadIdx.x * 4 + i] = v[i];
}

static void sorts_and_exchanges(const std::vector<int> &h) {
  const int n = (int)h.size();
  int *din, *dout;
  cudaMalloc(&din, n * 4); cudaMalloc(&dout, 768 * 4);
  cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice);
  exchange_store_flags<<<1, 64>>>(din, dout);
  std::vector<int> o(768); cudaMemcpy(o.data(), dout, 768 * 4, cudaMemcpyDeviceToHost);
  bool store = true, striped = true, flags = true;
  for (int t = 0; t < 64; ++t)
    for (int i = 0; i < 4; ++i) {
      store &= o[t * 4 + i] == h[t * 4 + i];
      striped &= o[256 + t * 4 + i] == h[i * 64 + t];
      int j = t * 4 + i;
      flags &= o[512 + j] == (j == 0 || h[j] / 300 != h[j - 1] / 300);
    }
  CHECK(store, "BlockStore (warp transpose)"); CHECK(striped, "BlockExchange::BlockedToStriped"); CHECK(flags, "BlockDiscontinuity::FlagHeads");
  void *tmp = nullptr; size_t tb = 0; int *kout; cudaMalloc(&kout, n * 4);
  std::vector<int> off = {0, 100, n / 2, n}; int *doff; cudaMalloc(&doff, 16); cudaMemcpy(doff, off.data(), 16, cudaMemcpyHostToDevice);
  cub::DeviceSegmentedRadixSort::SortKeys(tmp, tb, din, kout, n, 3, doff, doff + 1); cudaMalloc(&tmp, tb);
  cub::DeviceSegmentedRadixSort::SortKeys(tmp, tb, din, kout, n, 3, doff, doff + 1);
  std::vector<int> got(n), e = h; cudaMemcpy(got.data(), kout, n * 4, cudaMemcpyDeviceToHost);
  for (int j = 0; j < 3; ++j) std::sort(e.begin() + off[j], e.begin() + off[j + 1]);
  CHECK(got == e, "DeviceSegmentedRadixSort::SortKeys"); cudaFree(tmp); tmp = nullptr; tb = 0;
  cub::DeviceMergeSort::SortKeys(tmp, tb, din, n, cuda::std::greater<int>()); cudaMalloc(&tmp, tb);
  cub::DeviceMergeSort::SortKeys(tmp, tb, din, n, cuda::std::greater<int>());
  cudaMemcpy(got.data(), din, n * 4, cudaMemcpyDeviceToHost); e = h; std::sort(e.begin(), e.end(), std::greater<int>());
  CHECK(got == e, "DeviceMergeSort::SortKeys (custom comparator)");
  cudaFree(tmp); cudaFree(din); cudaFree(dout); cudaFree(kout); cudaFree(doff);
}

static int more_primitives() {
  std::vector<int> h(256);
  unsigned s = 5;
  for (auto &x : h) { s = s * 1664525u + 1013904223u; x = (int)(s >> 16) - 30000; }
  int *dd; cudaMalloc(&dd, 1024); cudaMemcpy(dd, h.data(), 1024, cudaMemcpyHostToDevice); brs<<<1, 64>>>(dd);
  std::vector<int> r(256); cudaMemcpy(r.data(), dd, 1024, cudaMemcpyDeviceToHost); std::vector<int> e = h; std::sort(e.begin(), e.end());
  CHECK(r == e, "BlockRadixSort");
  std::vector<unsigned char> c(256); for (int i = 0; i < 256; ++i) c[i] = (unsigned char)(h[i] & 15);
  unsigned char *dc; unsigned *dh; cudaMalloc(&dc, 256); cudaMalloc(&dh, 64); cudaMemcpy(dc, c.data(), 256, cudaMemcpyHostToDevice); bh<<<1, 64>>>(dc, dh);
  std::vector<unsigned> hh(16); cudaMemcpy(hh.data(), dh, 64, cudaMemcpyDeviceToHost); std::vector<unsigned> eh(16, 0); for (auto x : c) eh[x]++;
  CHECK(hh == eh, "BlockHistogram");
  int *o; cudaMalloc(&o, 256); ws<<<1, 64>>>(dd, o); std::vector<int> wo(64); cudaMemcpy(wo.data(), o, 256, cudaMemcpyDeviceToHost);
  bool good = true; for (int w = 0; w < 2; ++w) { int a = 0; for (int l = 0; l < 32; ++l) { good &= wo[32 * w + l] == a; a += r[32 * w + l]; } } CHECK(good, "WarpScan::ExclusiveSum");
  // device histogram (even bins over [-30000, 40000))
  int *dhist; cudaMalloc(&dhist, 8 * 4); void *tmp = nullptr; size_t tb = 0; int *dsrc; cudaMalloc(&dsrc, 1024); cudaMemcpy(dsrc, h.data(), 1024, cudaMemcpyHostToDevice);
  cub::DeviceHistogram::HistogramEven(tmp, tb, dsrc, dhist, 9, -30000, 40000, 256); cudaMalloc(&tmp, tb);
  cub::DeviceHistogram::HistogramEven(tmp, tb, dsrc, dhist, 9, -30000, 40000, 256);
  std::vector<int> gh(8); cudaMemcpy(gh.data(), dhist, 32, cudaMemcpyDeviceToHost); std::vector<int> ge(8, 0); for (int x : h) if (x >= -30000 && x < 40000) ge[(long long)(x + 30000) * 8 / 70000]++;
  CHECK(gh == ge, "DeviceHistogram::HistogramEven"); cudaFree(tmp); tmp = nullptr; tb = 0;
  // select flagged
  std::vector<char> fl(256); for (int i = 0; i < 256; ++i) fl[i] = h[i] % 3 == 0; char *dfl; cudaMalloc(&dfl, 256); cudaMemcpy(dfl, fl.data(), 256, cudaMemcpyHostToDevice);
  int *dsel, *dn; cudaMalloc(&dsel, 1024); cudaMalloc(&dn, 4);
  cub::DeviceSelect::Flagged(tmp, tb, dsrc, dfl, dsel, dn, 256); cudaMalloc(&tmp, tb); cub::DeviceSelect::Flagged(tmp, tb, dsrc, dfl, dsel, dn, 256);
  int nsel; cudaMemcpy(&nsel, dn, 4, cudaMemcpyDeviceToHost); std::vector<int> sel(nsel); cudaMemcpy(sel.data(), dsel, 4 * nsel, cudaMemcpyDeviceToHost);
  std::vector<int> es; for (int i = 0; i < 256; ++i) if (fl[i]) es.push_back(h[i]); CHECK(sel == es, "DeviceSelect::Flagged"); cudaFree(tmp); tmp = nullptr; tb = 0;
  // run-length encode of sorted mod-10 values
  std::vector<int> rl(256); for (int i = 0; i < 256; ++i) rl[i] = (e[i] % 10 + 10) % 10; std::sort(rl.begin(), rl.end());
  int *drl, *du, *dcnt, *dnr; cudaMalloc(&drl, 1024); cudaMalloc(&du, 1024); cudaMalloc(&dcnt, 1024); cudaMalloc(&dnr, 4); cudaMemcpy(drl, rl.data(), 1024, cudaMemcpyHostToDevice);
  cub::DeviceRunLengthEncode::Encode(tmp, tb, drl, du, dcnt, dnr, 256); cudaMalloc(&tmp, tb); cub::DeviceRunLengthEncode::Encode(tmp, tb, drl, du, dcnt, dnr, 256);
  int nr; cudaMemcpy(&nr, dnr, 4, cudaMemcpyDeviceToHost); std::vector<int> cu(nr), cc(nr); cudaMemcpy(cu.data(), du, 4 * nr, cudaMemcpyDeviceToHost); cudaMemcpy(cc.data(), dcnt, 4 * nr, cudaMemcpyDeviceToHost);
  std::vector<int> eu, ec; for (int x : rl) { if (eu.empty() || eu.back() != x) { eu.push_back(x); ec.push_back(0); } ec.back()++; } CHECK(cu == eu && cc == ec, "DeviceRunLengthEncode::Encode");
  cudaFree(tmp); tmp = nullptr; tb = 0;
  // segmented reduce: 8 segments of 32
  std::vector<int> off(9); for (int i = 0; i < 9; ++i) off[i] = 32 * i; int *doff, *dsum; cudaMalloc(&doff, 36); cudaMalloc(&dsum, 32); cudaMemcpy(doff, off.data(), 36, cudaMemcpyHostToDevice);
  cub::DeviceSegmentedReduce::Sum(tmp, tb, dsrc, dsum, 8, doff, doff + 1); cudaMalloc(&tmp, tb); cub::DeviceSegmentedReduce::Sum(tmp, tb, dsrc, dsum, 8, doff, doff + 1);
  std::vector<int> ss(8); cudaMemcpy(ss.data(), dsum, 32, cudaMemcpyDeviceToHost); good = true;
  for (int i = 0; i < 8; ++i) good &= ss[i] == std::accumulate(h.begin() + 32 * i, h.begin() + 32 * i + 32, 0); CHECK(good, "DeviceSegmentedReduce::Sum");
    return 0;
}

static int run(int blocks) {
  const int n = blocks * BLOCK * IPT;
  std::vector<int> h(n);
  unsigned s = 7;
  for (int i = 0; i < n; ++i) { s = s * 1664525u + 1013904223u; h[i] = (int)(s >> 20) % 200 - 100; }
  int *d_in, *d_sums, *d_incl, *d_excl, *d_w;
  CK(cudaMalloc(&d_in, n * sizeof(int))); CK(cudaMalloc(&d_sums, blocks * sizeof(int)));
  CK(cudaMalloc(&d_incl, n * sizeof(int))); CK(cudaMalloc(&d_excl, blocks * BLOCK * sizeof(int)));
  CK(cudaMalloc(&d_w, 2 * blocks * BLOCK / 32 * sizeof(int)));
  CK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  block_reduce_scan<<<blocks, BLOCK>>>(d_in, d_sums, d_incl, d_excl);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  std::vector<int> sums(blocks), incl(n), excl(blocks * BLOCK);
  CK(cudaMemcpy(sums.data(), d_sums, blocks * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(incl.data(), d_incl, n * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(excl.data(), d_excl, blocks * BLOCK * sizeof(int), cudaMemcpyDeviceToHost));
  bool ok = true, ok2 = true, ok3 = true;
  for (int b = 0; b < blocks; ++b) {
    int base = b * BLOCK * IPT;
    ok &= sums[b] == std::accumulate(h.begin() + base, h.begin() + base + BLOCK * IPT, 0);
    int acc = 0;
    for (int i = 0; i < BLOCK * IPT; ++i) { acc += h[base + i]; ok2 &= incl[base + i] == acc; }
    int mx = 0;  // exclusive max-scan over each thread's first item, initial 0
    for (int t = 0; t < BLOCK; ++t) { ok3 &= excl[b * BLOCK + t] == mx; mx = std::max(mx, h[base + t * IPT]); }
  }
  CHECK(ok, "BlockReduce::Sum (BlockLoad transpose)");
  CHECK(ok2, "BlockScan::InclusiveSum");
  CHECK(ok3, "BlockScan::ExclusiveScan max");

  warp_reduce<<<blocks, BLOCK>>>(d_in, d_w);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  std::vector<int> w(2 * blocks * BLOCK / 32);
  CK(cudaMemcpy(w.data(), d_w, w.size() * sizeof(int), cudaMemcpyDeviceToHost));
  ok = true;
  for (int i = 0; i < blocks * BLOCK / 32; ++i) {
    ok &= w[2 * i] == std::accumulate(h.begin() + 32 * i, h.begin() + 32 * i + 32, 0);
    ok &= w[2 * i + 1] == *std::min_element(h.begin() + 32 * i, h.begin() + 32 * i + 32);
  }
  CHECK(ok, "WarpReduce Sum/min");

  // device-wide
  int *d_out; CK(cudaMalloc(&d_out, n * sizeof(int)));
  void *tmp = nullptr; size_t tmp_bytes = 0;
  CK(cub::DeviceReduce::Sum(tmp, tmp_bytes, d_in, d_out, n));
  CK(cudaMalloc(&tmp, tmp_bytes));
  CK(cub::DeviceReduce::Sum(tmp, tmp_bytes, d_in, d_out, n));
  int total = 0; CK(cudaMemcpy(&total, d_out, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(total == std::accumulate(h.begin(), h.end(), 0), "DeviceReduce::Sum");
  CK(cudaFree(tmp)); tmp = nullptr; tmp_bytes = 0;

  CK(cub::DeviceScan::InclusiveSum(tmp, tmp_bytes, d_in, d_out, n));
  CK(cudaMalloc(&tmp, tmp_bytes));
  CK(cub::DeviceScan::InclusiveSum(tmp, tmp_bytes, d_in, d_out, n));
  std::vector<int> sc(n); CK(cudaMemcpy(sc.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<int> rsc(n); std::partial_sum(h.begin(), h.end(), rsc.begin());
  CHECK(sc == rsc, "DeviceScan::InclusiveSum");
  CK(cudaFree(tmp)); tmp = nullptr; tmp_bytes = 0;

  std::vector<unsigned> keys(n); std::vector<int> vals(n);
  for (int i = 0; i < n; ++i) { keys[i] = (unsigned)h[i] * 2654435761u; vals[i] = i; }
  unsigned *dk, *dk2; int *dv, *dv2;
  CK(cudaMalloc(&dk, n * 4)); CK(cudaMalloc(&dk2, n * 4)); CK(cudaMalloc(&dv, n * 4)); CK(cudaMalloc(&dv2, n * 4));
  CK(cudaMemcpy(dk, keys.data(), n * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dv, vals.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, dk, dk2, dv, dv2, n));
  CK(cudaMalloc(&tmp, tmp_bytes));
  CK(cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, dk, dk2, dv, dv2, n));
  std::vector<unsigned> ok_keys(n); std::vector<int> ok_vals(n);
  CK(cudaMemcpy(ok_keys.data(), dk2, n * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(ok_vals.data(), dv2, n * 4, cudaMemcpyDeviceToHost));
  std::vector<int> idx(n); std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return keys[a] < keys[b]; });
  ok = true; for (int i = 0; i < n; ++i) ok &= ok_vals[i] == idx[i] && ok_keys[i] == keys[idx[i]];
  CHECK(ok, "DeviceRadixSort::SortPairs");
    more_primitives();
  sorts_and_exchanges(h);
  return 0;
}

int main(int argc, char **argv) {  // every size in one process: loading the module is most of a run
  for (int a = 1; a < argc; ++a)
    if (run(atoi(argv[a])) != 0) return 2;
  if (argc < 2 && run(3) != 0) return 2;
  printf("%s\n", fails ? "FAILED" : "PASSED");
  return fails != 0;
}

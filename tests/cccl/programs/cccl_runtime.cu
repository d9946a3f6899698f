// CCCL's runtime wrappers (cuda::device_ref, cuda::stream, cuda::event, cuda::launch). CCCL reaches
// the driver through dlopen("libcuda.so.1") + cuGetProcAddress, so every call below goes through the
// entry points libcumetal hands out. Each result is compared with the Runtime API's own answer.
#include <cuda/devices>
#include <cuda/launch>
#include <cuda/stream>

#include <cstdio>
#include <vector>

static int failures = 0;
static void report(const char *name, bool ok) {
  std::printf("%s %s\n", ok ? "ok" : "FAIL", name);
  failures += !ok;
}

struct iota_kernel {
  template <typename Config>
  __device__ void operator()(Config config, int *out, int base) {
    unsigned i = cuda::gpu_thread.rank(cuda::grid, config.hierarchy());
    out[i] = base + static_cast<int>(i) * 3;
  }
};

__global__ void scale(int *data, int factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

int main() {
  const int n = 4 * 96;
  cuda::device_ref dev = cuda::devices[0];
  int count = 0;
  cudaGetDeviceCount(&count);
  report("cuda::devices.size() equals cudaGetDeviceCount", static_cast<int>(cuda::devices.size()) == count);

  int threads = 0, sms = 0, warp = 0;
  cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerBlock, 0);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0);
  report("device_ref::attribute (max threads, SMs, warp size)",
         dev.attribute(cuda::device_attributes::max_threads_per_block) == threads &&
             dev.attribute(cuda::device_attributes::multiprocessor_count) == sms &&
             dev.attribute(cuda::device_attributes::warp_size) == warp);

  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  auto name = dev.name();
  report("device_ref::name equals cudaDeviceProp::name",
         name.size() > 0 && std::string_view(prop.name) == std::string_view(name.data(), name.size()));

  cuda::stream stream{dev};
  int *d = nullptr;
  cudaMalloc(&d, n * sizeof(int));
  auto config = cuda::make_config(cuda::make_hierarchy(cuda::grid_dims(4), cuda::block_dims<96>()));
  cuda::launch(stream, config, iota_kernel{}, d, 5);
  cuda::launch(stream, config, scale, d, 2, n);  // a __global__ function through the same path
  auto done = stream.record_event();
  stream.sync();
  report("event recorded after the launches is done after stream.sync()", done.is_done());

  std::vector<int> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost);
  bool values = true;
  for (int i = 0; i < n; ++i) values &= h[i] == (5 + 3 * i) * 2;
  report("cuda::launch of a functor and of a __global__ function, in stream order", values);

  cuda::stream other{dev};
  other.wait(stream);
  cuda::launch(other, config, scale, d, -1, n);
  other.sync();
  cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost);
  bool waited = true;
  for (int i = 0; i < n; ++i) waited &= h[i] == -(5 + 3 * i) * 2;
  report("stream::wait(stream) then a launch on the second stream", waited);
  cudaFree(d);

  std::printf(failures ? "FAILED (%d)\n" : "PASSED\n", failures);
  return failures != 0;
}

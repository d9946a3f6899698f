#!/bin/bash
# NVIDIA's printf order within a warp (issue #12, item 3): one block of 64 threads (2 warps) where
# every thread prints twice, and a divergent pair of printfs followed by a converged one. Run on the
# H100 machine (`run` tool) with $OUT set; each run's output goes to $OUT/printf_order_<n>.txt.
# The golden tests/cpu_jit/golden_printf_order.txt is run 1's output.
set -u
cat > /tmp/printf_order.cu <<'CU'
#include <cstdio>
__global__ void twice() {
  printf("a %d\n", threadIdx.x);
  printf("b %d\n", threadIdx.x);
}
__global__ void divergent() {
  if (threadIdx.x & 1) printf("odd %d\n", threadIdx.x);
  else printf("even %d\n", threadIdx.x);
  printf("c %d\n", threadIdx.x);
}
int main() {
  twice<<<1, 64>>>();
  cudaDeviceSynchronize();
  printf("--\n");
  divergent<<<1, 64>>>();
  cudaDeviceSynchronize();
  return 0;
}
CU
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$NVCC" --version | tail -2 > "$OUT/nvcc_version.txt"
"$NVCC" -arch=sm_90 -o /tmp/printf_order /tmp/printf_order.cu || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt"
for n in 1 2 3; do /tmp/printf_order > "$OUT/printf_order_$n.txt"; done
md5sum "$OUT"/printf_order_*.txt
head -5 "$OUT/printf_order_1.txt"

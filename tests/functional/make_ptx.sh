#!/usr/bin/env bash
# Regenerates the functional-test PTX from the CUDA sources with NVIDIA's compiler (nvcc 13).
set -euo pipefail
cd "$(dirname "$0")"
for cu in kernels/*.cu; do
  nvcc -ptx -arch=sm_80 -O3 "$cu" -o "${cu%.cu}.ptx"
done

#!/bin/sh
# Run on a machine with an NVIDIA GPU and nvcc: records the .w/.r/.g/.b/.a components of the vector
# special registers (block 4x2x2, grid 3x2x1, thread (3,1,1) of block (2,1,0)).
set -e
cd "$(dirname "$0")"
nvcc -arch=sm_90 -o /tmp/sreg_components sreg_components.cu
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -1; /tmp/sreg_components; } \
    > sreg_components_h100.txt
cat sreg_components_h100.txt

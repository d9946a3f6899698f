#!/bin/bash
# CXX audit questions for NVIDIA's compiler on the H100 (outputs under $OUT). Run from the repo root:
#   bash scripts/h100_cxx_audit/run.sh
set -u
D=$(dirname "$0"); O=${OUT:-/tmp/out}; mkdir -p "$O"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
$NVCC --version | tail -2 > "$O/nvcc_version.txt"
$NVCC -arch=sm_90 -o /tmp/am "$D/assert_message.cu" && for w in 0 1 2; do /tmp/am $w; done > "$O/assert_message.txt" 2>&1
$NVCC -arch=sm_90 -o /tmp/as "$D/address_spaces.cu" && /tmp/as > "$O/address_spaces.txt" 2>&1
(cd "$D" && $NVCC -M assert_message.cu | head -3; $NVCC -M -MT custom assert_message.cu | head -1) > "$O/deps.txt" 2>&1
$NVCC -arch=sm_90 -ptx -o "$O/address_spaces.ptx" "$D/address_spaces.cu"
cat "$O"/*.txt
# the device runtime from device code: nvcc's PTX (-rdc=true) and what the calls answer
$NVCC -arch=sm_80 -rdc=true -ptx -o "$O/devrt_calls_sm80.ptx" "$D/devrt_calls.cu"
$NVCC -arch=sm_90 -rdc=true -o /tmp/devrt "$D/devrt_calls.cu" -lcudadevrt && /tmp/devrt > "$O/devrt_calls.txt" 2>&1
grep -n "extern" "$O/devrt_calls_sm80.ptx"

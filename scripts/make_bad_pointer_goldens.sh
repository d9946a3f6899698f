#!/bin/bash
# Records CUDA's answers to tests/programs/src/bad_pointers.cu on an NVIDIA GPU (nvcc + libcudart):
#   OUT=dir scripts/make_bad_pointer_goldens.sh   ->  $OUT/bad_pointers.h100.txt
# Copy the file to tests/programs/data/ (test_bad_pointers.py compares CuMetal's answers with it).
set -u
OUT=${OUT:-.}
here=$(cd "$(dirname "$0")/.." && pwd)
nvcc -arch=sm_90 -o "$OUT/bad_pointers" "$here/tests/programs/src/bad_pointers.cu" || exit 1
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/# /'; nvcc --version | tail -1 | sed 's/^/# /';
  "$OUT/bad_pointers"; echo "# exit $?"; } > "$OUT/bad_pointers.h100.txt" 2>&1
rm -f "$OUT/bad_pointers"
cat "$OUT/bad_pointers.h100.txt"

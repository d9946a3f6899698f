#!/bin/sh
# Regenerates the nvcc-made containers under tests/programs/data/ (CUDA 13.0's nvcc; no GPU needed).
# They test cumetal.capi.fatbin: PTX entries stored plain, LZ4-compressed and zstd-compressed, a
# SASS-only fatbinary (must be refused with a clear error) and a -lineinfo cubin carrying its PTX.
set -eu
cd "$(dirname "$0")/../tests/programs/data"
SRC=fatbin_kernel.cu
nvcc -gencode arch=compute_80,code=compute_80 --compress-mode=none  -fatbin -o ptx_plain.fatbin "$SRC"
nvcc -gencode arch=compute_80,code=compute_80 --compress-mode=speed -fatbin -o ptx_lz4.fatbin   "$SRC"
nvcc -gencode arch=compute_80,code=compute_80 -gencode arch=compute_80,code=sm_80 \
     -fatbin -o ptx_zstd.fatbin "$SRC"                                  # nvcc 13's default compression
nvcc -gencode arch=compute_80,code=sm_80 --compress-mode=none -fatbin -o sass_only.fatbin "$SRC"
nvcc -arch=sm_80 -lineinfo -cubin -o lineinfo.cubin "$SRC"
nvcc -arch=sm_80 -ptx -o fatbin_kernel.ptx "$SRC"                      # the reference PTX

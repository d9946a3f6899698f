#!/bin/bash
# on the H100: patch the two CUDA-13 removals nvcc 13 refuses (cudaThreadSynchronize, cudaDeviceProp
# clockRate/deviceOverlap) in a copy, build with nvcc, run, tar the outputs
set -e
W=$(mktemp -d); cp -r cuda common build_run.sh $W/; cd $W
grep -rl cudaThreadSynchronize cuda | xargs sed -i 's/cudaThreadSynchronize/cudaDeviceSynchronize/g'
sed -i '/deviceProp.clockRate\|deviceProp. deviceOverlap/d' cuda/gaussian/gaussian.cu
./build_run.sh nvcc $W/nv || true
tar czf $OUT/nv.tgz -C $W nv

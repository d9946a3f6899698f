#!/bin/bash
# Copy Rodinia's cuda/ (github.com/yuhc/gpu-rodinia, not part of CuMetal) next to this script as cuda/ and
# common/, then: python gen_inputs.py cuda/gen && ./build_run.sh cumetalc out_cm (docs/rodinia.md)
# usage: build_run.sh <compiler> <outdir>   (compiler: cumetalc or nvcc); builds Rodinia CUDA programs, runs small inputs
CC=$1; OUT=$(realpath -m $2); mkdir -p $OUT; R=$(dirname $(realpath $0))/cuda
ARCH=""; [ "$CC" = nvcc ] && ARCH="-arch=sm_90"
b() { local name=$1; shift; ( cd $R/$DIR && $CC $ARCH "$@" ) > $OUT/$name.build 2>&1; echo "build $name rc=$?" >> $OUT/summary; }
r() { local name=$1; shift; ( cd $R/$DIR && timeout 600 "$@" ) > $OUT/$name.out 2>&1; echo "run $name rc=$?" >> $OUT/summary; }
DIR=gaussian;    b gaussian gaussian.cu -o gaussian;                 r gaussian ./gaussian -s 24
DIR=lud/cuda;    b lud -I../common -O3 -use_fast_math lud.cu lud_kernel.cu ../common/common.c -o lud_cuda; r lud ./lud_cuda -s 128 -v
DIR=nw;          b nw -DTRACEBACK needle.cu -o needle;               r nw ./needle 256 10
cp $R/nw/result.txt $OUT/nw.result 2>/dev/null
DIR=pathfinder;  b pathfinder -DBENCH_PRINT pathfinder.cu -o pathfinder; r pathfinder ./pathfinder 2000 100 20
DIR=srad/srad_v2; b srad_v2 -DOUTPUT srad.cu -o srad;               r srad_v2 ./srad 64 64 0 31 0 31 0.5 2
DIR=srad/srad_v1; b srad_v1 main.cu -o srad;                         r srad_v1 ./srad 10 0.5 64 64
cp $R/srad/srad_v1/image_out.pgm $OUT/srad_v1.pgm 2>/dev/null
DIR=lavaMD;      b lavaMD -DOUTPUT main.c kernel/kernel_gpu_cuda_wrapper.cu util/num/num.c util/timer/timer.c util/device/device.cu -o lavaMD; r lavaMD ./lavaMD -boxes1d 2
cp $R/lavaMD/result.txt $OUT/lavaMD.result 2>/dev/null
DIR=streamcluster; b streamcluster -O3 streamcluster_cuda_cpu.cpp streamcluster_cuda.cu streamcluster_header.cu -o sc_gpu; r streamcluster ./sc_gpu 10 20 16 1024 1024 100 none output.txt 1
cp $R/streamcluster/output.txt $OUT/streamcluster.result 2>/dev/null
DIR=backprop;    b backprop -O2 backprop.c facetrain.c imagenet.c backprop_cuda.cu -o backprop -lm; r backprop ./backprop 4096
DIR=particlefilter; b particlefilter_float -O3 -use_fast_math ex_particle_CUDA_float_seq.cu -o particlefilter_float -lm; r particlefilter_float ./particlefilter_float -x 64 -y 64 -z 5 -np 256
DIR=particlefilter; b particlefilter_naive -O3 -use_fast_math ex_particle_CUDA_naive_seq.cu -o particlefilter_naive -lm; r particlefilter_naive ./particlefilter_naive -x 64 -y 64 -z 5 -np 256
DIR=myocyte;     b myocyte main.cu -o myocyte.out;                   r myocyte ./myocyte.out 10 1 0
cp $R/myocyte/output.txt $OUT/myocyte.result 2>/dev/null
DIR=hotspot;     b hotspot hotspot.cu -o hotspot;                    r hotspot ./hotspot 64 2 4 ../gen/temp_64 ../gen/power_64 output.out
cp $R/hotspot/output.out $OUT/hotspot.result 2>/dev/null
DIR=hotspot3D;   b hotspot3D -O3 3D.cu -o 3D;                        r hotspot3D ./3D 64 8 10 ../gen/power_64x8 ../gen/temp_64x8 output.out
cp $R/hotspot3D/output.out $OUT/hotspot3D.result 2>/dev/null
DIR=bfs;         b bfs bfs.cu -o bfs;                                r bfs ./bfs ../gen/graph4096.txt
cp $R/bfs/result.txt $OUT/bfs.result 2>/dev/null
DIR=nn;          b nn nn_cuda.cu -o nn;                              r nn ./nn ../gen/filelist -r 5 -lat 30 -lng 90
echo done >> $OUT/summary

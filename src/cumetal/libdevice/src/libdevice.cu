// CuMetal libdevice: the one translation unit built into libdevice bitcode.
#include "exact.cu"
#include "exp_log.cu"
#include "trig.cu"
#include "intrinsics.cu"
#include "invtrig_hyp.cu"
#include "pow_root.cu"
#include "special.cu"
#include "bessel.cu"

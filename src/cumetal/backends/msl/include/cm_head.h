// CuMetal MSL prelude, part 1: the Metal standard library, msl-sim's hook macros (empty on Metal),
// address windows and rounding-mode numbers. Parts are concatenated in prelude.PARTS order.
#include <metal_stdlib>
using namespace metal;

#ifndef CM_CHECK_GLOBAL
#define CM_CHECK_GLOBAL(cm, a, n)
#define CM_CHECK_SHARED(cm, a, n)
#define CM_CHECK_LOCAL(cm, a, n)
#define CM_LOOP_HOOK(cm)
#define CM_FAULT_HOOK(cm, code, a)
#endif

#define CM_SHARED_WINDOW 0x1000000000000000ul
#define CM_LOCAL_WINDOW 0x2000000000000000ul
#define CM_WINDOW_MASK 0xFF00000000000000ul
#define CM_RN 0
#define CM_RZ 1
#define CM_RM 2
#define CM_RP 3

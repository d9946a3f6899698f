// CuMetal MSL prelude, part 1: the Metal standard library, msl-sim's hook macros (empty on Metal),
// then the shared numbers (cumetal_codes.h). Parts are concatenated in prelude.PARTS order.
// CM_LOOP_TOP/CM_LOOP_EXIT (each emitted loop's first statement and the statement after it) and
// CM_CALL_BEGIN/CM_CALL_END (around each call) tell msl-sim where a thread is in the structured
// code, so that it groups SIMD-group calls as Apple's lockstep execution does. CM_WAIT_MASK and
// CM_WAIT_POINT mark a legalized wait's scheduling point (msl/wait_points.py): msl-sim parks the
// thread there and reports a deadlock; on Metal the mask is the SIMD-group's active mask.
#include <metal_stdlib>
using namespace metal;

#ifndef CM_CHECK_GLOBAL
#define CM_CHECK_GLOBAL(cm, a, n)
#define CM_CHECK_SHARED(cm, a, n)
#define CM_CHECK_LOCAL(cm, a, n)
#define CM_CHECK_ALIGN(cm, a, n) ((void)0)
#define CM_LOOP_HOOK(cm)
#define CM_LOOP_TOP(cm)
#define CM_LOOP_EXIT(cm)
#define CM_CALL_BEGIN(cm)
#define CM_CALL_END(cm)
#define CM_FAULT_HOOK(cm, code, a)
#define CM_WAIT_MASK(cm, m) (m)
#define CM_WAIT_POINT(cm, kind, count, a)
#endif

// Address windows (CM_SHARED_WINDOW, ...), rounding modes (CM_RN, ...), fault, atomic, compare and
// launch_info numbers: backends/common/include/cumetal_codes.h, which prelude.py places next.

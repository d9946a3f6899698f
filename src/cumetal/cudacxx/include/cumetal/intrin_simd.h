/* CuMetal clean-room CUDA headers: SIMD intrinsics on 2 halfwords / 4 bytes packed in an unsigned
 * int (CUDA Math API, "SIMD Intrinsics"). Written out lane by lane in plain integer code (PTX's
 * video instructions are not part of CuMetal's IR). */
#ifndef CUMETAL_INTRIN_SIMD_H
#define CUMETAL_INTRIN_SIMD_H
#include "cumetal/qualifiers.h"

namespace cumetal_simd {
/* lane i of x as a signed / unsigned value, for lanes of `bits` bits */
__CM_DEV__ int sget(unsigned int x, int i, int bits) {
    const unsigned int u = (x >> (i * bits)) & ((1u << bits) - 1);
    return (u & (1u << (bits - 1))) ? (int)u - (1 << bits) : (int)u;
}
__CM_DEV__ int uget(unsigned int x, int i, int bits) { return (int)((x >> (i * bits)) & ((1u << bits) - 1)); }
__CM_DEV__ unsigned int put(int v, int i, int bits) { return ((unsigned int)v & ((1u << bits) - 1)) << (i * bits); }
__CM_DEV__ int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
__CM_DEV__ int iabs(int v) { return v < 0 ? -v : v; }
}  // namespace cumetal_simd

/* One lane-wise operation for both widths: NAME##2 on halfwords, NAME##4 on bytes.
 * EXPR uses a and b (lane values read with GET) and bits, smin/smax/umax (the lane's ranges). */
#define __CM_SIMD(NAME, GET, EXPR)                                                                     \
    __CM_DEV__ unsigned int NAME##_cm(unsigned int x, unsigned int y, int bits) {                     \
        using namespace cumetal_simd;                                                                  \
        const int smin = -(1 << (bits - 1)), smax = (1 << (bits - 1)) - 1, umax = (1 << bits) - 1;     \
        (void)smin, (void)smax, (void)umax;                                                            \
        unsigned int r = 0;                                                                            \
        for (int i = 0; i < 32 / bits; ++i) {                                                          \
            const int a = GET(x, i, bits), b = GET(y, i, bits);                                        \
            (void)b;                                                                                   \
            r |= put((EXPR), i, bits);                                                                 \
        }                                                                                              \
        return r;                                                                                      \
    }                                                                                                  \
    __CM_DEV__ unsigned int NAME##2(unsigned int x, unsigned int y) { return NAME##_cm(x, y, 16); }    \
    __CM_DEV__ unsigned int NAME##4(unsigned int x, unsigned int y) { return NAME##_cm(x, y, 8); }
#define __CM_SIMD1(NAME, GET, EXPR)                                                                    \
    __CM_SIMD(NAME##_unary, GET, EXPR)                                                                 \
    __CM_DEV__ unsigned int NAME##2(unsigned int x) { return NAME##_unary_cm(x, 0, 16); }              \
    __CM_DEV__ unsigned int NAME##4(unsigned int x) { return NAME##_unary_cm(x, 0, 8); }

__CM_SIMD1(__vabs, sget, iabs(a))
__CM_SIMD1(__vabsss, sget, clampi(iabs(a), smin, smax))
__CM_SIMD1(__vneg, sget, -a)
__CM_SIMD1(__vnegss, sget, clampi(-a, smin, smax))
__CM_SIMD(__vabsdiffs, sget, iabs(a - b))
__CM_SIMD(__vabsdiffu, uget, iabs(a - b))
__CM_SIMD(__vadd, uget, a + b)
__CM_SIMD(__vaddss, sget, clampi(a + b, smin, smax))
__CM_SIMD(__vaddus, uget, clampi(a + b, 0, umax))
__CM_SIMD(__vsub, uget, a - b)
__CM_SIMD(__vsubss, sget, clampi(a - b, smin, smax))
__CM_SIMD(__vsubus, uget, clampi(a - b, 0, umax))
/* rounded averages: signed rounds half away from zero, unsigned rounds half up */
__CM_SIMD(__vavgs, sget, (a + b >= 0) ? (a + b + 1) >> 1 : -((-(a + b) + 1) >> 1))
__CM_SIMD(__vavgu, uget, (a + b + 1) >> 1)
__CM_SIMD(__vhaddu, uget, (a + b) >> 1)
__CM_SIMD(__vmaxs, sget, a > b ? a : b)
__CM_SIMD(__vmaxu, uget, a > b ? a : b)
__CM_SIMD(__vmins, sget, a < b ? a : b)
__CM_SIMD(__vminu, uget, a < b ? a : b)
__CM_SIMD(__vcmpeq, uget, a == b ? -1 : 0)
__CM_SIMD(__vcmpne, uget, a != b ? -1 : 0)
__CM_SIMD(__vcmpges, sget, a >= b ? -1 : 0)
__CM_SIMD(__vcmpgeu, uget, a >= b ? -1 : 0)
__CM_SIMD(__vcmpgts, sget, a > b ? -1 : 0)
__CM_SIMD(__vcmpgtu, uget, a > b ? -1 : 0)
__CM_SIMD(__vcmples, sget, a <= b ? -1 : 0)
__CM_SIMD(__vcmpleu, uget, a <= b ? -1 : 0)
__CM_SIMD(__vcmplts, sget, a < b ? -1 : 0)
__CM_SIMD(__vcmpltu, uget, a < b ? -1 : 0)
__CM_SIMD(__vseteq, uget, a == b)
__CM_SIMD(__vsetne, uget, a != b)
__CM_SIMD(__vsetges, sget, a >= b)
__CM_SIMD(__vsetgeu, uget, a >= b)
__CM_SIMD(__vsetgts, sget, a > b)
__CM_SIMD(__vsetgtu, uget, a > b)
__CM_SIMD(__vsetles, sget, a <= b)
__CM_SIMD(__vsetleu, uget, a <= b)
__CM_SIMD(__vsetlts, sget, a < b)
__CM_SIMD(__vsetltu, uget, a < b)
#undef __CM_SIMD
#undef __CM_SIMD1

/* sums of absolute differences of the lanes */
__CM_DEV__ unsigned int __vsads2(unsigned int x, unsigned int y) {
    return (unsigned int)(cumetal_simd::iabs(cumetal_simd::sget(x, 0, 16) - cumetal_simd::sget(y, 0, 16)) +
                          cumetal_simd::iabs(cumetal_simd::sget(x, 1, 16) - cumetal_simd::sget(y, 1, 16)));
}
__CM_DEV__ unsigned int __vsadu2(unsigned int x, unsigned int y) {
    return (unsigned int)(cumetal_simd::iabs(cumetal_simd::uget(x, 0, 16) - cumetal_simd::uget(y, 0, 16)) +
                          cumetal_simd::iabs(cumetal_simd::uget(x, 1, 16) - cumetal_simd::uget(y, 1, 16)));
}
__CM_DEV__ unsigned int __vsads4(unsigned int x, unsigned int y) {
    int s = 0;
    for (int i = 0; i < 4; ++i) s += cumetal_simd::iabs(cumetal_simd::sget(x, i, 8) - cumetal_simd::sget(y, i, 8));
    return (unsigned int)s;
}
__CM_DEV__ unsigned int __vsadu4(unsigned int x, unsigned int y) {
    int s = 0;
    for (int i = 0; i < 4; ++i) s += cumetal_simd::iabs(cumetal_simd::uget(x, i, 8) - cumetal_simd::uget(y, i, 8));
    return (unsigned int)s;
}

#endif /* CUMETAL_INTRIN_SIMD_H */

/* CuMetal clean-room CUDA headers: integer intrinsics (CUDA Math API, "Integer Intrinsics").
 * Each becomes the PTX instruction nvcc uses for it (popc, clz, brev, prmt, shf, mul24, mul.hi,
 * sad, dp4a, dp2a) or a short exact expression. */
#ifndef CUMETAL_INTRIN_INTEGER_H
#define CUMETAL_INTRIN_INTEGER_H
#include "cumetal/qualifiers.h"

__CM_DEV__ int __popc(unsigned int x) { return __builtin_popcount(x); }
__CM_DEV__ int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
/* clz of 0 is the width (PTX clz) */
__CM_DEV__ int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
__CM_DEV__ int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
/* position of the least significant set bit, 1-based; 0 for 0 */
__CM_DEV__ int __ffs(int x) { return __builtin_ffs(x); }
__CM_DEV__ int __ffsll(long long x) { return __builtin_ffsll(x); }
__CM_DEV__ unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
__CM_DEV__ unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
/* find n-th set bit (fns): position of the offset-th set bit counting from base */
__CM_DEV__ unsigned int __fns(unsigned int mask, unsigned int base, int offset) {
    /* PTX fns semantics written out: search upwards (offset > 0) or downwards (offset < 0) from
     * base; offset 0 answers base if its bit is set. 0xffffffff when not found. */
    if (base > 31) return 0xffffffffu;
    if (offset == 0) return ((mask >> base) & 1u) ? base : 0xffffffffu;
    if (offset > 0) {
        int n = offset;
        for (unsigned int i = base; i < 32; ++i)
            if (((mask >> i) & 1u) && --n == 0) return i;
    } else {
        int n = -offset;
        for (int i = (int)base; i >= 0; --i)
            if (((mask >> i) & 1u) && --n == 0) return (unsigned int)i;
    }
    return 0xffffffffu;
}

/* result byte n is byte ((s >> 4n) & 7) of the 8 bytes y:x; only 3 bits of each of the low four
 * selector nibbles count (no sign replication; measured on NVIDIA H100) */
__CM_DEV__ unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
    return __nvvm_prmt(x, y, s & 0x7777u);
}

/* funnel shifts: shf.l/.r with .wrap (shift modulo 32) or .clamp (shift clamped to 32) */
__CM_DEV__ unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
    unsigned int r;
    asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(shift));
    return r;
}
__CM_DEV__ unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
    unsigned int r;
    asm("shf.l.clamp.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(shift));
    return r;
}
__CM_DEV__ unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
    unsigned int r;
    asm("shf.r.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(shift));
    return r;
}
__CM_DEV__ unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
    unsigned int r;
    asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(shift));
    return r;
}

__CM_DEV__ int __mul24(int x, int y) { return __nvvm_mul24_i(x, y); }
__CM_DEV__ unsigned int __umul24(unsigned int x, unsigned int y) { return __nvvm_mul24_ui(x, y); }
__CM_DEV__ int __mulhi(int x, int y) { return __nvvm_mulhi_i(x, y); }
__CM_DEV__ unsigned int __umulhi(unsigned int x, unsigned int y) { return __nvvm_mulhi_ui(x, y); }
__CM_DEV__ long long __mul64hi(long long x, long long y) { return __nvvm_mulhi_ll(x, y); }
__CM_DEV__ unsigned long long __umul64hi(unsigned long long x, unsigned long long y) { return __nvvm_mulhi_ull(x, y); }
/* |x - y| + z */
__CM_DEV__ unsigned int __sad(int x, int y, unsigned int z) { return (unsigned int)__nvvm_sad_i(x, y, (int)z); }
__CM_DEV__ unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) { return __nvvm_sad_ui(x, y, z); }

/* halving adds without overflow: (x + y) >> 1 and (x + y + 1) >> 1 on the full-width sum */
__CM_DEV__ int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
__CM_DEV__ int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
__CM_DEV__ unsigned int __uhadd(unsigned int x, unsigned int y) {
    return (unsigned int)(((unsigned long long)x + y) >> 1);
}
__CM_DEV__ unsigned int __urhadd(unsigned int x, unsigned int y) {
    return (unsigned int)(((unsigned long long)x + y + 1) >> 1);
}

/* dot products of packed bytes / halfwords with a 32-bit accumulator (dp4a, dp2a; sm_61) */
__CM_DEV__ int __dp4a(int a, int b, int c) {
    int r;
    asm("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
__CM_DEV__ unsigned int __dp4a(unsigned int a, unsigned int b, unsigned int c) {
    unsigned int r;
    asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
__CM_DEV__ int __dp4a(char4 a, char4 b, int c) {
    return __dp4a(__builtin_bit_cast(int, a), __builtin_bit_cast(int, b), c);
}
__CM_DEV__ unsigned int __dp4a(uchar4 a, uchar4 b, unsigned int c) {
    return __dp4a(__builtin_bit_cast(unsigned int, a), __builtin_bit_cast(unsigned int, b), c);
}
__CM_DEV__ int __dp2a_lo(int a, int b, int c) {
    int r;
    asm("dp2a.lo.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
__CM_DEV__ unsigned int __dp2a_lo(unsigned int a, unsigned int b, unsigned int c) {
    unsigned int r;
    asm("dp2a.lo.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
__CM_DEV__ int __dp2a_hi(int a, int b, int c) {
    int r;
    asm("dp2a.hi.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
__CM_DEV__ unsigned int __dp2a_hi(unsigned int a, unsigned int b, unsigned int c) {
    unsigned int r;
    asm("dp2a.hi.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
__CM_DEV__ int __dp2a_lo(short2 a, char4 b, int c) {
    return __dp2a_lo(__builtin_bit_cast(int, a), __builtin_bit_cast(int, b), c);
}
__CM_DEV__ unsigned int __dp2a_lo(ushort2 a, uchar4 b, unsigned int c) {
    return __dp2a_lo(__builtin_bit_cast(unsigned int, a), __builtin_bit_cast(unsigned int, b), c);
}
__CM_DEV__ int __dp2a_hi(short2 a, char4 b, int c) {
    return __dp2a_hi(__builtin_bit_cast(int, a), __builtin_bit_cast(int, b), c);
}
__CM_DEV__ unsigned int __dp2a_hi(ushort2 a, uchar4 b, unsigned int c) {
    return __dp2a_hi(__builtin_bit_cast(unsigned int, a), __builtin_bit_cast(unsigned int, b), c);
}

#include "cumetal/intrin_simd.h"

#endif /* CUMETAL_INTRIN_INTEGER_H */

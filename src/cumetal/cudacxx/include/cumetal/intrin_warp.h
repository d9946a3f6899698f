/* CuMetal clean-room CUDA headers: warp-level primitives (CUDA C++ Programming Guide, "Warp
 * Vote Functions", "Warp Match Functions", "Warp Reduce Functions", "Warp Shuffle Functions").
 * 64-bit shuffles move the two 32-bit halves separately, as CUDA documents. The half-precision
 * shuffles live in cuda_fp16.h / cuda_bf16.h. */
#ifndef CUMETAL_INTRIN_WARP_H
#define CUMETAL_INTRIN_WARP_H
#include "cumetal/qualifiers.h"

/* ---- lane masks and the active mask ---- */
__CM_DEV__ unsigned int __activemask() { return __nvvm_activemask(); }
__CM_DEV__ unsigned int __lanemask_eq() { return __nvvm_read_ptx_sreg_lanemask_eq(); }
__CM_DEV__ unsigned int __lanemask_lt() { return __nvvm_read_ptx_sreg_lanemask_lt(); }
__CM_DEV__ unsigned int __lanemask_le() { return __nvvm_read_ptx_sreg_lanemask_le(); }
__CM_DEV__ unsigned int __lanemask_gt() { return __nvvm_read_ptx_sreg_lanemask_gt(); }
__CM_DEV__ unsigned int __lanemask_ge() { return __nvvm_read_ptx_sreg_lanemask_ge(); }
__CM_DEV__ unsigned int __cumetal_laneid() { return __nvvm_read_ptx_sreg_laneid(); }

/* ---- vote ---- */
__CM_DEV__ int __all_sync(unsigned int mask, int predicate) { return __nvvm_vote_all_sync(mask, predicate != 0); }
__CM_DEV__ int __any_sync(unsigned int mask, int predicate) { return __nvvm_vote_any_sync(mask, predicate != 0); }
__CM_DEV__ int __uni_sync(unsigned int mask, int predicate) { return __nvvm_vote_uni_sync(mask, predicate != 0); }
__CM_DEV__ unsigned int __ballot_sync(unsigned int mask, int predicate) {
    return __nvvm_vote_ballot_sync(mask, predicate != 0);
}

/* ---- shuffle ----
 * The c operand packs the segment mask ((32 - width) << 8) with the clamp lane: 31 for idx,
 * down and bfly, 0 for up (PTX ISA, shfl.sync). */
#define __CM_SHFL_C(width) ((32 - (width)) << 8)

__CM_DEV__ int __cm_shfl_idx32(unsigned m, int v, int lane, int w) {
    return __nvvm_shfl_sync_idx_i32(m, v, lane, __CM_SHFL_C(w) | 0x1f);
}
__CM_DEV__ int __cm_shfl_up32(unsigned m, int v, unsigned d, int w) {
    return __nvvm_shfl_sync_up_i32(m, v, (int)d, __CM_SHFL_C(w));
}
__CM_DEV__ int __cm_shfl_down32(unsigned m, int v, unsigned d, int w) {
    return __nvvm_shfl_sync_down_i32(m, v, (int)d, __CM_SHFL_C(w) | 0x1f);
}
__CM_DEV__ int __cm_shfl_xor32(unsigned m, int v, int x, int w) {
    return __nvvm_shfl_sync_bfly_i32(m, v, x, __CM_SHFL_C(w) | 0x1f);
}
__CM_DEV__ float __cm_shfl_idxf(unsigned m, float v, int lane, int w) {
    return __nvvm_shfl_sync_idx_f32(m, v, lane, __CM_SHFL_C(w) | 0x1f);
}
__CM_DEV__ float __cm_shfl_upf(unsigned m, float v, unsigned d, int w) {
    return __nvvm_shfl_sync_up_f32(m, v, (int)d, __CM_SHFL_C(w));
}
__CM_DEV__ float __cm_shfl_downf(unsigned m, float v, unsigned d, int w) {
    return __nvvm_shfl_sync_down_f32(m, v, (int)d, __CM_SHFL_C(w) | 0x1f);
}
__CM_DEV__ float __cm_shfl_xorf(unsigned m, float v, int x, int w) {
    return __nvvm_shfl_sync_bfly_f32(m, v, x, __CM_SHFL_C(w) | 0x1f);
}

/* One overload family per CUDA shuffle: 32-bit integers directly, float through the f32 form,
 * 64-bit values as two 32-bit shuffles of their halves. */
#define __CM_SHFL_FAMILY(NAME, IMPL32, IMPLF, ARG_T)                                                    \
    __CM_DEV__ int NAME(unsigned int mask, int var, ARG_T a, int width = 32) {                        \
        return IMPL32(mask, var, a, width);                                                            \
    }                                                                                                  \
    __CM_DEV__ unsigned int NAME(unsigned int mask, unsigned int var, ARG_T a, int width = 32) {       \
        return (unsigned int)IMPL32(mask, (int)var, a, width);                                         \
    }                                                                                                  \
    __CM_DEV__ float NAME(unsigned int mask, float var, ARG_T a, int width = 32) {                     \
        return IMPLF(mask, var, a, width);                                                             \
    }                                                                                                  \
    __CM_DEV__ unsigned long long NAME(unsigned int mask, unsigned long long var, ARG_T a,             \
                                       int width = 32) {                                               \
        unsigned int lo = (unsigned int)IMPL32(mask, (int)(unsigned int)var, a, width);                \
        unsigned int hi = (unsigned int)IMPL32(mask, (int)(unsigned int)(var >> 32), a, width);        \
        return ((unsigned long long)hi << 32) | lo;                                                    \
    }                                                                                                  \
    __CM_DEV__ long long NAME(unsigned int mask, long long var, ARG_T a, int width = 32) {             \
        return (long long)NAME(mask, (unsigned long long)var, a, width);                               \
    }                                                                                                  \
    __CM_DEV__ long NAME(unsigned int mask, long var, ARG_T a, int width = 32) {                       \
        return (long)NAME(mask, (unsigned long long)var, a, width);                                    \
    }                                                                                                  \
    __CM_DEV__ unsigned long NAME(unsigned int mask, unsigned long var, ARG_T a, int width = 32) {     \
        return (unsigned long)NAME(mask, (unsigned long long)var, a, width);                           \
    }                                                                                                  \
    __CM_DEV__ double NAME(unsigned int mask, double var, ARG_T a, int width = 32) {                   \
        return __builtin_bit_cast(double, NAME(mask, __builtin_bit_cast(unsigned long long, var), a, width)); \
    }

__CM_SHFL_FAMILY(__shfl_sync, __cm_shfl_idx32, __cm_shfl_idxf, int)
__CM_SHFL_FAMILY(__shfl_up_sync, __cm_shfl_up32, __cm_shfl_upf, unsigned int)
__CM_SHFL_FAMILY(__shfl_down_sync, __cm_shfl_down32, __cm_shfl_downf, unsigned int)
__CM_SHFL_FAMILY(__shfl_xor_sync, __cm_shfl_xor32, __cm_shfl_xorf, int)
#undef __CM_SHFL_FAMILY

/* ---- match (sm_70) ---- */
__CM_DEV__ unsigned int __match_any_sync(unsigned int mask, unsigned int value) {
    return __nvvm_match_any_sync_i32(mask, value);
}
__CM_DEV__ unsigned int __match_any_sync(unsigned int mask, int value) { return __nvvm_match_any_sync_i32(mask, value); }
__CM_DEV__ unsigned int __match_any_sync(unsigned int mask, unsigned long long value) {
    return __nvvm_match_any_sync_i64(mask, (long long)value);
}
__CM_DEV__ unsigned int __match_any_sync(unsigned int mask, long long value) {
    return __nvvm_match_any_sync_i64(mask, value);
}
__CM_DEV__ unsigned int __match_any_sync(unsigned int mask, unsigned long value) {
    return __nvvm_match_any_sync_i64(mask, (long long)value);
}
__CM_DEV__ unsigned int __match_any_sync(unsigned int mask, long value) {
    return __nvvm_match_any_sync_i64(mask, (long long)value);
}
__CM_DEV__ unsigned int __match_any_sync(unsigned int mask, float value) {
    return __nvvm_match_any_sync_i32(mask, __builtin_bit_cast(int, value));
}
__CM_DEV__ unsigned int __match_any_sync(unsigned int mask, double value) {
    return __nvvm_match_any_sync_i64(mask, __builtin_bit_cast(long long, value));
}
__CM_DEV__ unsigned int __match_all_sync(unsigned int mask, unsigned int value, int *pred) {
    return __nvvm_match_all_sync_i32p(mask, value, pred);
}
__CM_DEV__ unsigned int __match_all_sync(unsigned int mask, int value, int *pred) {
    return __nvvm_match_all_sync_i32p(mask, value, pred);
}
__CM_DEV__ unsigned int __match_all_sync(unsigned int mask, unsigned long long value, int *pred) {
    return __nvvm_match_all_sync_i64p(mask, (long long)value, pred);
}
__CM_DEV__ unsigned int __match_all_sync(unsigned int mask, long long value, int *pred) {
    return __nvvm_match_all_sync_i64p(mask, value, pred);
}
__CM_DEV__ unsigned int __match_all_sync(unsigned int mask, unsigned long value, int *pred) {
    return __nvvm_match_all_sync_i64p(mask, (long long)value, pred);
}
__CM_DEV__ unsigned int __match_all_sync(unsigned int mask, long value, int *pred) {
    return __nvvm_match_all_sync_i64p(mask, (long long)value, pred);
}
__CM_DEV__ unsigned int __match_all_sync(unsigned int mask, float value, int *pred) {
    return __nvvm_match_all_sync_i32p(mask, __builtin_bit_cast(int, value), pred);
}
__CM_DEV__ unsigned int __match_all_sync(unsigned int mask, double value, int *pred) {
    return __nvvm_match_all_sync_i64p(mask, __builtin_bit_cast(long long, value), pred);
}

/* ---- reduce (redux.sync, sm_80; CuMetal runs it whatever the target architecture) ---- */
#define __CM_REDUX(OP, PTXOP, T, REG)                                                                  \
    __CM_DEV__ T __reduce_##OP##_sync(unsigned int mask, T value) {                                    \
        T r;                                                                                           \
        asm volatile("redux.sync." PTXOP " %0, %1, %2;" : "=r"(r) : "r"(value), "r"(mask));            \
        return r;                                                                                      \
    }
__CM_REDUX(add, "add.u32", unsigned int, r)
__CM_REDUX(add, "add.s32", int, r)
__CM_REDUX(min, "min.u32", unsigned int, r)
__CM_REDUX(min, "min.s32", int, r)
__CM_REDUX(max, "max.u32", unsigned int, r)
__CM_REDUX(max, "max.s32", int, r)
__CM_REDUX(and, "and.b32", unsigned int, r)
__CM_REDUX(or, "or.b32", unsigned int, r)
__CM_REDUX(xor, "xor.b32", unsigned int, r)
#undef __CM_REDUX

#endif /* CUMETAL_INTRIN_WARP_H */

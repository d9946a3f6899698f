/* CuMetal clean-room CUDA headers: atomic functions (CUDA C++ Programming Guide, "Atomic
 * Functions"). Every documented overload, with the _block (atom.cta) and _system (atom.sys)
 * scoped variants. They are relaxed read-modify-writes, as in CUDA. The __half2 / __nv_bfloat162
 * atomicAdd overloads live in cuda_fp16.h / cuda_bf16.h. */
#ifndef CUMETAL_INTRIN_ATOMIC_H
#define CUMETAL_INTRIN_ATOMIC_H
#include "cumetal/qualifiers.h"

/* One family per scope: SUF is "", "_block" or "_system"; S is the builtin infix ("", "cta_", "sys_"). */
#define __CM_ATOMICS(SUF, S)                                                                              \
    __CM_DEV__ int atomicAdd##SUF(int *a, int v) { return __nvvm_atom_##S##add_gen_i(a, v); }            \
    __CM_DEV__ unsigned int atomicAdd##SUF(unsigned int *a, unsigned int v) {                             \
        return (unsigned int)__nvvm_atom_##S##add_gen_i((int *)a, (int)v);                                \
    }                                                                                                     \
    __CM_DEV__ unsigned long long atomicAdd##SUF(unsigned long long *a, unsigned long long v) {           \
        return (unsigned long long)__nvvm_atom_##S##add_gen_ll((long long *)a, (long long)v);             \
    }                                                                                                     \
    __CM_DEV__ float atomicAdd##SUF(float *a, float v) { return __nvvm_atom_##S##add_gen_f(a, v); }      \
    __CM_DEV__ double atomicAdd##SUF(double *a, double v) { return __nvvm_atom_##S##add_gen_d(a, v); }   \
    __CM_DEV__ int atomicSub##SUF(int *a, int v) { return __nvvm_atom_##S##add_gen_i(a, -v); }           \
    __CM_DEV__ unsigned int atomicSub##SUF(unsigned int *a, unsigned int v) {                             \
        return (unsigned int)__nvvm_atom_##S##add_gen_i((int *)a, (int)(0u - v));                         \
    }                                                                                                     \
    __CM_DEV__ int atomicExch##SUF(int *a, int v) { return __nvvm_atom_##S##xchg_gen_i(a, v); }          \
    __CM_DEV__ unsigned int atomicExch##SUF(unsigned int *a, unsigned int v) {                            \
        return (unsigned int)__nvvm_atom_##S##xchg_gen_i((int *)a, (int)v);                               \
    }                                                                                                     \
    __CM_DEV__ unsigned long long atomicExch##SUF(unsigned long long *a, unsigned long long v) {          \
        return (unsigned long long)__nvvm_atom_##S##xchg_gen_ll((long long *)a, (long long)v);            \
    }                                                                                                     \
    __CM_DEV__ float atomicExch##SUF(float *a, float v) {                                                 \
        return __builtin_bit_cast(float, __nvvm_atom_##S##xchg_gen_i((int *)a, __builtin_bit_cast(int, v))); \
    }                                                                                                     \
    __CM_DEV__ int atomicMin##SUF(int *a, int v) { return __nvvm_atom_##S##min_gen_i(a, v); }            \
    __CM_DEV__ unsigned int atomicMin##SUF(unsigned int *a, unsigned int v) {                             \
        return __nvvm_atom_##S##min_gen_ui(a, v);                                                         \
    }                                                                                                     \
    __CM_DEV__ long long atomicMin##SUF(long long *a, long long v) { return __nvvm_atom_##S##min_gen_ll(a, v); } \
    __CM_DEV__ unsigned long long atomicMin##SUF(unsigned long long *a, unsigned long long v) {           \
        return __nvvm_atom_##S##min_gen_ull(a, v);                                                        \
    }                                                                                                     \
    __CM_DEV__ int atomicMax##SUF(int *a, int v) { return __nvvm_atom_##S##max_gen_i(a, v); }            \
    __CM_DEV__ unsigned int atomicMax##SUF(unsigned int *a, unsigned int v) {                             \
        return __nvvm_atom_##S##max_gen_ui(a, v);                                                         \
    }                                                                                                     \
    __CM_DEV__ long long atomicMax##SUF(long long *a, long long v) { return __nvvm_atom_##S##max_gen_ll(a, v); } \
    __CM_DEV__ unsigned long long atomicMax##SUF(unsigned long long *a, unsigned long long v) {           \
        return __nvvm_atom_##S##max_gen_ull(a, v);                                                        \
    }                                                                                                     \
    /* ((old >= v) ? 0 : old + 1) and ((old == 0 || old > v) ? v : old - 1) */                            \
    __CM_DEV__ unsigned int atomicInc##SUF(unsigned int *a, unsigned int v) {                             \
        return __nvvm_atom_##S##inc_gen_ui(a, v);                                                         \
    }                                                                                                     \
    __CM_DEV__ unsigned int atomicDec##SUF(unsigned int *a, unsigned int v) {                             \
        return __nvvm_atom_##S##dec_gen_ui(a, v);                                                         \
    }                                                                                                     \
    __CM_DEV__ int atomicCAS##SUF(int *a, int cmp, int v) { return __nvvm_atom_##S##cas_gen_i(a, cmp, v); } \
    __CM_DEV__ unsigned int atomicCAS##SUF(unsigned int *a, unsigned int cmp, unsigned int v) {           \
        return (unsigned int)__nvvm_atom_##S##cas_gen_i((int *)a, (int)cmp, (int)v);                      \
    }                                                                                                     \
    __CM_DEV__ unsigned long long atomicCAS##SUF(unsigned long long *a, unsigned long long cmp,           \
                                                 unsigned long long v) {                                  \
        return (unsigned long long)__nvvm_atom_##S##cas_gen_ll((long long *)a, (long long)cmp, (long long)v); \
    }                                                                                                     \
    __CM_DEV__ int atomicAnd##SUF(int *a, int v) { return __nvvm_atom_##S##and_gen_i(a, v); }            \
    __CM_DEV__ unsigned int atomicAnd##SUF(unsigned int *a, unsigned int v) {                             \
        return (unsigned int)__nvvm_atom_##S##and_gen_i((int *)a, (int)v);                                \
    }                                                                                                     \
    __CM_DEV__ unsigned long long atomicAnd##SUF(unsigned long long *a, unsigned long long v) {           \
        return (unsigned long long)__nvvm_atom_##S##and_gen_ll((long long *)a, (long long)v);             \
    }                                                                                                     \
    __CM_DEV__ int atomicOr##SUF(int *a, int v) { return __nvvm_atom_##S##or_gen_i(a, v); }              \
    __CM_DEV__ unsigned int atomicOr##SUF(unsigned int *a, unsigned int v) {                              \
        return (unsigned int)__nvvm_atom_##S##or_gen_i((int *)a, (int)v);                                 \
    }                                                                                                     \
    __CM_DEV__ unsigned long long atomicOr##SUF(unsigned long long *a, unsigned long long v) {            \
        return (unsigned long long)__nvvm_atom_##S##or_gen_ll((long long *)a, (long long)v);              \
    }                                                                                                     \
    __CM_DEV__ int atomicXor##SUF(int *a, int v) { return __nvvm_atom_##S##xor_gen_i(a, v); }            \
    __CM_DEV__ unsigned int atomicXor##SUF(unsigned int *a, unsigned int v) {                             \
        return (unsigned int)__nvvm_atom_##S##xor_gen_i((int *)a, (int)v);                                \
    }                                                                                                     \
    __CM_DEV__ unsigned long long atomicXor##SUF(unsigned long long *a, unsigned long long v) {           \
        return (unsigned long long)__nvvm_atom_##S##xor_gen_ll((long long *)a, (long long)v);             \
    }

__CM_ATOMICS(, )
__CM_ATOMICS(_block, cta_)
__CM_ATOMICS(_system, sys_)
#undef __CM_ATOMICS

/* 16-bit compare-and-swap (sm_70): atom.cas.b16 */
#define __CM_CAS16(SUF, SCOPE)                                                                           \
    __CM_DEV__ unsigned short int atomicCAS##SUF(unsigned short int *a, unsigned short int cmp,          \
                                                 unsigned short int v) {                                 \
        unsigned short int r;                                                                            \
        asm volatile("atom" SCOPE ".cas.b16 %0, [%1], %2, %3;" : "=h"(r) : "l"(a), "h"(cmp), "h"(v)      \
                     : "memory");                                                                        \
        return r;                                                                                        \
    }
__CM_CAS16(, "")
__CM_CAS16(_block, ".cta")
__CM_CAS16(_system, ".sys")
#undef __CM_CAS16

#endif /* CUMETAL_INTRIN_ATOMIC_H */

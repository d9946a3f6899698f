/* CuMetal clean-room CUDA headers: warp matrix functions (CUDA C++ Programming Guide, "Warp Matrix
 * Functions"): nvcuda::wmma fragments, load_matrix_sync, store_matrix_sync, fill_fragment and
 * mma_sync on clang's wmma builtins (PTX wmma.load / wmma.mma / wmma.store, which CuMetal lowers:
 * docs/intrinsic-map.md "Warp matrix instructions").
 * Shapes and types: m16n16k16, m32n8k16, m8n32k16 with half inputs and half or float accumulators;
 * m16n16k16 __nv_bfloat16 -> float; m16n16k8 precision::tf32 -> float; m16n16k16 signed/unsigned
 * char -> int; m8n8k4 double. A fragment's element order is CuMetal's own (as CUDA's is
 * unspecified): element-wise operations on x[] work, reading a given element's position does not. */
#ifndef CUMETAL_MMA_H
#define CUMETAL_MMA_H
#include "cumetal/qualifiers.h"
#include "cuda_fp16.h"
#include "cuda_bf16.h"

namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };
namespace precision {
struct tf32 {};
}  // namespace precision
namespace experimental {
namespace precision {
struct u4 {};
struct s4 {};
struct b1 {};
}  // namespace precision
}  // namespace experimental

namespace cumetal_detail {
/* storage element type and count of each fragment kind */
template <class Use, int M, int N, int K, class T> struct frag;
#define __CM_FRAG(USE, M, N, K, T, STORE, COUNT)                                                       \
    template <> struct frag<USE, M, N, K, T> {                                                         \
        typedef STORE storage;                                                                         \
        static constexpr int count = COUNT;                                                            \
    };
#define __CM_FRAG_F16_SHAPE(M, N, K)                                                                   \
    __CM_FRAG(matrix_a, M, N, K, __half, __half, 16)                                                   \
    __CM_FRAG(matrix_b, M, N, K, __half, __half, 16)                                                   \
    __CM_FRAG(accumulator, M, N, K, __half, __half, 8)                                                 \
    __CM_FRAG(accumulator, M, N, K, float, float, 8)
__CM_FRAG_F16_SHAPE(16, 16, 16)
__CM_FRAG_F16_SHAPE(32, 8, 16)
__CM_FRAG_F16_SHAPE(8, 32, 16)
__CM_FRAG(matrix_a, 16, 16, 16, __nv_bfloat16, __nv_bfloat16, 8)
__CM_FRAG(matrix_b, 16, 16, 16, __nv_bfloat16, __nv_bfloat16, 8)
__CM_FRAG(matrix_a, 16, 16, 8, precision::tf32, float, 4)
__CM_FRAG(matrix_b, 16, 16, 8, precision::tf32, float, 4)
__CM_FRAG(accumulator, 16, 16, 8, float, float, 8)
__CM_FRAG(matrix_a, 16, 16, 16, signed char, signed char, 8)
__CM_FRAG(matrix_b, 16, 16, 16, signed char, signed char, 8)
__CM_FRAG(matrix_a, 16, 16, 16, unsigned char, unsigned char, 8)
__CM_FRAG(matrix_b, 16, 16, 16, unsigned char, unsigned char, 8)
__CM_FRAG(accumulator, 16, 16, 16, int, int, 8)
__CM_FRAG(matrix_a, 8, 8, 4, double, double, 1)
__CM_FRAG(matrix_b, 8, 8, 4, double, double, 1)
__CM_FRAG(accumulator, 8, 8, 4, double, double, 2)
#undef __CM_FRAG
#undef __CM_FRAG_F16_SHAPE
template <class L> struct is_col {
    static constexpr int value = 0;
};
template <> struct is_col<col_major> {
    static constexpr int value = 1;
};
}  // namespace cumetal_detail

template <class Use, int M, int N, int K, class T, class Layout = void> class fragment {
    typedef cumetal_detail::frag<Use, M, N, K, T> traits;

  public:
    typedef typename traits::storage element_type;
    typedef typename traits::storage storage_element_type;
    static constexpr int num_elements = traits::count;
    static constexpr int num_storage_elements = traits::count;
    alignas(8) element_type x[traits::count];
};

template <class Use, int M, int N, int K, class T, class L, class V>
__device__ inline void fill_fragment(fragment<Use, M, N, K, T, L> &f, const V &v) {
    const typename fragment<Use, M, N, K, T, L>::element_type e = v;
    for (int i = 0; i < fragment<Use, M, N, K, T, L>::num_elements; ++i) f.x[i] = e;
}

/* loads and stores: one overload set per shape and element type */
#define __CM_LD_AB(M, N, K, T, PTR_T, BA, BB)                                                          \
    template <class L>                                                                                 \
    __device__ inline void load_matrix_sync(fragment<matrix_a, M, N, K, T, L> &f, const PTR_T *p, unsigned ldm) { \
        BA((int *)f.x, (const int *)p, ldm, cumetal_detail::is_col<L>::value);                         \
    }                                                                                                  \
    template <class L>                                                                                 \
    __device__ inline void load_matrix_sync(fragment<matrix_b, M, N, K, T, L> &f, const PTR_T *p, unsigned ldm) { \
        BB((int *)f.x, (const int *)p, ldm, cumetal_detail::is_col<L>::value);                         \
    }
#define __CM_LDST_C(M, N, K, T, ST, LDC, STC)                                                          \
    __device__ inline void load_matrix_sync(fragment<accumulator, M, N, K, T> &f, const T *p, unsigned ldm, \
                                            layout_t layout) {                                         \
        if (layout == mem_col_major) LDC((ST *)f.x, (const ST *)p, ldm, 1);                            \
        else LDC((ST *)f.x, (const ST *)p, ldm, 0);                                                    \
    }                                                                                                  \
    __device__ inline void store_matrix_sync(T *p, const fragment<accumulator, M, N, K, T> &f, unsigned ldm, \
                                             layout_t layout) {                                        \
        if (layout == mem_col_major) STC((ST *)p, (const ST *)f.x, ldm, 1);                            \
        else STC((ST *)p, (const ST *)f.x, ldm, 0);                                                    \
    }
#define __CM_F16_SHAPE(M, N, K)                                                                        \
    __CM_LD_AB(M, N, K, __half, __half, __hmma_m##M##n##N##k##K##_ld_a, __hmma_m##M##n##N##k##K##_ld_b) \
    __CM_LDST_C(M, N, K, __half, int, __hmma_m##M##n##N##k##K##_ld_c_f16, __hmma_m##M##n##N##k##K##_st_c_f16) \
    __CM_LDST_C(M, N, K, float, float, __hmma_m##M##n##N##k##K##_ld_c_f32, __hmma_m##M##n##N##k##K##_st_c_f32)
__CM_F16_SHAPE(16, 16, 16)
__CM_F16_SHAPE(32, 8, 16)
__CM_F16_SHAPE(8, 32, 16)
__CM_LD_AB(16, 16, 16, __nv_bfloat16, __nv_bfloat16, __mma_bf16_m16n16k16_ld_a, __mma_bf16_m16n16k16_ld_b)
__CM_LD_AB(16, 16, 8, precision::tf32, float, __mma_tf32_m16n16k8_ld_a, __mma_tf32_m16n16k8_ld_b)
__CM_LDST_C(16, 16, 8, float, float, __mma_tf32_m16n16k8_ld_c, __hmma_m16n16k16_st_c_f32)
__CM_LD_AB(16, 16, 16, signed char, signed char, __imma_m16n16k16_ld_a_s8, __imma_m16n16k16_ld_b_s8)
__CM_LD_AB(16, 16, 16, unsigned char, unsigned char, __imma_m16n16k16_ld_a_u8, __imma_m16n16k16_ld_b_u8)
__CM_LDST_C(16, 16, 16, int, int, __imma_m16n16k16_ld_c, __imma_m16n16k16_st_c_i32)
#undef __CM_F16_SHAPE
#undef __CM_LD_AB
#undef __CM_LDST_C

/* double m8n8k4 */
template <class L> __device__ inline void load_matrix_sync(fragment<matrix_a, 8, 8, 4, double, L> &f, const double *p, unsigned ldm) {
    __dmma_m8n8k4_ld_a(f.x, p, ldm, cumetal_detail::is_col<L>::value);
}
template <class L> __device__ inline void load_matrix_sync(fragment<matrix_b, 8, 8, 4, double, L> &f, const double *p, unsigned ldm) {
    __dmma_m8n8k4_ld_b(f.x, p, ldm, cumetal_detail::is_col<L>::value);
}
__device__ inline void load_matrix_sync(fragment<accumulator, 8, 8, 4, double> &f, const double *p, unsigned ldm,
                                        layout_t layout) {
    if (layout == mem_col_major) __dmma_m8n8k4_ld_c(f.x, p, ldm, 1);
    else __dmma_m8n8k4_ld_c(f.x, p, ldm, 0);
}
__device__ inline void store_matrix_sync(double *p, const fragment<accumulator, 8, 8, 4, double> &f, unsigned ldm,
                                         layout_t layout) {
    if (layout == mem_col_major) __dmma_m8n8k4_st_c_f64(p, f.x, ldm, 1);
    else __dmma_m8n8k4_st_c_f64(p, f.x, ldm, 0);
}

/* mma_sync: d = a * b + c; the layouts of a and b select the instruction (2 * a_col + b_col) */
#define __CM_MMA(M, N, K, TIN, TD, TC, DST, CST, BUILTIN)                                              \
    template <class LA, class LB>                                                                      \
    __device__ inline void mma_sync(fragment<accumulator, M, N, K, TD> &d, const fragment<matrix_a, M, N, K, TIN, LA> &a, \
                                    const fragment<matrix_b, M, N, K, TIN, LB> &b,                     \
                                    const fragment<accumulator, M, N, K, TC> &c, bool satf = false) {  \
        constexpr int layouts = cumetal_detail::is_col<LA>::value * 2 + cumetal_detail::is_col<LB>::value; \
        if (satf) BUILTIN((DST *)d.x, (const int *)a.x, (const int *)b.x, (const CST *)c.x, layouts, 1);  \
        else BUILTIN((DST *)d.x, (const int *)a.x, (const int *)b.x, (const CST *)c.x, layouts, 0);       \
    }
#define __CM_MMA_F16(M, N, K)                                                                          \
    __CM_MMA(M, N, K, __half, __half, __half, int, int, __hmma_m##M##n##N##k##K##_mma_f16f16)          \
    __CM_MMA(M, N, K, __half, float, __half, float, int, __hmma_m##M##n##N##k##K##_mma_f32f16)         \
    __CM_MMA(M, N, K, __half, __half, float, int, float, __hmma_m##M##n##N##k##K##_mma_f16f32)         \
    __CM_MMA(M, N, K, __half, float, float, float, float, __hmma_m##M##n##N##k##K##_mma_f32f32)
__CM_MMA_F16(16, 16, 16)
__CM_MMA_F16(32, 8, 16)
__CM_MMA_F16(8, 32, 16)
/* bf16 and tf32 wmma have no .satfinite form: satf is ignored for them */
#define __CM_MMA_NOSAT(M, N, K, TIN, BUILTIN)                                                          \
    template <class LA, class LB>                                                                      \
    __device__ inline void mma_sync(fragment<accumulator, M, N, K, float> &d, const fragment<matrix_a, M, N, K, TIN, LA> &a, \
                                    const fragment<matrix_b, M, N, K, TIN, LB> &b,                     \
                                    const fragment<accumulator, M, N, K, float> &c, bool = false) {    \
        BUILTIN(d.x, (const int *)a.x, (const int *)b.x, c.x,                                          \
                cumetal_detail::is_col<LA>::value * 2 + cumetal_detail::is_col<LB>::value, 0);         \
    }
__CM_MMA_NOSAT(16, 16, 16, __nv_bfloat16, __mma_bf16_m16n16k16_mma_f32)
__CM_MMA_NOSAT(16, 16, 8, precision::tf32, __mma_tf32_m16n16k8_mma_f32)
#undef __CM_MMA_NOSAT
__CM_MMA(16, 16, 16, signed char, int, int, int, int, __imma_m16n16k16_mma_s8)
__CM_MMA(16, 16, 16, unsigned char, int, int, int, int, __imma_m16n16k16_mma_u8)
#undef __CM_MMA
#undef __CM_MMA_F16
template <class LA, class LB>
__device__ inline void mma_sync(fragment<accumulator, 8, 8, 4, double> &d, const fragment<matrix_a, 8, 8, 4, double, LA> &a,
                                const fragment<matrix_b, 8, 8, 4, double, LB> &b,
                                const fragment<accumulator, 8, 8, 4, double> &c) {
    __dmma_m8n8k4_mma_f64(d.x, a.x, b.x, c.x, cumetal_detail::is_col<LA>::value * 2 + cumetal_detail::is_col<LB>::value, 0);
}

/* float -> tf32 (round to nearest, ties away: cvt.rna.tf32.f32) */
__device__ inline float __float_to_tf32(float in) {
    unsigned int r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(in));
    return __builtin_bit_cast(float, r);
}
}  // namespace wmma
}  // namespace nvcuda
#endif /* CUMETAL_MMA_H */

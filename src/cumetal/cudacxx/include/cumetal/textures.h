/* CuMetal clean-room CUDA headers: texture and surface object functions (CUDA C++ Programming
 * Guide, "Texture Functions", "Surface Functions"): tex1Dfetch, tex1D, tex2D, tex3D, the *Lod and
 * *Layered forms, surf1D/2D/3D read and write. They are written with the PTX tex/suld/sust
 * instructions nvcc uses, so kernels compile; CuMetal's pipeline defers textures and surfaces to v2
 * (spec §8) and refuses such a kernel at module load with that diagnostic. */
#ifndef CUMETAL_TEXTURES_H
#define CUMETAL_TEXTURES_H
#include "cumetal/qualifiers.h"
#include "vector_types.h"

namespace cumetal_tex {
/* how a texel type is fetched: as four f32, s32 or u32 lanes, of which the first `count` are kept */
template <class T> struct kind;
#define __CM_TEX_KIND(T, K, N, SCALAR)                                                                 \
    template <> struct kind<T> {                                                                       \
        static constexpr int k = K; /* 0 f32, 1 s32, 2 u32 */                                          \
        static constexpr int count = N;                                                                \
        typedef SCALAR scalar;                                                                         \
    };
#define __CM_TEX_KINDS(B, K, SCALAR)                                                                   \
    __CM_TEX_KIND(B##1, K, 1, SCALAR) __CM_TEX_KIND(B##2, K, 2, SCALAR) __CM_TEX_KIND(B##4, K, 4, SCALAR)
__CM_TEX_KIND(float, 0, 1, float)
__CM_TEX_KINDS(float, 0, float)
__CM_TEX_KIND(int, 1, 1, int)
__CM_TEX_KINDS(int, 1, int)
__CM_TEX_KIND(short, 1, 1, short)
__CM_TEX_KINDS(short, 1, short)
__CM_TEX_KIND(char, 1, 1, char)
__CM_TEX_KIND(signed char, 1, 1, signed char)
__CM_TEX_KINDS(char, 1, signed char)
__CM_TEX_KIND(unsigned int, 2, 1, unsigned int)
__CM_TEX_KINDS(uint, 2, unsigned int)
__CM_TEX_KIND(unsigned short, 2, 1, unsigned short)
__CM_TEX_KINDS(ushort, 2, unsigned short)
__CM_TEX_KIND(unsigned char, 2, 1, unsigned char)
__CM_TEX_KINDS(uchar, 2, unsigned char)
#undef __CM_TEX_KIND
#undef __CM_TEX_KINDS

struct texel {
    unsigned int v[4];
};
template <class T> __device__ inline T convert(const texel &t) {
    T r;
    typedef typename kind<T>::scalar S;
    S *out = reinterpret_cast<S *>(&r);
    for (int i = 0; i < kind<T>::count; ++i) {
        if (kind<T>::k == 0) out[i] = (S)__builtin_bit_cast(float, t.v[i]);
        else if (kind<T>::k == 1) out[i] = (S)(int)t.v[i];
        else out[i] = (S)t.v[i];
    }
    return r;
}
#define __CM_TEX_OUT "{%0, %1, %2, %3}"
#define __CM_TEX_REGS(t) "=r"(t.v[0]), "=r"(t.v[1]), "=r"(t.v[2]), "=r"(t.v[3])
/* fetches with float coordinates, one per lane kind */
#define __CM_TEX_FN(NAME, GEOM, COORDS, ...)                                                           \
    template <int K> __device__ inline texel NAME(unsigned long long obj, __VA_ARGS__) {               \
        texel t;                                                                                       \
        if (K == 0)                                                                                    \
            asm volatile("tex." GEOM ".v4.f32.f32 " __CM_TEX_OUT ", [%4, " COORDS "];"                 \
                         : __CM_TEX_REGS(t) : "l"(obj), __CM_TEX_ARGS);                                \
        else if (K == 1)                                                                               \
            asm volatile("tex." GEOM ".v4.s32.f32 " __CM_TEX_OUT ", [%4, " COORDS "];"                 \
                         : __CM_TEX_REGS(t) : "l"(obj), __CM_TEX_ARGS);                                \
        else                                                                                           \
            asm volatile("tex." GEOM ".v4.u32.f32 " __CM_TEX_OUT ", [%4, " COORDS "];"                 \
                         : __CM_TEX_REGS(t) : "l"(obj), __CM_TEX_ARGS);                                \
        return t;                                                                                      \
    }
#define __CM_TEX_ARGS "f"(x)
__CM_TEX_FN(fetch1d, "1d", "{%5}", float x)
#undef __CM_TEX_ARGS
#define __CM_TEX_ARGS "f"(x), "f"(y)
__CM_TEX_FN(fetch2d, "2d", "{%5, %6}", float x, float y)
#undef __CM_TEX_ARGS
#define __CM_TEX_ARGS "f"(x), "f"(y), "f"(z)
__CM_TEX_FN(fetch3d, "3d", "{%5, %6, %7, %7}", float x, float y, float z)
#undef __CM_TEX_ARGS
#undef __CM_TEX_FN
template <int K> __device__ inline texel fetch1d_int(unsigned long long obj, int x) {
    texel t;
    if (K == 0) asm volatile("tex.1d.v4.f32.s32 " __CM_TEX_OUT ", [%4, {%5}];" : __CM_TEX_REGS(t) : "l"(obj), "r"(x));
    else if (K == 1) asm volatile("tex.1d.v4.s32.s32 " __CM_TEX_OUT ", [%4, {%5}];" : __CM_TEX_REGS(t) : "l"(obj), "r"(x));
    else asm volatile("tex.1d.v4.u32.s32 " __CM_TEX_OUT ", [%4, {%5}];" : __CM_TEX_REGS(t) : "l"(obj), "r"(x));
    return t;
}
}  // namespace cumetal_tex

template <class T> __device__ inline T tex1Dfetch(unsigned long long obj, int x) {
    return cumetal_tex::convert<T>(cumetal_tex::fetch1d_int<cumetal_tex::kind<T>::k>(obj, x));
}
template <class T> __device__ inline T tex1D(unsigned long long obj, float x) {
    return cumetal_tex::convert<T>(cumetal_tex::fetch1d<cumetal_tex::kind<T>::k>(obj, x));
}
template <class T> __device__ inline T tex2D(unsigned long long obj, float x, float y) {
    return cumetal_tex::convert<T>(cumetal_tex::fetch2d<cumetal_tex::kind<T>::k>(obj, x, y));
}
template <class T> __device__ inline T tex3D(unsigned long long obj, float x, float y, float z) {
    return cumetal_tex::convert<T>(cumetal_tex::fetch3d<cumetal_tex::kind<T>::k>(obj, x, y, z));
}
/* level-of-detail forms: the level is ignored by the fetch (the pipeline refuses textures anyway) */
template <class T> __device__ inline T tex1DLod(unsigned long long obj, float x, float) { return tex1D<T>(obj, x); }
template <class T> __device__ inline T tex2DLod(unsigned long long obj, float x, float y, float) { return tex2D<T>(obj, x, y); }
template <class T> __device__ inline T tex3DLod(unsigned long long obj, float x, float y, float z, float) {
    return tex3D<T>(obj, x, y, z);
}
template <class T> __device__ inline T tex2DLayered(unsigned long long obj, float x, float y, int) { return tex2D<T>(obj, x, y); }

/* surfaces: 32-bit element reads and writes (suld.b / sust.b with .trap, byte x coordinates) */
template <class T> __device__ inline void surf2Dread(T *out, unsigned long long obj, int x, int y) {
    static_assert(sizeof(T) == 4, "CuMetal: surf2Dread supports 4-byte element types");
    unsigned int v;
    asm volatile("suld.b.2d.b32.trap {%0}, [%1, {%2, %3}];" : "=r"(v) : "l"(obj), "r"(x), "r"(y));
    *out = __builtin_bit_cast(T, v);
}
template <class T> __device__ inline T surf2Dread(unsigned long long obj, int x, int y) {
    T r;
    surf2Dread(&r, obj, x, y);
    return r;
}
template <class T> __device__ inline void surf2Dwrite(T value, unsigned long long obj, int x, int y) {
    static_assert(sizeof(T) == 4, "CuMetal: surf2Dwrite supports 4-byte element types");
    asm volatile("sust.b.2d.b32.trap [%0, {%1, %2}], {%3};" ::"l"(obj), "r"(x), "r"(y),
                 "r"(__builtin_bit_cast(unsigned int, value)) : "memory");
}
template <class T> __device__ inline void surf1Dread(T *out, unsigned long long obj, int x) {
    static_assert(sizeof(T) == 4, "CuMetal: surf1Dread supports 4-byte element types");
    unsigned int v;
    asm volatile("suld.b.1d.b32.trap {%0}, [%1, {%2}];" : "=r"(v) : "l"(obj), "r"(x));
    *out = __builtin_bit_cast(T, v);
}
template <class T> __device__ inline void surf1Dwrite(T value, unsigned long long obj, int x) {
    static_assert(sizeof(T) == 4, "CuMetal: surf1Dwrite supports 4-byte element types");
    asm volatile("sust.b.1d.b32.trap [%0, {%1}], {%2};" ::"l"(obj), "r"(x), "r"(__builtin_bit_cast(unsigned int, value))
                 : "memory");
}
#undef __CM_TEX_OUT
#undef __CM_TEX_REGS
#endif /* CUMETAL_TEXTURES_H */

/* CuMetal clean-room CUDA headers: texture and surface object functions (CUDA C++ Programming
 * Guide, "Texture Functions" and "Surface Functions"): tex1Dfetch, tex1D, tex2D, tex3D,
 * tex1DLayered, tex2DLayered, the Lod/Grad forms (tex.level / tex.grad on mipmapped textures), texCubemap, texCubemapLayered, tex2Dgather, surf1D/2D/3D read and write and their
 * layered forms. Written with the PTX tex/suld/sust instructions; CuMetal lowers them
 * (passes/semantics/texture.py, docs/textures.md). Included by cuda_runtime.h. */
#ifndef CUMETAL_TEXTURES_H
#define CUMETAL_TEXTURES_H
#include "cumetal/qualifiers.h"
#include "vector_types.h"

#if defined(__CUDA__)
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
/* one fetch function per geometry; K picks the result lanes' type */
#define __CM_TEX_FN(NAME, GEOM, CTYPE, COORDS, ARGS, ...)                                              \
    template <int K> __device__ inline texel NAME(unsigned long long obj, __VA_ARGS__) {               \
        texel t;                                                                                       \
        if (K == 0)                                                                                    \
            asm volatile("tex." GEOM ".v4.f32." CTYPE " " __CM_TEX_OUT ", [%4, " COORDS "];"           \
                         : __CM_TEX_REGS(t) : "l"(obj), ARGS);                                         \
        else if (K == 1)                                                                               \
            asm volatile("tex." GEOM ".v4.s32." CTYPE " " __CM_TEX_OUT ", [%4, " COORDS "];"           \
                         : __CM_TEX_REGS(t) : "l"(obj), ARGS);                                         \
        else                                                                                           \
            asm volatile("tex." GEOM ".v4.u32." CTYPE " " __CM_TEX_OUT ", [%4, " COORDS "];"           \
                         : __CM_TEX_REGS(t) : "l"(obj), ARGS);                                         \
        return t;                                                                                      \
    }
#define __CM_A(...) __VA_ARGS__
__CM_TEX_FN(fetch1d_int, "1d", "s32", "{%5}", __CM_A("r"(x)), int x)
__CM_TEX_FN(fetch1d, "1d", "f32", "{%5}", __CM_A("f"(x)), float x)
__CM_TEX_FN(fetch2d, "2d", "f32", "{%5, %6}", __CM_A("f"(x), "f"(y)), float x, float y)
__CM_TEX_FN(fetch3d, "3d", "f32", "{%5, %6, %7, %7}", __CM_A("f"(x), "f"(y), "f"(z)), float x, float y, float z)
__CM_TEX_FN(fetch1dl, "a1d", "f32", "{%5, %6}", __CM_A("r"(layer), "f"(x)), int layer, float x)
__CM_TEX_FN(fetch2dl, "a2d", "f32", "{%5, %6, %7, %7}", __CM_A("r"(layer), "f"(x), "f"(y)), int layer, float x,
            float y)
__CM_TEX_FN(fetchcube, "cube", "f32", "{%5, %6, %7, %7}", __CM_A("f"(x), "f"(y), "f"(z)), float x, float y, float z)
__CM_TEX_FN(fetchcubel, "acube", "f32", "{%5, %6, %7, %8}", __CM_A("r"(layer), "f"(x), "f"(y), "f"(z)), int layer,
            float x, float y, float z)
#undef __CM_TEX_FN
template <int K, int COMP> __device__ inline texel gather2d(unsigned long long obj, float x, float y) {
    texel t;
#define __CM_TLD4(C, D)                                                                                \
    asm volatile("tld4." C ".2d.v4." D ".f32 " __CM_TEX_OUT ", [%4, {%5, %6}];"                        \
                 : __CM_TEX_REGS(t) : "l"(obj), "f"(x), "f"(y))
#define __CM_TLD4_ALL(D)                                                                               \
    if (COMP == 0) __CM_TLD4("r", D);                                                                  \
    else if (COMP == 1) __CM_TLD4("g", D);                                                             \
    else if (COMP == 2) __CM_TLD4("b", D);                                                             \
    else __CM_TLD4("a", D);
    if (K == 0) { __CM_TLD4_ALL("f32") }
    else if (K == 1) { __CM_TLD4_ALL("s32") }
    else { __CM_TLD4_ALL("u32") }
#undef __CM_TLD4_ALL
#undef __CM_TLD4
    return t;
}
}  // namespace cumetal_tex

#define __CM_K(T) cumetal_tex::kind<T>::k
template <class T> __device__ inline T tex1Dfetch(unsigned long long obj, int x) {
    return cumetal_tex::convert<T>(cumetal_tex::fetch1d_int<__CM_K(T)>(obj, x));
}
template <class T> __device__ inline T tex1D(unsigned long long obj, float x) {
    return cumetal_tex::convert<T>(cumetal_tex::fetch1d<__CM_K(T)>(obj, x));
}
template <class T> __device__ inline T tex2D(unsigned long long obj, float x, float y) {
    return cumetal_tex::convert<T>(cumetal_tex::fetch2d<__CM_K(T)>(obj, x, y));
}
template <class T> __device__ inline T tex3D(unsigned long long obj, float x, float y, float z) {
    return cumetal_tex::convert<T>(cumetal_tex::fetch3d<__CM_K(T)>(obj, x, y, z));
}
template <class T> __device__ inline T tex1DLayered(unsigned long long obj, float x, int layer) {
    return cumetal_tex::convert<T>(cumetal_tex::fetch1dl<__CM_K(T)>(obj, layer, x));
}
template <class T> __device__ inline T tex2DLayered(unsigned long long obj, float x, float y, int layer) {
    return cumetal_tex::convert<T>(cumetal_tex::fetch2dl<__CM_K(T)>(obj, layer, x, y));
}
template <class T> __device__ inline T texCubemap(unsigned long long obj, float x, float y, float z) {
    return cumetal_tex::convert<T>(cumetal_tex::fetchcube<__CM_K(T)>(obj, x, y, z));
}
template <class T> __device__ inline T texCubemapLayered(unsigned long long obj, float x, float y, float z, int layer) {
    return cumetal_tex::convert<T>(cumetal_tex::fetchcubel<__CM_K(T)>(obj, layer, x, y, z));
}
template <class T> __device__ inline T texCubemapLod(unsigned long long obj, float x, float y, float z, float) {
    return texCubemap<T>(obj, x, y, z);
}
template <class T> __device__ inline T tex2Dgather(unsigned long long obj, float x, float y, int comp = 0) {
    switch (comp) {
    case 1: return cumetal_tex::convert<T>(cumetal_tex::gather2d<__CM_K(T), 1>(obj, x, y));
    case 2: return cumetal_tex::convert<T>(cumetal_tex::gather2d<__CM_K(T), 2>(obj, x, y));
    case 3: return cumetal_tex::convert<T>(cumetal_tex::gather2d<__CM_K(T), 3>(obj, x, y));
    default: return cumetal_tex::convert<T>(cumetal_tex::gather2d<__CM_K(T), 0>(obj, x, y));
    }
}
/* level-of-detail and gradient forms (tex.level / tex.grad: mipmapped textures) */
namespace cumetal_tex {
#define __CM_TEX_LOD(NAME, GEOM, COORDS, ARGS, ...)                                                     \
    template <int K> __device__ inline texel NAME(unsigned long long obj, __VA_ARGS__) {               \
        texel t;                                                                                       \
        if (K == 0)                                                                                    \
            asm volatile("tex." GEOM ".v4.f32.f32 " __CM_TEX_OUT ", [%4, " COORDS ";"                  \
                         : __CM_TEX_REGS(t) : "l"(obj), ARGS);                                         \
        else if (K == 1)                                                                               \
            asm volatile("tex." GEOM ".v4.s32.f32 " __CM_TEX_OUT ", [%4, " COORDS ";"                  \
                         : __CM_TEX_REGS(t) : "l"(obj), ARGS);                                         \
        else                                                                                           \
            asm volatile("tex." GEOM ".v4.u32.f32 " __CM_TEX_OUT ", [%4, " COORDS ";"                  \
                         : __CM_TEX_REGS(t) : "l"(obj), ARGS);                                         \
        return t;                                                                                      \
    }
__CM_TEX_LOD(lod1d, "level.1d", "{%5}], %6", __CM_A("f"(x), "f"(l)), float x, float l)
__CM_TEX_LOD(lod2d, "level.2d", "{%5, %6}], %7", __CM_A("f"(x), "f"(y), "f"(l)), float x, float y, float l)
__CM_TEX_LOD(lod3d, "level.3d", "{%5, %6, %7, %7}], %8", __CM_A("f"(x), "f"(y), "f"(z), "f"(l)), float x, float y,
             float z, float l)
__CM_TEX_LOD(lod1dl, "level.a1d", "{%5, %6}], %7", __CM_A("r"(layer), "f"(x), "f"(l)), int layer, float x, float l)
__CM_TEX_LOD(lod2dl, "level.a2d", "{%5, %6, %7, %7}], %8", __CM_A("r"(layer), "f"(x), "f"(y), "f"(l)), int layer,
             float x, float y, float l)
__CM_TEX_LOD(grad1d, "grad.1d", "{%5}], {%6}, {%7}", __CM_A("f"(x), "f"(dx), "f"(dy)), float x, float dx, float dy)
__CM_TEX_LOD(grad2d, "grad.2d", "{%5, %6}], {%7, %8}, {%9, %10}",
             __CM_A("f"(x), "f"(y), "f"(dxx), "f"(dxy), "f"(dyx), "f"(dyy)), float x, float y, float dxx, float dxy,
             float dyx, float dyy)
#undef __CM_TEX_LOD
}  // namespace cumetal_tex
#define __CM_K2(T) cumetal_tex::kind<T>::k
template <class T> __device__ inline T tex1DLod(unsigned long long obj, float x, float level) {
    return cumetal_tex::convert<T>(cumetal_tex::lod1d<__CM_K2(T)>(obj, x, level));
}
template <class T> __device__ inline T tex2DLod(unsigned long long obj, float x, float y, float level) {
    return cumetal_tex::convert<T>(cumetal_tex::lod2d<__CM_K2(T)>(obj, x, y, level));
}
template <class T> __device__ inline T tex3DLod(unsigned long long obj, float x, float y, float z, float level) {
    return cumetal_tex::convert<T>(cumetal_tex::lod3d<__CM_K2(T)>(obj, x, y, z, level));
}
template <class T> __device__ inline T tex1DLayeredLod(unsigned long long obj, float x, int layer, float level) {
    return cumetal_tex::convert<T>(cumetal_tex::lod1dl<__CM_K2(T)>(obj, layer, x, level));
}
template <class T> __device__ inline T tex2DLayeredLod(unsigned long long obj, float x, float y, int layer, float level) {
    return cumetal_tex::convert<T>(cumetal_tex::lod2dl<__CM_K2(T)>(obj, layer, x, y, level));
}
template <class T> __device__ inline T tex1DGrad(unsigned long long obj, float x, float dPdx, float dPdy) {
    return cumetal_tex::convert<T>(cumetal_tex::grad1d<__CM_K2(T)>(obj, x, dPdx, dPdy));
}
template <class T> __device__ inline T tex2DGrad(unsigned long long obj, float x, float y, float2 dPdx, float2 dPdy) {
    return cumetal_tex::convert<T>(cumetal_tex::grad2d<__CM_K2(T)>(obj, x, y, dPdx.x, dPdx.y, dPdy.x, dPdy.y));
}
template <class T> __device__ inline T tex3DGrad(unsigned long long obj, float x, float y, float z, float4, float4) {
    return tex3D<T>(obj, x, y, z); /* 3D gradients: level 0 */
}
#undef __CM_K2
/* the forms that return through a pointer (CUDA 11+) */
template <class T> __device__ inline void tex1Dfetch(T *r, unsigned long long obj, int x) { *r = tex1Dfetch<T>(obj, x); }
template <class T> __device__ inline void tex1D(T *r, unsigned long long obj, float x) { *r = tex1D<T>(obj, x); }
template <class T> __device__ inline void tex2D(T *r, unsigned long long obj, float x, float y) {
    *r = tex2D<T>(obj, x, y);
}
template <class T> __device__ inline void tex3D(T *r, unsigned long long obj, float x, float y, float z) {
    *r = tex3D<T>(obj, x, y, z);
}
template <class T> __device__ inline void tex1DLayered(T *r, unsigned long long obj, float x, int layer) {
    *r = tex1DLayered<T>(obj, x, layer);
}
template <class T> __device__ inline void tex2DLayered(T *r, unsigned long long obj, float x, float y, int layer) {
    *r = tex2DLayered<T>(obj, x, y, layer);
}
#undef __CM_K

/* ---- surfaces: byte x coordinates; 1, 2, 4, 8 and 16-byte elements; boundary modes
 * (cudaBoundaryModeZero 0, Clamp 1, Trap 2) */
namespace cumetal_surf {
template <int N> struct words;
template <> struct words<1> { unsigned short v[1]; };
template <> struct words<2> { unsigned short v[1]; };
template <> struct words<4> { unsigned int v[1]; };
template <> struct words<8> { unsigned int v[2]; };
template <> struct words<16> { unsigned int v[4]; };

/* coordinate vectors of each geometry, from the operand names of x, y, z and layer */
#define __CM_V_1d(X, Y, Z, L) "{" X "}"
#define __CM_V_2d(X, Y, Z, L) "{" X ", " Y "}"
#define __CM_V_3d(X, Y, Z, L) "{" X ", " Y ", " Z ", " Z "}"
#define __CM_V_a1d(X, Y, Z, L) "{" L ", " X "}"
#define __CM_V_a2d(X, Y, Z, L) "{" L ", " X ", " Y ", " Y "}"
#define __CM_IN "l"(s), "r"(x), "r"(y), "r"(z), "r"(l)
/* reads: the outputs come first, so the inputs' operand numbers depend on their count */
#define __CM_SULD(G, T, MODE, OUTS, ...)                                                               \
    asm volatile("suld.b." #G T "." MODE " " OUTS ", [%" __CM_S1 ", " __CM_V_##G(__CM_X1, __CM_Y1, __CM_Z1, __CM_L1) "];" \
                 : __VA_ARGS__ : __CM_IN)
#define __CM_SULD2(G, T, MODE, OUTS, ...)                                                              \
    asm volatile("suld.b." #G T "." MODE " " OUTS ", [%" __CM_S2 ", " __CM_V_##G(__CM_X2, __CM_Y2, __CM_Z2, __CM_L2) "];" \
                 : __VA_ARGS__ : __CM_IN)
#define __CM_SULD4(G, T, MODE, OUTS, ...)                                                              \
    asm volatile("suld.b." #G T "." MODE " " OUTS ", [%" __CM_S4 ", " __CM_V_##G(__CM_X4, __CM_Y4, __CM_Z4, __CM_L4) "];" \
                 : __VA_ARGS__ : __CM_IN)
#define __CM_S1 "1"
#define __CM_X1 "%2"
#define __CM_Y1 "%3"
#define __CM_Z1 "%4"
#define __CM_L1 "%5"
#define __CM_S2 "2"
#define __CM_X2 "%3"
#define __CM_Y2 "%4"
#define __CM_Z2 "%5"
#define __CM_L2 "%6"
#define __CM_S4 "4"
#define __CM_X4 "%5"
#define __CM_Y4 "%6"
#define __CM_Z4 "%7"
#define __CM_L4 "%8"
/* writes: no outputs; the values follow the coordinates */
#define __CM_SUST(G, T, MODE, VALS, ...)                                                               \
    asm volatile("sust.b." #G T "." MODE " [%0, " __CM_V_##G("%1", "%2", "%3", "%4") "], " VALS ";"    \
                 ::__CM_IN, __VA_ARGS__ : "memory")
#define __CM_SULD_ALL(G, T, NOUT, OUTS, ...)                                                           \
    switch (mode) {                                                                                    \
    case 0: __CM_SULD##NOUT(G, T, "zero", OUTS, __VA_ARGS__); break;                                   \
    case 1: __CM_SULD##NOUT(G, T, "clamp", OUTS, __VA_ARGS__); break;                                  \
    default: __CM_SULD##NOUT(G, T, "trap", OUTS, __VA_ARGS__); break;                                  \
    }
#define __CM_SULD1 __CM_SULD
#define __CM_SUST_ALL(G, T, VALS, ...)                                                                 \
    switch (mode) {                                                                                    \
    case 0: __CM_SUST(G, T, "zero", VALS, __VA_ARGS__); break;                                         \
    case 1: __CM_SUST(G, T, "clamp", VALS, __VA_ARGS__); break;                                        \
    default: __CM_SUST(G, T, "trap", VALS, __VA_ARGS__); break;                                        \
    }
/* one overload per element size (C++11: no if constexpr), selected by a size tag */
template <int N> struct size_tag {};
#define __CM_SU_GEOM(G)                                                                                \
    __device__ inline words<1> read_##G(size_tag<1>, unsigned long long s, int mode, int x, int y, int z, int l) { \
        words<1> w;                                                                                    \
        __CM_SULD_ALL(G, ".b8", 1, "{%0}", "=h"(w.v[0]))                                               \
        return w;                                                                                      \
    }                                                                                                  \
    __device__ inline words<2> read_##G(size_tag<2>, unsigned long long s, int mode, int x, int y, int z, int l) { \
        words<2> w;                                                                                    \
        __CM_SULD_ALL(G, ".b16", 1, "{%0}", "=h"(w.v[0]))                                              \
        return w;                                                                                      \
    }                                                                                                  \
    __device__ inline words<4> read_##G(size_tag<4>, unsigned long long s, int mode, int x, int y, int z, int l) { \
        words<4> w;                                                                                    \
        __CM_SULD_ALL(G, ".b32", 1, "{%0}", "=r"(w.v[0]))                                              \
        return w;                                                                                      \
    }                                                                                                  \
    __device__ inline words<8> read_##G(size_tag<8>, unsigned long long s, int mode, int x, int y, int z, int l) { \
        words<8> w;                                                                                    \
        __CM_SULD_ALL(G, ".v2.b32", 2, "{%0, %1}", "=r"(w.v[0]), "=r"(w.v[1]))                         \
        return w;                                                                                      \
    }                                                                                                  \
    __device__ inline words<16> read_##G(size_tag<16>, unsigned long long s, int mode, int x, int y, int z, int l) { \
        words<16> w;                                                                                   \
        __CM_SULD_ALL(G, ".v4.b32", 4, "{%0, %1, %2, %3}", "=r"(w.v[0]), "=r"(w.v[1]), "=r"(w.v[2]),   \
                      "=r"(w.v[3]))                                                                    \
        return w;                                                                                      \
    }                                                                                                  \
    __device__ inline void write_##G(unsigned long long s, int mode, const words<1> &w, int x, int y, int z, int l) { \
        __CM_SUST_ALL(G, ".b8", "{%5}", "h"(w.v[0]))                                                   \
    }                                                                                                  \
    __device__ inline void write_##G(unsigned long long s, int mode, const words<2> &w, int x, int y, int z, int l) { \
        __CM_SUST_ALL(G, ".b16", "{%5}", "h"(w.v[0]))                                                  \
    }                                                                                                  \
    __device__ inline void write_##G(unsigned long long s, int mode, const words<4> &w, int x, int y, int z, int l) { \
        __CM_SUST_ALL(G, ".b32", "{%5}", "r"(w.v[0]))                                                  \
    }                                                                                                  \
    __device__ inline void write_##G(unsigned long long s, int mode, const words<8> &w, int x, int y, int z, int l) { \
        __CM_SUST_ALL(G, ".v2.b32", "{%5, %6}", "r"(w.v[0]), "r"(w.v[1]))                              \
    }                                                                                                  \
    __device__ inline void write_##G(unsigned long long s, int mode, const words<16> &w, int x, int y, int z,     \
                                     int l) {                                                          \
        __CM_SUST_ALL(G, ".v4.b32", "{%5, %6, %7, %8}", "r"(w.v[0]), "r"(w.v[1]), "r"(w.v[2]), "r"(w.v[3])) \
    }
__CM_SU_GEOM(1d)
__CM_SU_GEOM(2d)
__CM_SU_GEOM(3d)
__CM_SU_GEOM(a1d)
__CM_SU_GEOM(a2d)
template <class T> struct size_ok {
    static constexpr bool value = sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16;
};
template <class T, class W> __device__ inline T from_words(const W &w) {
    T r;
    __builtin_memcpy(&r, &w, sizeof(T));
    return r;
}
template <class T> __device__ inline words<sizeof(T)> to_words(const T &v) {
    words<sizeof(T)> w{};
    __builtin_memcpy(&w, &v, sizeof(T));
    return w;
}
}  // namespace cumetal_surf

#define __CM_SU_CHECK(T) static_assert(cumetal_surf::size_ok<T>::value, "surface elements are 1, 2, 4, 8 or 16 bytes")
#define __CM_SU_MODE enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap
#define __CM_SU_PAIR(NAME, G, PARAMS, X, Y, Z, L)                                                      \
    template <class T> __device__ inline void NAME##read(T *out, unsigned long long s, PARAMS, __CM_SU_MODE) { \
        __CM_SU_CHECK(T);                                                                              \
        *out = cumetal_surf::from_words<T>(cumetal_surf::read_##G(cumetal_surf::size_tag<sizeof(T)>(), s, (int)mode, X, Y, Z, L));  \
    }                                                                                                  \
    template <class T> __device__ inline T NAME##read(unsigned long long s, PARAMS, __CM_SU_MODE) {    \
        T r;                                                                                           \
        NAME##read(&r, s, X_ARGS_##NAME, mode);                                                        \
        return r;                                                                                      \
    }                                                                                                  \
    template <class T> __device__ inline void NAME##write(T v, unsigned long long s, PARAMS, __CM_SU_MODE) { \
        __CM_SU_CHECK(T);                                                                              \
        cumetal_surf::write_##G(s, (int)mode, cumetal_surf::to_words(v), X, Y, Z, L);       \
    }
#define __CM_P(...) __VA_ARGS__
#define X_ARGS_surf1D x
#define X_ARGS_surf2D x, y
#define X_ARGS_surf3D x, y, z
#define X_ARGS_surf1DLayered x, layer
#define X_ARGS_surf2DLayered x, y, layer
__CM_SU_PAIR(surf1D, 1d, __CM_P(int x), x, 0, 0, 0)
__CM_SU_PAIR(surf2D, 2d, __CM_P(int x, int y), x, y, 0, 0)
__CM_SU_PAIR(surf3D, 3d, __CM_P(int x, int y, int z), x, y, z, 0)
__CM_SU_PAIR(surf1DLayered, a1d, __CM_P(int x, int layer), x, 0, 0, layer)
__CM_SU_PAIR(surf2DLayered, a2d, __CM_P(int x, int y, int layer), x, y, 0, layer)
#undef __CM_SU_PAIR
#undef __CM_P
#endif /* __CUDA__ */
#endif /* CUMETAL_TEXTURES_H */

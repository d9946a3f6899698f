// cumetal_msl_check.h: a declarations-only model of the part of the Metal Shading Language that
// CuMetal's emitted MSL may use, for checking that MSL on Linux with clang as C++14 (MSL's base
// dialect) before a Mac sees it (cumetal.tools.msl_check). Written from Apple's MSL specification;
// nothing here runs. What it makes clang reject, as Apple's compiler does:
//
// * MSL reserved words used as names: `half`, `bfloat`, `vec`, `matrix`, the vector and packed type
//   names CuMetal never uses, and (unless CM_CHECK_ALLOW_DOUBLE) `double`, which Apple GPUs reject,
//   are poisoned (#pragma GCC poison) after this header; metal_stdlib's macros (NAN, INFINITY,
//   assert, ...) are defined as in Metal, so a kernel named after one fails to parse.
// * a pointer given to the wrong address space: `device`, `constant` and `threadgroup` are clang
//   address spaces 1, 2 and 3; `thread` is the default (private) space of locals and parameters.
//   Implicit conversions between them (arguments, assignments, initializations) are errors. clang
//   C++ accepts an explicit C-style cast between spaces (Metal does not), so tools/msl_check.py
//   rewrites each C-style cast to an address-space pointer as a reinterpret_cast, which clang
//   refuses between spaces while it keeps integer -> pointer and same-space casts legal.
// * features of a newer MSL than the one checked: __METAL_VERSION__ (300, 310, 320) decides what is
//   declared; atomic_thread_fence with a thread_scope exists from MSL 3.2 (macOS 15).
//
// The textual changes before compiling (tools/msl_check.py): `[[threadgroup(` becomes
// `[[cm_threadgroup(`, because the address-space macro would otherwise expand inside the attribute,
// and the cast rewrite above.
#ifndef CUMETAL_MSL_CHECK_H
#define CUMETAL_MSL_CHECK_H

#ifndef __METAL_VERSION__
#error "define __METAL_VERSION__ (300, 310 or 320) to the MSL version being checked"
#endif
#define __METAL_MACOS__ 1

#define device __attribute__((address_space(1)))
#define constant __attribute__((address_space(2)))
#define threadgroup __attribute__((address_space(3)))
#define thread
#define kernel __attribute__((annotate("metal_kernel")))

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;  // 64-bit, as MSL's ulong (the checker runs on an LP64 host)
typedef decltype(sizeof(0)) size_t;
typedef long ptrdiff_t;
static_assert(sizeof(ulong) == 8, "the MSL checker needs an LP64 host");

// ---- metal_stdlib's macros (Metal defines these; a kernel of the same name cannot be declared)
#define NAN __builtin_nanf("")
#define INFINITY __builtin_inff()
#define HUGE_VALF __builtin_huge_valf()
#define MAXFLOAT __FLT_MAX__
#define FLT_MAX __FLT_MAX__
#define FLT_MIN __FLT_MIN__
#define FLT_EPSILON __FLT_EPSILON__
#define DBL_MAX __DBL_MAX__
#define DBL_MIN __DBL_MIN__
#define INT_MAX __INT_MAX__
#define INT_MIN (-__INT_MAX__ - 1)
#define UINT_MAX (__INT_MAX__ * 2u + 1u)
#define CHAR_BIT 8
#define M_PI_F 3.14159265358979323846264338327950288f
#define M_E_F 2.71828182845904523536028747135266250f
#define assert(condition) ((void)0)

// ---- the vector types CuMetal uses (uint3 builtins, float2 float-float pairs)
struct uint3 {
  uint x, y, z;
  uint3();
  uint3(uint a, uint b, uint c);
  explicit uint3(uint a);
};
struct float2 {
  float x, y;
  float2();
  float2(float a, float b);
  explicit float2(float a);
};

namespace metal {

template <typename T, typename U> inline T as_type(U u) {
  static_assert(sizeof(T) == sizeof(U), "as_type needs types of equal size");
  return __builtin_bit_cast(T, u);
}

// ---- math (float; double when allowed); integer bit functions
#define CM_CHECK_FLOAT_FUNCTIONS(T)                                                               \
  bool isnan(T); bool isinf(T); bool isfinite(T); bool signbit(T);                              \
  T fabs(T); T fma(T, T, T); T sqrt(T); T rsqrt(T); T rint(T); T trunc(T); T floor(T); T ceil(T); \
  T exp2(T); T log2(T); T sin(T); T cos(T); T tanh(T); T copysign(T, T); T fmin(T, T); T fmax(T, T);
CM_CHECK_FLOAT_FUNCTIONS(float)
#ifdef CM_CHECK_ALLOW_DOUBLE
CM_CHECK_FLOAT_FUNCTIONS(double)
#endif
#undef CM_CHECK_FLOAT_FUNCTIONS
namespace precise {
float divide(float, float);
float sqrt(float);
}  // namespace precise
namespace fast {
float divide(float, float);
float sqrt(float);
float exp2(float);
float log2(float);
float sin(float);
float cos(float);
float rsqrt(float);
float tanh(float);
}  // namespace fast

#define CM_CHECK_INT_FUNCTIONS(T)                                              \
  T clz(T); T ctz(T); T popcount(T); T reverse_bits(T); T abs(T); T min(T, T); T max(T, T); \
  T mulhi(T, T);
CM_CHECK_INT_FUNCTIONS(char)
CM_CHECK_INT_FUNCTIONS(uchar)
CM_CHECK_INT_FUNCTIONS(short)
CM_CHECK_INT_FUNCTIONS(ushort)
CM_CHECK_INT_FUNCTIONS(int)
CM_CHECK_INT_FUNCTIONS(uint)
CM_CHECK_INT_FUNCTIONS(long)
CM_CHECK_INT_FUNCTIONS(ulong)
#undef CM_CHECK_INT_FUNCTIONS
float min(float, float);
float max(float, float);

// ---- synchronization
enum memory_order { memory_order_relaxed };
enum class mem_flags { mem_none = 0, mem_device = 1, mem_threadgroup = 2, mem_texture = 4 };
mem_flags operator|(mem_flags, mem_flags);
void threadgroup_barrier(mem_flags);
void simdgroup_barrier(mem_flags);
#if __METAL_VERSION__ >= 320
// MSL 3.2: fences and the orders and scopes they take
enum thread_scope { thread_scope_thread, thread_scope_simdgroup, thread_scope_threadgroup, thread_scope_device };
const memory_order memory_order_seq_cst = memory_order(5);
const memory_order memory_order_acquire = memory_order(2);
const memory_order memory_order_release = memory_order(3);
const memory_order memory_order_acq_rel = memory_order(4);
void atomic_thread_fence(mem_flags, memory_order, thread_scope);
#endif

// ---- 32-bit atomics: device and threadgroup objects only (an atomic in the thread space is an
// error in Metal: no overload takes one)
struct atomic_uint { uint v; };
struct atomic_int { int v; };
#define CM_CHECK_ATOMICS(SPACE, A, T)                                                               \
  T atomic_load_explicit(volatile SPACE A*, memory_order);                                         \
  void atomic_store_explicit(volatile SPACE A*, T, memory_order);                                  \
  T atomic_exchange_explicit(volatile SPACE A*, T, memory_order);                                  \
  T atomic_fetch_add_explicit(volatile SPACE A*, T, memory_order);                                 \
  T atomic_fetch_sub_explicit(volatile SPACE A*, T, memory_order);                                 \
  T atomic_fetch_and_explicit(volatile SPACE A*, T, memory_order);                                 \
  T atomic_fetch_or_explicit(volatile SPACE A*, T, memory_order);                                  \
  T atomic_fetch_xor_explicit(volatile SPACE A*, T, memory_order);                                 \
  T atomic_fetch_min_explicit(volatile SPACE A*, T, memory_order);                                 \
  T atomic_fetch_max_explicit(volatile SPACE A*, T, memory_order);                                 \
  bool atomic_compare_exchange_weak_explicit(volatile SPACE A*, thread T*, T, memory_order, memory_order);
CM_CHECK_ATOMICS(device, atomic_uint, uint)
CM_CHECK_ATOMICS(device, atomic_int, int)
CM_CHECK_ATOMICS(threadgroup, atomic_uint, uint)
CM_CHECK_ATOMICS(threadgroup, atomic_int, int)
#undef CM_CHECK_ATOMICS

// ---- SIMD-group functions (32-bit and smaller scalars; 64-bit shuffles exist too)
struct simd_vote {
  explicit operator ulong() const;
  bool all() const;
  bool any() const;
};
simd_vote simd_ballot(bool);
simd_vote simd_active_threads_mask();
#define CM_CHECK_SIMD(T)                                                                     \
  T simd_shuffle(T, ushort); T simd_shuffle_xor(T, ushort); T simd_shuffle_up(T, ushort);   \
  T simd_shuffle_down(T, ushort); T simd_broadcast(T, ushort);                               \
  T simd_sum(T); T simd_min(T); T simd_max(T); T simd_and(T); T simd_or(T); T simd_xor(T);
CM_CHECK_SIMD(int)
CM_CHECK_SIMD(uint)
CM_CHECK_SIMD(short)
CM_CHECK_SIMD(ushort)
CM_CHECK_SIMD(char)
CM_CHECK_SIMD(uchar)
CM_CHECK_SIMD(long)
CM_CHECK_SIMD(ulong)
#undef CM_CHECK_SIMD
float simd_shuffle(float, ushort);
float simd_sum(float);
float simd_min(float);
float simd_max(float);
bool simd_shuffle(bool, ushort);

}  // namespace metal

// MSL words CuMetal must never use (as a type or as a name): using one is an error from here on.
#pragma GCC poison half bfloat vec matrix packed_vec simd_float4 quad_shuffle
#pragma GCC poison half2 half3 half4 bfloat2 bfloat3 bfloat4 float3 float4 uint2 uint4 int2 int3 int4
#pragma GCC poison char2 char3 char4 uchar2 uchar3 uchar4 short2 short3 short4 ushort2 ushort3 ushort4
#pragma GCC poison long2 long3 long4 ulong2 ulong3 ulong4 bool2 bool3 bool4 double2 double3 double4
#pragma GCC poison float2x2 float3x3 float4x4 half2x2 half3x3 half4x4
#pragma GCC poison packed_float2 packed_float3 packed_float4 packed_half2 packed_half3 packed_half4
#pragma GCC poison packed_int2 packed_int3 packed_int4 packed_uint2 packed_uint3 packed_uint4
#pragma GCC poison sampler texture1d texture2d texture3d texturecube depth2d imageblock
#pragma GCC poison atomic_bool atomic_ulong atomic_float
#ifndef CM_CHECK_ALLOW_DOUBLE
#pragma GCC poison double
#endif

#endif  // CUMETAL_MSL_CHECK_H

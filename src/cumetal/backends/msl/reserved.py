"""Names an emitted MSL identifier must not take (Metal Shading Language specification, sections on
keywords, types, the standard library and its macros).

Two users: ``emit.kernel_name`` renames a kernel whose PTX name is one of these (the host maps the
name back through ``EmitResult.kernel_names``), and the MSL checker (``tools/msl_check``) poisons them
in the clang front end so that a helper or variable taking one fails on Linux as it would on a Mac.
"""

from __future__ import annotations

import re

# C++14 keywords (MSL is based on C++14) and alternative tokens.
CXX_KEYWORDS = frozenset("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char char16_t
char32_t class compl const constexpr const_cast continue decltype default delete do double dynamic_cast else enum
explicit export extern false float for friend goto if inline int long mutable namespace new noexcept not not_eq
nullptr operator or or_eq private protected public register reinterpret_cast return short signed sizeof static
static_assert static_cast struct switch template this thread_local throw true try typedef typeid typename union
unsigned using virtual void volatile wchar_t while xor xor_eq""".split())

# MSL keywords, qualifiers and builtin type names.
MSL_KEYWORDS = frozenset("""kernel vertex fragment visible stitchable intersection mesh object device constant thread
threadgroup threadgroup_imageblock ray_data object_data half bfloat uchar ushort uint ulong size_t ptrdiff_t
main metal vec matrix packed_vec array array_ref atomic atomic_int atomic_uint atomic_bool atomic_ulong atomic_float
sampler texture1d texture1d_array texture2d texture2d_array texture3d texturecube texturecube_array texture2d_ms
texture2d_ms_array depth2d depth2d_array depthcube depthcube_array depth2d_ms depth2d_ms_array texture_buffer
imageblock visible_function_table intersection_function_table acceleration_structure patch_control_point
command_buffer compute_pipeline_state render_pipeline_state indirect_command_buffer simdgroup_matrix
simdgroup_event complex quad quadgroup simdgroup""".split())

# Macros of metal_stdlib: a kernel called NAN would be macro-expanded.
MSL_MACROS = frozenset("""assert NAN INFINITY HUGE_VALF HUGE_VALH HUGE_VAL MAXFLOAT MAXHALF FLT_MAX FLT_MIN FLT_EPSILON
FLT_DIG FLT_MANT_DIG FLT_MAX_EXP FLT_MIN_EXP FLT_MAX_10_EXP FLT_MIN_10_EXP FLT_RADIX HALF_MAX HALF_MIN HALF_EPSILON
DBL_MAX DBL_MIN DBL_EPSILON CHAR_BIT CHAR_MAX CHAR_MIN SCHAR_MAX SCHAR_MIN UCHAR_MAX SHRT_MAX SHRT_MIN USHRT_MAX
INT_MAX INT_MIN UINT_MAX LONG_MAX LONG_MIN ULONG_MAX FP_ILOGB0 FP_ILOGBNAN M_E_F M_LOG2E_F M_LOG10E_F M_LN2_F
M_LN10_F M_PI_F M_PI_2_F M_PI_4_F M_1_PI_F M_2_PI_F M_2_SQRTPI_F M_SQRT2_F M_SQRT1_2_F M_E_H M_LOG2E_H M_LOG10E_H
M_LN2_H M_LN10_H M_PI_H M_PI_2_H M_PI_4_H M_1_PI_H M_2_PI_H M_2_SQRTPI_H M_SQRT2_H M_SQRT1_2_H
__METAL_VERSION__ __METAL_MACOS__ __METAL_IOS__ __HAVE_NATIVE_DOUBLE__""".split())

# metal_stdlib functions a kernel name could shadow (``using namespace metal``).
MSL_FUNCTIONS = frozenset("""abs absdiff acos acosh addsat all any as_type asin asinh atan atan2 atanh ceil clamp clz
copysign cos cosh cospi cross ctz degrees determinant distance divide dot exp exp10 exp2 extract_bits fabs fdim
floor fma fmax fmax3 fmin fmin3 fmod fract frexp hadd insert_bits isfinite isinf isnan isnormal isordered
isunordered ldexp length length_squared log log10 log2 mad madhi madsat max max3 median3 min min3 mix modf mul24
mulhi nextafter normalize pack popcount pow powr precise fast radians recip reflect refract reverse_bits rhadd
rint rotate round rsqrt saturate select sign signbit sin sincos sinh sinpi smoothstep sqrt step subsat tan tanh
tanpi transpose trunc threadgroup_barrier simdgroup_barrier atomic_thread_fence mem_flags memory_order
thread_scope""".split())

# Vector, packed and matrix type names: (u)char2 ... float4x4, packed_float3, simd_float4 ...
_TYPE_NAME = re.compile(r"(?:packed_|simd_)?(?:bool|u?char|u?short|u?int|u?long|half|bfloat|float|double)"
                        r"(?:[234](?:x[234])?)?")
# Families a kernel name could collide with: SIMD-group/quad-group functions, atomics, intrinsics.
_PREFIXES = ("simd_", "quad_", "atomic_", "__", "metal_", "air.")

MSL_RESERVED = CXX_KEYWORDS | MSL_KEYWORDS | MSL_MACROS | MSL_FUNCTIONS


def is_reserved(name: str) -> bool:
    """Whether ``name`` cannot safely name a function or variable in MSL source."""
    return name in MSL_RESERVED or _TYPE_NAME.fullmatch(name) is not None or name.startswith(_PREFIXES)

"""The device math functions under test: one case per function and precision, with its kernel
shape, CUDA's documented maximum error, the input domain and an mpmath reference.

Shared by tests/math (small samples), benchmarks/math_accuracy.py (large samples) and
scripts/make_math_goldens.py (NVIDIA outputs on the same inputs). Pure numpy + mpmath.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

KERNEL_HEADER = Path(__file__).with_name("kernels") / "math_eval.cuh"


@dataclass(frozen=True)
class Case:
    name: str            # kernel name (k_<name>) and golden key
    shape: str           # K_F_F, K_F_FF, ... (math_eval.cuh)
    dtype: str           # "f4" or "f8": the floating type T
    expr: str            # C expression / statement for the kernel macro
    ulp: float           # CUDA's documented maximum error in ulps (0 = exact)
    ref: str = ""        # mpmath reference name (refs.py); "" = exact check against goldens only
    domain: tuple = ()   # (lo, hi) of the focused input range per input, or () for defaults
    abs_beyond: tuple = ()  # (|x| threshold, absolute error bound) for Bessel-type bounds
    skip_interval: tuple = ()  # inputs in (lo, hi) have no documented bound (lgamma)
    extra: str = ""      # second-output / int-type details for the shape macro
    outputs: tuple = field(default=("T",))  # output dtypes ("T", "i4", "i8")


def _c_type(dtype: str) -> str:
    return "float" if dtype == "f4" else "double"


F1 = {  # name: (float ulp, double ulp, reference, domain)
    "acos": (2, 2, "acos", (-1, 1)), "acosh": (4, 3, "acosh", (1, 1e4)), "asin": (2, 2, "asin", (-1, 1)),
    "asinh": (3, 3, "asinh", (-1e4, 1e4)), "atan": (2, 2, "atan", (-20, 20)), "atanh": (3, 2, "atanh", (-1, 1)),
    "cbrt": (1, 1, "cbrt", (-1e3, 1e3)), "ceil": (0, 0, "ceil", (-1e3, 1e3)), "cos": (2, 2, "cos", (-100, 100)),
    "cosh": (2, 1, "cosh", (-90, 90)), "cospi": (1, 2, "cospi", (-10, 10)), "erf": (2, 2, "erf", (-5, 5)),
    "erfc": (4, 5, "erfc", (-5, 30)), "erfcinv": (4, 6, "erfcinv", (0, 2)), "erfcx": (4, 4, "erfcx", (-9, 100)),
    "erfinv": (2, 5, "erfinv", (-1, 1)), "exp": (2, 1, "exp", (-105, 90)), "exp10": (2, 1, "exp10", (-46, 39)),
    "exp2": (2, 1, "exp2", (-150, 128)), "expm1": (1, 1, "expm1", (-20, 90)), "fabs": (0, 0, "fabs", ()),
    "floor": (0, 0, "floor", (-1e3, 1e3)), "j0": (9, 7, "j0", (0, 60)), "j1": (9, 7, "j1", (-60, 60)),
    "lgamma": (6, 4, "lgamma", (-30, 60)), "log": (1, 1, "log", (0, 10)), "log10": (2, 1, "log10", (0, 10)),
    "log1p": (1, 1, "log1p", (-1, 10)), "log2": (1, 1, "log2", (0, 10)), "logb": (0, 0, "logb", ()),
    "nearbyint": (0, 0, "rint", (-1e3, 1e3)), "normcdf": (5, 5, "normcdf", (-15, 10)),
    "normcdfinv": (5, 8, "normcdfinv", (0, 1)), "rcbrt": (1, 1, "rcbrt", (-1e3, 1e3)),
    "rint": (0, 0, "rint", (-1e3, 1e3)), "round": (0, 0, "round", (-1e3, 1e3)), "rsqrt": (2, 1, "rsqrt", (0, 1e3)),
    "sin": (2, 2, "sin", (-100, 100)), "sinh": (3, 2, "sinh", (-90, 90)), "sinpi": (1, 2, "sinpi", (-10, 10)),
    "sqrt": (0, 0, "sqrt", (0, 1e3)), "tan": (4, 2, "tan", (-100, 100)), "tanh": (2, 1, "tanh", (-10, 10)),
    "tgamma": (5, 10, "tgamma", (-40, 40)), "trunc": (0, 0, "trunc", (-1e3, 1e3)), "y0": (9, 7, "y0", (0, 60)),
    "y1": (9, 7, "y1", (0, 60)), "cyl_bessel_i0": (6, 6, "i0", (-90, 90)), "cyl_bessel_i1": (6, 6, "i1", (-90, 90)),
}
F2 = {
    "atan2": (3, 2, "atan2", (-10, 10)), "copysign": (0, 0, "copysign", ()), "fdim": (0, 0, "fdim", ()),
    "fmax": (0, 0, "fmax", ()), "fmin": (0, 0, "fmin", ()), "fmod": (0, 0, "fmod", (-100, 100)),
    "hypot": (3, 2, "hypot", (-1e3, 1e3)), "nextafter": (0, 0, "nextafter", ()), "pow": (4, 2, "pow", (0, 10)),
    "remainder": (0, 0, "remainder", (-100, 100)), "rhypot": (2, 1, "rhypot", (-1e3, 1e3)),
}
F3 = {"fma": (0, 0, "fma", ()), "norm3d": (2, 2, "norm3d", (-1e3, 1e3)), "rnorm3d": (2, 1, "rnorm3d", (-1e3, 1e3))}
F4 = {"norm4d": (2, 2, "norm4d", (-1e3, 1e3)), "rnorm4d": (2, 1, "rnorm4d", (-1e3, 1e3))}
BESSEL_ABS = {"f4": (8.0, 2.2e-6), "f8": (8.0, 5e-12)}
LGAMMA_HOLE = {"f4": (-10.001, -2.264), "f8": (-11.0001, -2.2637)}
FAST = {  # CUDA intrinsics: (ulp, ref); bounds are input-dependent, see benchmarks docs
    "__sinf": ("sin", (-3.1416, 3.1416)), "__cosf": ("cos", (-3.1416, 3.1416)), "__tanf": ("tan", (-1.5, 1.5)),
    "__expf": ("exp", (-80, 80)), "__exp10f": ("exp10", (-30, 30)), "__logf": ("log", (0, 100)),
    "__log2f": ("log2", (0, 100)), "__log10f": ("log10", (0, 100)), "__fdividef": ("div", (-100, 100)),
    "__saturatef": ("saturate", (-2, 2)),
}


def all_cases() -> list[Case]:
    cases: list[Case] = []
    for dtype, sfx in (("f4", "f"), ("f8", "")):
        t = _c_type(dtype)
        col = 0 if dtype == "f4" else 1
        for n, spec in F1.items():
            cname = n + (sfx if not n.startswith("cyl_bessel") else sfx)
            extra = {}
            if n in ("j0", "j1", "y0", "y1"):
                extra["abs_beyond"] = BESSEL_ABS[dtype]
            if n == "lgamma":
                extra["skip_interval"] = LGAMMA_HOLE[dtype]
            cases.append(Case(cname, "K_F_F", dtype, f"{cname}(a)", spec[col], spec[2], (spec[3],) if spec[3] else (), **extra))
        for n, spec in F2.items():
            cname = n + sfx
            cases.append(Case(cname, "K_F_FF", dtype, f"{cname}(a, b)", spec[col], spec[2], (spec[3],) * 2 if spec[3] else ()))
        for n, spec in F3.items():
            cname = n + sfx
            cases.append(Case(cname, "K_F_FFF", dtype, f"{cname}(a, b, c)", spec[col], spec[2], (spec[3],) * 3 if spec[3] else ()))
        for n, spec in F4.items():
            cname = n + sfx
            cases.append(Case(cname, "K_F_FFFF", dtype, f"{cname}(a, b, c, d)", spec[col], spec[2], (spec[3],) * 4 if spec[3] else ()))
        ulp_sc = 2 if dtype == "f4" else 2
        cases += [
            Case(f"sincos{sfx}_s", "K_FF_F", dtype, f"{t} c_; sincos{sfx}(a, r, &c_)", ulp_sc, "sin", ((-100, 100),), extra=t),
            Case(f"sincos{sfx}_c", "K_FF_F", dtype, f"{t} s_; sincos{sfx}(a, &s_, r)", ulp_sc, "cos", ((-100, 100),), extra=t),
            Case(f"sincospi{sfx}_s", "K_FF_F", dtype, f"{t} c_; sincospi{sfx}(a, r, &c_)", 1 if dtype == "f4" else 2, "sinpi", ((-10, 10),), extra=t),
            Case(f"sincospi{sfx}_c", "K_FF_F", dtype, f"{t} s_; sincospi{sfx}(a, &s_, r)", 1 if dtype == "f4" else 2, "cospi", ((-10, 10),), extra=t),
            Case(f"frexp{sfx}", "K_FF_F", dtype, f"*r = frexp{sfx}(a, r2)", 0, "frexp", (), extra="int", outputs=("T", "i4")),
            Case(f"modf{sfx}", "K_FF_F", dtype, f"*r = modf{sfx}(a, r2)", 0, "modf", ((-1e3, 1e3),), extra=t, outputs=("T", "T")),
            Case(f"remquo{sfx}", "K_FF_FF", dtype, f"*r = remquo{sfx}(a, b, r2)", 0, "remainder", ((-100, 100),) * 2, extra="int", outputs=("T", "i4")),
            Case(f"ldexp{sfx}", "K_F_FI", dtype, f"ldexp{sfx}(a, b)", 0, "ldexp", (), extra="int"),
            Case(f"scalbn{sfx}", "K_F_FI", dtype, f"scalbn{sfx}(a, b)", 0, "ldexp", (), extra="int"),
            Case(f"jn{sfx}", "K_F_IF", dtype, f"jn{sfx}(a, b)", 0, "jn", ((0, 10), (0, 40))),
            Case(f"yn{sfx}", "K_F_IF", dtype, f"yn{sfx}(a, b)", 0, "yn", ((0, 10), (0, 40))),
            Case(f"ilogb{sfx}", "K_R_F", dtype, f"ilogb{sfx}(a)", 0, "ilogb", (), extra="int", outputs=("i4",)),
            Case(f"lrint{sfx}", "K_R_F", dtype, f"lrint{sfx}(a)", 0, "lrint", ((-1e3, 1e3),), extra="long long", outputs=("i8",)),
            Case(f"llrint{sfx}", "K_R_F", dtype, f"llrint{sfx}(a)", 0, "lrint", ((-1e3, 1e3),), extra="long long", outputs=("i8",)),
            Case(f"lround{sfx}", "K_R_F", dtype, f"lround{sfx}(a)", 0, "lround", ((-1e3, 1e3),), extra="long long", outputs=("i8",)),
            Case(f"llround{sfx}", "K_R_F", dtype, f"llround{sfx}(a)", 0, "lround", ((-1e3, 1e3),), extra="long long", outputs=("i8",)),
            Case(f"isnan_{dtype}", "K_R_F", dtype, "isnan(a)", 0, "isnan", (), extra="int", outputs=("i4",)),
            Case(f"isinf_{dtype}", "K_R_F", dtype, "isinf(a)", 0, "isinf", (), extra="int", outputs=("i4",)),
            Case(f"isfinite_{dtype}", "K_R_F", dtype, "isfinite(a)", 0, "isfinite", (), extra="int", outputs=("i4",)),
            Case(f"signbit_{dtype}", "K_R_F", dtype, "signbit(a)", 0, "signbit", (), extra="int", outputs=("i4",)),
            Case(f"norm{sfx}", "K_F_FFFF", dtype, f"[&]{{ {t} v_[4] = {{a, b, c, d}}; return norm{sfx}(4, v_); }}()", 4 if dtype == "f4" else 2, "norm4d", ((-1e3, 1e3),) * 4),
            Case(f"rnorm{sfx}", "K_F_FFFF", dtype, f"[&]{{ {t} v_[4] = {{a, b, c, d}}; return rnorm{sfx}(4, v_); }}()", 4 if dtype == "f4" else 2, "rnorm4d", ((-1e3, 1e3),) * 4),
        ]
    cases.append(Case("fdividef", "K_F_FF", "f4", "fdividef(a, b)", 2, "div", ((-100, 100),) * 2))
    for name, (ref, dom) in FAST.items():
        shape = "K_F_FF" if name == "__fdividef" else "K_F_F"
        expr = f"{name}(a, b)" if shape == "K_F_FF" else f"{name}(a)"
        cases.append(Case(name, shape, "f4", expr, -1, ref, (dom,) * (2 if shape == "K_F_FF" else 1)))
    for rnd in ("rn", "rz", "rd", "ru"):
        for op in ("add", "sub", "mul", "div"):
            cases.append(Case(f"__f{op}_{rnd}", "K_F_FF", "f4", f"__f{op}_{rnd}(a, b)", 0, ""))
            cases.append(Case(f"__d{op}_{rnd}", "K_F_FF", "f8", f"__d{op}_{rnd}(a, b)", 0, ""))
        cases.append(Case(f"__fmaf_{rnd}", "K_F_FFF", "f4", f"__fmaf_{rnd}(a, b, c)", 0, ""))
        cases.append(Case(f"__fma_{rnd}", "K_F_FFF", "f8", f"__fma_{rnd}(a, b, c)", 0, ""))
        cases.append(Case(f"__frcp_{rnd}", "K_F_F", "f4", f"__frcp_{rnd}(a)", 0, ""))
        cases.append(Case(f"__drcp_{rnd}", "K_F_F", "f8", f"__drcp_{rnd}(a)", 0, ""))
        cases.append(Case(f"__fsqrt_{rnd}", "K_F_F", "f4", f"__fsqrt_{rnd}(a)", 0, ""))
        cases.append(Case(f"__dsqrt_{rnd}", "K_F_F", "f8", f"__dsqrt_{rnd}(a)", 0, ""))
    return cases


def n_inputs(case: Case) -> int:
    return {"K_F_F": 1, "K_R_F": 1, "K_FF_F": 1, "K_F_FF": 2, "K_F_FI": 2, "K_F_IF": 2, "K_FF_FF": 2,
            "K_F_FFF": 3, "K_F_FFFF": 4}[case.shape]


def kernel_line(case: Case) -> str:
    t = _c_type(case.dtype)
    if case.shape in ("K_F_F", "K_F_FF", "K_F_FFF", "K_F_FFFF", "K_F_IF"):
        return f"{case.shape}({_ident(case.name)}, {t}, ({case.expr}))"
    if case.shape == "K_F_FI":
        return f"K_F_FI({_ident(case.name)}, {t}, {case.extra}, ({case.expr}))"
    if case.shape == "K_R_F":
        return f"K_R_F({_ident(case.name)}, {t}, {case.extra}, ({case.expr}))"
    return f"{case.shape}({_ident(case.name)}, {t}, {case.extra}, {case.expr})"


def _ident(name: str) -> str:
    return name.replace(".", "_")


def kernel_source(cases: list[Case]) -> str:
    """The CUDA C++ test program: math_eval.cuh's macros plus one kernel per case."""
    return KERNEL_HEADER.read_text() + "\n" + "\n".join(kernel_line(c) for c in cases) + "\n"


# ---------------------------------------------------------------------------------------------
# inputs

def _specials(dtype: str) -> np.ndarray:
    ft = np.dtype(dtype)
    fi = np.finfo(ft)
    v = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, 0.25, 1.5, -1.5,
         float(fi.tiny), -float(fi.tiny), float(fi.smallest_subnormal), -float(fi.smallest_subnormal),
         float(fi.max), -float(fi.max), float(fi.eps), np.pi, -np.pi, np.pi / 2, -np.pi / 2, np.pi / 4, 10.0, -10.0,
         100.0, 1e-10, -1e-10, 1e10, -1e10, 0.1, -0.1, 0.75, 1.25, 4.0, 8.0, -8.0, 88.7, -88.7, 709.7, -709.7,
         0.999, -0.999, 1.001, 2.5, -2.5, 1e-30, 1e30, 65504.0, 1e5, 1e6, 1e7, 2.0 ** 24, 2.0 ** 23 + 1, 2.0 ** 53]
    return np.array(v, dtype=np.float64).astype(ft)


def make_inputs(case: Case, n: int, seed: int = 1234) -> list[np.ndarray]:
    """Deterministic inputs: specials first, then random bit patterns, log-uniform magnitudes and
    the function's focused range; integer operands where the kernel takes them."""
    rng = np.random.default_rng([seed, sum(map(ord, case.name)) * 131 + len(case.name)])
    ft = np.dtype(case.dtype)
    k = n_inputs(case)
    out = []
    for idx in range(k):
        if (case.shape == "K_F_FI" and idx == 1) or (case.shape == "K_F_IF" and idx == 0):
            if case.shape == "K_F_IF":
                ints = rng.integers(0, 12, n).astype(np.int32)
            else:
                ints = rng.integers(-300 if ft == np.float32 else -2200, 300 if ft == np.float32 else 2200, n).astype(np.int32)
            out.append(ints)
            continue
        sp = _specials(case.dtype)
        if k > 1:
            sp = rng.permutation(sp) if idx else sp
        ibits = np.uint32 if ft == np.float32 else np.uint64
        raw = rng.integers(0, np.iinfo(ibits).max, n, dtype=ibits, endpoint=True).view(ft)
        mag = (rng.choice([-1.0, 1.0], n) * np.exp2(rng.uniform(-40 if ft == np.float32 else -100,
                                                                  40 if ft == np.float32 else 100, n))).astype(ft)
        if case.domain and idx < len(case.domain):
            lo, hi = case.domain[idx]
            foc = rng.uniform(lo, hi, n).astype(ft)
        else:
            foc = rng.uniform(-10, 10, n).astype(ft)
        sel = rng.uniform(0, 1, n)
        vals = np.where(sel < 0.15, raw, np.where(sel < 0.35, mag, foc)).astype(ft)
        vals[: len(sp)] = sp[: n]
        out.append(vals)
    if case.shape == "K_F_IF":
        out[1] = np.abs(out[1])
    return out


def output_dtypes(case: Case) -> list[np.dtype]:
    return [np.dtype(case.dtype) if o == "T" else np.dtype(o) for o in case.outputs]

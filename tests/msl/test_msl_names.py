"""Distinct PTX names stay distinct MSL names (issue 10).

PTX identifiers may contain ``$`` and ``%``, which MSL names cannot: the emitter replaces them and
adds a hash of the PTX name. That alone is not injective — a PTX name can spell the escaped result
literally (the function ``f_1_2fdf6c97`` is what ``f$1`` becomes), and the kernel ``cmk$x`` and the
kernel ``cmk_x_7c017360`` both became ``cmk_cmk_x_7c017360`` — so the module's names now go through
one table that checks uniqueness. Each kernel and function below writes its own value, run under
msl-sim, so a collision shows as a g++ redefinition error or a wrong value.
"""

from __future__ import annotations

import numpy as np
from msl_testing import HEADER, compile_module, launch

from cumetal.backends.msl import emit_module
from cumetal.backends.msl.emit import fn_name, kernel_name
from cumetal.backends.msl.values import var_name
from cumetal.ir import nodes as N
from cumetal.passes import compile_ptx
from cumetal.tools.msl_check import check_msl

PTX = r"""
.func (.reg .b32 %out) f$1(.reg .b32 %x) { add.u32 %out, %x, 1; ret; }
.func (.reg .b32 %out) f_1(.reg .b32 %x) { add.u32 %out, %x, 2; ret; }
.func (.reg .b32 %out) f_1_2fdf6c97(.reg .b32 %x) { add.u32 %out, %x, 3; ret; }
.visible .entry cmk$x(.param .u64 p)
{
  .reg .b32 %a, $a, %a_1, $a_1;
  .reg .b64 %rd;
  ld.param.u64 %rd, [p];
  mov.u32 %a, 10; mov.u32 $a, 20; mov.u32 %a_1, 30; mov.u32 $a_1, 40;
  call (%a), f$1, (%a);
  call ($a), f_1, ($a);
  call (%a_1), f_1_2fdf6c97, (%a_1);
  st.global.u32 [%rd], %a; st.global.u32 [%rd+4], $a; st.global.u32 [%rd+8], %a_1; st.global.u32 [%rd+12], $a_1;
  ret;
}
.visible .entry cmk_x_7c017360(.param .u64 p)
{
  .reg .b64 %rd;
  ld.param.u64 %rd, [p];
  st.global.u32 [%rd], 7;
  ret;
}
"""


def test_the_crafted_names_collide_without_the_table():
    # the premise of the test: the per-name functions alone give these pairs one spelling
    assert fn_name("f$1") == fn_name("f_1_2fdf6c97")
    assert kernel_name("cmk$x") == kernel_name("cmk_x_7c017360")


def test_colliding_names_run_as_distinct_kernels_and_functions():
    prog = compile_module(PTX)
    names = prog.emitted.kernel_names
    assert len(set(names.values())) == 2 and all(n.replace("_", "a").isalnum() for n in names.values())
    out = np.zeros(4, np.uint32)
    launch(prog, "cmk$x", 1, 1, out)
    assert out.tolist() == [11, 22, 33, 40]  # f$1, f_1, f_1_2fdf6c97 each called; four registers kept apart
    out2 = np.zeros(4, np.uint32)
    launch(prog, "cmk_x_7c017360", 1, 1, out2)
    assert out2.tolist() == [7, 0, 0, 0]


def test_emitted_function_names_are_unique_and_valid_msl():
    source = emit_module(compile_ptx(HEADER + PTX, "names.ptx")).source
    defined = [ln.split("(")[0].split()[-1] for ln in source.splitlines()
               if (ln.startswith("void cmf_") and ln.endswith("{")) or ln.startswith("kernel void ")]
    assert len(defined) == 5 == len(set(defined)), defined
    assert check_msl(source) == ""  # and Apple's compiler (its model, clang + our MSL header) accepts them


def test_register_names_avoid_macros_and_emitter_names():
    # `%`-less registers could spell a metal_stdlib macro or a cm_* name once the id is appended
    assert var_name(N.Var(2, "f32", "M_PI")) != "M_PI_2"
    assert var_name(N.Var(3, "i32", "cmf_f")) != "cmf_f_3"
    assert var_name(N.Var(3, "i32", "r")) == "r_3" and var_name(N.Var(4, "i32", "%r")) == "_r_4"

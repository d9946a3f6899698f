"""workitem.value_types names values as LLVM prints them without printing each instruction (that was
quadratic); checked against LLVM's own printing of the function, line by line."""

from __future__ import annotations

import re

import pytest

from cumetal.backends.air.sim import workitem

llvm = pytest.importorskip("llvmlite.binding")

MODULE = r"""
define i32 @k(i32 %a, i32, ptr %p, i64) {
  %3 = add i32 %a, %0
  %x.y = mul i32 %3, 3
  %"0weird name" = sub i32 %x.y, %a
  %"$ok.name-1" = add i32 %"0weird name", 2
  br label %4
4:
  %5 = phi i32 [ %"$ok.name-1", %2 ], [ %6, %4 ]
  store i32 %5, ptr %p
  %6 = add i32 %5, 1
  %c = icmp slt i32 %6, 10
  br i1 %c, label %4, label %done
done:
  %7 = zext i32 %6 to i64
  %8 = add i64 %7, %1
  %9 = trunc i64 %8 to i32
  %vec = insertelement <2 x float> undef, float 1.0, i32 0
  ret i32 %9
}
"""


def _printed_names(text: str, kernel: str) -> dict[str, str]:
    """The definitions as LLVM prints the function (the slow, certain way)."""
    fn = llvm.parse_assembly(text, context=llvm.create_context()).get_function(kernel)
    out = {}
    for block in fn.blocks:
        for ins in block.instructions:
            d = re.match(r'^\s*%("[^"]+"|[\w.$-]+) = ', str(ins))
            if d:
                out[d.group(1)] = str(ins.type)
    return out


def test_value_types_match_llvms_printing():
    got = workitem.value_types(MODULE, "k")
    want = _printed_names(MODULE, "k")
    assert got == want
    assert got['"0weird name"'] == "i32" and got["vec"] == "<2 x float>" and got["8"] == "i64" and got['"$ok.name-1"'] == "i32"

"""Malformed IR is refused with a message naming the problem, before any bytes are written."""

from __future__ import annotations

import pytest

from cumetal.backends.air.bitcode import (
    FLOAT,
    I32,
    I64,
    VOID,
    IRBuilder,
    Module,
    const_int,
    fn_type,
    int_attr,
    md_tuple,
    ptr,
    struct,
    to_llvm_text,
    write_bitcode,
)


def kernel(m: Module, name: str = "k"):
    fn = m.add_function(name, fn_type(VOID, [ptr(FLOAT, 1), I32]), arg_names=["p", "i"])
    return fn, IRBuilder(fn.append_block("entry"))


def test_typed_pointer_mismatch_on_load_and_store():
    _, b = kernel(Module())
    p = b.block.parent.args[0]
    with pytest.raises(TypeError, match="typed pointers must agree"):
        b.load(I32, p)
    with pytest.raises(TypeError, match="typed pointers must agree"):
        b.store(const_int(I32, 1), p)


def test_gep_source_type_must_match_and_struct_indices_be_constant():
    _, b = kernel(Module())
    p, i = b.block.parent.args
    with pytest.raises(TypeError, match="does not match base"):
        b.gep(I32, p, [0])
    s = struct([I32, FLOAT])
    sp = b.alloca(s)
    with pytest.raises(TypeError, match="struct getelementptr indices must be i32 constants"):
        b.gep(s, sp, [0, i])


def test_operand_type_errors():
    _, b = kernel(Module())
    p, i = b.block.parent.args
    with pytest.raises(TypeError, match="operand types differ"):
        b.add(i, const_int(I64, 1))
    with pytest.raises(TypeError, match="needs integer operands"):
        b.add(b.load(FLOAT, p), b.load(FLOAT, p))
    with pytest.raises(TypeError, match="invalid zext"):
        b.zext(i, I32)
    with pytest.raises(ValueError, match="not allowed on udiv"):
        b.udiv(i, i, "nsw")
    with pytest.raises(ValueError, match="unknown icmp predicate"):
        b.icmp("lt", i, i)


def test_call_signature_is_checked():
    m = Module()
    f = m.declare("air.fabs.f32", fn_type(FLOAT, [FLOAT]))
    _, b = kernel(m)
    with pytest.raises(TypeError, match=r"call argument 0: i32 where float expected"):
        b.call(f, [b.block.parent.args[1]])
    with pytest.raises(TypeError, match="already exists with type"):
        m.declare("air.fabs.f32", fn_type(FLOAT, [FLOAT, FLOAT]))


def test_module_level_errors():
    m = Module()
    kernel(m)
    with pytest.raises(ValueError, match="symbol @k already defined"):
        m.add_function("k", fn_type(VOID, []))
    with pytest.raises(ValueError, match="needs an initializer"):
        m.add_global("tg", FLOAT, 3, linkage="internal")
        write_bitcode(m)


def test_missing_terminator_and_code_after_terminator():
    m = Module()
    fn, b = kernel(m)
    with pytest.raises(ValueError, match="has no terminator"):
        write_bitcode(m)
    b.ret_void()
    with pytest.raises(ValueError, match="already ends in a terminator"):
        b.ret_void()


def test_value_of_another_function_is_rejected():
    m = Module()
    _, b1 = kernel(m, "a")
    _, b2 = kernel(m, "b")
    stray = b1.add(b1.block.parent.args[1], const_int(I32, 1))
    b1.ret_void()
    b2.add(stray, stray)
    b2.ret_void()
    with pytest.raises(ValueError, match="not defined in this module/function"):
        write_bitcode(m)


def test_bad_names_attributes_and_metadata():
    with pytest.raises(ValueError, match="all digits"):
        Module().add_function("k", fn_type(VOID, [I32]), arg_names=["7"])
    with pytest.raises(ValueError, match="unknown int attribute 'bogus'"):
        int_attr("bogus", 4)
    with pytest.raises(ValueError, match="alignment 3 is not a power of two"):
        Module().add_global("g", I32, align=3)
    _, b = kernel(Module())
    with pytest.raises(TypeError, match="only constants and globals"):
        md_tuple(b.block.parent.args[0])


def test_ret_type_is_checked():
    m = Module()
    fn = m.add_function("f", fn_type(I32, []))
    b = IRBuilder(fn.append_block())
    with pytest.raises(TypeError, match="ret void in @f returning i32"):
        b.ret_void()
    b.ret(const_int(I32, 0))
    assert "ret i32 0" in to_llvm_text(m)

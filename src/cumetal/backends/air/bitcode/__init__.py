"""A small LLVM IR object model and an LLVM-14 (typed-pointer) bitcode writer, in pure Python.

Apple AIR is LLVM-14-era bitcode with typed pointers; llvmlite (LLVM 20+) can only write opaque
pointers, so CuMetal writes the bitcode itself.  See docs/bitcode-writer.md.

    m = Module("k", triple="air64-apple-macosx14.0.0", datalayout=AIR_DATALAYOUT)
    fn = m.add_function("k", fn_type(VOID, [ptr(FLOAT, 1), I32]), arg_names=["out", "id"])
    b = IRBuilder(fn.append_block("entry"))
    ...
    raw = write_bitcode(m)      # bytes starting with b"BC\\xc0\\xde" (no Apple wrapper)
    text = to_llvm_text(m)      # LLVM 14 assembly
"""

from .attributes import Attribute, attrs, enum_attr, int_attr, string_attr, type_attr
from .builder import IRBuilder
from .instructions import Instruction, Phi, Switch
from .metadata import SELF, DistinctMDNode, MDNode, MDString, Metadata, ValueAsMetadata, md, md_tuple
from .module import AIR_DATALAYOUT, Module
from .printer import to_llvm_text
from .types import (
    BFLOAT,
    DOUBLE,
    FLOAT,
    HALF,
    I1,
    I8,
    I16,
    I32,
    I64,
    LABEL,
    METADATA,
    VOID,
    ArrayType,
    FloatType,
    FunctionType,
    IntType,
    NamedStructType,
    PointerType,
    StructType,
    Type,
    VectorType,
    array,
    fn_type,
    ptr,
    struct,
    vector,
)
from .values import (
    Argument,
    BasicBlock,
    Constant,
    ConstantAggregate,
    ConstantExpr,
    ConstantFP,
    ConstantInt,
    ConstantNull,
    ConstantString,
    Function,
    GlobalVariable,
    Poison,
    Undef,
    Value,
    const_addrspacecast,
    const_array,
    const_binop,
    const_bitcast,
    const_cast,
    const_float,
    const_float_bits,
    const_gep,
    const_int,
    const_string,
    const_struct,
    const_vector,
    null,
    poison,
    undef,
    zero,
)
from .writer import write_bitcode

__all__ = [
    "AIR_DATALAYOUT", "Argument", "ArrayType", "Attribute", "BFLOAT", "BasicBlock", "Constant",
    "ConstantAggregate", "ConstantExpr", "ConstantFP", "ConstantInt", "ConstantNull", "ConstantString",
    "DOUBLE", "DistinctMDNode", "SELF", "FLOAT", "FloatType", "Function", "FunctionType", "GlobalVariable", "HALF", "I1", "I16",
    "I32", "I64", "I8", "IRBuilder", "Instruction", "IntType", "LABEL", "METADATA", "MDNode", "MDString",
    "Metadata", "Module", "NamedStructType", "Phi", "PointerType", "Poison", "StructType", "Switch", "Type",
    "Undef", "VOID", "Value", "ValueAsMetadata", "VectorType", "array", "attrs", "const_addrspacecast",
    "const_array", "const_binop", "const_bitcast", "const_cast", "const_float", "const_float_bits",
    "const_gep", "const_int", "const_string", "const_struct", "const_vector", "enum_attr", "fn_type",
    "int_attr", "md", "md_tuple", "null", "poison", "ptr", "string_attr", "struct", "to_llvm_text",
    "type_attr", "undef", "vector", "write_bitcode", "zero",
]

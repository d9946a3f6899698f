"""Rebuild a real Apple-compiled AIR module through our API; llvm-dis-14 must print the same text.

The module is ``init_reduce_minint8`` from Apple's mlx.metallib (PyPI ``mlx-metal`` 0.32.4, fetched
by scripts/fetch_apple_metallib.py; the test skips if it cannot be had). It exercises what a real
kernel needs: unnamed values, ``weak_odr``/``local_unnamed_addr``, Apple's kernel attributes, the
``!air.kernel`` schema, TBAA and distinct self-referential alias-scope nodes, an appending global.
"""

from __future__ import annotations

import re

import pytest

from cumetal.backends.air.bitcode import (
    AIR_DATALAYOUT,
    I8,
    I32,
    I64,
    SELF,
    VOID,
    DistinctMDNode,
    IRBuilder,
    Module,
    array,
    attrs,
    const_array,
    const_int,
    fn_type,
    md_tuple,
    oracle,
    ptr,
    string_attr,
    struct,
    vector,
    write_bitcode,
    zero,
)

pytestmark = pytest.mark.skipif(not oracle.available(), reason="llvm-14 tools not installed")
KERNEL = "init_reduce_minint8"


def i32(v: int):
    return const_int(I32, v)


def rebuild_init_reduce_minint8() -> Module:
    m = Module(KERNEL, triple="air64_v26-apple-macosx14.0.0", datalayout=AIR_DATALAYOUT)
    ctor = struct([I32, ptr(fn_type(VOID, [])), ptr(I8)])
    m.add_global("llvm.global_ctors", array(ctor, 0), linkage="appending", initializer=zero(array(ctor, 0)))
    uint2 = vector(I32, 2)
    fn = m.add_function(
        KERNEL, fn_type(VOID, [ptr(I8, 1), uint2, uint2]), linkage="weak_odr", unnamed_addr="local_unnamed_addr",
        attributes=attrs("mustprogress", "nounwind", string_attr("frame-pointer", "all"),
                         string_attr("min-legal-vector-width", "64"), string_attr("no-builtins"),
                         string_attr("no-trapping-math", "true"), string_attr("stack-protector-buffer-size", "8")),
        param_attributes=[attrs("noundef", "air-buffer-no-alias"), attrs("noundef"), attrs("noundef")])
    out, index, grid = fn.args
    b = IRBuilder(fn.append_block())
    x = b.zext(b.extract_element(index, const_int(I64, 0)), I64)
    width = b.zext(b.extract_element(grid, const_int(I64, 0)), I64)
    y = b.zext(b.extract_element(index, const_int(I64, 1)), I64)
    offset = b.add(b.mul(width, y, {"nuw", "nsw"}), x, {"nuw", "nsw"})
    p = b.inbounds_gep(I8, out, [offset])
    store = b.store(const_int(I8, 127), p, align=1)
    char = md_tuple("omnipotent char", md_tuple("Simple C++ TBAA"), const_int(I64, 0))
    store.metadata["tbaa"] = md_tuple(char, char, const_int(I64, 0))
    domain = DistinctMDNode(SELF, f"air-alias-scopes({KERNEL})")
    store.metadata["alias.scope"] = md_tuple(DistinctMDNode(SELF, domain, "air-alias-scope-arg(0)"))
    b.ret_void()

    m.add_named_metadata(
        "llvm.module.flags",
        [i32(2), "SDK Version", const_array(I32, [i32(26), i32(5)])], [i32(1), "wchar_size", i32(4)],
        [i32(7), "frame-pointer", i32(2)], [i32(7), "air.max_device_buffers", i32(31)],
        [i32(7), "air.max_constant_buffers", i32(31)], [i32(7), "air.max_threadgroup_buffers", i32(31)],
        [i32(7), "air.max_textures", i32(128)], [i32(7), "air.max_read_write_textures", i32(8)],
        [i32(7), "air.max_samplers", i32(16)])
    m.add_named_metadata("llvm.ident", ["Apple metal version 32023.883 (metalfe-32023.883)"])
    m.add_named_metadata("air.version", [i32(2), i32(6), i32(0)])
    m.add_named_metadata("air.language_version", ["Metal", i32(3), i32(1), i32(0)])
    m.add_named_metadata("air.compile_options", ["air.compile.denorms_disable"],
                         ["air.compile.fast_math_disable"], ["air.compile.framebuffer_fetch_enable"])
    m.add_named_metadata("air.kernel", [fn, [], [
        [i32(0), "air.buffer", "air.location_index", i32(0), i32(1), "air.read_write", "air.address_space",
         i32(1), "air.arg_type_size", i32(1), "air.arg_type_align_size", i32(1), "air.arg_type_name", "char",
         "air.arg_name", "out"],
        [i32(1), "air.thread_position_in_grid", "air.arg_type_name", "uint2", "air.arg_name", "index"],
        [i32(2), "air.threads_per_grid", "air.arg_type_name", "uint2", "air.arg_name", "grid_dim"],
    ]])
    return m


@pytest.fixture(scope="module")
def apple_module(mlx_lib) -> bytes:
    return mlx_lib.module(mlx_lib.function(KERNEL))


def test_rebuilt_module_disassembles_like_apples(apple_module):
    apple_text = oracle.llvm_dis(apple_module)
    ours = write_bitcode(rebuild_init_reduce_minint8())
    assert oracle.llvm_dis(ours) == apple_text


def test_container_level_facts_match_apple(apple_module):
    apple = oracle.bcanalyzer_dump(apple_module)
    ours = oracle.bcanalyzer_dump(write_bitcode(rebuild_init_reduce_minint8()))

    def ident(dump: str) -> str:
        block = re.search(r"<IDENTIFICATION_BLOCK_ID.*?</IDENTIFICATION_BLOCK_ID>", dump, re.S).group(0)
        # Apple abbreviates these two records, we do not: compare the decoded content only.
        return re.sub(r" (NumWords=\d+|abbrevid=\d+|record string = '')", "", block)

    # Same (empty) producer and epoch; same module version.
    assert ident(ours) == ident(apple)
    assert "<STRING/>" in ident(ours)
    assert "<VERSION op0=2/>" in apple and "<VERSION op0=2/>" in ours
    # Type tables: Apple's pointer records carry a pointee and an address space, like ours.
    for dump in (apple, ours):
        assert "OPAQUE_POINTER" not in dump
        assert re.search(r"<POINTER (abbrevid=\d+ )?op0=\d+ op1=1/>", dump)  # an addrspace(1) pointer


def _block(dump: str, name: str) -> str:
    block = re.search(rf"<{name}.*?</{name}>", dump, re.S).group(0)
    return re.sub(r" (NumWords=\d+|abbrevid=\d+)", "", block)


def test_kind_and_bundle_tables_match_apple_or_upstream(apple_module):
    apple = oracle.bcanalyzer_dump(apple_module)
    module = rebuild_init_reduce_minint8()
    ours = oracle.bcanalyzer_dump(write_bitcode(module))
    # Upstream LLVM 14's own tables, from the smallest module (it may register extra kinds, e.g.
    # heapallocsite, on demand while reading some modules, so a trivial one shows the fixed list).
    upstream = oracle.bcanalyzer_dump(oracle.llvm_as("define void @f() {\n  ret void\n}\n"))
    plain = oracle.bcanalyzer_dump(write_bitcode(module, apple_tables=False))
    for name in ("METADATA_KIND_BLOCK", "OPERAND_BUNDLE_TAGS_BLOCK", "UnknownBlock26"):
        assert _block(ours, name) == _block(apple, name), name
        assert _block(plain, name) == _block(upstream, name), name
    assert _block(ours, "METADATA_KIND_BLOCK") != _block(plain, "METADATA_KIND_BLOCK")

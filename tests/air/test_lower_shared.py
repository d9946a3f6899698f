"""Static ``__shared__`` memory in AIR: one ``addrspace(3)`` module global per kernel module, declared
as Apple declares static threadgroup arrays (checked against Apple's mlx.metallib), read back by
llvm-dis-14 and llvmlite; the threadgroup(0) binding stays in every signature (one ABI)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cumetal.backends.air.abi import STATIC_SHARED_GLOBAL, air_arguments, shared_layout
from cumetal.backends.air.lower import kernel_bitcode
from cumetal.backends.msl.abi import argument_abi
from cumetal.passes import compile_ptx

REPO = Path(__file__).resolve().parents[2]
KERNELS = sorted((REPO / "tests/functional/kernels").glob("*.ptx"))
MODULES = {p.name: compile_ptx(p.read_text(), p.name) for p in KERNELS}
# the shape of a threadgroup global definition, name / element count / alignment abstracted
_TG_GLOBAL = re.compile(r"^@(\S+) = (internal (?:unnamed_addr )?addrspace\(3\) global) \[(\d+) x (\w+)\] "
                        r"(undef), align (\d+)$", re.M)


def _tg_globals(text: str) -> list[tuple[str, str, int, str, str, int]]:
    return [(n, shape, int(count), elem, init, int(align))
            for n, shape, count, elem, init, align in _TG_GLOBAL.findall(text)]


@pytest.mark.parametrize(("file", "kernel"), [(f, k) for f, m in MODULES.items() for k in m.kernels])
def test_static_shared_memory_is_one_addrspace3_global(file, kernel, air):
    module = MODULES[file]
    k = module.kernels[kernel]
    text = air.llvm_dis_14(kernel_bitcode(module, kernel))
    found = _tg_globals(text)
    assert text.count("addrspace(3) global") == len(found)  # every threadgroup global has the shape
    if k.static_shared_size == 0:
        assert found == [] and f"@{STATIC_SHARED_GLOBAL}" not in text
    else:
        assert found == [(STATIC_SHARED_GLOBAL, "internal unnamed_addr addrspace(3) global", k.static_shared_size,
                          "i8", "undef", 16)]
    # the threadgroup(0) binding keeps its place in the signature whatever the kernel uses
    tg = [a for a in air_arguments(k, module) if a.binding is not None and a.binding.kind == "threadgroup"]
    assert [a.binding for a in tg] == [b for b in argument_abi(k, module) if b.kind == "threadgroup"]
    assert re.search(rf"define void @{kernel}\(.*i8 addrspace\(3\)\* noundef \"air-buffer-no-alias\" %cm_shared", text)


def test_constant_offsets_fold_and_computed_ones_select_only_when_both_parts_are_used(air):
    shared = MODULES["shared.ptx"]
    # matmul_tiled: static tiles only (the file's extern array is never addressed by it) -> no select
    assert shared_layout(shared.kernels["matmul_tiled"], shared).uses_dynamic is False
    text = air.llvm_dis_14(kernel_bitcode(shared, "matmul_tiled"))
    assert "@cm_static_shared, i64 0, i64 %" in text
    assert not re.search(r"select i1 %\S+, i8 addrspace\(3\)\*", text)
    # histogram: constant and computed offsets into the static global, no run-time choice either
    atomics = MODULES["atomics.ptx"]
    text = air.llvm_dis_14(kernel_bitcode(atomics, "histogram"))
    assert "@cm_static_shared" in text and not re.search(r"select i1 %\S+, i8 addrspace\(3\)\*", text)
    # a kernel addressing both parts: a computed offset selects between global and binding
    both = compile_ptx((Path(__file__).with_name("test_sim_shared.py").read_text()
                        .split('PTX = """')[1].split('"""')[0]), "both.ptx")
    text = air.llvm_dis_14(kernel_bitcode(both, "mixed"))
    assert re.search(r"select i1 %\S+, i8 addrspace\(3\)\* %\S+, i8 addrspace\(3\)\* %\S+", text)
    # the constant address counters+4 (in the device function too) is a direct GEP of the global
    assert text.count("[82 x i8] addrspace(3)* @cm_static_shared, i64 0, i64 4") >= 1
    fn = text[text.index("define internal fastcc"):]
    assert "@cm_static_shared, i64 0, i64 4" in fn


def test_the_declaration_has_the_shape_of_apples(mlx_lib, air):
    from cumetal.backends.air.metallib_wrapper import unwrap_bitcode

    apple = air.llvm_dis_14(unwrap_bitcode(mlx_lib.module(mlx_lib.function("row_reduce_simple_andbool_"))))
    (a_name, a_shape, _, a_elem, a_init, _), = _tg_globals(apple)  # 'shared_vals', a static bool array
    assert a_name.endswith("shared_vals")
    ours = air.llvm_dis_14(kernel_bitcode(MODULES["atomics.ptx"], "histogram"))
    (_, shape, _, elem, init, _), = _tg_globals(ours)
    assert (shape, elem, init) == (a_shape, a_elem, a_init)

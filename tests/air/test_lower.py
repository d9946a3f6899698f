"""The AIR lowering: every module we emit is read by llvm-dis-14 and llvmlite, every .metallib
passes air_validate, the argument ABI is the runtime's one Metal ABI, only Apple's air.* calls
(or documented unverified ones) are used, and the !air.kernel tuples have Apple's shape."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cumetal.backends.air import bitcode as bc
from cumetal.backends.air.abi import air_arguments, argument_abi
from cumetal.backends.air.lower import AirLoweringError, compile_metallib, kernel_bitcode, lower_to_air
from cumetal.backends.air.lower_context import UNVERIFIED_INTRINSICS
from cumetal.backends.air.metallib import AirVersions, read_metallib
from cumetal.ir import nodes as N
from cumetal.passes import compile_ptx

REPO = Path(__file__).resolve().parents[2]
PTX_FILES = sorted((REPO / "tests/functional/kernels").glob("*.ptx")) + [REPO / "examples/vector_add.ptx"]
GOLDEN = Path(__file__).with_name("golden")
OBSERVED = set((GOLDEN / "air-intrinsics-observed.txt").read_text().split())
# Apple's declarations (llvm-dis-14 text, parameter attributes removed; reference/air-intrinsics-observed.txt)
_DECL = re.compile(r"^declare (.+?) @([\w.]+)\((.*)\)")
# LLVM instructions Apple's compiler never emits (it calls air.* functions instead)
FORBIDDEN = re.compile(r"^\s*(?:%\S+ = )?(?:atomicrmw|cmpxchg|fence|fptosi|fptoui|sitofp|uitofp)\b", re.M)


def _module(path: Path) -> N.Module:
    return compile_ptx(path.read_text(), str(path.relative_to(REPO)))


MODULES = {p.name: _module(p) for p in PTX_FILES}
KERNELS = [pytest.param(f, k, id=f"{f}:{k}") for f, m in MODULES.items() for k in m.kernels]


@pytest.fixture(scope="module")
def lowered() -> dict[tuple[str, str], bytes]:
    return {(f, k): kernel_bitcode(m, k) for f, m in MODULES.items() for k in m.kernels}


@pytest.mark.parametrize(("file", "kernel"), KERNELS)
def test_llvm_dis_14_and_llvmlite_read_every_module(file, kernel, lowered, air):
    raw = lowered[(file, kernel)]
    text = air.llvm_dis_14(raw)  # skips when llvm-14 is not installed
    assert f"define void @{kernel}(" in text
    assert "addrspace(1)*" in text  # typed pointers, as Apple writes them
    assert not FORBIDDEN.search(text), FORBIDDEN.search(text).group(0)
    import llvmlite.binding as llvm

    module = llvm.parse_bitcode(raw)
    module.verify()


def test_only_apple_or_documented_intrinsics_are_called(lowered):
    import llvmlite.binding as llvm

    unknown = set()
    for raw in lowered.values():
        for fn in llvm.parse_bitcode(raw).functions:
            if fn.is_declaration and fn.name not in OBSERVED and not any(
                    re.fullmatch(p, fn.name) for p in UNVERIFIED_INTRINSICS):
                unknown.add(fn.name)
    assert not unknown, f"calls neither Apple-observed nor documented as unverified: {sorted(unknown)}"


def _signature(line: str) -> tuple[str, str, str] | None:
    m = _DECL.match(line.strip())
    if m is None:
        return None
    params = re.sub(r" (noundef|nocapture|readonly|writeonly|zeroext|signext|immarg)\b", "", m.group(3))
    ret = re.sub(r"^(noundef|zeroext|signext) ", "", m.group(1))
    return m.group(2), ret, params


def test_air_declarations_have_apples_signatures(lowered, air):
    apple = {}
    for line in (GOLDEN / "air-intrinsics-observed.ll").read_text().splitlines():
        sig = _signature(line)
        if sig:
            apple[sig[0]] = sig[1:]
    compared = set()
    for raw in lowered.values():
        for line in air.llvm_dis_14(raw).splitlines():
            sig = _signature(line)
            if sig and sig[0] in apple:
                assert sig[1:] == apple[sig[0]], f"@{sig[0]}: ours {sig[1:]}, Apple {apple[sig[0]]}"
                compared.add(sig[0])
    assert len(compared) >= 10, sorted(compared)


@pytest.mark.parametrize("file", list(MODULES))
def test_metallib_of_every_file_validates(file):
    module = MODULES[file]
    data = compile_metallib(module)  # raises with the problems when air_validate objects
    lib = read_metallib(data)
    assert [f.name for f in lib.functions] == list(module.kernels)
    assert all(lib.hash_ok(f) for f in lib.functions)


def test_versions_flow_into_triple_and_metadata(air):
    versions = AirVersions(air=(2, 7), msl=(3, 2), container=(2, 8), macos=(15, 0))
    module = MODULES["vector_add.ptx"]
    text = air.llvm_dis_14(kernel_bitcode(module, "vector_add", versions))
    assert 'target triple = "air64_v27-apple-macosx15.0.0"' in text
    assert "!{i32 2, i32 7, i32 0}" in text and '!{!"Metal", i32 3, i32 2, i32 0}' in text
    compile_metallib(module, versions)  # consistent everywhere: validates


def test_arguments_follow_the_shared_metal_abi():
    for module in MODULES.values():
        for kernel in module.kernels.values():
            bindings = [(b.kind, b.index, b.role) for b in argument_abi(kernel, module)]
            args = air_arguments(kernel, module)
            ours = [(a.binding.kind, a.binding.index, a.binding.role) for a in args if a.binding]
            assert ours == bindings
            fn = lower_to_air(module, kernel.name).get(kernel.name)
            spaces = [p.addrspace for p in fn.ftype.params if isinstance(p, bc.PointerType)]
            assert spaces == [a.address_space for a in args if a.binding]


def test_printf_and_constant_bindings_appear_only_when_needed():
    misc, memory = MODULES["misc.ptx"], MODULES["memory.ptx"]
    roles = {k: [a.binding.role for a in air_arguments(misc.kernels[k], misc) if a.binding]
             for k in ("hello", "struct_arg")}
    assert "printf" in roles["hello"] and "printf" not in roles["struct_arg"]
    mem_roles = [a.binding.role for a in air_arguments(memory.kernels["scale_by_constant"], memory) if a.binding]
    assert "constant" in mem_roles


def test_errors_name_the_kernel_and_the_instruction():
    module = MODULES["vector_add.ptx"]
    with pytest.raises(AirLoweringError, match="no kernel 'nope'"):
        lower_to_air(module, "nope")
    broken = compile_ptx((REPO / "examples/vector_add.ptx").read_text(), "v.ptx")
    k = broken.kernels["vector_add"]
    k.blocks[0].insts.insert(0, N.Inst("frobnicate", text="frob.nicate %r1;"))
    with pytest.raises(AirLoweringError, match=r"kernel vector_add: 'frob.nicate %r1;': .*frobnicate"):
        lower_to_air(broken, "vector_add")
    with pytest.raises(AirLoweringError, match="no kernel to compile"):
        compile_metallib(N.Module("empty.ptx"))


# ---------------------------------------------------------------- !air.kernel against Apple's files
ACCESS = ("air.read", "air.read_write", "air.write")
OPTIONAL = ("air.arg_unused", "air.buffer_size")  # keys Apple adds only sometimes


def _arg_shapes(raw: bytes, kernel: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    """argument kind -> (LLVM parameter type, the tuple's layout: air.* keys and operand kinds;
    names, the access key and optional keys left out, as they legitimately differ)."""
    import llvmlite.binding as llvm

    from cumetal.backends.air.air_schema_metadata import IntOp, parse_module_metadata

    module = llvm.parse_bitcode(raw)
    md = parse_module_metadata(str(module))
    entry = next(e for e in md.named_tuples("air.kernel") if e[0].name == kernel)
    types = [str(a.type) for a in module.get_function(kernel).arguments]
    out = {}
    for ref, ty in zip(md.node(entry[2]), types, strict=True):
        tup = md.node(ref)
        layout = []
        skip_int = False
        for x in tup[1:]:
            if isinstance(x, str):
                skip_int = x == "air.buffer_size"
                if x.startswith("air.") and x not in ACCESS and x not in OPTIONAL:
                    layout.append(x)
            elif isinstance(x, IntOp) and not skip_int:
                layout.append(f"i{x.bits}")
        if tup[1] == "air.buffer":
            key = f"buffer.as{tup[tup.index('air.address_space') + 1].value}"
        else:
            key = f"{tup[1]}.{tup[tup.index('air.arg_type_name') + 1]}"
        out[key] = (ty, tuple(layout))
    return out


# Apple kernels (mlx.metallib) whose arguments cover every kind our kernels use.
APPLE_SAMPLES = ("row_reduce_simple_andbool_", "row_reduce_small_large_5_reduce_andbool_",
                 "ggn4large_copybool_bool_", "affine_qmm_t_float_gs_128_b_1_alN_false_batch_1")


def test_kernel_metadata_has_the_shape_of_apples(mlx_lib):
    from cumetal.backends.air.metallib_wrapper import unwrap_bitcode

    apple: dict[str, tuple[str, tuple]] = {}
    for name in APPLE_SAMPLES:
        raw = unwrap_bitcode(mlx_lib.module(mlx_lib.function(name)))
        for key, value in _arg_shapes(raw, name).items():
            apple.setdefault(key, value)
    module = MODULES["warp.ptx"]
    ours = _arg_shapes(kernel_bitcode(module, "warp_shuffles"), "warp_shuffles")
    memory = MODULES["memory.ptx"]
    ours.update(_arg_shapes(kernel_bitcode(memory, "scale_by_constant"), "scale_by_constant"))
    compared = 0
    for key, (ty, shape) in ours.items():
        if key == "buffer.as3":
            continue  # no threadgroup-buffer argument in mlx; its tuple is the buffer schema with AS 3
        assert key in apple, f"Apple sample lacks an argument of kind {key}"
        a_ty, a_shape = apple[key]
        assert ty == a_ty, f"{key}: LLVM type {ty}, Apple {a_ty}"
        assert shape == a_shape, f"{key}: ours {shape} vs Apple {a_shape}"
        compared += 1
    assert compared >= 8

"""The instruction table: coverage of PTX ISA 9.x families, form decoding, canonical order."""

from __future__ import annotations

import pytest

from cumetal.ptx import table
from cumetal.ptx.special_registers import SPECIAL_REGISTERS, is_special_register

# Opcode roots of the PTX ISA 9.x manual's instruction chapters that the table must describe.
REQUIRED = """
add sub mul mad mul24 mad24 sad div rem abs neg min max popc clz bfind fns brev bfe bfi szext bmsk dp4a dp2a
addc subc madc testp copysign fma rcp sqrt rsqrt sin cos lg2 ex2 tanh
set setp selp slct and or xor not cnot lop3 shf shl shr
mov ld ldu st st.async st.bulk multimem.ld_reduce multimem.st multimem.red prefetch prefetchu applypriority
discard createpolicy isspacep cvta cvt cvt.pack mapa getctarank shfl prmt cp.async cp.async.commit_group
cp.async.wait_group cp.async.wait_all cp.async.mbarrier.arrive cp.async.bulk cp.reduce.async.bulk
cp.async.bulk.tensor cp.reduce.async.bulk.tensor cp.async.bulk.prefetch cp.async.bulk.prefetch.tensor
cp.async.bulk.commit_group cp.async.bulk.wait_group tensormap.replace tensormap.cp_fenceproxy
stmatrix ldmatrix movmatrix alloca stacksave stackrestore
tex tld4 txq istypep suld sust sured suq
bra brx.idx call ret exit
bar barrier bar.warp.sync barrier.cluster membar fence atom red red.async vote match activemask redux
griddepcontrol elect mbarrier.init mbarrier.inval mbarrier.expect_tx mbarrier.complete_tx mbarrier.arrive
mbarrier.arrive_drop mbarrier.test_wait mbarrier.try_wait mbarrier.pending_count nanosleep setmaxnreg
clusterlaunchcontrol.try_cancel clusterlaunchcontrol.query_cancel
wmma.load wmma.store wmma.mma mma wgmma.fence wgmma.commit_group wgmma.wait_group wgmma.mma_async
wgmma.mma_async.sp tcgen05.alloc tcgen05.dealloc tcgen05.relinquish_alloc_permit tcgen05.ld tcgen05.st
tcgen05.wait::ld tcgen05.wait::st tcgen05.cp tcgen05.shift tcgen05.mma tcgen05.commit
tcgen05.fence::before_thread_sync tcgen05.fence::after_thread_sync
vadd vsub vabsdiff vmin vmax vshl vshr vmad vset vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2 vadd4 vsub4
vavrg4 vabsdiff4 vmin4 vmax4 vset2 vset4
trap brkpt pmevent
""".split()


def test_every_isa_family_is_in_the_table() -> None:
    missing = [op for op in REQUIRED if not table.lookup(op)]
    assert missing == []
    assert set(REQUIRED) <= set(table.all_opcodes())
    assert table.all_opcodes() == sorted(table.all_opcodes())


def test_lookup_unknown_is_empty() -> None:
    assert table.lookup("frobnicate") == []


@pytest.mark.parametrize("opcode,root,fields", [
    ("add.rn.ftz.f32", "add", {"rnd": "rn", "ftz": "ftz", "type": "f32"}),
    ("add.ftz.rn.f32", "add", {"rnd": "rn", "ftz": "ftz", "type": "f32"}),
    ("cvt.rzi.s32.f32", "cvt", {"irnd": "rzi", "dtype": "s32", "atype": "f32"}),
    ("cvt.rn.satfinite.e4m3x2.f32", "cvt", {"rnd": "rn", "satfinite": "satfinite", "dtype": "e4m3x2",
                                             "atype": "f32"}),
    ("ld.global.nc.L1::no_allocate.v4.f32", "ld", {"ss": "global", "nc": "nc", "evict": "L1::no_allocate",
                                                    "vec": "v4", "type": "f32"}),
    ("mbarrier.try_wait.parity.shared::cta.b64", "mbarrier.try_wait",
     {"parity": "parity", "ss": "shared::cta", "type": "b64"}),
    ("bar.warp.sync", "bar.warp.sync", {}),
    ("setp.ne.and.ftz.f32", "setp", {"cmp": "ne", "boolop": "and", "ftz": "ftz", "type": "f32"}),
    ("shfl.sync.bfly.b32", "shfl", {"sync": "sync", "mode": "bfly", "type": "b32"}),
    ("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", "wgmma.mma_async",
     {"sync": "sync", "aligned": "aligned", "shape": "m64n128k16", "dtype": "f32", "atype": "bf16",
      "btype": "bf16"}),
    ("tcgen05.fence::before_thread_sync", "tcgen05.fence::before_thread_sync", {}),
])
def test_decode(opcode: str, root: str, fields: dict[str, str]) -> None:
    d = table.decode(opcode)
    assert d.root == root
    assert d.candidates, f"{opcode} decodes to no form"
    form, got = d.candidates[0]
    assert got == fields
    assert table.decode(form.canonical(got)).candidates[0][1] == got


def test_canonical_order_follows_the_form() -> None:
    form, fields = table.decode("atom.add.global.relaxed.gpu.u32").candidates[0]
    assert form.canonical(fields) == "atom.relaxed.gpu.global.add.u32"


def test_unknown_modifiers_reported() -> None:
    d = table.decode("add.s32.bogus")
    assert d.root == "add" and d.candidates == () and d.bad_mods == ("bogus",)
    assert table.decode("nosuchop.b32").root is None


def test_split_prefers_longest_root() -> None:
    assert table.split_opcode("cp.async.bulk.tensor.1d.shared::cluster.global") == (
        "cp.async.bulk.tensor", ("1d", "shared::cluster", "global"))
    assert table.split_opcode("cp.async.ca.shared.global")[0] == "cp.async"
    assert table.split_opcode("bar.sync")[0] == "bar"


def test_forms_compile_with_operand_shapes() -> None:
    [form] = [f for f in table.lookup("shfl") if "sync" in f.text]
    assert [o.name for o in form.operands] == ["d", "a", "b", "c", "membermask"]
    assert form.operands[0].pair and form.min_operands == 5
    bar = table.lookup("bar")[0]
    assert (bar.min_operands, len(bar.operands)) == (1, 2)


def test_special_register_catalogue() -> None:
    for name in ("%tid", "%ntid", "%laneid", "%warpid", "%nwarpid", "%ctaid", "%nctaid", "%smid", "%nsmid",
                 "%gridid", "%lanemask_eq", "%clock", "%clock64", "%globaltimer", "%dynamic_smem_size",
                 "%total_smem_size", "%cluster_ctarank", "%is_explicit_cluster", "%envreg"):
        assert name in SPECIAL_REGISTERS
    assert SPECIAL_REGISTERS["%tid"].components == ("x", "y", "z")
    assert is_special_register("%envreg31") and not is_special_register("%envreg32")
    assert is_special_register("%pm7_64") and is_special_register("%reserved_smem_offset_1")
    assert not is_special_register("%r1")

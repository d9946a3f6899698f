"""Every instruction family parses into a decoded Instruction, prints back in canonical order, and
NVIDIA's ptxas accepts both the snippet and the printed module (independent check of the table)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import pytest

from cumetal.ptx import ast as A
from cumetal.ptx import parse, print_module, structure

REGS = """
	.reg .pred %p<8>;
	.reg .b16 %h<32>;
	.reg .b32 %r<64>;
	.reg .b64 %rd<64>;
	.reg .f32 %f<64>;
	.reg .f64 %fd<16>;
	.reg .b128 %q<4>;
	.shared .align 16 .b8 smem[4096];
"""

# (line, arch) — one instruction per line, valid PTX as NVIDIA's manual defines it
SM80 = """
add.s32 %r1, %r2, %r3;
add.sat.s32 %r1, %r2, -5;
add.cc.u32 %r1, %r2, %r3;
addc.cc.u32 %r4, %r5, %r6;
sub.u64 %rd1, %rd2, 0x10;
add.rn.ftz.sat.f32 %f1, %f2, 0f3F800000;
add.rn.f64 %fd1, %fd2, 0d3FF0000000000000;
add.rn.f16x2 %r1, %r2, %r3;
mul.wide.s32 %rd1, %r1, %r2;
mul.hi.u32 %r1, %r2, 0b1010;
mul.lo.u16 %h1, %h2, 017;
mad.lo.s32 %r1, %r2, %r3, %r4;
mad.rn.f32 %f1, %f2, %f3, %f4;
mad.wide.u32 %rd1, %r1, %r2, %rd3;
mul24.lo.s32 %r1, %r2, %r3;
sad.u32 %r1, %r2, %r3, %r4;
div.s32 %r1, %r2, %r3;
div.full.ftz.f32 %f1, %f2, %f3;
div.rn.f64 %fd1, %fd2, %fd3;
div.approx.f32 %f1, %f2, %f3;
rem.u64 %rd1, %rd2, %rd3;
abs.s32 %r1, %r2;
abs.ftz.f32 %f1, %f2;
neg.f64 %fd1, %fd2;
min.u32 %r1, %r2, %r3;
max.NaN.f32 %f1, %f2, %f3;
min.ftz.NaN.f16x2 %r1, %r2, %r3;
popc.b64 %r1, %rd1;
clz.b32 %r1, %r2;
bfind.shiftamt.u32 %r1, %r2;
brev.b32 %r1, %r2;
bfe.u32 %r1, %r2, 8, 4;
bfi.b32 %r1, %r2, %r3, 8, 4;
fns.b32 %r1, %r2, 0, 1;
dp4a.u32.s32 %r1, %r2, %r3, %r4;
dp2a.lo.s32.s32 %r1, %r2, %r3, %r4;
testp.finite.f32 %p1, %f1;
copysign.f32 %f1, %f2, %f3;
fma.rn.ftz.f32 %f1, %f2, %f3, %f4;
fma.rn.f64 %fd1, %fd2, %fd3, %fd4;
fma.rn.relu.bf16x2 %r1, %r2, %r3, %r4;
rcp.approx.ftz.f64 %fd1, %fd2;
rcp.rn.f32 %f1, %f2;
sqrt.approx.ftz.f32 %f1, %f2;
sqrt.rn.f64 %fd1, %fd2;
rsqrt.approx.f32 %f1, %f2;
sin.approx.ftz.f32 %f1, %f2;
cos.approx.f32 %f1, %f2;
lg2.approx.ftz.f32 %f1, %f2;
ex2.approx.f32 %f1, %f2;
ex2.approx.f16x2 %r1, %r2;
tanh.approx.f32 %f1, %f2;
set.lt.u32.s32 %r1, %r2, %r3;
setp.ne.and.s32 %p1, %r1, %r2, !%p2;
setp.gtu.ftz.f32 %p1|%p2, %f1, %f2;
setp.eq.f16x2 %p1|%p2, %r1, %r2;
selp.b32 %r1, %r2, %r3, %p1;
slct.s32.s32 %r1, %r2, %r3, %r4;
and.pred %p1, %p2, %p3;
or.b32 %r1, %r2, 0xFF00FF00;
xor.b64 %rd1, %rd2, %rd3;
not.b32 %r1, %r2;
cnot.b32 %r1, %r2;
lop3.b32 %r1, %r2, %r3, %r4, 0x96;
shf.l.wrap.b32 %r1, %r2, %r3, %r4;
shl.b64 %rd1, %rd2, 3;
shr.s32 %r1, %r2, 31;
mov.u32 %r1, %tid.x;
mov.u32 %r1, %laneid;
mov.u64 %rd1, %clock64;
mov.u64 %rd1, smem;
mov.b64 %rd1, {%r1, %r2};
mov.b32 {%h1, %h2}, %r1;
mov.f32 %f1, 0fBF800000;
mov.u32 %r1, %dynamic_smem_size;
ld.global.f32 %f1, [%rd1];
ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];
ld.global.ca.L2::128B.u32 %r1, [%rd1];
ld.global.L1::evict_last.u32 %r1, [%rd1];
ld.volatile.shared.u32 %r1, [%r2];
ld.relaxed.gpu.global.u32 %r1, [%rd1];
ld.acquire.sys.global.b64 %rd1, [%rd2];
ld.shared.v2.u32 {%r1, %r2}, [smem+8];
ld.local.u8 %h1, [%rd1];
ldu.global.f32 %f1, [%rd1];
st.global.f32 [%rd1], %f1;
st.global.wb.u32 [%rd1+-4], %r1;
st.release.gpu.global.u32 [%rd1], %r1;
st.shared.v4.b32 [%r1], {%r2, %r3, %r4, %r5};
st.volatile.global.u8 [%rd1], %h1;
prefetch.global.L2 [%rd1];
prefetchu.L1 [%rd1];
isspacep.shared %p1, %rd1;
cvta.to.global.u64 %rd1, %rd2;
cvta.shared.u64 %rd1, %rd2;
cvt.rn.f32.s32 %f1, %r1;
cvt.rzi.s32.f32 %r1, %f1;
cvt.u64.u32 %rd1, %r1;
cvt.rn.f16.f32 %h1, %f1;
cvt.f32.f16 %f1, %h1;
cvt.rn.relu.f16x2.f32 %r1, %f1, %f2;
cvt.rn.bf16x2.f32 %r1, %f1, %f2;
cvt.rna.tf32.f32 %r1, %f1;
cvt.sat.f32.f32 %f1, %f2;
cvt.pack.sat.s8.s32.b32 %r1, %r2, %r3, %r4;
shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, -1;
shfl.sync.idx.b32 %r1, %r2, %r3, 31, 0xffffffff;
prmt.b32 %r1, %r2, %r3, 0x3210;
prmt.b32.f4e %r1, %r2, %r3, %r4;
cp.async.ca.shared.global [%r1], [%rd1], 4;
cp.async.cg.shared.global [%r1], [%rd1], 16, %r2;
cp.async.commit_group;
cp.async.wait_group 1;
cp.async.wait_all;
ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];
ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r1, %r2}, [%r5];
movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;
bar.sync 0;
bar.sync 1, 64;
barrier.sync.aligned 0;
bar.arrive 1, 64;
bar.red.popc.u32 %r1, 0, %p1;
bar.red.and.pred %p1, 0, %p2;
bar.warp.sync -1;
membar.gl;
membar.cta;
fence.acq_rel.gpu;
fence.sc.sys;
fence.proxy.alias;
atom.global.add.f32 %f1, [%rd1], %f2;
atom.global.add.u64 %rd1, [%rd2], 1;
atom.shared.cas.b32 %r1, [%r2], %r3, %r4;
atom.acq_rel.gpu.global.exch.b32 %r1, [%rd1], %r2;
atom.global.add.noftz.f16x2 %r1, [%rd1], %r2;
red.global.add.f32 [%rd1], %f1;
red.relaxed.gpu.global.max.s32 [%rd1], %r1;
vote.sync.ballot.b32 %r1, %p1, -1;
vote.sync.any.pred %p1, !%p2, -1;
match.any.sync.b32 %r1, %r2, -1;
match.all.sync.b64 %r1|%p1, %rd1, -1;
activemask.b32 %r1;
redux.sync.add.s32 %r1, %r2, -1;
redux.sync.or.b32 %r1, %r2, -1;
nanosleep.u32 100;
mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};
mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r5}, {%f5, %f6, %f7, %f8};
mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r9, %r10}, {%r11, %r12, %r13, %r14};
wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], %r9;
wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18}, {%f11, %f12, %f13, %f14, %f15, %f16, %f17, %f18};
wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, %r1;
vadd.s32.s32.s32.sat %r1, %r2, %r3;
vadd2.u32.u32.u32 %r1, %r2, %r3, %r4;
vmax4.s32.s32.s32 %r1, %r2, %r3, %r4;
trap;
brkpt;
pmevent 1;
exit;
ret;
"""

SM90 = """
wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, %rd1, %rd2, 1, 1, 1, 0, 0;
wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3 {%r1, %r2}, %rd1, %rd2, %p1, 1, 1;
wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%r1, %r2, %r3, %r4}, %rd1, %rd2, %p1;
wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, %rd2, %p1, 1, 1, 1;
mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f5, %f6, %f7, %f8}, %r9, 0x0;
mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};
mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, %fd6};
mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc {%r1, %r2}, {%r3}, {%r4}, {%r5, %r6};
cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], 256;
cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r1], [%r2], 256, [%r3];
cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1], [%r1], 256;
cp.async.bulk.prefetch.L2.global [%rd1], 256;
cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd1, {%r2, %r3}], [%r4];
cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd1, {%r2, %r3}], [%r4];
cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd1, {%r2, %r3}];
cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3, %r5}], [%r4], {%h1};
cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r1], [%rd1, {%r2}], [%r4], %h1;
cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [%r1], [%rd1, {%r2}], [%r4], %rd5;
multimem.st.relaxed.gpu.global.b32 [%rd1], %r1;
multimem.red.relaxed.gpu.global.add.u32 [%rd1], %r1;
multimem.ld_reduce.relaxed.gpu.global.add.acc::f32.v2.f16x2 {%r1, %r2}, [%rd1];
fence.proxy.async.global;
fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;
fence.acq_rel.cluster;
membar.sys;
tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128;
tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r1], 1, 64;
prefetch.param.tensormap [%rd1];
createpolicy.fractional.L2::evict_last.b64 %rd1, 1.0;
createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd1, 0.5;
applypriority.global.L2::evict_normal [%rd1], 128;
discard.global.L2 [%rd1], 128;
ld.global.L2::cache_hint.b32 %r1, [%rd1], %rd2;
ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];
st.global.L1::no_allocate.v2.f32 [%rd1], {%f1, %f2};
ld.shared::cluster.u32 %r1, [%r2];
st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.s32 [%r1], {%r2, %r3}, [%r4];
mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r1];
mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p1, [%r1], %r2, 1000;
mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 256;
mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r1], 256;
mbarrier.arrive_drop.shared.b64 %rd1, [%r1];
cp.async.mbarrier.arrive.noinc.shared.b64 [%r1];
barrier.cluster.arrive;
barrier.cluster.wait;
barrier.cta.sync.aligned 1, 64;
bar.cta.red.or.pred %p1, 2, %p2;
atom.global.v2.f32.add {%f3, %f4}, [%rd1], {%f1, %f2};
red.global.add.noftz.bf16x2 [%rd1], %r1;
red.shared::cluster.add.u32 [%r1], 1;
cvt.rn.satfinite.e5m2x2.f16x2 %h1, %r1;
cvt.rn.bf16x2.f32 %r1, %f1, %f2;
cvt.rn.tf32.f32 %r1, %f1;
cvt.rn.f16x2.e5m2x2 %r1, %h1;
mov.b128 %q1, {%rd1, %rd2};
mov.b64 {%r1, %r2}, %rd1;
redux.sync.min.u32 %r1, %r2, -1;
alloca.u64 %rd1, 64;
stacksave.u64 %rd1;
stackrestore.u64 %rd1;
add.rn.bf16 %h1, %h2, %h3;
mbarrier.init.shared::cta.b64 [%r1], 32;
mbarrier.arrive.shared::cta.b64 %rd1, [%r1];
mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], 1024;
mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r2;
mbarrier.test_wait.shared.b64 %p1, [%r1], %rd1;
mbarrier.inval.shared.b64 [%r1];
mbarrier.pending_count.b64 %r1, %rd1;
cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];
cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {%r2, %r3}], [%r4];
cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 256, [%r4];
cp.async.bulk.commit_group;
cp.async.bulk.wait_group.read 0;
fence.proxy.async.shared::cta;
fence.proxy.tensormap::generic.release.gpu;
fence.mbarrier_init.release.cluster;
barrier.cluster.arrive.release.aligned;
barrier.cluster.wait.acquire.aligned;
elect.sync %r1|%p1, -1;
elect.sync _|%p1, -1;
mapa.shared::cluster.u32 %r1, %r2, %r3;
getctarank.shared::cluster.u32 %r1, %r2;
mov.u32 %r1, %cluster_ctarank;
mov.pred %p1, %is_explicit_cluster;
griddepcontrol.wait;
griddepcontrol.launch_dependents;
stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r1], {%r2, %r3, %r4, %r5};
wgmma.fence.sync.aligned;
wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1, 0, 0;
wgmma.commit_group.sync.aligned;
wgmma.wait_group.sync.aligned 0;
setmaxnreg.inc.sync.aligned.u32 240;
cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;
cvt.rn.f16x2.e4m3x2 %r1, %h1;
red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r1], %r2, [%r3];
st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3];
multimem.ld_reduce.relaxed.sys.global.add.f32 %f1, [%rd1];
tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;
atom.relaxed.cluster.shared::cluster.add.u32 %r1, [%r2], 1;
"""

SM100 = """
tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;
tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd1, %rd2, %r3, %p1;
tcgen05.mma.cta_group::1.kind::tf32 [%r2], [%r4], %rd2, %r3, {%r5, %r6, %r7, %r8}, %p1;
tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%r2], %rd1, %rd2, %r3, [%r9], [%r10], %p1;
tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%rd5];
tcgen05.ld.sync.aligned.32x32b.x4.b32 {%r11, %r12, %r13, %r14}, [%r2];
tcgen05.wait::ld.sync.aligned;
tcgen05.st.sync.aligned.16x64b.x1.b32 [%r2], {%r11};
tcgen05.wait::st.sync.aligned;
tcgen05.cp.cta_group::1.128x256b [%r2], %rd3;
tcgen05.shift.cta_group::1.down [%r2];
tcgen05.fence::before_thread_sync;
tcgen05.fence::after_thread_sync;
tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;
"""


def kernel(body: str, target: str = "sm_80", version: str = "8.0") -> str:
    return f""".version {version}
.target {target}
.address_size 64

.visible .entry k(
	.param .u64 .ptr .global .align 8 k_param_0
)
{{{REGS}
{body}
	ret;
}}
"""


def _lines(block: str) -> list[str]:
    return [ln.strip() for ln in block.strip().splitlines() if ln.strip()]


ALL = ([(ln, "sm_80", "9.0") for ln in _lines(SM80)] + [(ln, "sm_90a", "9.0") for ln in _lines(SM90)]
       + [(ln, "sm_100a", "9.0") for ln in _lines(SM100)])


def _instructions(mod: A.Module) -> list[A.Statement]:
    return [s for s in mod.functions[0].body.statements if isinstance(s, A.Instruction | A.UnknownInstruction)]


@pytest.mark.parametrize("line,target,version", ALL, ids=[a[0][:60] for a in ALL])
def test_instruction_decodes_and_round_trips(line: str, target: str, version: str) -> None:
    src = kernel("\t" + line, target, version)
    res = parse(src, "snippet.ptx")
    assert res.diagnostics == [], "\n".join(d.format() for d in res.diagnostics)
    ins = _instructions(res.module)[0]
    assert isinstance(ins, A.Instruction)
    assert line.split()[0].startswith(ins.opcode)
    printed = print_module(res.module)
    again = parse(printed)
    assert again.ok and structure(again.module) == structure(res.module)


def _ptxas() -> str | None:
    return os.environ.get("PTXAS") or shutil.which("ptxas")


@pytest.mark.skipif(_ptxas() is None, reason="ptxas not installed")
@pytest.mark.parametrize("target,block", [("sm_80", SM80), ("sm_90a", SM90), ("sm_100a", SM100)],
                         ids=["sm_80", "sm_90a", "sm_100a"])
def test_ptxas_accepts_snippets_and_printed_output(target: str, block: str) -> None:
    """ptxas is the oracle: the snippets are valid PTX, and so is what the printer writes."""
    src = kernel(block, target, "9.0")
    res = parse(src, "snippets.ptx")
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in (("orig.ptx", src), ("printed.ptx", print_module(res.module))):
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                f.write(text)
            proc = subprocess.run([_ptxas(), f"-arch={target}", path, "-o", os.devnull],
                                  capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, f"{name}: {proc.stderr[:2000]}"


# Invalid PTX: ptxas rejects each line, and so must the parser (an error, not a silent accept).
INVALID = [
    "prefetch.global.tensormap [%rd1];",
    "atom.global.v2.f32.add [%rd1], {%f1, %f2};",
    "add.sat.f64 %fd1, %fd2, %fd3;",
    "ld.global.u32 %r1, %rd1;",
    "bar.sync;",
    "shfl.sync.down.b32 %r1, %r2, 1, 31;",
    "mov.u32 %r1 %r2;",
    "cvt.f32 %f1, %r1;",
    "setp.lt.s32 %r1, %r2;",
    "st.global.f32 %f1, [%rd1];",
]


@pytest.mark.parametrize("line", INVALID)
def test_invalid_instruction_is_an_error_like_ptxas(line: str) -> None:
    src = kernel("\t" + line, "sm_90a", "9.0")
    res = parse(src, "bad.ptx")
    assert [d.loc.line for d in res.errors] == [18], "\n".join(d.format() for d in res.diagnostics)
    if _ptxas() is None:
        pytest.skip("ptxas not installed")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bad.ptx")
        with open(path, "w") as f:
            f.write(src)
        proc = subprocess.run([_ptxas(), "-arch=sm_90a", path, "-o", os.devnull],
                              capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0

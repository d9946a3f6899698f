"""Declarations, directives and operand forms: a module using every form real compilers emit is
parsed into the expected AST, and ptxas accepts both it and the printer's output."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import pytest

from cumetal.ptx import ast as A
from cumetal.ptx import parse, print_module, structure

KITCHEN_SINK = r"""//
// kitchen sink: every declaration form the parser must keep
//
.version 8.5
.target sm_80, texmode_independent
.address_size 64

.file 1 "/tmp/kernel.cu"
.file 2 "/usr/include/x.h", 1700000000, 1234

.extern .func (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.weak .func helper_weak(.param .b32 a)
{
	ret;
}
.global .align 4 .u32 counter = 7;
.global .align 8 .f64 dconst = 0d3FF0000000000000;
.global .align 4 .f32 fvals[4] = {0f3F800000, 0F40000000, 0.5, -1.5};
.global .align 4 .b32 nested[2][2] = {{1, 2}, {3, 4}};
.const .align 1 .b8 $str[6] = {72, 105, 0x21, 012, 0b1, 0};
.global .align 8 .u64 ptrs[3] = {counter, generic($str)+2, fvals+4};
.common .global .align 4 .b32 commonvar;
.visible .global .align 16 .v4 .f32 vecvar;
.global .attribute(.managed) .align 4 .b32 managedvar;
.global .texref mytex;
.extern .shared .align 16 .b8 dyn_smem[];
.shared .align 4 .b32 sarr[32];

.func (.param .b32 retval) helper(.param .b32 x)
{
	.reg .b32 %r<3>;
	ld.param.b32 %r1, [x];
	add.s32 %r2, %r1, 1;
	st.param.b32 [retval], %r2;
	ret;
}

.func (.param .b32 retval) helper2(.param .b32 x)
{
	.reg .b32 %r<2>;
	ld.param.b32 %r1, [x];
	st.param.b32 [retval], %r1;
	ret;
}

.global .align 8 .u64 ftable[2] = {helper, helper2};

.func stop() .noreturn
{
	trap;
}

.visible .entry kitchen(
	.param .u64 .ptr .global .align 16 kitchen_param_0,
	.param .align 8 .b8 kitchen_param_1[16],
	.param .u32 kitchen_param_2
)
.maxntid 128, 1, 1
.minnctapersm 2
{
	.local .align 8 .b8 __local_depot0[16];
	.reg .b64 %SP;
	.reg .pred %p<4>;
	.reg .b32 %r<100000000>;
	.reg .b64 %rd<20>;
	.reg .f32 %f<4>;

	.loc 1 12 9
	ld.param.u64 %rd1, [kitchen_param_0];
	ld.param.u32 %r1, [kitchen_param_1+4];
	mov.u64 %SP, __local_depot0;
	.loc 2 5 7, function_name $L__info_string0, inlined_at 1 12 9
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r2, %tid.x;
	setp.eq.s32 %p1, %r2, 0;
	@!%p1 bra $L__BB0_2;
	{
	.reg .pred complete;
	.reg .b32 tmp;
	waitLoop:
	mov.b32 tmp, 1;
	setp.ne.b32 complete, tmp, 0;
	@!complete bra.uni waitLoop;
	}
	{
	.reg .b32 tmp;
	mov.b32 tmp, 2;
	}
	ld.global.v4.f32 {%f0, %f1, %f2, %f3}, [ %rd2 + 0 ];
	ld.global.v4.f32 {%f0, _, %f2, _}, [%rd2+-16];
	ld.shared.u32 %r3, [sarr+8];
	ld.shared.u32 %r3, [dyn_smem];
	mov.u64 %rd3, ftable;
	ld.global.u64 %rd4, [%rd3];
	{ // callseq 0
	.param .b32 param0;
	st.param.b32 [param0], %r2;
	.param .b32 retval0;
	prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
	call (retval0), %rd4, (param0), prototype_0;
	ld.param.b32 %r4, [retval0];
	} // callseq 0
	{
	.param .b32 param0;
	st.param.b32 [param0], %r4;
	.param .b32 retval0;
	call.uni (retval0), helper, (param0);
	ld.param.b32 %r5, [retval0];
	}
	ts: .branchtargets $L__BB0_2, $L__BB0_3;
	and.b32 %r6, %r5, 1;
	brx.idx %r6, ts;
$L__BB0_2:
	mov.u32 %r7, -0x1;
	mov.f32 %f1, 0fBF800000;
	.pragma "nounroll";
$L__BB0_3:
	ret;
}
	.section	.debug_str
	{
$L__info_string0:
.b8 107,105,116,0
	}
"""


@pytest.fixture(scope="module")
def mod() -> A.Module:
    res = parse(KITCHEN_SINK, "ks.ptx")
    assert res.diagnostics == [], "\n".join(d.format() for d in res.diagnostics)
    return res.module


def _fn(mod: A.Module, name: str) -> A.Function:
    return next(f for f in mod.functions if f.name == name)


def _var(mod: A.Module, name: str) -> A.VarDecl:
    return next(v for v in mod.globals if v.name == name)


def _walk(stmts):
    for s in stmts:
        yield s
        if isinstance(s, A.Block):
            yield from _walk(s.statements)


def test_module_directives(mod: A.Module) -> None:
    assert mod.version == (8, 5)
    assert mod.targets == ("sm_80", "texmode_independent")
    assert mod.address_size == 64
    files = [i for i in mod.items if isinstance(i, A.FileDirective)]
    assert [(f.index, f.path, f.extra) for f in files] == [(1, "/tmp/kernel.cu", ""), (2, "/usr/include/x.h", "1700000000, 1234")]
    sec = [i for i in mod.items if isinstance(i, A.SectionDirective)]
    assert sec[0].name == ".debug_str" and "$L__info_string0:" in sec[0].text and ".b8 107,105,116,0" in sec[0].text


def test_functions_and_linkage(mod: A.Module) -> None:
    vp = _fn(mod, "vprintf")
    assert vp.linkage == "extern" and vp.kind == "func" and vp.body is None
    assert [p.name for p in vp.ret_params] == ["func_retval0"] and len(vp.params) == 2
    assert _fn(mod, "helper_weak").linkage == "weak"
    assert _fn(mod, "stop").noreturn
    h = _fn(mod, "helper")
    assert h.ret_params[0].name == "retval" and h.params[0].type == "b32"
    k = _fn(mod, "kitchen")
    assert k.kind == "entry" and k.linkage == "visible"
    assert k.directives == {"maxntid": (128, 1, 1), "minnctapersm": (2,)}
    p0, p1, p2 = k.params
    assert (p0.type, p0.is_ptr, p0.ptr_space, p0.ptr_align) == ("u64", True, "global", 16)
    assert (p1.align, p1.type, p1.dims) == (8, "b8", (16,))
    assert (p2.type, p2.is_ptr) == ("u32", False)


def test_variables_and_initializers(mod: A.Module) -> None:
    assert _var(mod, "counter").init == A.Imm(7)
    assert _var(mod, "dconst").init == A.Imm(0x3FF0000000000000, "f64")
    assert _var(mod, "fvals").init == (A.Imm(0x3F800000, "f32"), A.Imm(0x40000000, "f32"),
                                       A.Imm(0.5, "float"), A.Imm(-1.5, "float"))
    assert _var(mod, "nested").init == ((A.Imm(1), A.Imm(2)), (A.Imm(3), A.Imm(4)))
    assert _var(mod, "nested").dims == (2, 2)
    s = _var(mod, "$str")
    assert (s.space, s.align, s.dims) == ("const", 1, (6,))
    assert s.init == tuple(A.Imm(v) for v in (72, 105, 0x21, 0o12, 1, 0))
    assert _var(mod, "ptrs").init == (A.Sym("counter"), A.Sym("$str", 2, True), A.Sym("fvals", 4))
    assert _var(mod, "ftable").init == (A.Sym("helper"), A.Sym("helper2"))
    assert _var(mod, "commonvar").linkage == "common"
    v = _var(mod, "vecvar")
    assert (v.linkage, v.vector, v.type, v.align) == ("visible", 4, "f32", 16)
    assert _var(mod, "managedvar").attrs == (".attribute(.managed)",)
    assert _var(mod, "mytex").type == "texref"
    d = _var(mod, "dyn_smem")
    assert (d.linkage, d.space, d.dims, d.align) == ("extern", "shared", (None,), 16)


def test_body_declarations_scopes_and_labels(mod: A.Module) -> None:
    body = _fn(mod, "kitchen").body.statements
    regs = [s for s in body if isinstance(s, A.RegDecl)]
    big = next(r for r in regs if r.names == ("%r",))
    assert big.count == 100_000_000 and big.type == "b32"  # stored, never expanded
    assert any(r.names == ("%SP",) and r.count is None for r in regs)
    local = next(s for s in body if isinstance(s, A.VarDecl))
    assert (local.space, local.name, local.dims) == ("local", "__local_depot0", (16,))
    inner = next(s for s in body if isinstance(s, A.Block))
    labels = [s.name for s in inner.statements if isinstance(s, A.Label)]
    assert labels == ["waitLoop"]
    setp = next(s for s in inner.statements if isinstance(s, A.Instruction) and s.opcode == "setp")
    assert setp.operands[0] == A.Reg("complete") and setp.operands[1] == A.Reg("tmp")
    bra = next(s for s in inner.statements if isinstance(s, A.Instruction) and s.opcode == "bra")
    assert bra.guard == A.Guard("complete", True) and bra.fields == {"uni": "uni"}
    assert bra.operands == (A.Sym("waitLoop"),)
    locs = [s for s in body if isinstance(s, A.LocDirective)]
    assert (locs[0].file_index, locs[0].line, locs[0].col) == (1, 12, 9)
    assert locs[1].extra == "function_name $L__info_string0, inlined_at 1 12 9"
    tl = next(s for s in _walk(body) if isinstance(s, A.TargetList))
    assert (tl.label, tl.kind, tl.targets) == ("ts", "branchtargets", ("$L__BB0_2", "$L__BB0_3"))
    assert any(isinstance(s, A.Pragma) and s.text == '"nounroll"' for s in body)


def test_operands(mod: A.Module) -> None:
    ins = [s for s in _walk(_fn(mod, "kitchen").body.statements) if isinstance(s, A.Instruction)]
    by_text = {}
    for i in ins:
        by_text.setdefault(i.opcode, []).append(i)
    ld = by_text["ld"]
    assert ld[1].operands[1] == A.Address(A.Sym("kitchen_param_1"), 4)
    vec = next(i for i in ld if i.fields.get("vec") == "v4")
    assert vec.operands == (A.Vector((A.Reg("%f0"), A.Reg("%f1"), A.Reg("%f2"), A.Reg("%f3"))),
                            A.Address(A.Reg("%rd2"), 0))
    sink = [i for i in ld if i.fields.get("vec") == "v4"][1]
    assert sink.operands[0].elems[1] == A.Sink() and sink.operands[1].offset == -16
    mov = by_text["mov"]
    assert mov[1].operands[1] == A.Reg("%tid", "x")
    assert any(m.operands[1] == A.Imm(-1) for m in mov)
    assert any(m.operands[1] == A.Imm(0xBF800000, "f32") for m in mov)
    assert any(m.operands[1] == A.Sym("ftable") for m in mov)
    calls = by_text["call"]
    indirect, direct = calls
    assert indirect.operands == (A.ParamList((A.Sym("retval0"),)), A.Reg("%rd4"),
                                 A.ParamList((A.Sym("param0"),)), A.Sym("prototype_0"))
    assert direct.fields == {"uni": "uni"} and direct.operands[1] == A.Sym("helper")
    proto = next(s for s in _walk(_fn(mod, "kitchen").body.statements) if isinstance(s, A.CallPrototype))
    assert proto.label == "prototype_0" and [p.type for p in proto.ret_params] == ["b32"]
    assert [p.name for p in proto.params] == ["_"]
    assert by_text["brx.idx"][0].operands == (A.Reg("%r6"), A.Sym("ts"))


def test_print_round_trip(mod: A.Module) -> None:
    printed = print_module(mod)
    again = parse(printed, "printed.ptx")
    assert again.diagnostics == []
    assert structure(again.module) == structure(mod)
    assert print_module(again.module) == printed  # printing is a fixed point


def _ptxas() -> str | None:
    return os.environ.get("PTXAS") or shutil.which("ptxas")


@pytest.mark.skipif(_ptxas() is None, reason="ptxas not installed")
def test_ptxas_accepts_kitchen_sink_and_printed(mod: A.Module) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in (("orig.ptx", KITCHEN_SINK), ("printed.ptx", print_module(mod))):
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                f.write(text)
            proc = subprocess.run([_ptxas(), "-arch=sm_80", path, "-o", os.devnull],
                                  capture_output=True, text=True, timeout=120)
            assert proc.returncode == 0, f"{name}: {proc.stderr[:2000]}"


@pytest.mark.parametrize("src,expected", [
    ("mov.u32 %r1, 0x7fffffff;", A.Imm(0x7FFFFFFF)),
    ("mov.u32 %r1, 0X10;", A.Imm(16)),
    ("mov.u32 %r1, 017;", A.Imm(15)),
    ("mov.u32 %r1, 0b101;", A.Imm(5)),
    ("mov.u32 %r1, -42;", A.Imm(-42)),
    ("mov.u32 %r1, 42U;", A.Imm(42)),
    ("mov.f32 %f1, 0f3F800000;", A.Imm(0x3F800000, "f32")),
    ("mov.f32 %f1, 0F3F800000;", A.Imm(0x3F800000, "f32")),
    ("mov.f64 %fd1, 0d4000000000000000;", A.Imm(0x4000000000000000, "f64")),
    ("mov.f64 %fd1, 0D4000000000000000;", A.Imm(0x4000000000000000, "f64")),
    ("mov.f32 %f1, -0f3F800000;", A.Imm(0xBF800000, "f32")),
])
def test_immediates(src: str, expected: A.Imm) -> None:
    res = parse(f".version 8.0\n.target sm_80\n.address_size 64\n.entry k() {{ {src} }}")
    assert res.ok
    ins = res.module.functions[0].body.statements[0]
    assert ins.operands[1] == expected


def test_tensor_coordinates_and_double_colon_opcode() -> None:
    res = parse(".entry k() { cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
                "[%r1], [%rd17, {%r33, %r88}], [%r4]; }")
    assert res.diagnostics == []
    ins = res.module.functions[0].body.statements[0]
    assert ins.opcode == "cp.async.bulk.tensor"
    assert ins.fields == {"dim": "2d", "dst": "shared::cluster", "src": "global",
                          "completion": "mbarrier::complete_tx::bytes"}
    assert ins.operands[1] == A.Address(A.Reg("%rd17"), 0, A.Vector((A.Reg("%r33"), A.Reg("%r88"))))


def test_out_of_order_modifiers_decode_and_print_canonically() -> None:
    res = parse(".entry k() { add.ftz.rn.f32 %f1, %f2, %f3; ld.nc.global.f32 %f1, [%rd1]; }")
    assert res.diagnostics == []
    add, ld = res.module.functions[0].body.statements
    assert add.fields == {"rnd": "rn", "ftz": "ftz", "type": "f32"} and add.mods == ("ftz", "rn", "f32")
    assert ld.fields == {"ss": "global", "nc": "nc", "type": "f32"}
    text = print_module(res.module)
    assert "add.rn.ftz.f32 %f1, %f2, %f3;" in text and "ld.global.nc.f32 %f1, [%rd1];" in text


def test_unified_address_and_vector_pair_round_trip() -> None:
    res = parse(".entry k() { ld.global.f32 %f1, [%rd1].unified;\n"
                " tex.3d.v4.s32.s32 {%r1, %r2, %r3, %r4}|%p1, [tex_a, {%f1, %f2, %f3, %f4}];\n"
                " tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex_a, smp, {%f5, %f6}]; }")
    assert res.diagnostics == []
    ld, tex, tex2 = res.module.functions[0].body.statements
    assert ld.operands[1] == A.Address(A.Reg("%rd1"), unified=True)
    assert isinstance(tex.operands[0], A.Pair) and isinstance(tex.operands[0].first, A.Vector)
    assert tex2.operands[1].sampler == A.Sym("smp") and tex2.operands[1].base == A.Sym("tex_a")
    again = parse(print_module(res.module))
    assert again.diagnostics == [] and structure(again.module) == structure(res.module)

"""Representative modules built through cumetal.backends.air.bitcode, shared by the bitcode tests
(no tests here; a ``test_`` name so it stays among the files this area owns)."""

from __future__ import annotations

from cumetal.backends.air.bitcode import (
    AIR_DATALAYOUT,
    BFLOAT,
    DOUBLE,
    FLOAT,
    HALF,
    I1,
    I8,
    I16,
    I32,
    I64,
    SELF,
    VOID,
    DistinctMDNode,
    IRBuilder,
    Module,
    array,
    attrs,
    const_addrspacecast,
    const_array,
    const_binop,
    const_bitcast,
    const_float,
    const_float_bits,
    const_gep,
    const_int,
    const_string,
    const_struct,
    const_vector,
    fn_type,
    int_attr,
    md_tuple,
    null,
    poison,
    ptr,
    string_attr,
    struct,
    undef,
    vector,
    zero,
)

TRIPLE = "air64_v26-apple-macosx14.0.0"
KERNEL_ATTRS = attrs("mustprogress", "nounwind", string_attr("frame-pointer", "all"),
                     string_attr("min-legal-vector-width", "96"), string_attr("no-builtins"),
                     string_attr("no-trapping-math", "true"), string_attr("stack-protector-buffer-size", "8"))
BUFFER = attrs("noundef", "air-buffer-no-alias")
MATH_DECL = attrs("mustprogress", "nofree", "nosync", "nounwind", "readnone", "willreturn")
CONVERGENT_DECL = attrs("convergent", "mustprogress", "nounwind", "willreturn")


def i32(v: int):
    return const_int(I32, v)


def air_module_metadata(m: Module) -> None:
    """Module-level metadata in the shape Apple writes (reference/air-abi-observed.md section 6)."""
    m.add_named_metadata(
        "llvm.module.flags",
        [i32(2), "SDK Version", const_array(I32, [i32(26), i32(5)])],
        [i32(1), "wchar_size", i32(4)],
        [i32(7), "frame-pointer", i32(2)],
        [i32(7), "air.max_device_buffers", i32(31)],
        [i32(7), "air.max_constant_buffers", i32(31)],
        [i32(7), "air.max_threadgroup_buffers", i32(31)],
        [i32(7), "air.max_textures", i32(128)],
        [i32(7), "air.max_read_write_textures", i32(8)],
        [i32(7), "air.max_samplers", i32(16)],
    )
    m.add_named_metadata("llvm.ident", ["CuMetal test module"])
    m.add_named_metadata("air.version", [i32(2), i32(6), i32(0)])
    m.add_named_metadata("air.language_version", ["Metal", i32(3), i32(1), i32(0)])
    m.add_named_metadata("air.compile_options", ["air.compile.denorms_disable"],
                         ["air.compile.fast_math_disable"], ["air.compile.framebuffer_fetch_enable"])


def buffer_md(argno: int, loc: int, access: str, type_name: str, name: str, size: int = 4):
    return [i32(argno), "air.buffer", "air.location_index", i32(loc), i32(1), access,
            "air.address_space", i32(1), "air.arg_type_size", i32(size), "air.arg_type_align_size",
            i32(size), "air.arg_type_name", type_name, "air.arg_name", name]


def vector_add() -> Module:
    """``c[i] = a[i] + b[i]`` with a ``uint3`` thread position, Apple-style metadata and TBAA."""
    m = Module("vadd", triple=TRIPLE, datalayout=AIR_DATALAYOUT)
    fp1 = ptr(FLOAT, 1)
    fn = m.add_function("vadd", fn_type(VOID, [fp1, fp1, fp1, vector(I32, 3)]),
                        arg_names=["a", "b", "c", "gid"], attributes=KERNEL_ATTRS,
                        param_attributes=[BUFFER, BUFFER, BUFFER, attrs("noundef")],
                        unnamed_addr="local_unnamed_addr")
    b = IRBuilder(fn.append_block("entry"))
    a, bb, c, gid = fn.args
    x = b.extract_element(gid, const_int(I64, 0), name="x")
    idx = b.zext(x, I64, name="idx")
    tbaa_root = md_tuple("Simple C++ TBAA")
    tbaa_float = md_tuple("float", md_tuple("omnipotent char", tbaa_root, const_int(I64, 0)), const_int(I64, 0))
    tag = md_tuple(tbaa_float, tbaa_float, const_int(I64, 0))
    loads = []
    for src, nm in ((a, "va"), (bb, "vb")):
        p = b.inbounds_gep(FLOAT, src, [idx], name="p" + nm[1])
        v = b.load(FLOAT, p, align=4, name=nm)
        v.metadata["tbaa"] = tag
        loads.append(v)
    s = b.fadd(loads[0], loads[1], name="sum")
    pc = b.inbounds_gep(FLOAT, c, [idx], name="pc")
    st = b.store(s, pc, align=4)
    st.metadata["tbaa"] = tag
    b.ret_void()
    air_module_metadata(m)
    args = md_tuple(buffer_md(0, 0, "air.read", "float", "a"), buffer_md(1, 1, "air.read", "float", "b"),
                    buffer_md(2, 2, "air.read_write", "float", "c"),
                    [i32(3), "air.thread_position_in_grid", "air.arg_type_name", "uint3", "air.arg_name", "gid"])
    m.add_named_metadata("air.kernel", [fn, [], args])
    return m


def globals_and_constants() -> Module:
    """Threadgroup (AS 3) and constant (AS 2) globals, strings, structs, constant expressions."""
    m = Module("globals", triple=TRIPLE, datalayout=AIR_DATALAYOUT)
    pair = m.struct_type("struct.Pair", [I32, FLOAT])
    node = m.struct_type("struct.Node")
    node.set_body([I32, ptr(node, 1)])  # self-referential through a pointer
    m.struct_type("struct.Opaque")
    tg = m.add_global("_ZZ6kernelE4tile", array(FLOAT, 256), 3, linkage="internal",
                      initializer=undef(array(FLOAT, 256)), align=4)
    m.add_global("_ZZ6kernelE4half", array(HALF, 32), 3, linkage="internal",
                 initializer=undef(array(HALF, 32)), align=2, unnamed_addr="unnamed_addr")
    rot = m.add_global("_ZL9rotations", array(array(I32, 4), 2), 2, linkage="internal", constant=True,
                       initializer=const_array(array(I32, 4), [
                           const_array(I32, [i32(1), i32(-2), i32(3), i32(2147483647)]),
                           const_array(I32, [i32(0), i32(-2147483648), zero(I32), i32(7)])]),
                       align=4)
    m.add_global("msg", array(I8, 6), 2, linkage="private", constant=True, initializer=const_string("hello"),
                 unnamed_addr="unnamed_addr", align=1)
    m.add_global("raw", array(I8, 3), 2, linkage="internal", constant=True,
                 initializer=const_string(b"a\0b", null_terminate=False))
    m.add_global("pairs", array(pair, 2), 2, linkage="internal", constant=True,
                 initializer=const_array(pair, [const_struct([i32(1), const_float(FLOAT, 0.5)], pair),
                                                 const_struct([i32(-1), const_float(FLOAT, -2.0)], pair)]))
    m.add_global("lit", struct([I64, vector(I16, 4), array(I8, 0)], packed=True), 1, linkage="internal",
                 initializer=const_struct([const_int(I64, -1), const_vector([const_int(I16, v) for v in (1, 2, 3, 4)]),
                                           zero(array(I8, 0))], packed=True))
    m.add_global("zeros", array(struct([I32, DOUBLE]), 4), 1, linkage="internal",
                 initializer=zero(array(struct([I32, DOUBLE]), 4)))
    m.add_global("head", node, 1, linkage="internal", initializer=const_struct([i32(5), null(ptr(node, 1))], node))
    m.add_global("ext", I32, 1)  # external declaration
    m.add_global("opaque_ref", ptr(m.struct_types[2], 1), 1, linkage="internal",
                 initializer=null(ptr(m.struct_types[2], 1)))
    fc = m.add_global("fc.MTL_FC_INIT_0_b", I8, 2, linkage="internal", constant=True, initializer=undef(I8),
                      externally_initialized=True, section="air.fc_initializer")
    elem = const_gep(array(array(I32, 4), 2), rot, [const_int(I64, 0), const_int(I64, 1), const_int(I64, 2)],
                     inbounds=True)
    m.add_global("elem_ptr", ptr(I32, 2), 1, linkage="internal", initializer=elem)
    m.add_global("plain_gep", ptr(FLOAT, 3), 1, linkage="internal",
                 initializer=const_gep(array(FLOAT, 256), tg, [const_int(I64, 0), const_int(I64, 3)]))
    m.add_global("llvm.compiler.used", array(ptr(I8), 1), 0, linkage="appending",
                 initializer=const_array(ptr(I8), [const_addrspacecast(fc, ptr(I8))]), section="llvm.metadata")
    ctor_ty = struct([I32, ptr(fn_type(VOID, [])), ptr(I8)])
    m.add_global("llvm.global_ctors", array(ctor_ty, 0), 0, linkage="appending",
                 initializer=zero(array(ctor_ty, 0)))
    m.add_global("sum_expr", I64, 1, linkage="internal",
                 initializer=const_binop("add", const_int(I64, 40), const_int(I64, 2)))
    m.add_global("bits_as_ptr", ptr(FLOAT, 2), 1, linkage="internal",
                 initializer=const_bitcast(elem, ptr(FLOAT, 2)))

    barrier = m.declare("air.wg.barrier", fn_type(VOID, [I32, I32]), attributes=CONVERGENT_DECL)
    k = m.add_function("kernel", fn_type(VOID, [ptr(FLOAT, 1), I32]), arg_names=["out", "lid"],
                       attributes=attrs(KERNEL_ATTRS, "convergent"), param_attributes=[BUFFER, attrs("noundef")])
    b = IRBuilder(k.append_block("entry"))
    out, lid = k.args
    lid64 = b.zext(lid, I64, name="lid64")
    slot = b.inbounds_gep(array(FLOAT, 256), tg, [0, lid64], name="slot")
    b.store(const_float(FLOAT, 1.0), slot, align=4)
    b.call(barrier, [i32(2), i32(1)], tail="tail")
    r = b.inbounds_gep(array(array(I32, 4), 2), rot, [0, 1, lid64], name="r")
    rv = b.load(I32, r, align=4, name="rv")
    b.load(I32, elem, align=4, name="direct")
    f = b.load(FLOAT, slot, align=4, name="f")
    q = b.inbounds_gep(array(pair, 2), m.get("pairs"), [0, 1, 1], name="q")  # type: ignore[arg-type]
    pv = b.load(FLOAT, q, name="pv")
    conv = m.declare("air.convert.f.f32.s.i32", fn_type(FLOAT, [I32]), attributes=MATH_DECL)
    rf = b.call(conv, [rv], tail="tail", name="rf")
    s = b.fadd(f, rf, name="s")
    s2 = b.fmul(s, pv, name="s2")
    o = b.inbounds_gep(FLOAT, out, [lid64], name="o")
    b.store(s2, o, align=4)
    b.ret_void()
    air_module_metadata(m)
    m.add_named_metadata("air.kernel", [k, [], [buffer_md(0, 0, "air.read_write", "float", "out"),
                                                [i32(1), "air.thread_index_in_threadgroup", "air.arg_type_name",
                                                 "uint", "air.arg_name", "lid"]]])
    return m


def control_flow() -> Module:
    """Loops with phis, a switch, select, unreachable and a use laid out before its definition."""
    m = Module("cf", triple=TRIPLE, datalayout=AIR_DATALAYOUT)
    f = m.add_function("sum_to", fn_type(I32, [I32, ptr(I32, 1)]), arg_names=["n", "out"])
    entry, loop, body, done, exit_ = (f.append_block(n) for n in ("entry", "loop", "body", "done", "exit"))
    b = IRBuilder(entry)
    b.br(loop)
    b.position_at_end(loop)
    i = b.phi(I32, name="i")
    acc = b.phi(I32, name="acc")
    cond = b.icmp("slt", i, f.args[0], name="cond")
    b.cond_br(cond, body, done)
    b.position_at_end(body)
    odd = b.and_(i, i32(1), name="odd")
    isodd = b.icmp("ne", odd, i32(0), name="isodd")
    inc = b.select(isodd, i, i32(0), name="inc")
    acc2 = b.add(acc, inc, "nsw", name="acc2")
    i2 = b.add(i, i32(1), ["nuw", "nsw"], name="i2")
    b.br(loop)
    i.add_incoming(i32(0), entry)
    i.add_incoming(i2, body)  # forward reference in a phi
    acc.add_incoming(i32(0), entry)
    acc.add_incoming(acc2, body)
    b.position_at_end(done)
    sw = b.switch(acc, exit_, [(0, exit_)])
    b.position_at_end(exit_)
    res = b.phi(I32, [(acc, done), (acc, done)], name="res")
    b.store(res, f.args[1], align=4)
    b.ret(res)
    other = f.append_block("dead")
    sw.add_case(i32(99), other)
    b.position_at_end(other)
    b.unreachable()

    # Use-before-definition in block layout: %late is defined in a block placed after its user.
    g = m.add_function("layout", fn_type(FLOAT, [FLOAT]), arg_names=["x"])
    e, use, define = (g.append_block(n) for n in ("entry", "use", "define"))
    b = IRBuilder(e)
    b.br(define)
    b.position_at_end(define)
    late_holder = b.fmul(g.args[0], const_float(FLOAT, 3.0), name="late")
    b.br(use)
    b.position_at_end(use)
    total = b.fadd(late_holder, g.args[0], name="total")
    b.ret(total)
    g.blocks[:] = [e, use, define]  # lay "use" out before "define": a forward reference

    # Unnamed values everywhere: numbered slots must follow LLVM's rules.
    h = m.add_function("anon", fn_type(I32, [I32, I32]), linkage="internal", calling_conv="fastcc")
    b = IRBuilder(h.append_block())
    t = b.mul(h.args[0], h.args[1])
    z = b.icmp("eq", t, i32(0))
    yes, no = h.append_block(), h.append_block()
    b.cond_br(z, yes, no)
    b.position_at_end(yes)
    b.ret(i32(-1))
    b.position_at_end(no)
    b.ret(b.sdiv(t, i32(3), "exact"))
    return m


def forward_references() -> Module:
    """Every operand position reading a value defined in a block laid out later (relative IDs
    wrap around 2^32; typed forms carry the type)."""
    m = Module("fwd", triple=TRIPLE, datalayout=AIR_DATALAYOUT)
    sink = m.declare("air.sink", fn_type(VOID, [I32, FLOAT, vector(FLOAT, 4)]))
    f = m.add_function("f", fn_type(I32, [I32, FLOAT, vector(FLOAT, 4), ptr(I32, 1)]),
                       arg_names=["a", "x", "v", "p"])
    a, x, v, p = f.args
    entry, use, tail, define = (f.append_block(n) for n in ("entry", "use", "tail", "define"))
    b = IRBuilder(define)
    li = b.add(a, i32(7), name="li")
    lf = b.fmul(x, x, name="lf")
    lv = b.fadd(v, v, name="lv")
    lc = b.icmp("eq", a, li, name="lc")
    lp = b.gep(I32, p, [li], name="lp")
    lagg = b.insert_value(undef(struct([I32, FLOAT])), li, 0, name="lagg")
    b.br(use)
    b = IRBuilder(use)
    b.add(a, li, name="s1")
    b.icmp("ult", a, li, name="c1")
    b.select(lc, x, lf, name="s2")
    b.select(lc, lf, x, name="s3")
    b.insert_element(v, lf, li, name="s4")
    b.extract_element(lv, li, name="s5")
    b.shuffle_vector(v, lv, [0, 5], name="s6")
    b.shuffle_vector(lv, v, [1, 4], name="s6b")
    b.extract_value(lagg, 1, name="s7")
    b.call(sink, [li, lf, lv])
    b.store(li, lp, align=4)
    b.load(I32, lp, align=4, name="s8")
    b.zext(li, I64, name="s9")
    b.fneg(lf, name="s10")
    b.freeze(li, name="s11")
    b.cond_br(lc, tail, define)
    b = IRBuilder(tail)
    b.switch(li, use, [(1, define)])
    b = IRBuilder(entry)
    b.br(define)
    f.blocks[:] = [entry, use, tail, define]
    g = m.add_function("g", fn_type(I32, [I32]), arg_names=["a"])
    e, r, d = g.append_block("entry"), g.append_block("r"), g.append_block("d")
    b = IRBuilder(d)
    late = b.mul(g.args[0], g.args[0], name="late")
    b.br(r)
    b = IRBuilder(r)
    b.ret(late)
    b = IRBuilder(e)
    b.br(d)
    return m


def air_calls() -> Module:
    """Declared air.* functions with vector and half types, attributes, tail calls, varargs, fastcc."""
    m = Module("calls", triple=TRIPLE, datalayout=AIR_DATALAYOUT)
    conv = m.declare("air.convert.f.v4f32.f.v4f16", fn_type(vector(FLOAT, 4), [vector(HALF, 4)]),
                     attributes=MATH_DECL)
    shuf = m.declare("air.simd_shuffle_down.f32", fn_type(FLOAT, [FLOAT, I16]), attributes=CONVERGENT_DECL)
    dot = m.declare("air.dot.v4f32", fn_type(FLOAT, [vector(FLOAT, 4), vector(FLOAT, 4)]), attributes=MATH_DECL)
    atomic = m.declare("air.atomic.global.add.u.i32", fn_type(I32, [ptr(I32, 1), I32, I32, I32, I1]),
                       attributes=attrs("mustprogress", "nounwind", "willreturn"))
    cmpx = m.declare("air.atomic.local.cmpxchg.weak.i32",
                     fn_type(I32, [ptr(I32, 3), ptr(I32), I32, I32, I32, I32, I1]),
                     attributes=attrs("mustprogress", "nounwind", "willreturn"))
    mm = m.declare("air.simdgroup_matrix_8x8_multiply_accumulate.v64f32.v64f32.v64f32.v64f32",
                   fn_type(vector(FLOAT, 64), [vector(FLOAT, 64)] * 3), attributes=CONVERGENT_DECL)
    printf = m.declare("printf", fn_type(I32, [ptr(I8, 2)], vararg=True))
    bf = m.declare("air.convert.f.bf16.s.i32", fn_type(BFLOAT, [I32]), attributes=MATH_DECL)
    memcpy = m.declare("llvm.memcpy.p0i8.p1i8.i64", fn_type(VOID, [ptr(I8), ptr(I8, 1), I64, I1]),
                       attributes=attrs("argmemonly", "nofree", "nounwind", "willreturn"),
                       param_attributes=[attrs("noalias", "nocapture", "writeonly"),
                                         attrs("noalias", "nocapture", "readonly"), attrs(), attrs("immarg")])
    helper = m.add_function("helper", fn_type(FLOAT, [FLOAT]), linkage="internal", calling_conv="fastcc",
                            arg_names=["v"], attributes=attrs("alwaysinline", "nounwind"))
    b = IRBuilder(helper.append_block("entry"))
    b.ret(b.fmul(helper.args[0], helper.args[0], "fast", name="sq"))

    fmt = m.add_global("fmt", array(I8, 4), 2, linkage="private", constant=True, initializer=const_string("%d\n"))
    k = m.add_function("k", fn_type(VOID, [ptr(vector(HALF, 4), 1), ptr(I32, 1), ptr(I32, 3), I32, I16]),
                       arg_names=["h", "cnt", "tg", "lane", "delta"], attributes=attrs(KERNEL_ATTRS, "convergent"),
                       param_attributes=[attrs(BUFFER, "nocapture", "readonly", int_attr("align", 8)),
                                         attrs(BUFFER, int_attr("dereferenceable", 4)), BUFFER,
                                         attrs("noundef"), attrs("noundef")])
    b = IRBuilder(k.append_block("entry"))
    hv = b.load(vector(HALF, 4), k.args[0], align=8, name="hv")
    fv = b.call(conv, [hv], tail="tail", name="fv")
    d = b.call(dot, [fv, fv], tail="tail", fmf="fast", name="d")
    s = b.call(shuf, [d, k.args[4]], tail="tail", name="s")
    hs = b.call(helper, [s], name="hs")
    b.call(atomic, [k.args[1], k.args[3], i32(0), i32(2), const_int(I1, 1)], tail="tail", name="old")
    exp = b.alloca(I32, align=4, name="expected")
    b.store(i32(0), exp, align=4)
    b.call(cmpx, [k.args[2], exp, i32(1), i32(0), i32(0), i32(1), const_int(I1, 1)], name="prev")
    acc = b.call(mm, [zero(vector(FLOAT, 64)), zero(vector(FLOAT, 64)), undef(vector(FLOAT, 64))], name="acc")
    b.extract_element(acc, i32(63), name="last")
    fmtp = b.inbounds_gep(array(I8, 4), fmt, [0, 0], name="fmtp")
    b.call(printf, [fmtp, k.args[3], hs], param_attributes=[attrs("noundef")], name="n")
    b.call(bf, [k.args[3]], tail="notail", ret_attributes=attrs("noundef"), name="b16")
    buf = b.alloca(array(I8, 16), align=1, name="buf")
    dst = b.inbounds_gep(array(I8, 16), buf, [0, 0], name="dst")
    src = b.bitcast(k.args[1], ptr(I8, 1), name="src")
    b.call(memcpy, [dst, src, const_int(I64, 4), const_int(I1, 0)])
    b.ret_void()
    air_module_metadata(m)
    return m


def every_instruction() -> Module:
    """One of each instruction form the writer supports."""
    m = Module("insts", triple=TRIPLE, datalayout=AIR_DATALAYOUT)
    agg_t = struct([I32, FLOAT, array(I8, 2)])
    f = m.add_function("all", fn_type(I64, [I32, I32, FLOAT, DOUBLE, vector(FLOAT, 4), agg_t, ptr(I32, 1), HALF]),
                       arg_names=["a", "b", "x", "dx", "v", "agg", "p", "h"])
    b = IRBuilder(f.append_block("entry"))
    a, bb, x, dx, v, agg, p, h = f.args
    ints = {}
    for op, flags in [("add", {"nuw"}), ("sub", {"nsw"}), ("mul", {"nuw", "nsw"}), ("udiv", {"exact"}),
                      ("sdiv", set()), ("urem", set()), ("srem", set()), ("shl", {"nsw"}),
                      ("lshr", {"exact"}), ("ashr", set()), ("and", set()), ("or", set()), ("xor", set())]:
        ints[op] = b.binop(op, a, bb, flags, name=op)
    fl = {}
    for op, fmf in [("fadd", "fast"), ("fsub", {"nnan", "ninf"}), ("fmul", {"nsz", "arcp"}),
                    ("fdiv", {"contract", "afn", "reassoc"}), ("frem", set())]:
        fl[op] = b.binop(op, x, x, fmf, name=op)
    vadd = b.fadd(v, v, name="vadd")
    b.fneg(x, name="neg")
    b.fneg(dx, "fast", name="dneg")
    for pred in ("eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle"):
        b.icmp(pred, a, bb, name="i" + pred)
    for pred in ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "uno", "ueq", "ugt", "uge",
                 "ult", "ule", "une", "true"):
        b.fcmp(pred, x, fl["fadd"], name="f" + pred)
    vcmp = b.fcmp("olt", v, vadd, "nnan", name="vcmp")
    b.select(vcmp, v, vadd, name="vsel")
    c = b.icmp("ult", a, bb, name="c")
    b.select(c, x, fl["fmul"], "fast", name="fsel")
    b.select(c, poison(I32), undef(I32), name="psel")
    a64 = b.zext(a, I64, name="a64")
    b.sext(bb, I64, name="b64")
    b.trunc(a, I8, name="a8")
    xh = b.fptrunc(x, HALF, name="xh")
    b.fpext(h, DOUBLE, name="hd")
    b.fpext(xh, FLOAT, name="hf")
    b.fptrunc(x, BFLOAT, name="xb")
    for op, src, dst in [("fptoui", x, I32), ("fptosi", x, I64), ("uitofp", a, FLOAT), ("sitofp", bb, DOUBLE)]:
        b.cast(op, src, dst, name=op)
    b.bitcast(x, I32, name="xbits")
    b.bitcast(v, vector(I32, 4), name="vbits")
    b.bitcast(v, vector(HALF, 8), name="vhalf")
    pg = b.addrspacecast(p, ptr(I32), name="pg")
    pi = b.ptrtoint(p, I64, name="pi")
    b.inttoptr(pi, ptr(FLOAT, 1), name="pf")
    b.bitcast(p, ptr(FLOAT, 1), name="pcast")
    b.zext(vcmp, vector(I32, 4), name="vz")
    slot = b.alloca(agg_t, align=8, name="slot")
    b.alloca(I32, name="noalign")
    fld = b.inbounds_gep(agg_t, slot, [0, 2, 1], name="fld")
    b.store(const_int(I8, 200), fld, align=1, volatile=True)
    b.load(I8, fld, volatile=True, name="vload")
    b.load(I32, pg, align=16, name="pgl")
    b.gep(I32, p, [a64], name="plain")
    e = b.extract_element(v, a, name="e")
    ins = b.insert_element(v, e, 3, name="ins")
    b.shuffle_vector(v, ins, [0, 5, -1, 7, 1, 1], name="shuf")
    b.shuffle_vector(v, v, [-1, -1], name="allundef")
    b.shuffle_vector(v, v, [0, 0, 0, 0], name="splat")
    ev = b.extract_value(agg, [2, 1], name="ev")
    iv = b.insert_value(agg, ev, [2, 0], name="iv")
    b.insert_value(iv, x, 1, name="iv2")
    b.freeze(b.add(a, poison(I32), name="maybe_poison"), name="frozen")
    b.fence("acquire", "singlethread")
    b.fence("seq_cst")
    b.atomic_rmw("add", p, a, "monotonic", name="rmw")
    b.atomic_rmw("xchg", p, bb, "seq_cst", syncscope="singlethread", volatile=True, align=8, name="xchg")
    b.cmpxchg(p, a, bb, "acq_rel", "acquire", weak=True, name="cx")
    b.cmpxchg(p, a, bb, "seq_cst", "seq_cst", volatile=True, name="cx2")
    r = b.add(ints["xor"], ints["mul"], name="r")
    r64 = b.zext(r, I64, name="r64")
    b.ret(r64)
    return m


# Floating-point bit patterns that must survive exactly (NaN payloads, denormals, signed zero).
FLOAT_BITS = [0x7F800001, 0x7FC00123, 0xFFC00000, 0x7F800000, 0x00000001, 0x807FFFFF, 0x80000000, 0x3F800000]
HALF_BITS = [0x0001, 0x7BFF, 0x7C01, 0xFE00, 0x8000, 0x3C00, 0x03FF]
BFLOAT_BITS = [0x3F80, 0x7F81, 0x0001, 0xFF80]
DOUBLE_BITS = [0x7FF0000000000001, 0x0000000000000001, 0x400921FB54442D18, 0x8000000000000000]


def float_constants() -> Module:
    m = Module("floats", triple=TRIPLE, datalayout=AIR_DATALAYOUT)
    for name, ty, pats in (("f32", FLOAT, FLOAT_BITS), ("f16", HALF, HALF_BITS), ("bf16", BFLOAT, BFLOAT_BITS),
                           ("f64", DOUBLE, DOUBLE_BITS)):
        m.add_global(name, array(ty, len(pats)), 2, linkage="internal", constant=True,
                     initializer=const_array(ty, [const_float_bits(ty, p) for p in pats]))
    f = m.add_function("use", fn_type(FLOAT, [FLOAT, HALF]), arg_names=["x", "h"])
    b = IRBuilder(f.append_block("entry"))
    t = b.fadd(f.args[0], const_float_bits(FLOAT, 0x7FA00001), name="t")  # signalling NaN with payload
    u = b.fmul(t, const_float_bits(FLOAT, 0x00000003), name="u")  # denormal
    hh = b.fadd(f.args[1], const_float_bits(HALF, 0x0001), name="hh")
    w = b.fpext(hh, FLOAT, name="w")
    b.ret(b.fadd(u, w, name="r"))
    return m


def alias_scopes() -> Module:
    """Distinct self-referential alias-scope nodes, as Apple attaches to buffer accesses."""
    m = Module("scopes", triple=TRIPLE, datalayout=AIR_DATALAYOUT)
    f = m.add_function("k", fn_type(VOID, [ptr(I8, 1)]), arg_names=["out"], param_attributes=[BUFFER])
    domain = DistinctMDNode(SELF, "air-alias-scopes(k)")
    scope = DistinctMDNode(SELF, domain, "air-alias-scope-arg(0)")
    b = IRBuilder(f.append_block("entry"))
    st = b.store(const_int(I8, 127), f.args[0], align=1)
    st.metadata["alias.scope"] = md_tuple(scope)
    st.metadata["noalias"] = md_tuple(scope)
    st.metadata["air.custom_kind"] = md_tuple("custom")
    b.ret_void()
    m.add_named_metadata("scopes", md_tuple(domain, None, scope))
    return m


ALL = {
    "vector_add": vector_add,
    "globals_and_constants": globals_and_constants,
    "control_flow": control_flow,
    "forward_references": forward_references,
    "air_calls": air_calls,
    "every_instruction": every_instruction,
    "float_constants": float_constants,
    "alias_scopes": alias_scopes,
}

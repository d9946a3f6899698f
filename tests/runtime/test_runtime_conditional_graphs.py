"""Conditional graph nodes (IF with ELSE, WHILE, SWITCH), the generic node calls and their C layouts."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from tests.runtime.conftest import check

from cumetal import runtime as rt

E = rt.cudaError_t
T = rt.cudaGraphNodeType
C = rt.cudaGraphConditionalNodeType

# step(counter, handle, limit): *counter += 1; the handle's value = (*counter < limit)
# bump(cell, amount): *cell += amount (a body kernel whose effect the test counts)
PTX = r"""
.version 8.0
.target sm_80
.address_size 64
.visible .entry step(.param .u64 counter, .param .u64 handle, .param .u32 limit)
{
    .reg .u64 %rd<3>; .reg .u32 %r<4>; .reg .pred %p;
    ld.param.u64 %rd1, [counter]; ld.param.u64 %rd2, [handle]; ld.param.u32 %r3, [limit];
    ld.global.u32 %r1, [%rd1]; add.u32 %r1, %r1, 1; st.global.u32 [%rd1], %r1;
    setp.lt.u32 %p, %r1, %r3; selp.u32 %r2, 1, 0, %p;
    st.volatile.u32 [%rd2], %r2;
    ret;
}
.visible .entry bump(.param .u64 cell, .param .u32 amount)
{
    .reg .u64 %rd1; .reg .u32 %r<3>;
    ld.param.u64 %rd1, [cell]; ld.param.u32 %r2, [amount];
    ld.global.u32 %r1, [%rd1]; add.u32 %r1, %r1, %r2; st.global.u32 [%rd1], %r1;
    ret;
}
"""
U64, U32 = ctypes.c_uint64, ctypes.c_uint32


@pytest.fixture
def kernels():
    lib = check(rt.cudaLibraryLoadData(PTX.encode(), None, None, 0, None, None, 0))
    return check(rt.cudaLibraryGetKernel(lib, b"step")), check(rt.cudaLibraryGetKernel(lib, b"bump"))


def _kernel_node(func, args, types):
    p = rt.cudaGraphNodeParams()
    p.type = T.cudaGraphNodeTypeKernel
    p.kernel.func = func
    for d in (p.kernel.gridDim, p.kernel.blockDim):
        d.x = d.y = d.z = 1
    keep = [t(v) for v, t in zip(args, types, strict=True)]
    ptrs = (ctypes.c_void_p * len(keep))(*[ctypes.addressof(k) for k in keep])
    p.kernel.kernelParams = ctypes.addressof(ptrs)
    return p, (keep, ptrs)


def _cond_node(graph, deps, handle, kind, size):
    p = rt.cudaGraphNodeParams()
    p.type = T.cudaGraphNodeTypeConditional
    p.conditional.handle = int(handle)
    p.conditional.type = kind
    p.conditional.size = size
    node = check(rt.cudaGraphAddNode(graph, deps, None, len(deps), p))
    return node, p.conditional.phGraph_out


def _read(d):
    out = np.zeros(1, np.uint32)
    check(rt.cudaMemcpy(out, d, 4, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    return int(out[0])


def _zero(d):
    check(rt.cudaMemset(d, 0, 4))


def test_while_loop_runs_its_body_until_the_kernel_clears_the_handle(kernels):
    step, bump = kernels
    counter, total = check(rt.cudaMalloc(4)), check(rt.cudaMalloc(4))
    g = check(rt.cudaGraphCreate(0))
    h = check(rt.cudaGraphConditionalHandleCreate(g, 1, rt.cudaGraphConditionalHandleFlags.cudaGraphCondAssignDefault))
    node, (body,) = _cond_node(g, [], h, C.cudaGraphCondTypeWhile, 1)
    bp, keep1 = _kernel_node(bump, (total, 10), (U64, U32))
    b1 = check(rt.cudaGraphAddNode(body, None, None, 0, bp))
    sp, keep2 = _kernel_node(step, (counter, int(h), 5), (U64, U64, U32))
    check(rt.cudaGraphAddNode(body, [b1], None, 1, sp))
    ex = check(rt.cudaGraphInstantiate(g, 0))
    s = check(rt.cudaStreamCreate())
    for _ in range(2):  # the default value (1) is assigned again at each launch
        _zero(counter)
        _zero(total)
        check(rt.cudaGraphLaunch(ex, s))
        check(rt.cudaStreamSynchronize(s))
        assert (_read(counter), _read(total)) == (5, 50)
    assert check(rt.cudaGraphNodeGetType(node)) == T.cudaGraphNodeTypeConditional
    got = check(rt.cudaGraphNodeGetParams(node))
    assert (got.conditional.type, got.conditional.size, int(got.conditional.phGraph_out[0])) == (
        C.cudaGraphCondTypeWhile, 1, int(body))
    check(rt.cudaGraphExecDestroy(ex))
    check(rt.cudaGraphDestroy(g))
    del keep1, keep2


def test_if_else_and_switch_choose_by_the_value_set_on_the_device(kernels):
    step, bump = kernels
    counter, total = check(rt.cudaMalloc(4)), check(rt.cudaMalloc(4))
    keep = []
    g = check(rt.cudaGraphCreate(0))
    h_if = check(rt.cudaGraphConditionalHandleCreate(g, 0, 0))
    h_sw = check(rt.cudaGraphConditionalHandleCreate(g, 0, 0))
    sp, k = _kernel_node(step, (counter, int(h_if), 2), (U64, U64, U32))  # first launch: 1 (< 2), then 0
    keep.append(k)
    first = check(rt.cudaGraphAddNode(g, None, None, 0, sp))
    _, (then_g, else_g) = _cond_node(g, [first], h_if, C.cudaGraphCondTypeIf, 2)
    for body, amount in ((then_g, 1), (else_g, 100)):
        bp, k = _kernel_node(bump, (total, amount), (U64, U32))
        keep.append(k)
        check(rt.cudaGraphAddNode(body, None, None, 0, bp))
    sw_node, bodies = _cond_node(g, [], h_sw, C.cudaGraphCondTypeSwitch, 3)
    for i, body in enumerate(bodies):
        bp, k = _kernel_node(bump, (total, 1000 * (i + 1)), (U64, U32))
        keep.append(k)
        check(rt.cudaGraphAddNode(body, None, None, 0, bp))
    ex = check(rt.cudaGraphInstantiate(g, 0))
    _zero(counter)
    results = []
    for switch_value in (2, 7):  # 7: no such body, nothing runs
        _zero(total)
        ctypes.c_uint.from_address(int(h_sw)).value = switch_value  # the handle is the cell's address
        check(rt.cudaGraphLaunch(ex, 0))
        check(rt.cudaDeviceSynchronize())
        results.append(_read(total))
    assert results == [1 + 3000, 100]
    # a body graph belongs to its node; destroying the parent frees everything
    assert rt.cudaGraphDestroy(then_g)[0] == E.cudaErrorInvalidValue
    check(rt.cudaGraphExecDestroy(ex))
    check(rt.cudaGraphDestroy(g))


def test_bad_conditional_parameters_are_refused(kernels):
    g = check(rt.cudaGraphCreate(0))
    other = check(rt.cudaGraphCreate(0))
    h = check(rt.cudaGraphConditionalHandleCreate(other, 0, 0))
    p = rt.cudaGraphNodeParams()
    p.type = T.cudaGraphNodeTypeConditional
    p.conditional.handle, p.conditional.type, p.conditional.size = int(h), C.cudaGraphCondTypeWhile, 1
    assert rt.cudaGraphAddNode(g, None, None, 0, p)[0] == E.cudaErrorInvalidValue  # another graph's handle
    h2 = check(rt.cudaGraphConditionalHandleCreate(g, 0, 0))
    p.conditional.handle, p.conditional.size = int(h2), 2
    assert rt.cudaGraphAddNode(g, None, None, 0, p)[0] == E.cudaErrorInvalidValue  # WHILE has one body
    p.conditional.handle, p.conditional.size = 12345, 1
    assert rt.cudaGraphAddNode(g, None, None, 0, p)[0] == E.cudaErrorInvalidValue
    assert rt.cudaGraphConditionalHandleCreate(g, 0, 8)[0] == E.cudaErrorInvalidValue
    p.type = 77
    assert rt.cudaGraphAddNode(g, None, None, 0, p)[0] == E.cudaErrorInvalidValue
    check(rt.cudaGraphDestroy(g))
    check(rt.cudaGraphDestroy(other))


def test_generic_node_calls_and_instantiate_with_params(kernels):
    _step, bump = kernels
    total = check(rt.cudaMalloc(4))
    g = check(rt.cudaGraphCreate(0))
    p = rt.cudaGraphNodeParams()
    p.type = T.cudaGraphNodeTypeMemset
    p.memset.dst, p.memset.value, p.memset.elementSize, p.memset.width, p.memset.height = total, 7, 4, 1, 1
    ms = check(rt.cudaGraphAddNode(g, None, None, 0, p))
    bp, keep = _kernel_node(bump, (total, 5), (U64, U32))
    kn = check(rt.cudaGraphAddNode(g, [ms], None, 1, bp))
    ip = rt.cudaGraphInstantiateParams()
    ex = check(rt.cudaGraphInstantiateWithParams(g, ip))
    assert ip.result_out == rt.cudaGraphInstantiateResult.cudaGraphInstantiateSuccess
    check(rt.cudaGraphLaunch(ex, 0))
    check(rt.cudaDeviceSynchronize())
    assert _read(total) == 12
    p.memset.value = 40
    check(rt.cudaGraphExecNodeSetParams(ex, ms, p))
    check(rt.cudaGraphLaunch(ex, 0))
    check(rt.cudaDeviceSynchronize())
    assert _read(total) == 45
    got = check(rt.cudaGraphNodeGetParams(kn))
    assert (got.type, got.kernel.gridDim.x, got.kernel.blockDim.z) == (T.cudaGraphNodeTypeKernel, 1, 1)
    assert rt.cudaGraphNodeSetParams(kn, p)[0] == E.cudaErrorInvalidValue  # a memset's params for a kernel node
    check(rt.cudaGraphExecDestroy(ex))
    check(rt.cudaGraphDestroy(g))
    del keep


def test_layouts_match_cuda_bindings():
    real = pytest.importorskip("cuda.bindings.runtime")
    for name in ("cudaGraphNodeParams", "cudaKernelNodeParamsV2", "cudaConditionalNodeParams",
                 "cudaMemcpyNodeParams", "cudaMemsetParamsV2", "cudaHostNodeParamsV2", "cudaChildGraphNodeParams",
                 "cudaEventRecordNodeParams", "cudaGraphInstantiateParams"):
        assert getattr(rt, name).sizeof() == real.sizeof(getattr(real, name)), name
    theirs, ours = real.cudaGraphNodeParams(), rt.cudaGraphNodeParams()
    for member in ("kernel", "memcpy", "memset", "host", "graph", "eventRecord", "conditional"):
        assert (getattr(theirs, member).getPtr() - theirs.getPtr()
                == getattr(ours, member).getPtr() - ours.getPtr()), member
    c = real.cudaConditionalNodeParams()
    c.handle, c.type, c.size = 0x1122334455, 2, 3
    mine = rt.cudaConditionalNodeParams.from_address(c.getPtr())
    assert (int(mine.handle), mine.type, mine.size) == (0x1122334455, C.cudaGraphCondTypeSwitch, 3)
    k = real.cudaKernelNodeParamsV2()
    k.sharedMemBytes, k.kernelParams, k.extra = 77, 0x1000, 0x2000
    mk = rt.cudaKernelNodeParamsV2.from_address(k.getPtr())
    assert (mk.sharedMemBytes, mk.kernelParams, mk.extra) == (77, 0x1000, 0x2000)

"""User objects (reference counts held by callers, graphs, executable graphs and launches) and
kernel-node attributes."""

from __future__ import annotations

import threading
import time

from tests.runtime.conftest import check, kernel

from cumetal import runtime as rt

E = rt.cudaError_t
A = rt.cudaLaunchAttributeID


def _destroyed_event():
    done = threading.Event()
    return done, (lambda data: done.set())


def test_user_object_lives_while_any_reference_does(lib):
    done, fn = _destroyed_event()
    obj = check(rt.cudaUserObjectCreate(None, fn, 1, rt.cudaUserObjectFlags.cudaUserObjectNoDestructorSync))
    g = check(rt.cudaGraphCreate(0))
    check(rt.cudaGraphRetainUserObject(g, obj, 2, 0))
    check(rt.cudaGraphReleaseUserObject(g, obj, 1))
    clone = check(rt.cudaGraphClone(g))
    ex = check(rt.cudaGraphInstantiate(g, 0))
    check(rt.cudaUserObjectRelease(obj, 1))  # the caller's reference
    check(rt.cudaGraphDestroy(g))
    check(rt.cudaGraphDestroy(clone))
    check(rt.cudaGraphLaunch(ex, 0))
    check(rt.cudaGraphExecDestroy(ex))  # the launch may still hold it
    check(rt.cudaDeviceSynchronize())
    assert done.wait(5)
    assert rt.cudaUserObjectRetain(obj, 1)[0] == E.cudaErrorInvalidValue  # gone


def test_user_object_moved_into_a_graph_and_bad_counts(lib):
    done, fn = _destroyed_event()
    obj = check(rt.cudaUserObjectCreate(None, fn, 2, 1))
    g = check(rt.cudaGraphCreate(0))
    check(rt.cudaGraphRetainUserObject(g, obj, 1, rt.cudaUserObjectRetainFlags.cudaGraphUserObjectMove))
    assert rt.cudaGraphReleaseUserObject(g, obj, 2)[0] == E.cudaErrorInvalidValue  # the graph holds 1
    assert rt.cudaUserObjectRelease(obj, 5)[0] == E.cudaErrorInvalidValue
    assert rt.cudaUserObjectCreate(None, fn, 0, 1)[0] == E.cudaErrorInvalidValue
    assert rt.cudaUserObjectCreate(None, fn, 1, 0)[0] == E.cudaErrorInvalidValue  # flags must say NoDestructorSync
    check(rt.cudaUserObjectRelease(obj, 1))
    time.sleep(0.05)
    assert not done.is_set()
    check(rt.cudaGraphDestroy(g))
    assert done.wait(5)


def test_kernel_node_attributes(lib):
    f = kernel(lib, "vector_add")
    d = check(rt.cudaMalloc(64))
    p = rt.cudaKernelNodeParams()
    p.func, p.gridDim, p.blockDim = f, rt.dim3(x=1), rt.dim3(x=16)
    import ctypes

    p.kernelParams = ((d, d, d, 16), (ctypes.c_void_p,) * 3 + (ctypes.c_int,))
    g = check(rt.cudaGraphCreate(0))
    a = check(rt.cudaGraphAddKernelNode(g, None, 0, p))
    b = check(rt.cudaGraphAddKernelNode(g, [a], 1, p))
    value = check(rt.cudaGraphKernelNodeGetAttribute(a, A.cudaLaunchAttributePriority))
    assert value.priority == 0
    value.priority = 3
    check(rt.cudaGraphKernelNodeSetAttribute(a, A.cudaLaunchAttributePriority, value))
    value.accessPolicyWindow.num_bytes = 4096
    check(rt.cudaGraphKernelNodeSetAttribute(a, A.cudaLaunchAttributeAccessPolicyWindow, value))
    check(rt.cudaGraphKernelNodeCopyAttributes(b, a))
    assert check(rt.cudaGraphKernelNodeGetAttribute(b, A.cudaLaunchAttributePriority)).priority == 3
    got = check(rt.cudaGraphKernelNodeGetAttribute(b, A.cudaLaunchAttributeAccessPolicyWindow))
    assert got.accessPolicyWindow.num_bytes == 4096
    clone = check(rt.cudaGraphClone(g))
    twin = check(rt.cudaGraphNodeFindInClone(a, clone))
    assert check(rt.cudaGraphKernelNodeGetAttribute(twin, A.cudaLaunchAttributePriority)).priority == 3
    value.cooperative = 1  # one block: allowed
    check(rt.cudaGraphKernelNodeSetAttribute(a, A.cudaLaunchAttributeCooperative, value))
    value.clusterDim.x = 2
    assert rt.cudaGraphKernelNodeSetAttribute(a, A.cudaLaunchAttributeClusterDimension, value)[0] == \
        E.cudaErrorNotSupported
    assert rt.cudaGraphKernelNodeGetAttribute(a, A.cudaLaunchAttributeProgrammaticEvent)[0] == E.cudaErrorInvalidValue
    empty = check(rt.cudaGraphAddEmptyNode(g, None, 0))
    assert rt.cudaGraphKernelNodeGetAttribute(empty, A.cudaLaunchAttributePriority)[0] == E.cudaErrorInvalidValue
    assert check(rt.cudaGraphNodeGetToolsId(a)) != check(rt.cudaGraphNodeGetToolsId(b))
    ex = check(rt.cudaGraphInstantiate(g, 0))  # the attributes do not stop the nodes from running
    check(rt.cudaGraphLaunch(ex, 0))
    check(rt.cudaDeviceSynchronize())
    check(rt.cudaGraphExecDestroy(ex))
    check(rt.cudaGraphDestroy(g))
    check(rt.cudaGraphDestroy(clone))

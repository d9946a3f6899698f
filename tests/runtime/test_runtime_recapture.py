"""cudaStreamBeginRecaptureToGraph: recapturing the same work with other arguments updates the
existing graph's nodes in place (handles kept; the callback hears of each changed node), checked by
launching the graph against numpy; a different topology or a failing callback is
cudaErrorGraphRecaptureFailure."""

from __future__ import annotations

import ctypes

import numpy as np
from tests.runtime.conftest import D2H, H2D, KERNELS_PTX, check

from cumetal import runtime as rt

E = rt.cudaError_t
GLOBAL = rt.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal
ARGS = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)
N = 600


def _work(k, s, d, fill):
    check(rt.cudaLaunchKernel(k, ((N + 255) // 256, 1, 1), (256, 1, 1), ((d, d, d, N), ARGS), 0, s))  # d = 2d
    check(rt.cudaMemsetAsync(fill, 7, 64, s))


def _get(d):
    out = np.zeros(N, np.float32)
    check(rt.cudaMemcpy(out, d, N * 4, D2H))
    return out


def test_recapture_updates_nodes_in_place():
    lib = check(rt.cudaLibraryLoadData(KERNELS_PTX.read_text(), None, None, 0, None, None, 0))
    k = check(rt.cudaLibraryGetKernel(lib, b"vector_add"))
    x = np.arange(N, dtype=np.float32)
    d1, d2, fill = (check(rt.cudaMalloc(N * 4)) for _ in range(3))
    for d in (d1, d2):
        check(rt.cudaMemcpy(d, x, N * 4, H2D))
    s = check(rt.cudaStreamCreate())
    check(rt.cudaStreamBeginCapture(s, GLOBAL))
    _work(k, s, d1, fill)
    g = check(rt.cudaStreamEndCapture(s))
    nodes, _count = check(rt.cudaGraphGetNodes(g, 8))
    calls = []

    def callback(data, node, original, recaptured, status):
        calls.append((data, int(node), status, original.type, recaptured.type))
        return 0

    check(rt.cudaStreamBeginRecaptureToGraph(s, GLOBAL, g, rt.cudaGraphRecaptureCallbackData(callback, "tag")))
    _work(k, s, d2, fill)  # the same work on d2: only the kernel node's arguments change
    again = check(rt.cudaStreamEndCapture(s))
    assert int(again) == int(g)
    assert [int(n) for n in check(rt.cudaGraphGetNodes(g, 8))[0]] == [int(n) for n in nodes]
    kernel = next(int(n) for n in nodes if check(rt.cudaGraphNodeGetType(n)) == rt.cudaGraphNodeType.cudaGraphNodeTypeKernel)
    T = rt.cudaGraphNodeType.cudaGraphNodeTypeKernel
    assert calls == [("tag", kernel, rt.cudaGraphRecaptureStatus.cudaGraphRecaptureEligibleForUpdate, T, T)]
    exe = check(rt.cudaGraphInstantiate(g, 0))
    check(rt.cudaGraphLaunch(exe, s))
    check(rt.cudaStreamSynchronize(s))
    np.testing.assert_array_equal(_get(d2), 2 * x)  # the recaptured argument
    np.testing.assert_array_equal(_get(d1), x)      # not the original one
    # a different topology (the memset left out) fails, and the stream is no longer capturing
    check(rt.cudaStreamBeginRecaptureToGraph(s, GLOBAL, g, None))
    check(rt.cudaLaunchKernel(k, (3, 1, 1), (256, 1, 1), ((d1, d1, d1, N), ARGS), 0, s))
    assert rt.cudaStreamEndCapture(s)[0] == E.cudaErrorGraphRecaptureFailure
    assert check(rt.cudaStreamIsCapturing(s)) == rt.cudaStreamCaptureStatus.cudaStreamCaptureStatusNone
    # a callback that refuses fails the recapture
    refuse = rt.cudaGraphRecaptureCallbackData(lambda *a: E.cudaErrorInvalidValue, None)
    check(rt.cudaStreamBeginRecaptureToGraph(s, GLOBAL, g, refuse))
    _work(k, s, d1, fill)
    assert rt.cudaStreamEndCapture(s)[0] == E.cudaErrorGraphRecaptureFailure
    assert rt.cudaStreamBeginRecaptureToGraph(s, GLOBAL, 12345, None)[0] == E.cudaErrorInvalidValue
    assert rt.cudaStreamBeginRecaptureToGraph(0, GLOBAL, g, None)[0] == E.cudaErrorStreamCaptureUnsupported
    check(rt.cudaGraphExecDestroy(exe))
    check(rt.cudaGraphDestroy(g))
    check(rt.cudaStreamDestroy(s))
    for d in (d1, d2, fill):
        check(rt.cudaFree(d))

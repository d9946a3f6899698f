"""Where CUDA reports a failed recapture (cudaStreamBeginRecaptureToGraph): at the call that creates
the mismatching node, or at cudaStreamEndCapture? Run on an NVIDIA GPU with cuda-bindings 13.x:
``python scripts/probe_recapture_on_cuda.py > recapture.txt``. The answers decide what
cumetal.runtime.graph_recapture does (docs/runtime-api.md, "Recapture")."""

from __future__ import annotations

import ctypes

from cuda.bindings import runtime as rt

MODE = rt.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal


def name(err) -> str:
    return rt.cudaError_t(int(err)).name


def original(s, a, b):
    """A graph of two memset nodes, captured."""
    rt.cudaStreamBeginCapture(s, MODE)
    rt.cudaMemsetAsync(a, 1, 256, s)
    rt.cudaMemsetAsync(b, 2, 256, s)
    return rt.cudaStreamEndCapture(s)[1]


def recapture(label, s, a, b, ops, callback=None):
    g = original(s, a, b)
    err = rt.cudaStreamBeginRecaptureToGraph(s, MODE, g, callback)[0]
    print(f"{label}: begin {name(err)}")
    for op_name, op in ops:
        err = op()[0]
        status = rt.cudaStreamIsCapturing(s)
        print(f"{label}: {op_name} -> {name(err)}; capturing={status[1].name if status[0] == 0 else name(status[0])}")
    res = rt.cudaStreamEndCapture(s)
    print(f"{label}: end -> {name(res[0])}; graph {'same' if res[1] is not None and int(res[1]) == int(g) else res[1]}")
    print(f"{label}: last error {name(rt.cudaGetLastError()[0])}")
    if res[0] == 0:
        err, ge = rt.cudaGraphInstantiate(res[1], 0)
        err2 = rt.cudaGraphLaunch(ge, s)[0] if err == 0 else err
        rt.cudaStreamSynchronize(s)
        host = (ctypes.c_ubyte * 256)()
        rt.cudaMemcpy(ctypes.addressof(host), a, 256, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost)
        print(f"{label}: instantiate {name(err)} launch {name(err2)} a[0]={host[0]}")


def main():
    print("driver", rt.cudaDriverGetVersion(), "runtime", rt.cudaRuntimeGetVersion())
    s = rt.cudaStreamCreate()[1]
    a = rt.cudaMalloc(1024)[1]
    b = rt.cudaMalloc(1024)[1]
    h2d = rt.cudaMemcpyKind.cudaMemcpyDeviceToDevice
    memset_a = ("memset a=7", lambda: rt.cudaMemsetAsync(a, 7, 256, s))
    memset_b = ("memset b=2", lambda: rt.cudaMemsetAsync(b, 2, 256, s))
    memcpy = ("memcpy b<-a", lambda: rt.cudaMemcpyAsync(b, a, 256, h2d, s))
    recapture("same-topology-new-value", s, a, b, [memset_a, memset_b])
    recapture("kind-mismatch-at-2", s, a, b, [memset_a, memcpy, memset_b])
    recapture("extra-node", s, a, b, [memset_a, memset_b, memset_b])
    recapture("missing-node", s, a, b, [memset_a])
    fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                          ctypes.c_int)(lambda *args: 999)
    try:
        cb = rt.cudaGraphRecaptureCallbackData()
        cb.callbackFunc = ctypes.cast(fn, ctypes.c_void_p).value
        recapture("callback-returns-error", s, a, b, [memset_a, memset_b], cb)
    except Exception as e:  # noqa: BLE001 - a probe: say what happened
        print("callback-returns-error: could not set the callback:", repr(e))


if __name__ == "__main__":
    main()

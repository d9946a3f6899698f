"""``cuStreamBeginRecaptureToGraph`` and ``cuMemGetLocationInfo``: the driver faces of the Runtime
API's ``cudaStreamBeginRecaptureToGraph`` (``runtime/graph_recapture.py``: the scratch capture is
matched node by node with the existing graph when ``cuStreamEndCapture`` runs) and
``cudaMemGetLocationInfo`` (``runtime/queries_more.py``: managed memory is device 0's, pageable host
memory the host's). One implementation each; these translate handles, structs and error codes.
"""

from __future__ import annotations

import ctypes
from typing import Any

from cumetal.driver.enums import CUresult
from cumetal.driver.enums_more import CUmemLocationType
from cumetal.driver.errors import CudaError, api
from cumetal.driver.state import STATE

R = CUresult


def _callback(fn: Any) -> Any:
    """A Python callable, the address of a C ``CUgraphRecaptureCallback``, or None."""
    if fn is None or callable(fn):
        return fn
    if isinstance(fn, ctypes._CFuncPtr):  # type: ignore[attr-defined]
        fn = ctypes.cast(fn, ctypes.c_void_p).value or 0
    try:
        address = int(fn)
    except (TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"callbackFunc must be a function or its address, got "
                        f"{type(fn).__name__}") from None
    if address < 0 or address >= 1 << 64:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"callbackFunc {address:#x} is not an address")
    return address or None


@api(0)
def cuStreamBeginRecaptureToGraph(hStream: Any, mode: Any, hGraph: Any, callbackFunc: Any = None,  # noqa: N802, N803
                                  userData: Any = None) -> tuple:
    """Capture ``hStream`` again into ``hGraph``: at ``cuStreamEndCapture`` the recaptured work must
    have the graph's topology (else ``CUDA_ERROR_GRAPH_RECAPTURE_FAILURE``); nodes whose parameters
    changed are reported to ``callbackFunc(userData, node, originalParams, recaptureParams, status)``
    (``CUgraphNodeParams``, ``CUgraphRecaptureStatus``) and then take the new parameters in place."""
    from cumetal.driver.graphs import _capture_stream, _graph, _translated, begin_capture
    from cumetal.driver.misc_more import release_graph_references
    from cumetal.runtime import graph_recapture, graphs, user_objects

    STATE.require_init()
    with _translated():
        target = _graph(hGraph)
    if target.parent is not None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "a conditional node's body graph cannot be recaptured")
    fn = _callback(callbackFunc)
    begin_capture(hStream, mode)
    cap = graphs._captures[_capture_stream(hStream)]
    graph_recapture.register(cap.graph.handle, target, fn, userData, api="driver")
    # "Any user objects associated with graph will be released prior to the recapture."
    release_graph_references(target.handle)
    user_objects.release_all(target.user_objects)
    return ()


def finish_recapture(scratch: Any) -> Any:
    """For ``cuStreamEndCapture``: the recaptured graph (or ``scratch`` when it is no recapture)."""
    from cumetal.driver.graphs import _translated
    from cumetal.runtime import graph_recapture

    if not graph_recapture.pending(scratch.handle):
        return scratch
    with _translated():
        return graph_recapture.finish(scratch)


@api(0)
def cuMemGetLocationInfo(ptr: Any, size: Any, summaryGranularity: Any, samplingGranularity: Any,  # noqa: N802, N803
                         location_out: Any) -> tuple:
    """Fills ``location_out`` (a ``CUmemLocation``, a list of ``ceil(size / summaryGranularity)`` of them,
    or the address of a C array) with each region's location: managed memory (``cuMemAllocManaged``,
    ``__managed__`` variables) is ``CU_MEM_LOCATION_TYPE_DEVICE`` 0, pageable host memory
    ``CU_MEM_LOCATION_TYPE_HOST``; device, pinned and registered memory is ``CUDA_ERROR_INVALID_VALUE``."""
    from cumetal.driver.handles_more import CUmemLocation
    from cumetal.driver.memory import is_managed
    from cumetal.driver.memory_more import _address
    from cumetal.runtime.queries_more import _mapped

    STATE.current()
    addr = _address(ptr)
    n, summary, sampling = (_count(v, what) for v, what in ((size, "size"), (summaryGranularity, "summaryGranularity"),
                                                            (samplingGranularity, "samplingGranularity")))
    if n == 0 or not 0 < summary <= n or sampling > summary:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"size {n}, summaryGranularity {summary}, samplingGranularity "
                        f"{sampling}: 0 < summaryGranularity <= size and samplingGranularity <= summaryGranularity "
                        "are needed")
    found = STATE.device.allocation(addr)
    if found is not None:
        base, length, host = found
        if host or not is_managed(base, addr):
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{addr:x} is device, pinned or registered memory (only "
                            "managed and pageable memory have a location to report)")
        if addr + n > base + length:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{addr:x}+{n} runs past the managed allocation")
        where = (CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, 0)
    else:
        if not _mapped(addr, n):
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"0x{addr:x}+{n} is not memory of this process")
        where = (CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST, 0)
    count = -(-n // summary)
    if isinstance(location_out, int) and not isinstance(location_out, bool) and 0 < location_out < 1 << 64:
        c_cells = (ctypes.c_int * 2 * count).from_address(location_out)  # C: struct { int type; int id; }[count]
        for c in c_cells:
            c[0], c[1] = int(where[0]), where[1]
        return ()
    for cell in _cells(location_out, count, CUmemLocation):
        cell.type, cell.id = where
    return ()


def _count(v: Any, what: str) -> int:
    try:
        n = int(v)
    except (TypeError, ValueError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} must be an integer, got {type(v).__name__}") from None
    if n < 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} must not be negative")
    return n


def _cells(out: Any, count: int, cell_type: type) -> list:
    if isinstance(out, cell_type):
        cells = [out]
    else:
        cells = list(out) if isinstance(out, list | tuple) else []
    if len(cells) < count or not all(isinstance(c, cell_type) for c in cells[:count]):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"location_out must hold {count} CUmemLocation "
                        f"(ceil(size / summaryGranularity))")
    return cells[:count]

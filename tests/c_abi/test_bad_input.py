"""Bad input through the C ABI returns CUDA's error codes and never crashes the process: every
exported ``cuda*``/``cu*`` function called with all-NULL arguments and with garbage (the address of a
scratch buffer for every argument: a non-handle, a huge size, an unknown enum)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cumetal.capi.library import library_path

SWEEP = Path(__file__).with_name("sweep_exports.py")
# functions that take a C function pointer and call it later (CUDA trusts those as well), and the
# registration entry points compiled code calls with its own data structures
CALLS_BACK = {"cudaLogsRegisterCallback", "cuLogsRegisterCallback", "cudaUserObjectCreate", "cuUserObjectCreate",
              "cudaLaunchHostFunc", "cudaLaunchHostFunc_v2", "cuLaunchHostFunc", "cuLaunchHostFunc_v2",
              "cudaStreamAddCallback", "cuStreamAddCallback", "cudaGraphAddHostNode", "cudaGraphHostNodeSetParams",
              "cudaGraphExecHostNodeSetParams", "cudaOccupancyMaxPotentialBlockSizeVariableSMem",
              "cudaGraphAddNode", "cudaGraphNodeSetParams", "cudaGraphExecNodeSetParams",
              "cuOccupancyMaxPotentialBlockSize", "cuOccupancyMaxPotentialBlockSizeWithFlags",
              # structs returned by value (a hidden result pointer the sweep cannot pass)
              "cudaCreateChannelDesc"}
# success is a right answer to these whatever the arguments (queries of the last error, versions,
# error strings, profiler control, teardown)
ALWAYS_OK = {"cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorName", "cudaGetErrorString", "cudaProfilerStart",
             "cudaProfilerStop", "cudaDeviceReset", "cudaDeviceSynchronize", "cudaThreadSynchronize", "cudaThreadExit",
             "cuProfilerStart", "cuProfilerStop", "cuCtxSynchronize", "cudaCtxResetPersistingL2Cache",
             "cudaFree", "cudaFreeHost", "cudaFreeArray", "cudaFreeMipmappedArray", "cuMemFree", "cuMemFreeHost",
             "cudaInitDevice", "cudaSetDevice", "cudaSetDeviceFlags", "cuInit", "cudaStreamQuery",
             "cudaStreamSynchronize", "cudaDeviceSetCacheConfig", "cudaThreadSetCacheConfig", "cudaDeviceSetSharedMemConfig",
             "cudaSetValidDevices", "cudaStreamBeginCapture", "cudaStreamEndCapture", "cudaEventRecord",
             "cudaStreamWaitEvent", "cudaFreeAsync", "cudaMemsetAsync", "cudaMemset", "cudaMemcpy",
             "cudaMemcpyAsync", "cudaMemset2D", "cudaMemset2DAsync",
             "cudaMemGetInfo"}  # NULL outputs are skipped: CUDA 13 answers cudaSuccess (tests/programs/data)


def _exports() -> list[str]:
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("needs nm to list the library's exports")
    out = subprocess.run([nm, "-D", "--defined-only", str(library_path())], capture_output=True, text=True,
                         check=True).stdout
    names = sorted({line.split()[-1] for line in out.splitlines() if line.split()[-1:]})
    return [n for n in names if (n.startswith("cuda") or (n.startswith("cu") and n[2:3].isupper()))
            and n not in CALLS_BACK]


def test_every_export_survives_null_and_garbage_arguments():
    names = _exports()
    assert len(names) > 250
    env = {k: v for k, v in os.environ.items()} | {"CUMETAL_QUIET": "1", "CUMETAL_BACKEND": "cpu"}
    proc = subprocess.run([sys.executable, str(SWEEP), *names], capture_output=True, text=True, timeout=300,
                          env=env, check=False)
    lines = proc.stdout.splitlines()
    last = next((ln for ln in reversed(lines) if ln.startswith("calling ")), "")
    assert proc.returncode == 0, f"crashed at {last!r} (rc={proc.returncode}): {proc.stderr[-2000:]}"
    results = {}
    for ln in lines:
        parts = ln.split()
        if len(parts) == 3 and not ln.startswith("calling "):
            results[(parts[0], parts[1])] = int(parts[2])
    assert len(results) == 2 * len(names)
    accepted_null = sorted(n for n in names if results[(n, "null")] == 0 and n not in ALWAYS_OK)
    assert set(accepted_null) <= NULL_OK, sorted(set(accepted_null) - NULL_OK)
    accepted_garbage = sorted(n for n in names if results[(n, "garbage")] == 0 and n not in ALWAYS_OK)
    assert set(accepted_garbage) <= GARBAGE_OK, sorted(set(accepted_garbage) - GARBAGE_OK)


# All-zero arguments that are a valid call: the NULL (default) stream, device 0, limit 0 = stack size,
# empty batches and zero-byte copies, optional output pointers.
NULL_OK = {"cuStreamQuery", "cuStreamSynchronize", "cudaDeviceGetStreamPriorityRange", "cudaDeviceGraphMemTrim",
           "cudaDeviceSetLimit", "cudaThreadSetLimit", "cudaMemDiscardAndPrefetchBatchAsync", "cudaMemDiscardBatchAsync",
           "cudaMemPrefetchBatchAsync", "cudaMemcpy2D", "cudaMemcpy2DAsync", "cudaMemcpyPeer", "cudaMemcpyPeerAsync",
           "cudaStreamCopyAttributes",
           # zero semaphores on the legacy stream: nothing to signal or wait for
           "cudaSignalExternalSemaphoresAsync", "cudaWaitExternalSemaphoresAsync"}
# Every argument the scratch buffer's address: valid where the arguments are all output pointers (or
# a zeroed struct that is a valid input), e.g. cudaStreamCreate, cudaMemGetInfo; an unregistered
# pointer is a valid cudaPointerGetAttributes query.
GARBAGE_OK = {"cuDriverGetVersion", "cudaChooseDevice", "cudaDeviceGetCacheConfig", "cudaThreadGetCacheConfig", "cudaDeviceGetSharedMemConfig",
              "cudaDeviceGetStreamPriorityRange", "cudaDriverGetVersion", "cudaEventCreate", "cudaGetDevice",
              "cudaGetDeviceCount", "cudaGetDeviceFlags", "cudaMemGetInfo", "cudaPointerGetAttributes",
              "cudaRuntimeGetVersion", "cudaStreamCreate", "cudaThreadExchangeStreamCaptureMode"}

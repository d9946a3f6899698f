"""The Mac acceptance kit: one command a Mac user runs, one folder to send back (docs/mac-acceptance.md).

    python -m cumetal.tools.mac_check [--out DIR] [--no-faults] [--sweep]

Sections, in this order (each in its own subprocess where it touches Metal, so a crash in one is a
finding, not the end of the run; the fault tests last, isolated, because after a GPU fault macOS
may ignore the process's later GPU work):

1. ``environment``: OS, Python, PyObjC, CuMetal commit, the MSL version CuMetal pins.
2. ``device``: the Metal device's limits and families (Metal only).
3. ``compile_options``: a fresh MTLCompileOptions' defaults and what CuMetal sets (Metal only).
4. ``constructs``: each MSL construct CuMetal relies on (backends/msl/check/constructs/*.metal),
   compiled alone for every MSL version this macOS has and, where it says ``run:``, run and
   checked; on Linux the clang MSL checker judges them instead (said in the report).
5. ``emitted``: the MSL and ``.metallib`` CuMetal writes for the functional kernels (files in the
   report), checked by the MSL checker and the .metallib validator.
6. ``functional``: tests/functional on the CPU device (the reference) and, with Metal's API
   validation on (``MTL_DEBUG_LAYER=1``), on Metal through both library paths; a test that passes
   on the CPU and fails on Metal is a finding. ``--sweep`` adds the PTX sweep (NVIDIA goldens).
7. ``programs``: CUDA C++ built into executables on this machine (``cumetalc examples/vector_add.cu
   -o …``, run on the CPU device and on Metal; tests/programs' host+device programs and the
   host/device integer-type agreement), i.e. the host compiler, the SDK and libcumetal of this Mac.
8. ``timings``: launch latency and copy bandwidth on Metal (and on the CPU device, for scale).
9. ``faults``: a trap, an out-of-bounds access and work submitted after them, each in a fresh
   process.

On Linux every section that needs Metal is skipped with the reason, and the rest runs.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import platform
import shutil
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
TESTS = REPO / "tests"
CONSTRUCTS = Path(__file__).resolve().parents[1] / "backends" / "msl" / "check" / "constructs"
FUNCTIONAL_PTX = TESTS / "functional" / "kernels"
DRIVER_PTX = TESTS / "driver" / "data" / "kernels.ptx"
SECTIONS = ("environment", "device", "compile_options", "constructs", "emitted", "functional", "programs", "timings",
            "faults")
METAL_SECTIONS = {"device", "compile_options"}  # the others run on Linux too (saying what they skip)
SECTION_TIMEOUT_S = 1800


def metal_missing() -> str | None:
    """Why Metal cannot be used here, or None."""
    if sys.platform != "darwin":
        return f"needs macOS with a Metal GPU; this is {sys.platform}"
    try:
        from cumetal.devices.metal.bridge import PyObjCFactory

        if PyObjCFactory().system_default_device() is None:
            return "MTLCreateSystemDefaultDevice() found no Metal GPU"
    except Exception as e:  # MetalUnavailable, or anything PyObjC raises
        return f"Metal is not usable: {type(e).__name__}: {e}"
    return None


# ------------------------------------------------------------------------------------ sections
def section_environment(out: Path) -> dict[str, Any]:
    info: dict[str, Any] = {
        "platform": platform.platform(), "machine": platform.machine(), "mac_ver": platform.mac_ver()[0],
        "python": sys.version.split()[0], "executable": sys.executable,
    }
    for dist in ("cumetal", "pyobjc-core", "pyobjc-framework-Metal", "numpy", "ziglang"):
        try:
            from importlib.metadata import version

            info[f"version:{dist}"] = version(dist)
        except Exception:
            info[f"version:{dist}"] = None
    try:
        info["git_commit"] = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True,
                                            text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        info["git_commit"] = None
    from cumetal.devices.metal import bridge as B

    if sys.platform == "darwin":
        try:
            v = B.msl_version_for(B.macos_major())
            info["msl_pinned"] = B.MSL_VERSION_NAMES.get(v, hex(v))
        except B.MetalUnavailable as e:
            info["msl_pinned"] = f"none: {e}"
    info["metal"] = metal_missing() or "usable"
    return {"status": "ok", "details": info}


def section_device(out: Path) -> dict[str, Any]:
    from cumetal.devices.metal.bridge import PyObjCFactory

    f = PyObjCFactory()
    dev = f.system_default_device()
    d: dict[str, Any] = {"name": str(dev.name())}
    for sel in ("recommendedMaxWorkingSetSize", "maxBufferLength", "maxThreadgroupMemoryLength", "hasUnifiedMemory",
                "registryID", "currentAllocatedSize", "maxArgumentBufferSamplerCount", "argumentBuffersSupport"):
        try:
            d[sel] = _plain(getattr(dev, sel)())
        except Exception as e:
            d[sel] = f"unavailable: {e}"
    s = dev.maxThreadsPerThreadgroup()
    d["maxThreadsPerThreadgroup"] = [int(s.width), int(s.height), int(s.depth)]
    families = {"Apple7": 1007, "Apple8": 1008, "Apple9": 1009, "Apple10": 1010, "Metal3": 5001}
    d["families"] = {k: bool(dev.supportsFamily_(v)) for k, v in families.items()}
    d["gpu_core_count (ioreg)"] = f.gpu_core_count()
    return {"status": "ok", "details": d}


def section_compile_options(out: Path) -> dict[str, Any]:
    from cumetal.devices.metal.bridge import PyObjCFactory

    f = PyObjCFactory()
    fresh = f.Metal.MTLCompileOptions.alloc().init()
    ours = f.compile_options()
    props = ("languageVersion", "fastMathEnabled", "mathMode", "mathFloatingPointFunctions", "preserveInvariance",
             "optimizationLevel", "libraryType", "enableLogging")
    return {"status": "ok", "details": {"defaults": {p: _prop(fresh, p) for p in props},
                                         "cumetal": {p: _prop(ours, p) for p in props}}}


def _prop(obj: Any, name: str) -> Any:
    try:
        return _plain(getattr(obj, name)())
    except Exception as e:
        return f"unavailable: {type(e).__name__}"


def _plain(v: Any) -> Any:
    return v if isinstance(v, (bool, int, float, str)) or v is None else str(v)


def construct_files() -> list[tuple[Path, dict[str, str]]]:
    out = []
    for path in sorted(CONSTRUCTS.glob("*.metal")):
        meta = {}
        for line in path.read_text().splitlines():
            if line.startswith("// ") and ": " in line and line[3:].split(":")[0] in ("expect", "min-msl", "run"):
                key, _, value = line[3:].partition(": ")
                meta[key] = value.strip()
        out.append((path, meta))
    return out


def section_constructs(out: Path) -> dict[str, Any]:
    results: dict[str, Any] = {}
    failed = False
    why_not = metal_missing()
    if why_not is not None:
        from cumetal.tools.msl_check import check_msl

        for path, meta in construct_files():
            per = {}
            for v in ("3.0", "3.1", "3.2"):
                problems = check_msl(path.read_text(), msl_version=v)
                per[v] = "compiles" if not problems else "fails: " + problems.splitlines()[0]
            ok = _as_expected(meta, per)
            failed |= not ok
            results[path.stem] = {"judge": "clang MSL checker (no Metal here)", "msl": per, "as_expected": ok}
        return {"status": "failed" if failed else "ok", "note": f"Metal not used: {why_not}", "details": results}
    from cumetal.devices.metal import bridge as B

    f = B.PyObjCFactory()
    dev = f.system_default_device()
    available = [v for v in (B.MSL_3_0, B.MSL_3_1, B.MSL_3_2) if v <= f.language_version]
    for path, meta in construct_files():
        per: dict[str, Any] = {}
        lib = None
        for v in available:
            opts = B.make_compile_options(f.Metal, v)
            library, err = dev.newLibraryWithSource_options_error_(path.read_text(), opts, None)
            name = B.MSL_VERSION_NAMES[v]
            per[name] = "compiles" if library is not None else f"fails: {B._error_text(err)}"
            lib = library or lib
        entry: dict[str, Any] = {"judge": "Metal", "msl": per,
                                 "as_expected": _as_expected(meta, per)}
        if lib is not None and meta.get("run"):
            try:
                entry["run"] = _run_construct(f, dev, lib, path, meta["run"])
            except Exception as e:
                entry["run"] = {"ok": False, "error": f"{type(e).__name__}: {e}"}
            entry["as_expected"] &= bool(entry["run"].get("ok"))
        failed |= not entry["as_expected"]
        results[path.stem] = entry
    return {"status": "failed" if failed else "ok", "details": results}


def _as_expected(meta: dict[str, str], per: dict[str, str]) -> bool:
    """``expect: compile``: every MSL version from ``min-msl`` on compiles; ``fail``: none does."""
    expect = meta.get("expect", "compile")
    if expect == "fail":
        return not any(r == "compiles" for r in per.values())
    if expect == "compile":
        return all(r == "compiles" for v, r in per.items() if v >= meta.get("min-msl", "3.0"))
    return True


def _run_construct(f, dev, lib, path: Path, kind: str) -> dict[str, Any]:
    """Run a construct kernel once and check its output (the file's comment says what)."""
    import struct

    from cumetal.devices.metal import bridge as B

    br = B.Bridge(f)
    fname = next(line.split("kernel void ")[1].split("(")[0] for line in path.read_text().splitlines()
                 if line.startswith("kernel void "))
    pso, err = br.pipeline(dev, br.function(lib, fname))
    if pso is None:
        return {"ok": False, "error": err}
    out_buf = br.new_shared_buffer(dev, 4096)
    src_buf = br.new_shared_buffer(dev, 4096)
    out_addr = br.contents_address(out_buf, 4096)
    src_addr = br.contents_address(src_buf, 4096)
    ctypes.memmove(src_addr, struct.pack("<II", 0x12345678, 0x9ABCDEF0), 8)
    queue = br.new_queue(dev)
    with br.pool():
        cb = br.command_buffer(queue)
        enc = br.compute_encoder(cb)
        br.set_pipeline(enc, pso)
        br.set_bytes(enc, struct.pack("<Q", br.gpu_address(src_buf)), 0)
        br.set_buffer(enc, out_buf, 0, 1)
        br.use_resource(enc, src_buf, B.USAGE_READ)
        br.set_threadgroup_memory(enc, 16, 0)
        threads = 32 if kind == "simd" else 1
        br.dispatch(enc, (1, 1, 1), (threads, 1, 1))
        br.end_encoding(enc)
        br.commit(cb)
        br.wait(cb)
        code, text = br.error(cb)
    words = list(struct.unpack("<36I", ctypes.string_at(out_addr, 144)))
    if code:
        return {"ok": False, "error": f"command buffer error {code}: {text}"}
    if kind == "pointer":
        ok = words[:2] == [0x12345678, 0x9ABCDEF0]
    elif kind == "simd":
        ok = words[:32] == [(i + 1) % 32 for i in range(32)] and words[32:36] == [0xFFFFFFFF, 496, 0xFFFFFFFF,
                                                                                 0x55555555]
    else:
        ok = words[:2] == [1, 2]
    return {"ok": ok, "words": [hex(w) for w in words[:36 if kind == "simd" else 2]]}


def section_emitted(out: Path) -> dict[str, Any]:
    if not FUNCTIONAL_PTX.is_dir():
        return {"status": "skipped", "why": f"needs a CuMetal checkout ({FUNCTIONAL_PTX} is missing)"}
    from cumetal.backends.air.fp64_check import emulation_refusals, f64_diagnostics
    from cumetal.backends.air.lower import compile_metallib
    from cumetal.backends.air.metallib_validate import validate_metallib
    from cumetal.backends.msl import emit_module
    from cumetal.devices.metal.library import emit_refusals
    from cumetal.passes import compile_ptx
    from cumetal.tools.msl_check import check_msl

    folder = out / "emitted"
    folder.mkdir(exist_ok=True)
    details: dict[str, Any] = {}
    failed = False
    for ptx in sorted(FUNCTIONAL_PTX.glob("*.ptx")):
        module = compile_ptx(ptx.read_text(), ptx.name)
        refused = {}
        try:
            emitted = emit_module(module, fp64="emulate")
        except Exception:
            refused = emit_refusals(module, {})
            import dataclasses

            module_msl = dataclasses.replace(module, kernels={k: v for k, v in module.kernels.items()
                                                              if k not in refused})
            emitted = emit_module(module_msl, fp64="emulate")
        (folder / f"{ptx.stem}.metal").write_text(emitted.source)
        problems = check_msl(emitted.source)
        data = compile_metallib(module)
        (folder / f"{ptx.stem}.metallib").write_bytes(data)
        invalid = validate_metallib(data)
        entry = {"msl_bytes": len(emitted.source), "msl_check": problems or "clean",
                 "msl_refused_kernels": refused, "metallib_bytes": len(data),
                 "metallib_validation": [str(p) for p in invalid] or "valid",
                 "f64_kernels (emulated: --fp64=emulate)": sorted(f64_diagnostics(module)),
                 "f64_emulation_refusals": emulation_refusals(module)}
        failed |= bool(problems or invalid)
        details[ptx.stem] = entry
    return {"status": "failed" if failed else "ok", "details": details}


def _pytest(out: Path, name: str, target: list[str], env: dict[str, str], timeout: int) -> dict[str, Any]:
    junit = out / f"{name}.xml"
    log = out / f"{name}.log"
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}", *target]
    t0 = time.time()
    try:
        proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout, env={**os.environ, **env})
        text, rc = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as e:
        text, rc = f"{e}\n{e.stdout or ''}", -1
    log.write_text(text)
    return {"returncode": rc, "seconds": round(time.time() - t0, 1), "log": log.name, "junit": junit.name,
            "summary": (text.strip().splitlines() or [""])[-1], "tests": _junit_results(junit)}


def _junit_results(path: Path) -> dict[str, str]:
    import xml.etree.ElementTree as ET

    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return {}
    results = {}
    for case in root.iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        kinds = [child.tag for child in case]
        results[name] = ("failed" if {"failure", "error"} & set(kinds) else
                         "skipped" if "skipped" in kinds else "passed")
    return results


def section_functional(out: Path, sweep: bool = False) -> dict[str, Any]:
    if not (TESTS / "functional").is_dir():
        return {"status": "skipped", "why": f"needs a CuMetal checkout ({TESTS / 'functional'} is missing)"}
    folder = out / "functional"
    folder.mkdir(exist_ok=True)
    runs = {"cpu": _pytest(folder, "cpu", ["tests/functional"], {"CUMETAL_BACKEND": "cpu"}, 1200)}
    why_not = metal_missing()
    if why_not is not None:
        return {"status": "partial", "why": f"Metal runs skipped: {why_not}", "details": runs}
    debug = {"MTL_DEBUG_LAYER": "1", "MTL_SHADER_VALIDATION": "0", "CUMETAL_BACKEND": "metal"}
    targets = ["tests/metal/test_functional_on_metal.py", "tests/metal/test_metal_hardware.py"]
    if sweep:
        targets.append("tests/metal/test_ptx_sweep_on_metal.py")
    skipped: dict[str, str] = {}
    for library in ("msl", "metallib"):
        why = metallib_missing() if library == "metallib" else None
        if why is not None:
            skipped[f"metal-{library}"] = why
            continue
        runs[f"metal-{library}"] = _pytest(folder, f"metal-{library}", targets,
                                           {**debug, "CUMETAL_METAL_LIBRARY": library}, 1800)
    failed = any(r["returncode"] != 0 for k, r in runs.items())
    return {"status": "failed" if failed else "ok", "regressions_vs_cpu": regressions_vs_cpu(runs),
            "skipped_runs": skipped, "details": runs}


# tests/programs' programs that exercise the host side most (several files, C/C++ host code, headers,
# __shared__ rewrite, kernel names from the C++ standard library) and the integer-type agreement
PROGRAM_TESTS = ["tests/programs/test_programs.py", "-k",
                 "test_program and (launch or memory or multi_file or host_headers or std_kernel_names "
                 "or shared_nontrivial) and not simulators or types_agree or darwin_integer_types",
                 "tests/cudacxx/test_host_device_types.py"]


def section_programs(out: Path) -> dict[str, Any]:
    folder = out / "programs"
    folder.mkdir(exist_ok=True)
    exe = folder / "vector_add"
    build = subprocess.run([sys.executable, "-m", "cumetal.tools.cumetalc", str(REPO / "examples" / "vector_add.cu"),
                            "-o", str(exe)], capture_output=True, text=True, timeout=900)
    details: dict[str, Any] = {"vector_add_build": {"returncode": build.returncode,
                                                    "log": (build.stdout + build.stderr)[-3000:]}}
    backends = ["cpu"] + ([] if metal_missing() else ["metal"])
    for backend in backends if build.returncode == 0 else []:
        env = {**os.environ, "CUMETAL_BACKEND": backend, "MTL_DEBUG_LAYER": "1"}
        try:
            run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, env=env)
            details[f"vector_add_{backend}"] = {"returncode": run.returncode, "stdout": run.stdout[-2000:],
                                                "stderr": run.stderr[-2000:]}
        except subprocess.TimeoutExpired:
            details[f"vector_add_{backend}"] = {"returncode": None, "stderr": "timed out after 300 s"}
    if (TESTS / "programs").is_dir():
        details["programs_cpu"] = _pytest(folder, "programs_cpu", PROGRAM_TESTS, {"CUMETAL_BACKEND": "cpu"}, 1800)
    failed = build.returncode != 0 or any(
        d.get("returncode") != 0 or (k.startswith("vector_add_") and k != "vector_add_build"
                                     and "PASSED" not in d.get("stdout", ""))
        for k, d in details.items() if k != "vector_add_build")
    result: dict[str, Any] = {"status": "failed" if failed else "ok", "details": details}
    if "metal" not in backends:
        result["note"] = f"vector_add ran on the CPU device only: {metal_missing()}"
    return result


def metallib_missing() -> str | None:
    """Why the .metallib path cannot run on this Mac (its deployment target), or None."""
    from cumetal.backends.air.lower import DEFAULT_VERSIONS
    from cumetal.devices.metal import bridge as B

    need = DEFAULT_VERSIONS.macos[0]
    if B.macos_major() < need:
        return (f"CuMetal's .metallib targets macOS {need} (MSL {'.'.join(map(str, DEFAULT_VERSIONS.msl))}); "
                f"this is macOS {B.macos_major()}")
    return None


def regressions_vs_cpu(runs: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """Per Metal run, the tests that passed on the CPU device and failed there. The Metal ids wrap
    the functional ones (``...::test_functional_on_metal[test_misc::test_x]``)."""
    cpu_passed = {t.rsplit("::", 1)[-1] for t, r in runs["cpu"]["tests"].items() if r == "passed"}
    regressions: dict[str, list[str]] = {}
    for name, run in runs.items():
        for test, result in run["tests"].items():
            inner = test.rsplit("::", 1)[-1].rstrip("]")
            if name != "cpu" and result == "failed" and inner in cpu_passed:
                regressions.setdefault(name, []).append(test)
    return regressions


def section_timings(out: Path) -> dict[str, Any]:
    code = r"""
import ctypes, json, sys, time
import numpy as np
from cumetal import driver as cu
def ok(r):
    assert r[0] == 0, (r, cu.last_error_message()); return r[1] if len(r) == 2 else r[1:]
ok(cu.cuInit(0)); ctx = ok(cu.cuCtxCreate(None, 0, ok(cu.cuDeviceGet(0))))
mod = ok(cu.cuModuleLoadData(open(sys.argv[1]).read()))
fn = ok(cu.cuModuleGetFunction(mod, b"vector_add"))
res = {}
for n in (1 << 10, 1 << 20):
    a = np.ones(n, np.float32); d = [ok(cu.cuMemAlloc(a.nbytes)) for _ in range(3)]
    for x in d[:2]: ok(cu.cuMemcpyHtoD(x, a, a.nbytes))
    args = ((d[0], d[1], d[2], n), (None, None, None, ctypes.c_int))
    ok(cu.cuLaunchKernel(fn, (n + 255) // 256, 1, 1, 256, 1, 1, 0, 0, args, None))
    reps = 50; t = time.perf_counter()
    for _ in range(reps): ok(cu.cuLaunchKernel(fn, (n + 255) // 256, 1, 1, 256, 1, 1, 0, 0, args, None))
    ok(cu.cuCtxSynchronize()); res[f"vector_add n={n} (null stream, synchronous) us/launch"] = (time.perf_counter() - t) / reps * 1e6
    for x in d: ok(cu.cuMemFree(x))
big = np.ones(64 << 18, np.float32); d = ok(cu.cuMemAlloc(big.nbytes)); back = np.empty_like(big)
t = time.perf_counter(); ok(cu.cuMemcpyHtoD(d, big, big.nbytes)); res["HtoD 64 MiB GB/s"] = big.nbytes / (time.perf_counter() - t) / 1e9
t = time.perf_counter(); ok(cu.cuMemcpyDtoH(back, d, big.nbytes)); res["DtoH 64 MiB GB/s"] = big.nbytes / (time.perf_counter() - t) / 1e9
print(json.dumps({k: round(v, 2) for k, v in res.items()}))
"""
    results = {}
    for backend in ("metal", "cpu"):
        if backend == "metal" and metal_missing():
            results["metal"] = f"skipped: {metal_missing()}"
            continue
        proc = subprocess.run([sys.executable, "-c", code, str(DRIVER_PTX)], capture_output=True, text=True,
                              timeout=600, env={**os.environ, "CUMETAL_BACKEND": backend})
        lines = proc.stdout.strip().splitlines()
        results[backend] = json.loads(lines[-1]) if proc.returncode == 0 and lines else f"failed: {proc.stderr[-2000:]}"
    status = "ok" if all(isinstance(v, dict) for v in results.values()) else "partial"
    return {"status": status, "details": results}


FAULT_CASES = {
    # name: (PTX file, kernel, parameters); then later work runs in the same process
    "trap": ("misc", "assert_false", "((42,), (ctypes.c_int,))"),
    "wild_pointer_page_fault": ("kernels", "write_past_end", "((0x7FF000000000, 1 << 20), (None, ctypes.c_uint))"),
    "out_of_bounds": ("misc", "out_of_bounds", "((d, 1 << 40), (None, ctypes.c_int64))"),
}
FAULT_SCRIPT = r"""
import ctypes, json, sys
import numpy as np
from cumetal import driver as cu
ptx_fault, ptx_good, kernel, params = sys.argv[1:5]
def val(r): return r[1] if len(r) > 1 else None
name = lambda r: cu.CUresult(int(r[0])).name
res = {}
cu.cuInit(0)
ctx = val(cu.cuCtxCreate(None, 0, val(cu.cuDeviceGet(0))))
bad = val(cu.cuModuleLoadData(open(ptx_fault).read()))
good = val(cu.cuModuleLoadData(open(ptx_good).read()))
d = val(cu.cuMemAlloc(1 << 12))
res["fault_launch"] = name(cu.cuLaunchKernel(val(cu.cuModuleGetFunction(bad, kernel.encode())), 1, 1, 1, 32, 1, 1,
                                             0, 0, eval(params), None))
res["fault_sync"] = name(cu.cuCtxSynchronize())
fn = val(cu.cuModuleGetFunction(good, b"vector_add"))
a = np.arange(256, dtype=np.float32)
cu.cuMemcpyHtoD(d, a, a.nbytes)
e = val(cu.cuMemAlloc(a.nbytes))
res["later_launch"] = name(cu.cuLaunchKernel(fn, 1, 1, 1, 256, 1, 1, 0, 0,
                                             ((d, d, e, 256), (None, None, None, ctypes.c_int)), None))
res["later_sync"] = name(cu.cuCtxSynchronize())
out = np.zeros_like(a)
cu.cuMemcpyDtoH(out, e, out.nbytes)
res["later_result_correct"] = bool((out == 2 * a).all())
print(json.dumps(res))
"""


def section_faults(out: Path) -> dict[str, Any]:
    why_not = metal_missing()
    backend = "metal" if why_not is None else "cpu"
    results: dict[str, Any] = {}
    for case, (ptx, kernel, params) in FAULT_CASES.items():
        ptx_path = DRIVER_PTX if ptx == "kernels" else FUNCTIONAL_PTX / f"{ptx}.ptx"
        env = {**os.environ, "CUMETAL_BACKEND": backend, "MTL_DEBUG_LAYER": "1"}
        try:  # a fresh process per fault: macOS may ignore a faulted process's later GPU work
            proc = subprocess.run([sys.executable, "-c", FAULT_SCRIPT, str(ptx_path), str(DRIVER_PTX), kernel, params],
                                  capture_output=True, text=True, timeout=300, env=env)
            lines = proc.stdout.strip().splitlines()
            results[case] = {"returncode": proc.returncode, "stderr": proc.stderr[-3000:],
                             "result": json.loads(lines[-1]) if lines and lines[-1].startswith("{") else None}
        except subprocess.TimeoutExpired:
            results[case] = {"returncode": None, "stderr": "timed out after 300 s", "result": None}
    failed = any(r["result"] is None or r["result"]["fault_launch"] == r["result"]["fault_sync"] == "CUDA_SUCCESS"
                 for r in results.values())
    out_ = {"status": "failed" if failed else "ok", "backend": backend, "details": results}
    if why_not is not None:
        out_["note"] = f"ran on the CPU device (exercises the kit only): {why_not}"
    return out_


RUNNERS: dict[str, Callable[..., dict[str, Any]]] = {
    "environment": section_environment, "device": section_device, "compile_options": section_compile_options,
    "constructs": section_constructs, "emitted": section_emitted, "functional": section_functional,
    "programs": section_programs, "timings": section_timings, "faults": section_faults,
}


# ------------------------------------------------------------------------------------ driver
def run_section(name: str, out: Path, sweep: bool) -> dict[str, Any]:
    """Run one section in a fresh interpreter; its JSON lands in ``out/sections/NAME.json``."""
    if name in METAL_SECTIONS and (why := metal_missing()) is not None:
        return {"status": "skipped", "why": why}
    target = out / "sections" / f"{name}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "cumetal.tools.mac_check", "--out", str(out), "--only", name]
    if sweep:
        cmd.append("--sweep")
    t0 = time.time()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=SECTION_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"status": "failed", "why": f"timed out after {SECTION_TIMEOUT_S} s"}
    (out / "sections" / f"{name}.log").write_text(proc.stdout + proc.stderr)
    if target.exists():
        result = json.loads(target.read_text())
    else:
        result = {"status": "failed", "why": f"the section's process ended with {proc.returncode} "
                                             f"without a result (see sections/{name}.log)"}
    result["seconds"] = round(time.time() - t0, 1)
    return result


def _one(name: str, out: Path, sweep: bool) -> int:
    try:
        fn = RUNNERS[name]
        result = fn(out, sweep) if name == "functional" else fn(out)
    except Exception as e:
        result = {"status": "failed", "why": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()}
    (out / "sections").mkdir(parents=True, exist_ok=True)
    (out / "sections" / f"{name}.json").write_text(json.dumps(result, indent=1, default=str))
    return 0


def write_summary(out: Path, results: dict[str, dict[str, Any]]) -> Path:
    lines = ["# CuMetal Mac acceptance report", "", f"Written {time.strftime('%Y-%m-%d %H:%M:%S %Z')} "
             f"on {platform.platform()}.", "", "| section | status | note |", "|---|---|---|"]
    for name, r in results.items():
        note = r.get("why") or r.get("note") or ""
        lines.append(f"| {name} | {r.get('status')} | {str(note)[:200]} |")
    lines += ["", "Details: report.json; per-section logs: sections/; emitted MSL and .metallib: emitted/; "
              "pytest logs and JUnit files: functional/.", ""]
    (out / "report.json").write_text(json.dumps(results, indent=1, default=str))
    path = out / "summary.md"
    path.write_text("\n".join(lines))
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cumetal.tools.mac_check", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None, help="report folder (default ./cumetal-mac-check-<time>)")
    ap.add_argument("--no-faults", action="store_true", help="skip the GPU fault tests")
    ap.add_argument("--sweep", action="store_true", help="also run the PTX sweep on Metal (long)")
    ap.add_argument("--only", choices=SECTIONS, help=argparse.SUPPRESS)  # one section, in this process
    args = ap.parse_args(argv)
    out = Path(args.out or f"cumetal-mac-check-{time.strftime('%Y%m%d-%H%M%S')}").resolve()
    out.mkdir(parents=True, exist_ok=True)
    if args.only:
        return _one(args.only, out, args.sweep)
    results: dict[str, dict[str, Any]] = {}
    for name in SECTIONS:  # faults last: after a GPU fault macOS may ignore the process's later work
        if name == "faults" and args.no_faults:
            results[name] = {"status": "skipped", "why": "--no-faults"}
            continue
        print(f"mac_check: {name} ...", flush=True)
        results[name] = run_section(name, out, args.sweep)
        print(f"mac_check: {name}: {results[name]['status']}"
              + (f" ({results[name]['why']})" if results[name].get("why") else ""), flush=True)
    summary = write_summary(out, results)
    archive = shutil.make_archive(str(out), "zip", root_dir=out.parent, base_dir=out.name)
    print(f"\nmac_check: report written to {out} (summary: {summary.name})")
    print(f"mac_check: please send back {archive}: attach it to CuMetal issue #11 "
          "(or say where it can be downloaded). It holds no personal data beyond the machine description "
          "in environment and device (OS version, GPU name, Python and package versions, file paths).")
    return 0 if all(r.get("status") in ("ok", "skipped", "partial") for r in results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())

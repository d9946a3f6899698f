#!/usr/bin/env python3
"""Generate the PTX test corpus under tests/corpus/ptx/ with real compilers, plus its manifest.

The PTX is committed, so the tests never need these compilers; this script is how it was made and how
to remake it. Compilers and what they compile:

* nvcc 13.0 (/usr/local/bin/nvcc): every ``tests/corpus/cuda/*.cu`` for sm_80 and sm_90, subsets for
  sm_75 / sm_86 and with ``-lineinfo`` / ``-use_fast_math`` / ``-rdc=true`` / ``-G`` / ``-Xcicc -O0``;
* NVRTC 13.0 (pip wheels): a subset, ``--gpu-architecture=compute_80`` (and a few compute_90);
* clang-19 (apt) with the CUDA 13 headers: every ``.cu`` it accepts, sm_80 at -O2 plus -O0, -g and
  sm_90 subsets; and SDK-free through the self-written ``tests/corpus/cuda/clang_rt/cumetal_rt.h``;
* llvmlite 0.50 (LLVM 22 NVPTX back end): clang-19 NVVM IR re-emitted by a newer LLVM;
* numba-cuda: ``tests/corpus/python_kernels/numba_kernels.py`` via ``numba.cuda.compile_ptx``;
* Triton: ``tests/corpus/python_kernels/triton_kernels.py`` for sm_80 and sm_90a (Hopper-only PTX).

Run it inside the corpus venv (``scripts/corpus_requirements.txt``)::

    .work/corpus-venv/bin/python scripts/make_ptx_corpus.py            # all compilers
    .work/corpus-venv/bin/python scripts/make_ptx_corpus.py --only nvcc,clang

A source a compiler rejects is recorded under ``"skipped"`` in the manifest with the first error line,
so the corpus composition is explicit rather than silently smaller.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "corpus"
CUDA_SRC = CORPUS / "cuda"
PY_SRC = CORPUS / "python_kernels"
PTX_OUT = CORPUS / "ptx"
MANIFEST = CORPUS / "manifest.json"

NVCC = os.environ.get("NVCC", "/usr/local/bin/nvcc")
CLANG = os.environ.get("CLANG", "clang++-19")
CUDA_HOME = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))

# Subsets for the less common flag combinations: chosen to cover the feature set without multiplying
# the corpus by every flag (names are stems of tests/corpus/cuda/*.cu).
NVCC_SM75 = [
    "vector_add", "saxpy_templates", "transpose_2d", "stencil_3d", "reduce_shared", "warp_shuffle",
    "warp_vote", "atomics_int", "atomics_float", "coop_groups_tile", "printf_kernel", "half_math",
    "int_intrinsics", "transcendental", "wmma_gemm", "tiled_matmul", "histogram", "textures",
    "inline_asm", "launch_bounds_local", "int_division", "misc_math",
]
NVCC_SM86 = [
    "shared_dynamic", "warp_partial_mask", "warp_redux", "atomics_64", "bf16_math", "double_math",
    "cp_async_pipeline", "wmma_sm80", "scan", "softmax_layernorm", "conv2d", "nbody",
]
NVCC_LINEINFO = [
    "vector_add", "reduce_shared", "warp_match", "atomics_scoped", "coop_groups_tile", "device_functions",
    "half_math", "memcpy_async_cg", "tiled_matmul", "bitonic_sort", "special_registers", "memory_fences",
]
NVCC_FAST_MATH = [
    "transcendental", "double_math", "misc_math", "softmax_layernorm", "nbody", "mandelbrot", "conv2d",
    "half_math", "bf16_math", "atomics_float", "saxpy_templates", "int_division",
]
NVCC_RDC = [
    "device_functions", "function_pointers", "struct_by_value",
    "printf_kernel", "constant_memory", "atomics_64", "memory_fences", "coop_groups_grid",
    "device_malloc_assert", "cluster_sm90",
]
NVCC_DEBUG = [
    "vector_add", "warp_shuffle", "device_functions", "struct_by_value", "histogram", "scan", "coop_groups_tile",
    "half_math", "atomics_scoped", "tiled_matmul", "printf_kernel", "wmma_gemm",
]
NVCC_DEVICE_O0 = [  # -Xcicc -O0: unoptimised device code (plain -O0 only changes host code)
    "vector_add", "device_functions", "struct_by_value", "atomics_int", "warp_partial_mask", "tiled_matmul",
]
NVRTC_80 = [
    "vector_add", "saxpy_templates", "transpose_2d", "stencil_3d", "shared_dynamic", "reduce_shared",
    "warp_shuffle", "warp_partial_mask", "warp_vote", "warp_match", "warp_redux", "atomics_int",
    "atomics_64", "atomics_float", "atomics_scoped", "coop_groups_tile", "constant_memory",
    "function_pointers", "half_math", "bf16_math", "int_intrinsics", "transcendental",
    "cp_async_pipeline", "memcpy_async_cg", "wmma_gemm", "scan", "histogram", "vector_types",
    "special_registers", "textures",
]
NVRTC_90 = ["cluster_sm90", "tiled_matmul", "wmma_sm80", "softmax_layernorm"]
CLANG_O0 = ["vector_add", "reduce_shared", "warp_shuffle", "atomics_int", "function_pointers", "struct_by_value"]
CLANG_DEBUG = ["vector_add", "device_functions", "histogram"]
CLANG_SM90 = ["transpose_2d", "warp_vote", "atomics_64", "cp_async_pipeline", "half_math", "cluster_sm90"]
CLANG_SM75 = ["stencil_3d", "int_intrinsics", "transcendental"]
LLVMLITE = [  # (stem, cpu, features)
    ("vector_add", "sm_80", "+ptx78"), ("reduce_shared", "sm_80", "+ptx78"), ("warp_shuffle", "sm_80", "+ptx78"),
    ("atomics_float", "sm_80", "+ptx78"), ("int_intrinsics", "sm_80", "+ptx78"), ("scan", "sm_90", "+ptx80"),
    ("histogram", "sm_90", "+ptx80"), ("softmax_layernorm", "sm_90", "+ptx80"),
]


# Extern functions ptxas resolves on its own in a whole-program (non -c) compile.
PTXAS_PROVIDED = {"vprintf", "malloc", "free", "__assertfail"}


@dataclass
class Entry:
    file: str  # relative to tests/corpus
    compiler: str
    version: str
    flags: list[str]
    source: str  # relative to tests/corpus (plus "::kernel" for Python kernels)
    target: str = ""  # from the PTX .target line
    relocatable: bool = False  # assemble with ptxas -c (rdc / unresolved extern functions)


@dataclass
class Corpus:
    entries: list[Entry] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)

    def add(self, rel: str, ptx: str, compiler: str, version: str, flags: list[str], source: str,
            relocatable: bool = False) -> None:
        path = CORPUS / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(ptx)
        m = re.search(r"^\s*\.target\s+([^\n]+)", ptx, re.M)
        target = m.group(1).split("//")[0].strip() if m else ""
        # An extern function that ptxas does not provide itself can only be assembled with -c.
        externs = set(re.findall(r"^\s*\.extern\s+\.func\s*(?:\([^)]*\))?\s*([\w$]+)", ptx, re.M))
        relocatable = relocatable or bool(externs - PTXAS_PROVIDED)
        self.entries.append(Entry(rel, compiler, version, flags, source, target, relocatable))
        print(f"  {rel} ({len(ptx) // 1024} KiB)")

    def skip(self, compiler: str, source: str, flags: list[str], why: str) -> None:
        first = next((ln.strip() for ln in why.splitlines() if "error" in ln.lower()), why.strip()[:200])
        self.skipped.append({"compiler": compiler, "source": source, "flags": " ".join(flags), "why": first[:300]})
        print(f"  SKIP {compiler} {source} {' '.join(flags)}: {first[:160]}")


def cu_sources() -> dict[str, Path]:
    return {p.stem: p for p in sorted(CUDA_SRC.glob("*.cu"))}


def tags(path: Path) -> dict[str, str]:
    """Read ``// corpus: min_sm=80 rdc_only`` from the first lines of a source."""
    out: dict[str, str] = {}
    for line in path.read_text().splitlines()[:3]:
        if line.startswith("// corpus:"):
            for tok in line.split(":", 1)[1].split():
                k, _, v = tok.partition("=")
                out[k] = v or "1"
    return out


def min_sm(path: Path) -> int:
    return int(tags(path).get("min_sm", "75"))


def rdc_only(path: Path) -> bool:
    return "rdc_only" in tags(path)


def run(cmd: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)


def tool_version(cmd: list[str], pattern: str) -> str:
    out = run(cmd).stdout
    m = re.search(pattern, out)
    return m.group(1) if m else out.strip().splitlines()[-1]


# ------------------------------------------------------------------------------------------ nvcc
def gen_nvcc(corpus: Corpus) -> None:
    version = tool_version([NVCC, "--version"], r"release [\d.]+, V([\d.]+)")
    srcs = cu_sources()
    plan: list[tuple[str, str, list[str]]] = []  # (variant dir, stem, extra flags)
    for stem, path in srcs.items():
        base = ["-rdc=true"] if rdc_only(path) else []
        if min_sm(path) <= 80:
            plan.append(("sm80", stem, ["-arch=sm_80", *base]))
        plan.append(("sm90", stem, ["-arch=sm_90", *base]))
    plan += [("sm75", s, ["-arch=sm_75"]) for s in NVCC_SM75]
    plan += [("sm86", s, ["-arch=sm_86"]) for s in NVCC_SM86]
    plan += [("sm80_lineinfo", s, ["-arch=sm_80", "-lineinfo"]) for s in NVCC_LINEINFO]
    plan += [("sm80_fastmath", s, ["-arch=sm_80", "-use_fast_math"]) for s in NVCC_FAST_MATH]
    plan += [("rdc", s, [f"-arch=sm_{max(80, min_sm(srcs[s]))}", "-rdc=true"]) for s in NVCC_RDC]
    plan += [("sm80_G", s, ["-arch=sm_80", "-G"]) for s in NVCC_DEBUG]
    plan += [("sm80_O0", s, ["-arch=sm_80", "-Xcicc", "-O0"]) for s in NVCC_DEVICE_O0]
    for variant, stem, flags in plan:
        path = srcs[stem]
        src_rel = str(path.relative_to(CORPUS))
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / f"{stem}.ptx"
            cmd = [NVCC, "-ptx", *flags, "-o", str(out), path.name]
            r = run(cmd, cwd=path.parent)
            if r.returncode != 0:
                corpus.skip("nvcc", src_rel, flags, r.stderr)
                continue
            corpus.add(f"ptx/nvcc/{variant}/{stem}.ptx", out.read_text(), "nvcc", version, ["-ptx", *flags],
                       src_rel, relocatable="-rdc=true" in flags)


# ------------------------------------------------------------------------------------------ NVRTC
def cuda_wheel_include() -> Path:
    import nvidia  # the nvidia-cuda-runtime wheel: nvidia/cu13/include

    for root in nvidia.__path__:
        inc = Path(root) / "cu13" / "include"
        if (inc / "cuda_runtime.h").exists():
            return inc
    raise SystemExit("nvidia-cuda-runtime wheel headers not found (install scripts/corpus_requirements.txt)")


def nvrtc_compile(src: bytes, name: str, opts: list[str]) -> tuple[str | None, str]:
    from cuda.bindings import nvrtc

    err, prog = nvrtc.nvrtcCreateProgram(src, name.encode(), 0, [], [])
    try:
        (res,) = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])
        _, n = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * n
        nvrtc.nvrtcGetProgramLog(prog, log)
        if res != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            return None, log.decode(errors="replace")
        _, n = nvrtc.nvrtcGetPTXSize(prog)
        ptx = b" " * n
        nvrtc.nvrtcGetPTX(prog, ptx)
        return ptx.rstrip(b"\0").decode(), log.decode(errors="replace")
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def gen_nvrtc(corpus: Corpus) -> None:
    from cuda.bindings import nvrtc

    _, major, minor = nvrtc.nvrtcVersion()
    version = f"{major}.{minor}"
    inc = cuda_wheel_include()
    srcs = cu_sources()
    for arch, stems in (("compute_80", NVRTC_80), ("compute_90", NVRTC_90)):
        for stem in stems:
            path = srcs[stem]
            flags = [f"--gpu-architecture={arch}", "-std=c++17"]
            opts = [*flags, f"-I{inc}", f"-I{inc / 'cccl'}", f"-I{CUDA_SRC}"]
            ptx, log = nvrtc_compile(path.read_bytes(), path.name, opts)
            src_rel = str(path.relative_to(CORPUS))
            if ptx is None:
                corpus.skip("nvrtc", src_rel, flags, log)
                continue
            corpus.add(f"ptx/nvrtc/{arch}/{stem}.ptx", ptx, "nvrtc", version, flags, src_rel)


# ------------------------------------------------------------------------------------------ clang
CLANG_BASE = ["-x", "cuda", "--cuda-device-only", "-S", "-Wno-unknown-cuda-version"]


def clang_sdk_flags() -> list[str]:
    # clang-19 knows CUDA up to 12.5; CUDA 13 dropped two headers its wrapper still includes, so a shim
    # directory supplies empty ones. cccl holds libcu++ (<cuda/std/...>) since CUDA 13.
    return [f"--cuda-path={CUDA_HOME}", f"-I{CUDA_SRC / 'clang_shim'}", f"-I{CUDA_HOME / 'include' / 'cccl'}"]


def gen_clang(corpus: Corpus) -> None:
    version = tool_version([CLANG, "--version"], r"clang version ([\d.]+)")
    srcs = cu_sources()
    plan: list[tuple[str, str, list[str]]] = []
    for stem, path in srcs.items():
        if min_sm(path) <= 80:
            plan.append(("sm80", stem, ["--cuda-gpu-arch=sm_80", "-O2"]))
    plan += [("sm80_O0", s, ["--cuda-gpu-arch=sm_80", "-O0"]) for s in CLANG_O0]
    plan += [("sm80_g", s, ["--cuda-gpu-arch=sm_80", "-O2", "-g"]) for s in CLANG_DEBUG]
    plan += [("sm90", s, ["--cuda-gpu-arch=sm_90", "-O2"]) for s in CLANG_SM90]
    plan += [("sm75", s, ["--cuda-gpu-arch=sm_75", "-O2"]) for s in CLANG_SM75]
    for variant, stem, flags in plan:
        path = srcs[stem]
        if rdc_only(path):
            flags = [*flags, "-fgpu-rdc"]
        src_rel = str(path.relative_to(CORPUS))
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / f"{stem}.ptx"
            r = run([CLANG, *CLANG_BASE, *clang_sdk_flags(), *flags, "-o", str(out), str(path)])
            if r.returncode != 0:
                corpus.skip("clang", src_rel, flags, r.stderr)
                continue
            corpus.add(f"ptx/clang/{variant}/{stem}.ptx", out.read_text(), "clang", version,
                       [*CLANG_BASE, "--cuda-path=<CUDA 13>", *flags], src_rel, relocatable="-fgpu-rdc" in flags)
    # SDK-free: no CUDA headers or libdevice at all, only CuMetal's own replacement header.
    rt = CUDA_SRC / "clang_rt"
    for path in sorted(rt.glob("*.cu")):
        for arch, feat in (("sm_80", "+ptx70"), ("sm_90", "+ptx78")):
            flags = ["-nocudainc", "-nocudalib", "-Xclang", "-target-sdk-version=12.0", f"--cuda-gpu-arch={arch}",
                     f"--cuda-feature={feat}", "-O2"]
            src_rel = str(path.relative_to(CORPUS))
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp) / f"{path.stem}.ptx"
                r = run([CLANG, *CLANG_BASE, *flags, f"-I{rt}", "-o", str(out), str(path)])
                if r.returncode != 0:
                    corpus.skip("clang", src_rel, flags, r.stderr)
                    continue
                corpus.add(f"ptx/clang/nosdk_{arch.replace('_', '')}/{path.stem}.ptx", out.read_text(), "clang",
                           version, [*CLANG_BASE, *flags], src_rel)


# ------------------------------------------------------------------------------------------ llvmlite
def gen_llvmlite(corpus: Corpus) -> None:
    import llvmlite
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
    version = f"{llvmlite.__version__} (LLVM {'.'.join(map(str, llvm.llvm_version_info))})"
    srcs = cu_sources()
    for stem, cpu, features in LLVMLITE:
        path = srcs[stem]
        src_rel = str(path.relative_to(CORPUS))
        ir_flags = ["--cuda-gpu-arch=sm_80", "-O2", "-Xclang", "-disable-llvm-passes", "-emit-llvm"]
        with tempfile.TemporaryDirectory() as tmp:
            ll = Path(tmp) / f"{stem}.ll"
            r = run([CLANG, *CLANG_BASE, *clang_sdk_flags(), *ir_flags, "-o", str(ll), str(path)])
            if r.returncode != 0:
                corpus.skip("llvmlite", src_rel, ir_flags, r.stderr)
                continue
            mod = llvm.parse_assembly(ll.read_text())
            mod.verify()
            tm = target.create_target_machine(cpu=cpu, features=features, opt=2)
            pto = llvm.create_pipeline_tuning_options(speed_level=2)
            pb = llvm.create_pass_builder(tm, pto)
            pb.getModulePassManager().run(mod, pb)
            ptx = tm.emit_assembly(mod)
        flags = [f"cpu={cpu}", f"features={features}", "O2 pipeline", "IR: clang-19 " + " ".join(ir_flags)]
        corpus.add(f"ptx/llvmlite/{cpu.replace('_', '')}/{stem}.ptx", ptx, "llvmlite", version, flags, src_rel)


# ------------------------------------------------------------------------------------------ Python DSLs
def load_module(path: Path):  # noqa: ANN201 - a plain module object
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = mod
    spec.loader.exec_module(mod)
    return mod


def gen_numba(corpus: Corpus) -> None:
    from importlib.metadata import version as dist_version

    from numba import cuda

    version = f"numba-cuda {dist_version('numba-cuda')}, nvidia-nvvm {dist_version('nvidia-nvvm')}"
    path = PY_SRC / "numba_kernels.py"
    mod = load_module(path)
    for case in mod.CASES:
        src_rel = f"{path.relative_to(CORPUS)}::{case.name}"
        opts = dict(case.options)
        flags = [f"cc={case.cc[0]}{case.cc[1]}"] + [f"{k}={v}" for k, v in sorted(opts.items())]
        try:
            ptx, _ = cuda.compile_ptx(case.fn, case.sig, cc=case.cc, **opts)
        except Exception as exc:  # a compiler refusal is recorded, not fatal
            corpus.skip("numba-cuda", src_rel, flags, f"error: {type(exc).__name__}: {exc}")
            continue
        corpus.add(f"ptx/numba/{case.name}.ptx", ptx, "numba-cuda", version, flags, src_rel)


def gen_triton(corpus: Corpus) -> None:
    # Use the system ptxas 13.0 for the PTX-version choice, so the PTX is ISA 9.0 like nvcc's
    # (Triton's bundled ptxas would give 9.4 for sm_90, which ptxas 13.0 cannot check).
    os.environ.setdefault("TRITON_PTXAS_PATH", shutil.which("ptxas") or "/usr/local/bin/ptxas")
    os.environ.setdefault("TRITON_PTXAS_BLACKWELL_PATH", os.environ["TRITON_PTXAS_PATH"])
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    import triton
    from triton.backends.compiler import GPUTarget

    path = PY_SRC / "triton_kernels.py"
    mod = load_module(path)
    for case in mod.CASES:
        for cc in case.targets:
            src_rel = f"{path.relative_to(CORPUS)}::{case.name}"
            flags = [f"GPUTarget(cuda, {cc}, 32)"] + [f"{k}={v}" for k, v in sorted(case.options.items())]
            try:
                src = triton.compiler.ASTSource(fn=case.fn, signature=case.signature, constexprs=case.constexprs)
                kernel = triton.compile(src, target=GPUTarget("cuda", cc, 32), options=dict(case.options))
                ptx = kernel.asm["ptx"]
            except Exception as exc:
                corpus.skip("triton", src_rel, flags, f"error: {type(exc).__name__}: {exc}")
                continue
            corpus.add(f"ptx/triton/sm{cc}/{case.name}.ptx", ptx, "triton", triton.__version__, flags, src_rel)


# ------------------------------------------------------------------------------------------ main
GENERATORS: dict[str, Callable[[Corpus], None]] = {
    "nvcc": gen_nvcc, "nvrtc": gen_nvrtc, "clang": gen_clang, "llvmlite": gen_llvmlite,
    "numba": gen_numba, "triton": gen_triton,
}
COMPILER_OF = {"nvcc": "nvcc", "nvrtc": "nvrtc", "clang": "clang", "llvmlite": "llvmlite",
               "numba": "numba-cuda", "triton": "triton"}


def main(argv: Iterable[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=",".join(GENERATORS), help="comma-separated: " + ", ".join(GENERATORS))
    args = ap.parse_args(list(argv) if argv is not None else None)
    chosen = [g.strip() for g in args.only.split(",") if g.strip()]
    unknown = [g for g in chosen if g not in GENERATORS]
    if unknown:
        ap.error(f"unknown generator(s): {', '.join(unknown)}")

    # Regenerating some compilers keeps the others' entries from the existing manifest.
    old = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {"files": [], "skipped": []}
    redo = {COMPILER_OF[g] for g in chosen}
    corpus = Corpus([Entry(**e) for e in old["files"] if e["compiler"] not in redo],
                    [s for s in old["skipped"] if s["compiler"] not in redo])
    for g in chosen:
        sub = PTX_OUT / g
        if sub.exists():
            shutil.rmtree(sub)
        print(f"== {g}")
        GENERATORS[g](corpus)

    corpus.entries.sort(key=lambda e: e.file)
    manifest = {
        "description": "PTX generated by scripts/make_ptx_corpus.py from the sources in tests/corpus; "
                       "paths are relative to tests/corpus.",
        "files": [asdict(e) for e in corpus.entries],
        "skipped": sorted(corpus.skipped, key=lambda s: (s["compiler"], s["source"], s["flags"])),
    }
    MANIFEST.write_text(json.dumps(manifest, indent=1) + "\n")
    counts: dict[str, int] = {}
    for e in corpus.entries:
        key = str(Path(e.file).parent.relative_to("ptx"))
        counts[key] = counts.get(key, 0) + 1
    for k in sorted(counts):
        print(f"{counts[k]:4d}  {k}")
    print(f"{len(corpus.entries)} files, {len(corpus.skipped)} skipped")
    return 0


if __name__ == "__main__":
    # numba orders its extern declarations by Python set iteration; a fixed hash seed keeps the
    # output byte-identical from run to run.
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, *sys.argv])
    sys.exit(main())

#!/usr/bin/env python3
"""Build and run CCCL's own examples (NVIDIA/cccl: thrust/examples, cub/examples) with cumetalc or nvcc.

CuMetal ships none of CCCL's code: point --src at a CCCL source tree (a git checkout or
`git archive <tag> thrust/examples cub/examples cub/test/test_util.h cub/test/mersenne.h c2h/include`),
the headers come from the user's CCCL install (nvidia-cuda-cccl, as for tests/cccl). CUB's examples
include cub/test/test_util.h, which includes c2h's Catch2 helpers: --catch2 names a Catch2 v3 source
tree (its src/catch2 headers; nothing of Catch2 is linked or run), configured here as CMake would
(catch_user_config.hpp with every option off).

    # CuMetal, cpu device (default build dir .work/cccl_examples/cumetalc, builds are kept and reused)
    git -C cccl archive v3.5.0-rc0 thrust/examples cub/examples cub/test/test_util.h cub/test/mersenne.h \
        c2h/include | tar -x -C /tmp/cccl          # (and Catch2's src/ into /tmp/catch2)
    python scripts/run_cccl_examples.py --src /tmp/cccl --catch2 /tmp/catch2 --json cumetal.json
    # nvcc on an NVIDIA machine (-arch=sm_90 unless --arch), the same CCCL headers as CuMetal used:
    python scripts/run_cccl_examples.py --compiler nvcc --src /tmp/cccl --catch2 /tmp/catch2 \
        --cccl-include /tmp/cccl-headers --jobs 16 --json h100.json
    # per example: built / ran (exit status 0 on both) / stdout equal to the reference's
    python scripts/run_cccl_examples.py --compare cumetal.json h100.json
    # (the H100 run of docs/libraries.md is tests/cccl/golden/cccl_examples_h100.json: stdout and exit status)

The H100 reference of docs/libraries.md was made so (CUDA 13.0's nvcc, CCCL 3.5.0 headers from
nvidia-cuda-cccl==13.3.5.0.6 carried there, since CUDA 13.0 ships CCCL 3.0.1): 78 examples built with
16 jobs and run in 153 s. Each example is built alone (under nice; --jobs N builds N at once), run
once with no arguments under a timeout, and its exit status and stdout recorded. What legitimately
differs between machines is masked before comparing (normalise()): wall times, CUB's device line,
timing lines and occupancy, pointer values (numbered by first appearance), and the order of lines
printed by concurrently running blocks (UNORDERED).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))  # scripts/program_runs.py
import program_runs  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parent.parent

# Examples whose output holds wall times (their other lines are compared).
TIMED = {"thrust/examples/discrete_voronoi.cu", "thrust/examples/sorting_aos_vs_soa.cu"}
# Examples whose lines come from printf in concurrently running blocks (order unspecified): compared sorted.
UNORDERED = {"cub/examples/device/example_device_decoupled_look_back.cu"}


def examples(src: pathlib.Path, suite: str = "examples") -> list[tuple[str, list[pathlib.Path]]]:
    """(name, sources) for each example (or Thrust unit test); the name is its path in the CCCL tree."""
    out = []
    if suite == "thrust-tests":  # Thrust's own unit-test framework; the Catch2 ones need Catch2's library
        return [(str(p.relative_to(src)), [p]) for p in sorted(src.glob("thrust/testing/*.cu"))
                if not p.name.startswith("catch2_")]
    for pattern in ("thrust/examples/*.cu", "thrust/examples/cuda/*.cu", "cub/examples/block/*.cu",
                    "cub/examples/device/*.cu"):
        out += [(str(p.relative_to(src)), [p]) for p in sorted(src.glob(pattern))]
    cpp = src / "thrust/examples/cpp_integration"
    if (cpp / "device.cu").is_file():
        out.append(("thrust/examples/cpp_integration", [cpp / "host.cpp", cpp / "device.cu"]))
    return out


def configure_catch2(catch2: pathlib.Path, build: pathlib.Path) -> pathlib.Path:
    """An include dir holding catch2/catch_user_config.hpp, generated from the .in with every option off."""
    inc = build / "catch2_config"
    (inc / "catch2").mkdir(parents=True, exist_ok=True)
    text = (catch2 / "src/catch2/catch_user_config.hpp.in").read_text()
    text = re.sub(r"^#cmakedefine (\w+).*$", r"/* #undef \1 */", text, flags=re.M)
    text = text.replace("@CATCH_CONFIG_DEFAULT_REPORTER@", "console")
    text = text.replace("@CATCH_CONFIG_CONSOLE_WIDTH@", "80")
    (inc / "catch2/catch_user_config.hpp").write_text(text)
    return inc


def compile_cmd(args, name: str, sources: list[pathlib.Path], exe: pathlib.Path, extra_inc: list[pathlib.Path],
                compile_only: bool = False):
    incs = [f"-I{args.cccl_include}"] if args.cccl_include else []
    incs += [f"-I{d}" for d in extra_inc]
    if name.startswith("thrust/testing/"):  # as thrust/testing/CMakeLists.txt compiles them
        incs += [f"-I{args.src / 'thrust/testing'}", "-DCCCL_ENABLE_ASSERTIONS"]
        incs += ["-DTHRUST_TEST_DEVICE_SIDE"] if args.compiler == "nvcc" else []
        sources = [*sources, *args.framework_objects] if not compile_only else sources
    if compile_only:
        incs = ["-c", *incs]
    if name.startswith("cub/"):
        incs += ["-DCATCH_CONFIG_PREFIX_ALL"]  # c2h's public define (its CMakeLists)
        incs += [f"-I{args.src / 'cub/examples'}", f"-I{args.src / 'cub'}", f"-I{args.src / 'c2h/include'}",
                 f"-I{args.catch2 / 'src'}"]
    flags = ["-std=c++17", "--extended-lambda", "-O2"]
    if args.compiler == "nvcc":
        return ["nvcc", f"-arch={args.arch}", *flags, *incs, *map(str, sources), "-o", str(exe)]
    return ["nice", sys.executable, "-m", "cumetal.tools.cumetalc", *flags, *incs, *map(str, sources),
            "-o", str(exe)]


def run_all(args) -> dict:
    build = args.out.resolve()
    build.mkdir(parents=True, exist_ok=True)
    extra_inc = [configure_catch2(args.catch2, build)] if args.catch2 else []
    env = dict(os.environ, CUMETAL_BACKEND=args.backend, CUMETAL_QUIET="1",
               CUMETAL_CUDACXX_CACHE_DIR=str(build / "cache"))
    results = {}
    if args.json and args.json.is_file():
        results = json.loads(args.json.read_text()).get("examples", {})
    args.framework_objects = []
    if args.suite == "thrust-tests":  # the framework's two sources, compiled once
        for rel in ("thrust/testing/unittest/testframework.cu", "thrust/testing/unittest/cuda/testframework.cu"):
            obj = build / (rel.replace("/", "__").removesuffix(".cu") + ".o")
            if not obj.is_file():
                p = subprocess.run(compile_cmd(args, rel, [args.src / rel], obj, extra_inc, compile_only=True),
                                   capture_output=True, text=True, env=env, check=False)
                if p.returncode != 0:
                    sys.exit(f"building {rel} failed:\n{p.stderr[-3000:]}")
            args.framework_objects.append(obj)
    todo = [(n, s) for n, s in examples(args.src, args.suite) if not args.only or re.search(args.only, n)]

    def job(item) -> program_runs.Job:
        name, sources = item
        exe = build / name.replace("/", "__").removesuffix(".cu")
        return program_runs.Job(name, exe, compile_cmd(args, name, sources, exe, extra_inc), list(sources),
                                {"sources": [str(s.relative_to(args.src)) for s in sources]})

    def totals(r: dict) -> str:  # Thrust's unit-test framework
        m = re.search(r"Totals: .*", r.get("stdout", ""))
        return f": {m.group(0)}" if m else ""

    settings = program_runs.Settings(build, env, args.build_timeout, args.run_timeout, json_path=args.json,
                                     json_head={"compiler": args.compiler}, json_key="examples", jobs=args.jobs,
                                     summary=totals)
    return program_runs.build_and_run(map(job, todo), settings, results)


def normalise(name: str, text: str) -> str:
    """The output with what legitimately differs between machines masked: wall times (TIMED examples),
    and in CUB's examples the device line, timing lines and the occupancy CUB reports for each block
    size (an occupancy query's answer about the device). Pointers printed become P1, P2, ... in order
    of first appearance (a caching allocator's reuse stays visible)."""
    seen: dict[str, str] = {}
    text = re.sub(r"0x[0-9a-f]{6,}", lambda m: seen.setdefault(m.group(0), f"P{len(seen) + 1}"), text)
    num = r"\d+(\.\d+)?(e[-+]?\d+)?"
    if name in TIMED:
        text = re.sub(num, "#", text)
    if name.startswith("cub/"):
        lines = [ln for ln in text.splitlines() if not ln.startswith("Using device")]
        lines = [re.sub(num, "#", ln) if re.search(r"clocks|millis|/ ?sec|GB/s", ln) else ln for ln in lines]
        text = re.sub(r"\d+ SM occupancy", "# SM occupancy", "\n".join(lines))
    if name in UNORDERED:
        text = "\n".join(sorted(text.splitlines()))
    return text


def compare(ours: pathlib.Path, ref: pathlib.Path) -> int:
    a = json.loads(ours.read_text())["examples"]
    b = json.loads(ref.read_text())["examples"]
    counts = {"examples": 0, "built": 0, "ran": 0, "match": 0}
    for name in sorted(set(a) | set(b)):
        x, y = a.get(name, {}), b.get(name, {})
        counts["examples"] += 1
        built = x.get("build_rc") == 0
        ran = built and x.get("run_rc") == y.get("run_rc") == 0
        match = ran and normalise(name, x.get("stdout", "")) == normalise(name, y.get("stdout", ""))
        counts["built"] += built
        counts["ran"] += ran
        counts["match"] += match
        if not match:
            why = ("build failed: " + next((ln for ln in x.get("build_err", "").splitlines() if "error" in ln), "?")
                   if not built else f"run rc {x.get('run_rc')} (reference {y.get('run_rc')})" if not ran
                   else "output differs")
            print(f"FAIL {name}: {why}")
    print(" ".join(f"{k}={v}" for k, v in counts.items()))
    return 0 if counts["match"] == counts["examples"] else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=pathlib.Path, help="CCCL source tree (thrust/examples, cub/examples, ...)")
    ap.add_argument("--catch2", type=pathlib.Path, help="Catch2 v3 source tree (for cub/test/test_util.h)")
    ap.add_argument("--cccl-include", type=pathlib.Path, help="CCCL headers (default: the installed "
                    "nvidia-cuda-cccl, as tests/cccl finds it)")
    ap.add_argument("--suite", choices=("examples", "thrust-tests"), default="examples",
                    help="thrust-tests: Thrust's unit tests (thrust/testing, its own framework; self-checking)")
    ap.add_argument("--compiler", choices=("cumetalc", "nvcc"), default="cumetalc")
    ap.add_argument("--arch", default="sm_90", help="nvcc's -arch")
    ap.add_argument("--backend", default="cpu", help="CUMETAL_BACKEND for the runs")
    ap.add_argument("--out", type=pathlib.Path, help="build dir (default .work/cccl_examples/<compiler>)")
    ap.add_argument("--only", help="regular expression on the example names")
    ap.add_argument("--json", type=pathlib.Path, help="results file (updated after every example)")
    ap.add_argument("--jobs", type=int, default=1, help="parallel builds (the runs stay sequential)")
    ap.add_argument("--build-timeout", type=int, default=600)
    ap.add_argument("--run-timeout", type=int, default=300)
    ap.add_argument("--compare", nargs=2, type=pathlib.Path, metavar=("OURS", "REFERENCE"))
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    if not args.src or not (args.src / "thrust/examples").is_dir():
        ap.error("--src must name a CCCL source tree holding thrust/examples")
    args.src = args.src.resolve()
    args.catch2 = args.catch2.resolve() if args.catch2 else None
    if args.cccl_include is None and args.compiler == "cumetalc":
        sys.path.insert(0, str(REPO))
        from tests.cccl.cccl_install import cccl_include
        args.cccl_include = cccl_include()
        if args.cccl_include is None:
            ap.error("no CCCL headers installed: pip install nvidia-cuda-cccl==13.3.5.0.6 or --cccl-include")
    if args.compiler == "nvcc" and not shutil.which("nvcc"):
        ap.error("nvcc is not on PATH")
    args.out = args.out or REPO / ".work/cccl_examples" / args.compiler
    run_all(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())

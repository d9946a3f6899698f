#!/usr/bin/env python3
"""Build and run libcu++'s own tests (NVIDIA/cccl: libcudacxx/test/libcudacxx/**/*.pass.cpp) with cumetalc.

CuMetal ships none of CCCL's code: --src is a CCCL source tree holding libcudacxx/test (a checkout, or
`git archive <tag> libcudacxx/test`), the headers come from the user's CCCL install (nvidia-cuda-cccl,
as for tests/cccl; --cccl-include names another). Each test is a self-checking program: lit builds it
as CUDA with the suite's support headers and `-include force_include.h` (whose main() runs the test's
`main`, renamed `fake_main` and made __host__ __device__, on the host and then in a one-block kernel),
and the exit status is the verdict. This script does the same with cumetalc:

    cumetalc -x cu -std=c++17 -arch=sm_80 --extended-lambda -I<support> -I<cccl-include> \
        -include <libcudacxx/force_include.h> TEST.pass.cpp -o TEST

The lit directives the tests carry are honoured for the features such a build has (`c++17`,
`pre-sm-XX` below sm_XX, `clang` and `clang-22` (what CCCL's headers see: clang 22 in CUDA mode, no
`__NVCC__`), `linux`/`darwin`):
a test that is UNSUPPORTED there, or not REQUIRED, is "unsupported"; XFAIL tests are run and
recorded as such. Results: pass / fail (nonzero exit or timeout) / not built (the first error line),
per test and per folder, in --json; --compare prints per-folder counts of two JSON files.

    git -C cccl archive v3.5.0-rc0 libcudacxx/test | tar -x -C /tmp/cccl
    python scripts/run_libcudacxx_tests.py --src /tmp/cccl --json libcudacxx.json \
        cuda/barrier cuda/pipeline std/thread           # folders under libcudacxx/test/libcudacxx
    python scripts/run_libcudacxx_tests.py --summary libcudacxx.json
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))  # scripts/program_runs.py
import program_runs  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parent.parent
_DIRECTIVE = re.compile(r"^\s*//\s*(UNSUPPORTED|REQUIRES|XFAIL)\s*:(.*)$", re.M)


def _cccl_include() -> pathlib.Path | None:
    sys.path.insert(0, str(REPO))
    from tests.cccl.cccl_install import cccl_include  # noqa: PLC0415

    return cccl_include()


def features(arch: int, std: str) -> set[str]:
    """The lit features of a cumetalc build for ``arch`` (e.g. 80) and ``std`` (e.g. c++17)."""
    # CCCL's headers see clang (``__clang__``, no ``__NVCC__``): its tests' clang-cuda directives apply
    f = {std, "clang", "clang-22", "linux" if sys.platform.startswith("linux") else "darwin"}
    for sm in (32, 60, 70, 80, 90):
        if arch < sm:
            f.add(f"pre-sm-{sm}")
    if arch < 90:
        f.add("pre-sm-90a")
    return f


def _holds(expr: str, feats: set[str]) -> bool:
    """A lit boolean expression (``a || b && !c``, ``*``, ``true``, regex-free names) over ``feats``."""
    expr = expr.strip()
    if not expr:
        return False
    tokens = re.findall(r"\|\||&&|!|\(|\)|[^\s|&!()]+", expr)
    py = []
    for t in tokens:
        if t == "||":
            py.append(" or ")
        elif t == "&&":
            py.append(" and ")
        elif t == "!":
            py.append(" not ")
        elif t in "()":
            py.append(t)
        else:
            py.append(str(t in ("*", "true") or t in feats))
    try:
        return bool(eval("".join(py), {"__builtins__": {}}))  # noqa: S307 - True/False/and/or/not only
    except SyntaxError:
        return False


def verdict_before_running(text: str, feats: set[str]) -> str:
    """'unsupported', 'xfail' or '' (run it) from the test's lit directives."""
    xfail = False
    for kind, arg in _DIRECTIVE.findall(text):
        items = [a for a in arg.split(",") if a.strip()]
        if kind == "UNSUPPORTED" and any(_holds(a, feats) for a in items):
            return "unsupported"
        if kind == "REQUIRES" and not all(_holds(a, feats) for a in items):
            return "unsupported"
        if kind == "XFAIL" and any(_holds(a, feats) for a in items):
            xfail = True
    return "xfail" if xfail else ""


def outcome(r: dict) -> str:
    if r.get("skip"):
        return r["skip"]
    if "build_rc" not in r:
        return "not run"
    if r.get("build_rc") != 0:
        return "not built"
    ok = r.get("run_rc") == 0
    if r.get("xfail"):
        return "xpass" if ok else "xfail"
    return "pass" if ok else "fail"


def folder_of(name: str, depth: int) -> str:
    return "/".join(name.split("/")[:depth])


def summary(results: dict, depth: int = 2) -> str:
    rows: dict[str, dict[str, int]] = {}
    for name, r in sorted(results.items()):
        c = rows.setdefault(folder_of(name, depth), {})
        c[outcome(r)] = c.get(outcome(r), 0) + 1
    kinds = ["pass", "fail", "not built", "xfail", "xpass", "unsupported", "not run"]
    lines = ["| folder | " + " | ".join(kinds) + " |", "|---" * (len(kinds) + 1) + "|"]
    total = {k: 0 for k in kinds}
    for folder, c in rows.items():
        lines.append(f"| {folder} | " + " | ".join(str(c.get(k, 0)) for k in kinds) + " |")
        for k in kinds:
            total[k] += c.get(k, 0)
    lines.append("| total | " + " | ".join(str(total[k]) for k in kinds) + " |")
    return "\n".join(lines)


def first_error(r: dict) -> str:
    for ln in (r.get("build_err") or "").splitlines():
        if "error" in ln:
            return ln.strip()[:300]
    return ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="*", help="folders (or .pass.cpp files) under libcudacxx/test/libcudacxx")
    ap.add_argument("--src", type=pathlib.Path, help="CCCL source tree with libcudacxx/test")
    ap.add_argument("--cccl-include", type=pathlib.Path, help="CCCL headers (default: nvidia-cuda-cccl)")
    ap.add_argument("--arch", type=int, default=80, help="sm_XX to build for (default 80)")
    ap.add_argument("--std", default="c++17")
    ap.add_argument("--build", type=pathlib.Path, default=REPO / ".work" / "libcudacxx_tests")
    ap.add_argument("--json", type=pathlib.Path, help="results file (updated after every test)")
    ap.add_argument("--jobs", type=int, default=1, help="builds at once")
    ap.add_argument("--build-timeout", type=float, default=600)
    ap.add_argument("--run-timeout", type=float, default=120)
    ap.add_argument("--backend", default="cpu", help="CUMETAL_BACKEND for the runs (default cpu)")
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--summary", type=pathlib.Path, help="print the per-folder table of a results file and stop")
    ap.add_argument("--errors", action="store_true", help="with --summary: the first error of each failure")
    a = ap.parse_args(argv)
    if a.summary:
        data = json.loads(a.summary.read_text())
        results = data["tests"]
        if a.src:  # the lit directives again (the features may have changed since the run)
            feats = features(data.get("arch", a.arch), data.get("std", a.std))
            for name, r in results.items():
                p = a.src / "libcudacxx" / "test" / "libcudacxx" / name
                if p.is_file():
                    v = verdict_before_running(p.read_text(errors="replace"), feats)
                    r["skip"] = "unsupported" if v == "unsupported" else ""
                    r["xfail"] = v == "xfail"
        if a.folders:
            results = {k: v for k, v in results.items() if any(k.startswith(f) for f in a.folders)}
        print(summary(results))
        if a.errors:
            for name, r in sorted(results.items()):
                if outcome(r) in ("not built", "fail"):
                    err = first_error(r) or (r.get("stdout", "") + r.get("stderr", "")).strip()[-300:]
                    print(f"{outcome(r)}: {name}: {err}")
        return 0
    if a.src is None or not (a.src / "libcudacxx" / "test" / "libcudacxx").is_dir():
        ap.error("--src must name a CCCL source tree holding libcudacxx/test/libcudacxx")
    cccl = a.cccl_include or _cccl_include()
    if cccl is None:
        ap.error("no CCCL headers: pip install nvidia-cuda-cccl or pass --cccl-include")
    test_root = a.src / "libcudacxx" / "test"
    tests_dir = test_root / "libcudacxx"
    paths: list[pathlib.Path] = []
    for f in a.folders or ["cuda"]:
        p = tests_dir / f
        if p.is_file():
            paths.append(p)
        elif p.is_dir():
            paths += sorted(p.rglob("*.pass.cpp"))
        else:
            ap.error(f"'{f}' is not a folder or file under {tests_dir}")
    feats = features(a.arch, a.std)
    a.build.mkdir(parents=True, exist_ok=True)
    results: dict = {}
    if a.json and a.json.is_file():
        results = json.loads(a.json.read_text()).get("tests", {})
    jobs = []
    for p in paths:
        name = str(p.relative_to(tests_dir))
        v = verdict_before_running(p.read_text(errors="replace"), feats)
        if v == "unsupported":
            results[name] = {"skip": "unsupported"}
            continue
        # no dots: program_runs keeps the build command beside it as <exe>.cmd (with_suffix)
        exe = a.build / name.removesuffix(".pass.cpp").replace("/", "__").replace(".", "_")
        cmd = [sys.executable, "-m", "cumetal.tools.cumetalc", "-x", "cu", f"-std={a.std}", f"-arch=sm_{a.arch}",
               "--extended-lambda", "-w", "-I", str(test_root / "support"), "-I", str(cccl),
               "-include", str(tests_dir / "force_include.h"), str(p), "-o", str(exe)]
        jobs.append(program_runs.Job(name, exe, cmd, [p], {"xfail": v == "xfail"}))
    env = dict(os.environ, CUMETAL_BACKEND=a.backend, CUMETAL_QUIET="1")
    settings = program_runs.Settings(build=a.build, env=env, build_timeout=a.build_timeout,
                                     run_timeout=a.run_timeout, rebuild=a.rebuild, json_path=a.json,
                                     json_head={"compiler": "cumetalc", "arch": a.arch, "std": a.std,
                                                "cccl_include": str(cccl)},
                                     json_key="tests", jobs=a.jobs,
                                     summary=lambda r: f" -> {outcome(r)}")
    program_runs.build_and_run(jobs, settings, results)
    print(summary({k: v for k, v in results.items() if any(k.startswith(f) for f in a.folders or ["cuda"])}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

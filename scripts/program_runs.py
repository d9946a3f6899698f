"""Build-then-run loops shared by scripts/run_cccl_examples.py and scripts/run_cuda_library_samples.py:
each program is built (skipped when the same command line built it before and its sources are older than
the executable), then run with a timeout in the build directory; results go to a dict (and a JSON file
after every program) as {build_rc, build_s, build_err, run_rc, run_s, stdout, stderr} per name."""

from __future__ import annotations

import concurrent.futures
import json
import pathlib
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass
class Job:
    name: str
    exe: pathlib.Path
    cmd: list[str]
    sources: list[pathlib.Path]
    record: dict  # what the caller keeps beside the results (e.g. the sources)


@dataclass
class Settings:
    build: pathlib.Path
    env: dict
    build_timeout: float
    run_timeout: float
    rebuild: bool = False
    error_lines: int = 40  # build errors kept
    stderr_tail: int = 4000  # bytes of a run's stderr kept
    json_path: pathlib.Path | None = None
    json_head: dict | None = None  # the file's other keys ({"compiler": ...})
    json_key: str = "examples"
    jobs: int = 1
    summary: Callable[[dict], str] | None = None  # extra text for a program's progress line


def _build(job: Job, s: Settings, results: dict) -> tuple[Job, dict]:
    r = dict(job.record)
    stamp = job.exe.with_suffix(".cmd")
    fresh = job.exe.is_file() and stamp.is_file() and stamp.read_text() == " ".join(job.cmd) and \
        all(job.exe.stat().st_mtime > src.stat().st_mtime for src in job.sources)
    if fresh and not s.rebuild:  # built by this command line before (e.g. the same build, another backend)
        old = results.get(job.name, {})
        r.update(build_rc=0, build_s=old.get("build_s", 0.0), build_err=old.get("build_err", "(cached)"))
        return job, r
    t = time.time()
    try:
        p = subprocess.run(job.cmd, capture_output=True, text=True, env=s.env, timeout=s.build_timeout, check=False,
                           errors="replace")
        rc, err = p.returncode, p.stderr
    except subprocess.TimeoutExpired:
        rc, err = "timeout", ""
    errors = "\n".join([ln for ln in err.splitlines() if "error" in ln][: s.error_lines])
    r.update(build_rc=rc, build_s=round(time.time() - t, 1),
             build_err=(errors + "\n...\n" + err[-1500:]).strip() if rc else "")
    if rc == 0:
        stamp.write_text(" ".join(job.cmd))
    return job, r


def _run(job: Job, r: dict, s: Settings, results: dict) -> None:
    if r["build_rc"] == 0:
        t = time.time()
        try:
            p = subprocess.run([str(job.exe)], capture_output=True, text=True, env=s.env, timeout=s.run_timeout,
                               check=False, cwd=s.build, errors="replace")
            r.update(run_rc=p.returncode, stdout=p.stdout[-20000:], stderr=p.stderr[-s.stderr_tail:])
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            r.update(run_rc="timeout", stdout=out[-20000:], stderr="")
        r["run_s"] = round(time.time() - t, 1)
    results[job.name] = r
    extra = s.summary(r) if s.summary else ""
    print(f"{job.name}: build {r['build_rc']} ({r['build_s']} s)" +
          (f", run {r['run_rc']} ({r['run_s']} s)" if "run_rc" in r else "") + extra, flush=True)
    if s.json_path:
        s.json_path.write_text(json.dumps({**(s.json_head or {}), s.json_key: results}, indent=1))


def build_and_run(jobs: Iterable[Job], s: Settings, results: dict) -> dict:
    """Build every job (in parallel with ``s.jobs`` > 1), then run them one at a time (they may time
    themselves); ``results`` (earlier results, for cached builds) is updated and returned."""
    todo = list(jobs)
    if s.jobs > 1:
        with concurrent.futures.ThreadPoolExecutor(s.jobs) as pool:
            built = list(pool.map(lambda j: _build(j, s, results), todo))
        for job, r in built:
            _run(job, r, s, results)
    else:
        for job in todo:
            _run(*_build(job, s, results), s, results)
    return results

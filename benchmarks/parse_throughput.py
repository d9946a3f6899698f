#!/usr/bin/env python3
"""PTX parse throughput on the real-compiler corpus, side by side with ptxas on the same files.

    python benchmarks/parse_throughput.py                      # writes docs/benchmarks-parser.md
    python benchmarks/parse_throughput.py --repeat 5 --out -   # print the report instead

For every file of tests/corpus/manifest.json: the best of --repeat in-process ``cumetal.ptx.parse``
times (wall clock, default mode) and the best of --ptxas-repeat ``ptxas -arch=<target>`` runs (a
subprocess, wall clock, as a user would run it: process start included; ``-c`` for relocatable
files; output to a temporary file). Runs are sequential so the two never compete for a core. The
issue's goal is "parsing a file takes less time than ptxas needs to assemble it"; the report says
for which files that holds.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from cumetal.ptx import parse

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "corpus"
DEFAULT_OUT = REPO / "docs" / "benchmarks-parser.md"


@dataclass
class Row:
    rel: str
    compiler: str
    group: str
    size: int
    lines: int
    parse_s: float
    ptxas_s: float

    @property
    def ratio(self) -> float:
        return self.parse_s / self.ptxas_s


def best_of(n: int, fn) -> float:
    best = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 2**20:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return (f"{cpu}, {os.cpu_count()} logical CPUs{mem}; {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}")


def ptxas_version(ptxas: str) -> str:
    out = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    return out[-2] if len(out) >= 2 else " ".join(out)


def measure(repeat: int, ptxas_repeat: int, ptxas: str) -> list[Row]:
    manifest = json.loads((CORPUS / "manifest.json").read_text())
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.cubin"
        for e in manifest["files"]:
            path = CORPUS / e["file"]
            text = path.read_text()
            res = parse(text, e["file"])
            if not res.ok:
                raise SystemExit(f"{e['file']} does not parse cleanly; fix the parser before benchmarking")
            parse_s = best_of(repeat, lambda text=text, name=e["file"]: parse(text, name))
            cmd = [ptxas, f"-arch={e['target'].split(',')[0].strip()}", "-o", str(out), str(path)]
            if e["relocatable"]:
                cmd.insert(1, "-c")

            def run_ptxas(cmd=cmd) -> None:
                subprocess.run(cmd, check=True, capture_output=True)

            ptxas_s = best_of(ptxas_repeat, run_ptxas)
            group = str(Path(e["file"]).parent.relative_to("ptx"))
            rows.append(Row(e["file"], e["compiler"], group, len(text.encode()), text.count("\n"), parse_s, ptxas_s))
            print(f"{parse_s * 1e3:8.2f} ms parse {ptxas_s * 1e3:8.2f} ms ptxas  {e['file']}", file=sys.stderr)
    return rows


EMPTY_KERNEL = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry empty()\n{\n\tret;\n}\n"


def ptxas_floor(ptxas: str, repeat: int) -> float:
    """ptxas wall time on a one-instruction kernel: its fixed cost (process start, set-up)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "empty.ptx"
        src.write_text(EMPTY_KERNEL)
        cmd = [ptxas, "-arch=sm_80", "-o", str(Path(tmp) / "empty.cubin"), str(src)]
        return best_of(repeat, lambda: subprocess.run(cmd, check=True, capture_output=True))


def cli_startup(rows: list[Row], repeat: int) -> tuple[str, float]:
    """Wall time of a whole `cumetalc --parse-only` process on the smallest corpus file."""
    smallest = min(rows, key=lambda r: r.size)
    cmd = [sys.executable, "-m", "cumetal.tools.cumetalc", "--parse-only", str(CORPUS / smallest.rel)]
    return smallest.rel, best_of(repeat, lambda: subprocess.run(cmd, check=True, capture_output=True))


def fmt_ms(s: float) -> str:
    return f"{s * 1e3:.1f}"


def report(rows: list[Row], repeat: int, ptxas_repeat: int, ptxas: str, load: str) -> str:
    total_bytes = sum(r.size for r in rows)
    total_lines = sum(r.lines for r in rows)
    total_parse = sum(r.parse_s for r in rows)
    total_ptxas = sum(r.ptxas_s for r in rows)
    faster = [r for r in rows if r.parse_s < r.ptxas_s]
    slower = sorted((r for r in rows if r.parse_s >= r.ptxas_s), key=lambda r: -r.ratio)
    ratios = [r.ratio for r in rows]
    floor = ptxas_floor(ptxas, 5)
    faster_than_work = [r for r in rows if r.parse_s < r.ptxas_s - floor]
    cli_file, cli_s = cli_startup(rows, repeat)
    exceptions = [r for r in rows if r not in faster_than_work][:5]
    not_faster_than_work = ("; not for " + ", ".join(
        f"`{r.rel}` (parse {fmt_ms(r.parse_s)} ms vs {fmt_ms(r.ptxas_s - floor)} ms)" for r in exceptions)
    ) if exceptions else ""
    lines = [
        "# PTX parser throughput vs ptxas",
        "",
        "Made by `python benchmarks/parse_throughput.py` (not a test). Corpus: the "
        f"{len(rows)} real-compiler PTX files of `tests/corpus/` (nvcc, NVRTC, clang-19, llvmlite, "
        "numba-cuda, Triton; see `tests/corpus/manifest.json`).",
        "",
        f"- Date: {dt.datetime.now(dt.UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- Machine: {machine()}",
        f"- ptxas: {ptxas_version(ptxas)} (`{ptxas}`)",
        f"- Method: parse = best of {repeat} in-process `cumetal.ptx.parse(text)` calls (wall clock, "
        f"text already in memory); ptxas = best of {ptxas_repeat} `ptxas -arch=<.target> [-c] -o <tmp> file` "
        "runs (wall clock, process start included: what a user waits for). Sequential, one core.",
        f"- Load average when the run started: {load} (the machine is shared; expect noise of tens of %).",
        "",
        "## Totals",
        "",
        "| | parse (CuMetal) | ptxas |",
        "|---|---:|---:|",
        f"| total time, {len(rows)} files | {total_parse:.2f} s | {total_ptxas:.2f} s |",
        f"| throughput | {total_bytes / total_parse / 1e6:.2f} MB/s, {total_lines / total_parse:,.0f} lines/s "
        f"| {total_bytes / total_ptxas / 1e6:.2f} MB/s, {total_lines / total_ptxas:,.0f} lines/s |",
        f"| corpus | {total_bytes / 1e6:.2f} MB, {total_lines:,} lines | |",
        "",
        f"**Goal (parse faster than ptxas assembles) holds for {len(faster)} of {len(rows)} files**; "
        f"parse/ptxas time ratio: median {statistics.median(ratios):.2f}, max {max(ratios):.2f}.",
        "",
        "Caveats, so the comparison is not flattering by construction:",
        "",
        f"- ptxas has a fixed cost (process start, set-up) of about {fmt_ms(floor)} ms (its time on a "
        "one-instruction kernel). "
        f"Against ptxas time minus that floor (its per-file work only), parsing is faster for "
        f"{len(faster_than_work)} of {len(rows)} files{not_faster_than_work}.",
        f"- The parse times are in-process. A whole `cumetalc --parse-only` process (Python start and "
        f"imports) takes {fmt_ms(cli_s)} ms on the smallest file (`{cli_file}`), so for one small file "
        f"the CLI is slower than ptxas; it pays off only when many files or large files are parsed in one "
        f"process.",
        "",
    ]
    if slower:
        lines += ["Files where parsing is NOT faster than ptxas:", "",
                  "| file | KiB | parse ms | ptxas ms | ratio |", "|---|---:|---:|---:|---:|"]
        lines += [f"| `{r.rel}` | {r.size / 1024:.0f} | {fmt_ms(r.parse_s)} | {fmt_ms(r.ptxas_s)} | {r.ratio:.2f} |"
                  for r in slower]
        lines.append("")
    groups: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        groups[r.group].append(r)
    lines += ["## By compiler and flags", "",
              "| group | files | KiB | parse ms | ptxas ms | parse MB/s | parse faster in |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for g in sorted(groups):
        rs = groups[g]
        b, p, x = sum(r.size for r in rs), sum(r.parse_s for r in rs), sum(r.ptxas_s for r in rs)
        n_fast = sum(r.parse_s < r.ptxas_s for r in rs)
        lines.append(f"| {g} | {len(rs)} | {b / 1024:.0f} | {fmt_ms(p)} | {fmt_ms(x)} | {b / p / 1e6:.2f} "
                     f"| {n_fast}/{len(rs)} |")
    lines += ["", "## Largest files", "", "| file | KiB | lines | parse ms | ptxas ms | ratio |",
              "|---|---:|---:|---:|---:|---:|"]
    for r in sorted(rows, key=lambda r: -r.size)[:15]:
        lines.append(f"| `{r.rel}` | {r.size / 1024:.0f} | {r.lines} | {fmt_ms(r.parse_s)} | {fmt_ms(r.ptxas_s)} "
                     f"| {r.ratio:.2f} |")
    lines += ["", "<details><summary>All files</summary>", "", "| file | KiB | parse ms | ptxas ms | ratio |",
              "|---|---:|---:|---:|---:|"]
    lines += [f"| `{r.rel}` | {r.size / 1024:.1f} | {fmt_ms(r.parse_s)} | {fmt_ms(r.ptxas_s)} | {r.ratio:.2f} |"
              for r in rows]
    lines += ["", "</details>", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="parse runs per file (best is kept)")
    ap.add_argument("--ptxas-repeat", type=int, default=2, help="ptxas runs per file (best is kept)")
    ap.add_argument("--ptxas", default=os.environ.get("PTXAS") or shutil.which("ptxas") or "/usr/local/bin/ptxas")
    ap.add_argument("--out", default=str(DEFAULT_OUT), help="report path, or - for stdout")
    args = ap.parse_args(argv)
    if not Path(args.ptxas).is_file():
        print(f"parse_throughput: error: ptxas not found at {args.ptxas} (use --ptxas)", file=sys.stderr)
        return 2
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    rows = measure(args.repeat, args.ptxas_repeat, args.ptxas)
    text = report(rows, args.repeat, args.ptxas_repeat, args.ptxas, load)
    if args.out == "-":
        print(text)
    else:
        Path(args.out).write_text(text)
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

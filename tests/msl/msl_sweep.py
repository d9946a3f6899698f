"""Run the PTX instruction sweep (tests/ptx_sweep: NVIDIA hardware goldens) through msl-sim.

Each case: real PTX lowering -> MSL -> g++ (cases batched into one library) -> launch -> the
sweep's own comparison rules. Usage:
    python tests/msl/msl_sweep.py [family,family,...] [--fp64=emulate]
prints one line per family (passed / failed / errors) and the first report of each failure.
"""

from __future__ import annotations

import struct
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/ for the ptx_sweep package
from cumetal.backends.msl.sim import build_batch, build_program  # noqa: E402
from ptx_sweep.case import Buf, Case  # noqa: E402
from ptx_sweep.compare import compare_case  # noqa: E402
from ptx_sweep.golden import GoldenStore  # noqa: E402

_PACK = {"u32": "I", "s32": "i", "u64": "Q", "s64": "q", "f32": "f", "f64": "d", "u16": "H", "s16": "h"}


def _modules(cases: list[Case]) -> tuple[list[tuple[Case, object]], dict[str, str]]:
    from cumetal.passes import CompileError, compile_ptx

    ok, errors = [], {}
    for c in cases:
        try:
            m = compile_ptx(c.ptx, f"{c.name}.ptx")
        except CompileError as e:
            errors[c.name] = f"lowering: {str(e).splitlines()[0]}"
            continue
        if c.kernel not in m.kernels:
            errors[c.name] = f"lowering: {'; '.join(d.message for d in m.failed.get(c.kernel, []))[:200]}"
            continue
        ok.append((c, m))
    return ok, errors


def _programs(pairs: list[tuple[Case, object]], fp64: str) -> tuple[list[tuple[Case, object]], dict[str, str]]:
    try:
        progs = build_batch([m for _c, m in pairs], fp64=fp64)
        return list(zip([c for c, _m in pairs], progs, strict=True)), {}
    except Exception:  # find the culprits one by one
        out, errors = [], {}
        for c, m in pairs:
            try:
                out.append((c, build_program(m, fp64=fp64)))
            except Exception as e:  # noqa: BLE001 - reported per case
                errors[c.name] = f"msl: {type(e).__name__}: {str(e).splitlines()[0][:200]}"
        return out, errors


def run_case(case: Case, prog) -> dict[str, np.ndarray] | str:
    fn = prog.module.kernels[case.kernel]
    arrays: dict[str, np.ndarray] = {}
    for b in case.buffers:
        a = np.empty(b.count, dtype=b.dtype)
        if b.init is not None:
            a[:] = b.init
        else:
            a.view(np.uint8)[:] = b.fill
        arrays[b.name] = a
    params = bytearray(fn.param_size)
    for p, slot in zip(case.params, fn.params, strict=True):
        if isinstance(p, Buf):
            struct.pack_into("<Q", params, slot.offset, arrays[p.name].ctypes.data)
        else:
            struct.pack_into("<" + _PACK[p.ptx_type], params, slot.offset, p.value)
    res = prog.run(case.kernel, case.grid, case.block, bytes(params), case.shared_bytes,
                   allocations=[(a.ctypes.data, max(a.nbytes, 1)) for a in arrays.values()], timeout_s=20)
    if res.fault:
        return f"fault {res.fault} at 0x{res.fault_address:x}"
    return {b.name: arrays[b.name] for b in case.outputs}


def run_sweep(cases: list[Case], fp64: str = "native", batch: int = 60) -> dict[str, str | None]:
    """Case name -> None (matches NVIDIA) or the reason it does not."""
    store = GoldenStore()
    results: dict[str, str | None] = {}
    for i in range(0, len(cases), batch):
        pairs, errors = _modules(cases[i:i + batch])
        results.update(errors)
        progs, errors = _programs(pairs, fp64)
        results.update(errors)
        for case, prog in progs:
            try:
                expected = store.get(case)
            except LookupError as e:
                results[case.name] = f"golden: {e}"
                continue
            got = run_case(case, prog)
            if isinstance(got, str):
                results[case.name] = got
                continue
            reports = compare_case(case, expected, got)
            results[case.name] = reports[0] if reports else None
    return results


def main() -> None:
    from ptx_sweep.cases import FAMILIES, all_cases

    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    fp64 = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--fp64=")), "native")
    families = args[0].split(",") if args else list(FAMILIES)
    cases = [c for c in all_cases() if c.family in families]
    results = run_sweep(cases, fp64)
    by_family: dict[str, Counter] = {}
    for c in cases:
        r = results.get(c.name, "not run")
        kind = "pass" if r is None else ("golden" if r.startswith("golden") else
                                         "lowering" if r.startswith("lowering") else "fail")
        by_family.setdefault(c.family, Counter())[kind] += 1
    print("| family | cases | match NVIDIA | differ | not lowered | no golden |")
    print("|---|---|---|---|---|---|")
    for fam, cnt in by_family.items():
        print(f"| {fam} | {sum(cnt.values())} | {cnt['pass']} | {cnt['fail']} | {cnt['lowering']} | {cnt['golden']} |")
    for c in cases:
        r = results.get(c.name)
        if r is not None and not r.startswith(("golden", "lowering")):
            print(f"- {c.name}: {r.splitlines()[0][:300]}")


if __name__ == "__main__":
    main()

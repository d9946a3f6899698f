"""scripts/run_cuda_library_samples.py's comparison (no builds): the H100 golden compared with itself
is all identical; masked figures, numbers within rtol, different text, exit status and algorithm
listings are each told apart."""

from __future__ import annotations

import copy
import importlib.util
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests/libs/golden/cuda_library_samples_h100.json"
spec = importlib.util.spec_from_file_location("run_cuda_library_samples", ROOT / "scripts/run_cuda_library_samples.py")
runner = importlib.util.module_from_spec(spec)
spec.loader.exec_module(runner)


def _compare(tmp_path: pathlib.Path, ours: dict, capsys) -> tuple[int, str]:
    path = tmp_path / "ours.json"
    path.write_text(json.dumps(ours))
    rc = runner.compare(path, GOLDEN)
    return rc, capsys.readouterr().out


def test_golden_against_itself(tmp_path: pathlib.Path, capsys) -> None:
    golden = json.loads(GOLDEN.read_text())
    assert len(golden["samples"]) == 130
    ours = copy.deepcopy(golden)
    for name in runner.ALGO_LISTING:  # the H100's LtFp8CustomFind timed out; a run here exits 0
        ours["samples"][name]["run_rc"] = 0
    rc, out = _compare(tmp_path, ours, capsys)
    last = out.splitlines()[-1]
    assert last == "samples=130 built=130 ran=130 identical=127 close=0 algo listing=3" and rc == 0, out


def test_differences_are_classified(tmp_path: pathlib.Path, capsys) -> None:
    golden = json.loads(GOLDEN.read_text())
    ours = {"samples": {}}
    gemm = "cuBLAS/Level-3/gemm/cublas_gemm_example.cu"
    dot = "cuBLAS/Level-1/dot/cublas_dot_example.cu"
    axpy = "cuBLAS/Level-1/axpy/cublas_axpy_example.cu"
    auto = "cuBLAS/Extensions/GemmExAutoTuning/cublas_GemmExAutoTuning_example.cu"
    for name in (gemm, dot, axpy, auto):
        ours["samples"][name] = copy.deepcopy(golden["samples"][name])
    ref = golden["samples"][gemm]["stdout"]
    assert "19.00" in ref
    ours["samples"][gemm]["stdout"] = ref.replace("19.00", "19.01", 1)         # within 1e-3: close
    ours["samples"][dot]["stdout"] += "extra line\n"                           # text differs
    ours["samples"][axpy]["run_rc"] = 1                                        # exit status differs
    timed = golden["samples"][auto]["stdout"]
    ours["samples"][auto]["stdout"] = "\n".join(                               # timings are masked
        ln.replace(ln.split(": ")[-1], "123.456 ms") if "Timing" in ln else ln for ln in timed.splitlines())
    assert ours["samples"][auto]["stdout"] != timed.rstrip("\n")
    rc, out = _compare(tmp_path, ours, capsys)
    assert rc == 1
    assert f"CLOSE {gemm}" in out
    assert f"FAIL {dot}: output differs" in out
    assert f"FAIL {axpy}: run rc 1 (reference 0)" in out
    assert auto not in out
    assert out.splitlines()[-1] == "samples=4 built=4 ran=3 identical=1 close=1 algo listing=0"

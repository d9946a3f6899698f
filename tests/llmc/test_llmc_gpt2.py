"""llm.c's own GPT-2 programs (karpathy/llm.c ``test_gpt2_fp32.cu`` and ``train_gpt2_fp32.cu``,
unmodified), built by cumetalc with -lcublas -lcublasLt and run on a CPU device. Opt-in: llm.c's
code stays out of the project, and its model files are made offline with PyTorch.

    CUMETAL_LLMC_DIR=/path/to/llm.c        a checkout (validated at commit f1e2ace)
    CUMETAL_LLMC_DATA=/path/to/data         scripts/make_llmc_gpt2.py's output: gpt2_124M.bin,
                                            gpt2_124M_debug_state.bin, train.bin, val.bin, reference.json

Checks (truth: PyTorch's forward/backward of the same random model, in reference.json and the debug
state): llm.c's own logits, loss and gradient checks pass (``OK (LOGITS)``, ``LOSS OK``, ``TENSOR
OK``); its ten AdamW steps give PyTorch's ten losses within 1e-5; a short training run lowers the
train and validation loss. Only llm.c's last check, a hard-coded loss table of the real GPT-2 124M
weights, cannot pass with another model (``overall okay: 0``), so it is not asserted.
``CUMETAL_LLMC_BACKEND`` picks the device (default cpu-jit: the numpy engine takes ~3x longer)."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
LLMC = pathlib.Path(os.environ.get("CUMETAL_LLMC_DIR", "/nonexistent"))
DATA = pathlib.Path(os.environ.get("CUMETAL_LLMC_DATA", "/nonexistent"))
pytestmark = pytest.mark.skipif(
    not (LLMC / "test_gpt2_fp32.cu").is_file() or not (DATA / "reference.json").is_file(),
    reason="opt-in: set CUMETAL_LLMC_DIR (an llm.c checkout) and CUMETAL_LLMC_DATA (scripts/make_llmc_gpt2.py output)")
BACKEND = os.environ.get("CUMETAL_LLMC_BACKEND", "cpu-jit")


def _build(name: str, out: pathlib.Path) -> pathlib.Path:
    exe = out / name.replace(".cu", "")
    proc = subprocess.run([sys.executable, "-m", "cumetal.tools.cumetalc", "-O3", "-I", str(LLMC), str(LLMC / name),
                           "-o", str(exe), "-lcublas", "-lcublasLt"], capture_output=True, text=True, timeout=900,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return exe


def _run(args: list[str], cwd: pathlib.Path) -> str:
    env = dict(os.environ, CUMETAL_BACKEND=BACKEND, CUMETAL_QUIET="1")
    proc = subprocess.run(args, capture_output=True, text=True, timeout=1100, check=False, cwd=cwd, env=env)
    return proc.stdout + proc.stderr


def test_llmc_test_gpt2_fp32(tmp_path: pathlib.Path) -> None:
    exe = _build("test_gpt2_fp32.cu", tmp_path)
    out = _run([str(exe)], DATA)
    for mark in ("OK (LOGITS)", "LOSS OK", "TENSOR OK"):
        assert mark in out, out[-3000:]
    assert "NOT OK" not in out and "TENSOR NOT OK" not in out, out[-3000:]
    losses = [float(x) for x in re.findall(r"step \d+: loss ([0-9.]+)", out)]
    ref = json.loads((DATA / "reference.json").read_text())["test_losses"]
    assert len(losses) == len(ref) == 10, out[-3000:]
    assert max(abs(a - b) for a, b in zip(losses, ref, strict=True)) < 1e-5, (losses, ref)
    assert losses[-1] < losses[0] - 0.3


def test_llmc_train_gpt2_fp32_lowers_the_loss(tmp_path: pathlib.Path) -> None:
    exe = _build("train_gpt2_fp32.cu", tmp_path)
    small = tmp_path / "train_small.bin"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_llmc_shard.py"), str(DATA / "train.bin"), str(small),
                    "--tokens", str(6 * 256 + 1)], check=True, timeout=60)
    out = _run([str(exe), "-i", str(small), "-j", str(DATA / "val.bin"), "-b", "4", "-t", "64", "-l", "1e-3",
                "-v", "3", "-m", "2", "-s", "1000", "-g", "1"], DATA)  # the model is read from the cwd
    train = [float(x) for x in re.findall(r"step\s+\d+/\d+: train loss ([0-9.]+)", out)]
    val = [float(x) for x in re.findall(r"val loss ([0-9.]+)", out)]
    assert len(train) >= 5 and len(val) >= 2, out[-3000:]
    assert train[-1] < train[0] - 0.2 and val[-1] < val[0] - 0.1, (train, val)

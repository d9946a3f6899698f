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
``CUMETAL_LLMC_BACKEND`` picks the device (default cpu-jit: the numpy engine takes ~3x longer).

llm.c's mixed-precision programs (``test_gpt2.cu``, ``train_gpt2.cu``, bf16) take a second data set:

    CUMETAL_LLMC_DATA_BF16=/path/to/data    scripts/make_llmc_gpt2.py --vocab 8200 output (its kernels
                                            assume ceil(V/8) >= 1024: with fewer, fused_classifier_kernel5's
                                            first loop runs ~4M iterations per thread, on a GPU too)

The model is converted to llm.c's bf16 checkpoint (version 5, round to nearest even) here. Checks: logits
within llm.c's bf16 tolerance, all 16 gradient tensors ``TENSOR OK``, ten AdamW steps within 0.02 of
PyTorch's fp32 losses, the checkpoint/reload determinism check, and a training run lowering the loss."""

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
pytestmark = pytest.mark.skipif(not (LLMC / "test_gpt2_fp32.cu").is_file(),
                                reason="opt-in: set CUMETAL_LLMC_DIR (an llm.c checkout)")
needs_data = pytest.mark.skipif(not (DATA / "reference.json").is_file(),
                                reason="opt-in: set CUMETAL_LLMC_DATA (scripts/make_llmc_gpt2.py output)")
BACKEND = os.environ.get("CUMETAL_LLMC_BACKEND", "cpu-jit")
DATA_BF16 = pathlib.Path(os.environ.get("CUMETAL_LLMC_DATA_BF16", "/nonexistent"))
needs_bf16_data = pytest.mark.skipif(not (DATA_BF16 / "reference.json").is_file(),
                                     reason="opt-in: set CUMETAL_LLMC_DATA_BF16 (make_llmc_gpt2.py --vocab 8200)")


def _build(name: str, out: pathlib.Path, *flags: str) -> pathlib.Path:
    exe = out / name.replace(".cu", "")
    proc = subprocess.run([sys.executable, "-m", "cumetal.tools.cumetalc", "-O3", *flags, "-I", str(LLMC),
                           str(LLMC / name), "-o", str(exe), "-lcublas", "-lcublasLt"], capture_output=True, text=True,
                          timeout=900, check=False)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return exe


def _run(args: list[str], cwd: pathlib.Path) -> str:
    env = dict(os.environ, CUMETAL_BACKEND=BACKEND, CUMETAL_QUIET="1")
    proc = subprocess.run(args, capture_output=True, text=True, timeout=1100, check=False, cwd=cwd, env=env)
    return proc.stdout + proc.stderr


@needs_data
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


@needs_data
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


def _bf16_workdir(tmp: pathlib.Path) -> pathlib.Path:
    """The bf16 data set in a scratch directory: the model as llm.c's bf16 checkpoint (version 5, the
    parameters rounded to nearest even), and the token files where test_gpt2.cu's determinism check
    reads them."""
    import numpy as np  # noqa: PLC0415

    work = tmp / "bf16"
    (work / "dev" / "data" / "tinyshakespeare").mkdir(parents=True)
    raw = np.fromfile(DATA_BF16 / "gpt2_124M.bin", dtype=np.uint8)
    header = raw[:1024].view(np.int32).copy()
    assert header[0] == 20240326 and header[1] == 3
    bits = raw[1024:].view(np.uint32).astype(np.uint64)
    header[1] = 5
    bf16 = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    (work / "gpt2_124M_bf16.bin").write_bytes(header.tobytes() + bf16.tobytes())
    for name in ("gpt2_124M_debug_state.bin", "train.bin", "val.bin", "gpt2_tokenizer.bin"):
        (work / name).symlink_to(DATA_BF16 / name)
    shakespeare = work / "dev" / "data" / "tinyshakespeare"
    (shakespeare / "tiny_shakespeare_val.bin").symlink_to(DATA_BF16 / "val.bin")
    (shakespeare / "tiny_shakespeare_train.bin").symlink_to(DATA_BF16 / "train.bin")
    return work


@needs_bf16_data
def test_llmc_test_gpt2_bf16(tmp_path: pathlib.Path) -> None:
    exe = _build("test_gpt2.cu", tmp_path, "-DENABLE_BF16")
    out = _run([str(exe)], _bf16_workdir(tmp_path))
    assert "OK (LOGITS)" in out and "NOT OK (LOGITS)" not in out, out[-3000:]
    assert out.count("TENSOR OK") == 16 and "TENSOR NOT OK" not in out, out[-3000:]
    losses = [float(x) for x in re.findall(r"step \d+: loss ([0-9.]+)", out)]
    ref = json.loads((DATA_BF16 / "reference.json").read_text())["test_losses"]
    assert len(losses) == len(ref) == 10, out[-3000:]
    assert max(abs(a - b) for a, b in zip(losses, ref, strict=True)) < 0.02, (losses, ref)
    assert len(re.findall(r"loss ok at step \d+", out)) == 10 and "Nondeterminism" not in out, out[-3000:]


@needs_bf16_data
def test_llmc_train_gpt2_bf16_lowers_the_loss(tmp_path: pathlib.Path) -> None:
    exe = _build("train_gpt2.cu", tmp_path, "-DENABLE_BF16")
    work = _bf16_workdir(tmp_path)
    out = _run([str(exe), "-i", "train.bin", "-j", "val.bin", "-e", "gpt2_124M_bf16.bin", "-b", "4", "-t", "64",
                "-l", "1e-3", "-x", "6", "-v", "3", "-s", "0", "-n", "0", "-o", str(tmp_path / "logs")], work)
    train = [float(x) for x in re.findall(r"step\s+\d+/\d+ \| loss ([0-9.]+)", out)]
    val = [float(x) for x in re.findall(r"val loss ([0-9.]+)", out)]
    assert len(train) == 6 and len(val) >= 2, out[-3000:]
    assert train[-1] < train[0] and val[-1] < val[0] - 0.05, (train, val)

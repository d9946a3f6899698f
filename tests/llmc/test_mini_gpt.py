"""llm.c's kinds of kernels and cuBLAS calls (tests/llmc/programs/mini_gpt.cu, CuMetal's own code)
built by cumetalc with -lcublas -lcublasLt, run on the cpu device and checked stage by stage
against numpy in float64: embeddings, LayerNorm, matmul, multi-head causal attention through
cublasSgemmStridedBatched, GELU, fused softmax cross-entropy and its gradient, the cublasSgemm
backward passes (beta 0 and 1), bias / LayerNorm / embedding gradients with atomics, AdamW.

llm.c itself is validated by hand (docs/libraries.md, "llm.c GPT-2"): its code stays out of the
project."""

from __future__ import annotations

import os
import pathlib
import subprocess

import numpy as np
import pytest

from cumetal.capi.build import build_program

PROGRAM = pathlib.Path(__file__).parent / "programs" / "mini_gpt.cu"
B, T, C, NH, V, VP, NA = 2, 16, 64, 4, 100, 128, 1000
HS, BT = C // NH, B * T


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def _gelu_grad(x: np.ndarray) -> np.ndarray:
    k = np.sqrt(2 / np.pi)
    th = np.tanh(k * (x + 0.044715 * x**3))
    return 0.5 * (1 + th) + 0.5 * x * (1 - th**2) * k * (1 + 3 * 0.044715 * x**2)


def _inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    f = lambda *shape, s=1.0: (rng.standard_normal(shape) * s).astype(np.float32)  # noqa: E731
    wte = f(VP, C, s=0.5)
    wte[V:] = 0.0  # padded vocabulary rows, as llm.c stores them
    return {
        "tok": rng.integers(0, 8, BT).astype(np.int32),  # few distinct tokens: atomics collide
        "tgt": rng.integers(0, V, BT).astype(np.int32),
        "wte": wte, "wpe": f(T, C, s=0.5), "lnw": 1 + f(C, s=0.1), "lnb": f(C, s=0.1),
        "wqkv": f(3 * C, C, s=0.2), "bqkv": f(3 * C, s=0.1), "wfc": f(4 * C, C, s=0.2), "bfc": f(4 * C, s=0.1),
        "dfc": f(BT, 4 * C, s=0.01), "ap": f(NA), "ag": f(NA, s=0.1), "am": f(NA, s=0.01),
        "av": np.abs(f(NA, s=0.01)),
    }


def _reference(i: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    d = {k: v.astype(np.float64) for k, v in i.items() if k not in ("tok", "tgt")}
    tok, tgt, t_idx = i["tok"], i["tgt"], np.arange(BT) % T
    x = d["wte"][tok] + d["wpe"][t_idx]
    mean = x.mean(1)
    rstd = 1 / np.sqrt(((x - mean[:, None]) ** 2).mean(1) + 1e-5)
    norm = (x - mean[:, None]) * rstd[:, None]
    ln = norm * d["lnw"] + d["lnb"]
    qkv = ln @ d["wqkv"].T + d["bqkv"]
    q, k, v = (qkv[:, j * C:(j + 1) * C].reshape(B, T, NH, HS).transpose(0, 2, 1, 3) for j in range(3))
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(HS)
    scores = np.where(np.tril(np.ones((T, T), bool)), scores, -np.inf)
    att = np.exp(scores - scores.max(-1, keepdims=True))
    att /= att.sum(-1, keepdims=True)
    y = (att @ v).transpose(0, 2, 1, 3).reshape(BT, C)
    fc = ln @ d["wfc"].T + d["bfc"]
    logits = ln @ d["wte"].T
    z = logits[:, :V] - logits[:, :V].max(1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    losses = -np.log(p[np.arange(BT), tgt])
    dlogits = logits.copy()
    dlogits[:, :V] = (p - np.eye(V)[tgt]) / BT
    dpre = d["dfc"] * _gelu_grad(fc)
    dln = dpre @ d["wfc"]
    dwfc = 1.0 + dpre.T @ ln
    dn = dln * d["lnw"]
    dx = (dn - dn.mean(1, keepdims=True) - norm * (dn * norm).mean(1, keepdims=True)) * rstd[:, None]
    dwte, dwpe = np.zeros((VP, C)), np.zeros((T, C))
    np.add.at(dwte, tok, dx)
    np.add.at(dwpe, t_idx, dx)
    pa, m, vv, g = d["ap"].copy(), d["am"].copy(), d["av"].copy(), d["ag"]
    for step in (1, 2, 3):
        m = 0.9 * m + 0.1 * g
        vv = 0.999 * vv + 0.001 * g * g
        pa -= 1e-2 * ((m / (1 - 0.9**step)) / (np.sqrt(vv / (1 - 0.999**step)) + 1e-8) + 0.01 * pa)
    return {"x": x, "ln": ln, "mean": mean, "rstd": rstd, "qkv": qkv, "att": att.reshape(-1), "y": y,
            "fc": fc, "act": _gelu(fc), "logits": dlogits, "losses": losses, "dpre": dpre, "dln": dln,
            "dwfc": dwfc, "dbfc": dpre.sum(0), "dx": dx, "dlnw": (dln * norm).sum(0), "dlnb": dln.sum(0),
            "dwte": dwte, "dwpe": dwpe, "adam_p": pa, "adam_g": g, "adam_m": m, "adam_v": vv}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    tmp = tmp_path_factory.mktemp("llmc")
    exe = tmp / "mini_gpt"
    build_program([str(PROGRAM)], str(exe), libraries=["cublas", "cublasLt"])
    inputs = _inputs(np.random.default_rng(15))
    (tmp / "in.bin").write_bytes(b"".join(inputs[k].tobytes() for k in inputs))
    env = dict(os.environ, CUMETAL_BACKEND="cpu", CUMETAL_QUIET="1")
    proc = subprocess.run([str(exe), str(tmp / "in.bin"), str(tmp / "out.bin")], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    assert proc.returncode == 0 and proc.stdout.strip() == "done", proc.stdout + proc.stderr
    ref = _reference(inputs)
    flat = np.frombuffer((tmp / "out.bin").read_bytes(), np.float32)
    got, pos = {}, 0
    for name, r in ref.items():
        got[name] = flat[pos:pos + r.size].reshape(r.shape)
        pos += r.size
    assert pos == flat.size, "the program wrote a different number of values than the reference lists"
    return got, ref


STAGES = ["x", "ln", "mean", "rstd", "qkv", "att", "y", "fc", "act", "logits", "losses", "dpre", "dln", "dwfc",
          "dbfc", "dx", "dlnw", "dlnb", "dwte", "dwpe", "adam_p", "adam_g", "adam_m", "adam_v"]


@pytest.mark.parametrize("stage", STAGES)
def test_stage_matches_numpy(results: tuple[dict[str, np.ndarray], dict[str, np.ndarray]], stage: str) -> None:
    got, ref = results
    scale = max(float(np.abs(ref[stage]).max()), 1e-30)
    np.testing.assert_allclose(got[stage], ref[stage], rtol=2e-5, atol=2e-5 * scale, err_msg=stage)

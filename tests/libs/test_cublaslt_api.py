"""The cuBLASLt API around the matmul, from a C program built with ``cumetalc -lcublasLt -lcublas``
(tests/libs/programs/cublaslt_api.cu, CPU backend): logger callback / level / mask / file /
force-disable, algorithm ids, configuration and capabilities, the stack-allocated ``*Init``
descriptors, an FP8 matmul with scale and AMAX pointers and NVIDIA's refusals, the heuristics cache,
and cuBLAS's logger callback (one message per API call). The FP8 arithmetic itself is checked
against the H100 in test_cublaslt_fp8.py."""

from __future__ import annotations

import os
import pathlib
import subprocess

from cumetal.capi.build import build_program

PROGRAM = pathlib.Path(__file__).parent / "programs" / "cublaslt_api.cu"


def test_cublaslt_api_program(tmp_path: pathlib.Path) -> None:
    exe = tmp_path / "cublaslt_api"
    build_program([str(PROGRAM)], str(exe), libraries=["cublas", "cublasLt"])
    log = tmp_path / "lt.log"
    env = dict(os.environ, CUMETAL_BACKEND="cpu", CUMETAL_QUIET="1")
    proc = subprocess.run([str(exe), str(log)], capture_output=True, text=True, env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = {}
    for line in proc.stdout.splitlines():
        key, _, value = line.partition(" ")
        out[key] = value
    assert out.get("done") == "1", proc.stdout
    assert out["bad_layout"] == "15"                  # an unknown data type: NOT_SUPPORTED
    assert out["lt_layout_seen"] == "2"               # level 5: each call with its arguments
    assert int(out["lt_errors"]) == 1                 # level 1: the failure with its cause
    assert out["bad_level"] == "7"
    assert out["mask_api_only"] == "1 0"              # mask 16: the API trace, not the error
    assert out["level0_messages"] == "0"
    assert out["disabled_messages"] == "0"
    text = log.read_text()
    assert "[cublasLt][" in text and "[Api][cublasLtMatmulPreferenceCreate]" in text
    assert out["algo_ids"] == "8 0"                   # the H100's f32 ids (0, 1, 10, …): the first 8 asked for
    assert out["algo_init_bad"] == "15"               # id 5: not an f32 algorithm (NOT_SUPPORTED, as on the H100)
    assert out["splitk"] == "1 4"
    assert out["caps"] == "0 1"                       # id 0 lists no tiles (as on the H100); GELU_BIAS in its mask
    assert float(out["init_matmul_err"]) == 0.0       # small integers: exact
    assert out["algo_check_bad_tile"] == "15" and out["matmul_bad_tile"] == "15"  # NOT_SUPPORTED, as on the H100
    assert float(out["fp8_f32_err"]) == 0.0
    assert out["fp8_amax_f32_d"] == "7"               # AMAX_D needs an FP8 D (as NVIDIA's library answered)
    amax, ref = (float(v) for v in out["fp8_amax"].split())
    assert amax == ref > 0
    assert out["fp8_d_scaled"] == "1"
    assert out["fp8_nn"] == "15"                      # FP8 takes only TN
    assert out["cache"] == "8192 100 0 1"
    assert out["cudart"] == "13000"
    created, sgemm, same = (int(v) for v in out["blas_log"].split())
    assert created == 2 and sgemm == 1 and same == 1  # cublasCreate, cublasSgemm: one message each
    assert out["blas_log_off"] == "0"
    # the environment variables: CUBLAS_LOGINFO_DBG / CUBLAS_LOGDEST_DBG and CUBLASLT_LOG_LEVEL / _FILE
    blas_log, lt_log = tmp_path / "blas.log", tmp_path / "lt_env.log"
    env.update(CUBLAS_LOGINFO_DBG="1", CUBLAS_LOGDEST_DBG=str(blas_log), CUBLASLT_LOG_LEVEL="5",
               CUBLASLT_LOG_FILE=str(lt_log))
    proc = subprocess.run([str(exe), str(log)], capture_output=True, text=True, env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    blas_text = blas_log.read_text()
    assert "function cublasCreate called" in blas_text and "function cublasSgemm called" in blas_text
    assert "i!  m: val=8" in blas_text
    assert "[Api][cublasLtCreate] out=0x" in lt_log.read_text()

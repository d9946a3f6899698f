"""Shared fixtures: an initialized driver and a fresh context per test."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cumetal import driver as cu

OK = cu.CUresult.CUDA_SUCCESS


def check(result):
    """Unpack ``(err, *values)`` asserting success; returns the value(s)."""
    err, *rest = result
    assert err == OK, f"{cu.CUresult(err).name}: {cu.last_error_message()}"
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


@pytest.fixture
def ctx():
    assert cu.cuInit(0)[0] == OK
    dev = check(cu.cuDeviceGet(0))
    c = check(cu.cuCtxCreate(None, 0, dev))
    yield c
    assert cu.cuCtxDestroy(c)[0] == OK


def run_fresh(code: str, **env: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a new interpreter (for behaviour before cuInit or with another backend)."""
    full_env = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full_env, timeout=120)

"""The compiled CPU backend's tests call ``launch_air`` directly, as the cpu-jit device does: with
the vectorized copies compiled at every launch size (the air-sim device compiles them only for
launches of ``CUMETAL_JIT_VECTOR_THREADS`` threads or more, to save compile time)."""

import pytest


@pytest.fixture(autouse=True)
def _vectors_at_every_size(monkeypatch):
    monkeypatch.setenv("CUMETAL_JIT_VECTOR_THREADS", "0")

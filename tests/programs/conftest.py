"""Build the C ABI test programs once per session (libcumetal itself is built once and cached)."""

from __future__ import annotations

from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent / "src"


@pytest.fixture(scope="session")
def programs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("programs")

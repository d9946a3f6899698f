"""tests/functional (numpy references) unchanged, on the Metal GPU."""

from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path

import pytest

FUNCTIONAL = Path(__file__).resolve().parents[1] / "functional"
SKIP = {"test_backend_is_selectable"}  # about CUMETAL_BACKEND parsing, not kernels


def _load(name: str):
    if str(FUNCTIONAL) not in sys.path:
        sys.path.insert(0, str(FUNCTIONAL))
    spec = importlib.util.spec_from_file_location(f"metal_{name}", FUNCTIONAL / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = []
for _path in sorted(FUNCTIONAL.glob("test_*.py")):
    for _fname, _fn in inspect.getmembers(_load(_path.stem), inspect.isfunction):
        if _fname.startswith("test_") and _fname not in SKIP:
            CASES.append(pytest.param(_fn, id=f"{_path.stem}::{_fname}"))


@pytest.mark.parametrize("case", CASES)
def test_functional_on_metal(case, on_metal, monkeypatch, capfd):
    from functional_harness import Gpu

    from cumetal.devices.metal import MetalDevice

    gpu = Gpu()
    available = {"gpu": gpu, "monkeypatch": monkeypatch, "capfd": capfd}
    try:
        case(**{p: available[p] for p in inspect.signature(case).parameters})
    finally:
        gpu.close()
    assert isinstance(on_metal, MetalDevice)

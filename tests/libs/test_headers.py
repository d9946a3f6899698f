"""The enumerator values of CuMetal's library headers equal NVIDIA's (CUDA 13), as recorded from
NVIDIA's headers on the H100 machine (tests/libs/golden/cuda_lib_enums.json: names and numbers)."""

from __future__ import annotations

import json
import pathlib
import re

import pytest

from cumetal.cudacxx import include_dir

RECORDED = json.loads((pathlib.Path(__file__).parent / "golden" / "cuda_lib_enums.json").read_text())


@pytest.mark.parametrize("ours,theirs,min_count", [("cublas_api.h", "cublas_api.h", 70),
                                                    ("cublasLt.h", "cublasLt.h", 80),
                                                    ("curand.h", "curand.h", 45)])
def test_enum_values_match_nvidia(ours: str, theirs: str, min_count: int) -> None:
    text = (include_dir() / ours).read_text()
    ours_values = {m.group(1): int(m.group(2)) for m in re.finditer(r"\b([A-Z][A-Z0-9_]+)\s*=\s*(-?\d+)", text)}
    recorded = RECORDED[theirs]
    common = [k for k in ours_values if k in recorded]
    assert len(common) >= min_count, (len(common), sorted(set(ours_values) - set(recorded)))
    assert {k: ours_values[k] for k in common} == {k: recorded[k] for k in common}

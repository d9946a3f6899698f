"""How much of cuda-bindings' driver API ``cumetal.driver`` has (a number for docs/driver-api.md).

Skipped without cuda-bindings (``pip install "cuda-bindings==13.5.*"``: it installs without a GPU).
Run with ``-s`` to see the list of absent functions.
"""

from __future__ import annotations

import pytest

from cumetal import driver as cu

nv = pytest.importorskip("cuda.bindings.driver")


def _functions(module) -> set[str]:
    return {n for n in dir(module) if n.startswith("cu") and callable(getattr(module, n))
            and not isinstance(getattr(module, n), type)}


def test_driver_api_coverage() -> None:
    theirs = _functions(nv)
    ours = _functions(cu)
    present = sorted(theirs & ours)
    absent = sorted(theirs - ours)
    from cumetal.driver.unsupported import NOT_BUILT, UNSUPPORTED

    refused = set(UNSUPPORTED) | set(NOT_BUILT)
    assert refused <= set(present), "every refusing stand-in names a cuda-bindings function"
    print(f"\ncumetal.driver has {len(present)} of {len(theirs)} cuda.bindings.driver functions: "
          f"{len(present) - len(refused)} implemented, {len(UNSUPPORTED)} answer CUDA_ERROR_NOT_SUPPORTED "
          f"(no such hardware/interop), {len(NOT_BUILT)} answer it but are not built yet "
          f"({', '.join(sorted(NOT_BUILT))})")
    print("absent:", " ".join(absent))
    assert not (ours - theirs - {"cuuint32_t", "cuuint64_t"}), "functions cuda-bindings does not have"
    assert len(present) >= 513  # all 513 of cuda-bindings 13.5 (raise this as coverage grows)
    # every enum class and #define constant of cuda-bindings exists, with the same members
    for name in dir(nv):
        value = getattr(nv, name)
        if isinstance(value, type) and hasattr(value, "__members__") and name.startswith("CU"):
            assert hasattr(cu, name), name
            ours_members = {k: int(v) for k, v in getattr(cu, name).__members__.items()}
            assert ours_members == {k: int(v) for k, v in value.__members__.items()}, name
        elif type(value) is int and not name.startswith("_"):
            assert getattr(cu, name, None) == value, name

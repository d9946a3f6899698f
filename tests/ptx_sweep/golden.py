"""Golden outputs taken on NVIDIA hardware: one .npz per family in golden/.

Keys: '<case>@<buffer>' -> output array, '<case>@__fp__' -> the case fingerprint the outputs
belong to (uint8 array of its ASCII), '<case>@__error__' -> the driver error text when the case
could not run on the hardware.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .case import Case

GOLDEN_DIR = Path(__file__).parent / "golden"


def _text(s: str) -> np.ndarray:
    return np.frombuffer(s.encode(), dtype=np.uint8)


def family_path(family: str, root: Path = GOLDEN_DIR) -> Path:
    return root / f"{family}.npz"


def pack(case: Case, outputs: dict[str, np.ndarray] | None, error: str | None = None) -> dict[str, np.ndarray]:
    """The npz entries for one case's result."""
    entries = {f"{case.name}@__fp__": _text(case.fingerprint())}
    if error is not None:
        entries[f"{case.name}@__error__"] = _text(error)
    for name, arr in (outputs or {}).items():
        entries[f"{case.name}@{name}"] = arr
    return entries


class GoldenStore:
    """Lazy reader of the golden npz files."""

    def __init__(self, root: Path = GOLDEN_DIR) -> None:
        self.root = root
        self._files: dict[str, dict[str, np.ndarray]] = {}

    def _family(self, family: str) -> dict[str, np.ndarray]:
        if family not in self._files:
            path = family_path(family, self.root)
            if path.exists():
                with np.load(path) as z:
                    self._files[family] = {k: z[k] for k in z.files}
            else:
                self._files[family] = {}
        return self._files[family]

    def get(self, case: Case) -> dict[str, np.ndarray]:
        """The golden outputs of case; raises LookupError when absent, stale or errored."""
        data = self._family(case.family)
        fp_key = f"{case.name}@__fp__"
        if fp_key not in data:
            raise LookupError(f"no golden for case {case.name} in {family_path(case.family, self.root)}; "
                              "regenerate with scripts/make_sweep_goldens.py on an NVIDIA GPU")
        fp = bytes(data[fp_key]).decode()
        if fp != case.fingerprint():
            raise LookupError(f"golden for case {case.name} is stale (fingerprint {fp} != {case.fingerprint()}): "
                              "the case changed since the goldens were made; regenerate them")
        err_key = f"{case.name}@__error__"
        if err_key in data:
            raise LookupError(f"case {case.name} failed on the hardware: {bytes(data[err_key]).decode()}")
        return {b.name: data[f"{case.name}@{b.name}"] for b in case.outputs}

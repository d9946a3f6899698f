"""Where ``CUMETAL_BACKEND=msl-sim`` may differ from NVIDIA hardware and the CPU backend.

Each entry (PTX sweep case name, or functional-suite test node id -> specific reason) turns the
test into xfail(strict=True) when run on msl-sim (tests/msl/sweep_on_msl_sim.py and the plugin of
tests/msl/run_on_msl_sim.py), so a fixed gap fails until its entry is removed.

The sweep list holds only tests/ptx_sweep/known_gaps.py (gaps of every backend): with
``CUMETAL_FP64=native`` every other case matches the goldens under the sweep's rules
(docs/msl-backend.md). Under ``CUMETAL_FP64=emulate`` f64 results differ by design
(docs/fp64-policy.md); that mode is measured by tests/msl/msl_sweep.py, not gated here.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

# the sweep's own gaps hold on every backend (NVIDIA results that are not the PTX semantics); loaded by
# path because this module is imported from scripts whose sys.path has no 'tests' package
_spec = importlib.util.spec_from_file_location("_sweep_known_gaps", Path(__file__).parents[1] / "ptx_sweep" / "known_gaps.py")
assert _spec is not None and _spec.loader is not None
_known = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_known)

MSL_SIM_GAPS: dict[str, str] = dict(_known.KNOWN_GAPS)
MSL_SIM_GAPS.update(_known.METAL_GAPS)
MSL_SIM_GAPS.update(_known.BACKEND_GAPS["msl-sim"])  # structured random programs (ptx_sweep/randprog_gaps.py)

MSL_SIM_FUNCTIONAL_GAPS: dict[str, str] = {}  # recursion (fib) runs over an explicit stack: apple/recursion.py

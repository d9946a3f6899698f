import sys
from pathlib import Path

# The helper modules of this directory (math_cases, runner, refs) and of scripts/ and benchmarks/
# (make_math_goldens, math_accuracy). Appended, not prepended, so that other directories'
# `from conftest import ...` never resolves to this file.
HERE = Path(__file__).resolve().parent
for p in (HERE, HERE.parents[1] / "scripts", HERE.parents[1] / "benchmarks"):
    if str(p) not in sys.path:
        sys.path.append(str(p))

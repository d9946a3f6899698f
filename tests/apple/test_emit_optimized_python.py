"""``python -O`` strips asserts: the MSL emitter must not depend on them (issue #10: a caught
AssertionError used to pick the structurizer's fallback). The same modules emit the same MSL with
and without -O."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

KERNELS = Path(__file__).resolve().parents[1] / "functional" / "kernels"
SCRIPT = """
import hashlib, sys
from pathlib import Path
from cumetal.backends.msl import emit_msl
from cumetal.passes import compile_ptx
h = hashlib.sha256()
for p in sorted(Path(sys.argv[1]).glob("*.ptx")):
    m = compile_ptx(p.read_text(), p.name)
    try:
        h.update(emit_msl(m).encode())
    except Exception as e:
        h.update(type(e).__name__.encode())
print(h.hexdigest())
"""


def _digest(*flags: str) -> str:
    out = subprocess.run([sys.executable, *flags, "-c", SCRIPT, str(KERNELS)], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_emitted_msl_is_the_same_under_python_O():
    assert _digest("-O") == _digest()

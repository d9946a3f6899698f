"""Types whose definition comes from the C library agree between a program's device pass (the bundled
musl headers) and its host compile (the system's): on glibc, int_fast16_t/int_fast32_t are long, so a
kernel templated on uint_fast32_t (cuda::std::philox4x32 is) is found by the host's launch and a
struct holding them has one layout (tests/cudacxx/host_device/fast_types.cu)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

SRC = Path(__file__).with_name("host_device") / "fast_types.cu"


def test_fast_integer_types_agree(tmp_path: Path) -> None:
    from cumetal.capi.build import build_program  # noqa: PLC0415

    exe = tmp_path / "fast_types"
    build_program([str(SRC)], str(exe))
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, check=False,
                          env=dict(os.environ, CUMETAL_BACKEND="cpu", CUMETAL_QUIET="1"))
    assert (proc.returncode, proc.stdout) == (0, "PASSED\n"), proc.stdout + proc.stderr

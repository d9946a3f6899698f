"""air-sim's wait kinds (what a parked thread waits for, in its deadlock report) come from the one
constants table, ``backends/common/codes.py`` ``WaitKind``: the numbers instrument.py passes to
``sim_wait_point`` and the ones runtime.c compares them with cannot drift apart."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import cumetal.backends.air.sim as air_sim
from cumetal.backends.air.sim.instrument import wait_points
from cumetal.backends.common import codes
from cumetal.backends.common.codes import WaitKind

RUNTIME_C = Path(air_sim.__file__).resolve().parent / "runtime.c"


def _wait_enum() -> str:
    """runtime.c's enum of wait kinds (``enum { W_MBARRIER = ..., ... };``)."""
    m = re.search(r"enum \{\s*(W_\w+\s*=[^}]*)\};", RUNTIME_C.read_text())
    assert m, "runtime.c has no enum of wait kinds (W_*)"
    return m.group(1)


def test_runtime_takes_every_wait_kind_from_the_generated_header():
    members = re.findall(r"(W_\w+)\s*=\s*([^,]+?)\s*(?:,|$)", _wait_enum().strip())
    assert members, _wait_enum()
    for name, value in members:
        assert value == f"CM_WAIT_{name[2:]}", f"runtime.c numbers {name} by hand ({value})"
    assert {name[2:] for name, _ in members} == {m.name for m in WaitKind}


def test_runtime_wait_kinds_compile_to_the_table_values(tmp_path):
    """The enum as gcc reads it (with the committed header, as the runtime is built) equals the table."""
    src = tmp_path / "w.c"
    src.write_text('#include <stdio.h>\n#include "cumetal_codes.h"\n'
                   f"enum {{ {_wait_enum()} }};\nint main(void) {{\n"
                   + "".join(f'  printf("%d\\n", (int)W_{m.name});\n' for m in WaitKind) + "  return 0;\n}\n")
    exe = tmp_path / "w"
    subprocess.run(["gcc", "-I", str(codes.HEADER.parent), "-o", str(exe), str(src)], check=True, timeout=60)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True, timeout=30).stdout.split()
    assert [int(x) for x in out] == [int(m) for m in WaitKind]


def _wait_block(block: str) -> list[str]:
    """A legalized wait as the rules leave it in AIR text: the activemask (lane bit summed) and the
    atomic read of the word waited on."""
    return [f"L_lg.{block}:", "  %50 = shl i32 1, %cm_lane", "  %51 = call i32 @air.simd_sum.u.i32(i32 %50)",
            "  %59 = call i32 @air.atomic.local.or.u.i32(ptr addrspace(3) %58, i32 0, i32 0, i32 1, i1 true)",
            f"  br label %L_lg.{block}"]


@pytest.mark.parametrize(("block", "kind"), [("mbwait3", WaitKind.MBARRIER), ("nbwait7", WaitKind.NAMED),
                                             ("clwait4", WaitKind.OTHER)])
def test_instrument_passes_the_table_kind(block, kind):
    out = wait_points(_wait_block(block))
    calls = [line for line in out if "@sim_wait_point(" in line]
    assert calls == [f"  call void @sim_wait_point(i32 {int(kind)}, i32 0, ptr addrspace(3) %58)"]

"""The numbers shared by Python, C and MSL come from one table (backends/common/codes.py): the
committed C header is what the table generates, and every consumer uses it."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from cumetal.backends.common import codes
from cumetal.backends.msl.prelude import prelude


def test_committed_header_is_fresh():
    assert codes.HEADER.read_text() == codes.render_header(), \
        "backends/common/include/cumetal_codes.h is stale: run python -m cumetal.backends.common.codes"


def test_check_flag_reports_staleness(tmp_path, monkeypatch):
    stale = tmp_path / "cumetal_codes.h"
    stale.write_text(codes.render_header().replace("#define CM_FAULT_TRAP 3", "#define CM_FAULT_TRAP 9"))
    monkeypatch.setattr(codes, "HEADER", stale)
    assert codes.main(["--check"]) == 1
    stale.write_text(codes.render_header())
    assert codes.main(["--check"]) == 0


def test_header_values_compile_as_c(tmp_path):
    """A C program built against the header prints the table's values (gcc, as the air-sim runtime)."""
    names = [(f"{prefix}{m.name}", int(m)) for cls, prefix in codes.TABLES for m in cls]
    src = tmp_path / "t.c"
    src.write_text('#include <stdio.h>\n#include "cumetal_codes.h"\nint main(void) {\n'
                   + "".join(f'  printf("%lld\\n", (long long)({n}));\n' for n, _ in names) + "  return 0;\n}\n")
    exe = tmp_path / "t"
    subprocess.run(["gcc", "-I", str(codes.HEADER.parent), "-o", str(exe), str(src)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    assert [int(x) for x in out] == [v for _, v in names]


@pytest.mark.parametrize("fp64", ["native", "emulate"])
def test_msl_prelude_embeds_the_header_and_numbers_no_code_itself(fp64):
    text = prelude(fp64)
    assert codes.header_text() in text
    # the helpers that dispatch on a code name it (no bare 'case 3:' or 'cm.info[6]')
    assert not re.search(r"\bcase \d+:", text)
    assert not re.search(r"cm\.info\[\d+\]|cm\.info \+ \d+|ring\[\d+\]", text)


def test_python_users_take_the_numbers_from_the_table():
    from cumetal.backends.apple import abi
    from cumetal.backends.msl import ops_memory, ops_scalar

    assert abi.INFO_FAULT_CODE == codes.LaunchInfo.FAULT_CODE
    assert abi.FAULT_CODES[codes.FaultCode.ASSERT] == "assert"
    assert {k: v for k, v in ops_memory.AOP_CODE.items()} == {k: int(codes.AtomicOp[k.upper()]) for k in ops_memory.AOP_CODE}
    assert ops_scalar.FCMP_CODES == {m.name.lower(): int(m) for m in codes.FloatCompare}


def test_module_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "cumetal.backends.common.codes", "--check"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_every_recorded_fault_has_a_protocol_name_and_a_cuda_error():
    from cumetal.devices.protocol import FAULT_CODES
    from cumetal.driver.faults import FAULT_RESULTS

    for code in codes.FaultCode:
        if code == codes.FaultCode.NONE:
            continue
        name = codes.fault_name(code)
        assert name in FAULT_CODES and name in FAULT_RESULTS, (code, name)

"""The Mac acceptance kit (python -m cumetal.tools.mac_check) runs end to end on Linux: every section
that needs Metal is skipped and says why, the others produce their part of the report (issue 11)."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile

import pytest

from cumetal.tools import mac_check


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    if sys.platform == "darwin":
        pytest.skip("on a Mac the kit is the real thing: run it by hand (docs/mac-acceptance.md)")
    out = tmp_path_factory.mktemp("kit") / "report"
    proc = subprocess.run([sys.executable, "-m", "cumetal.tools.mac_check", "--out", str(out)], capture_output=True,
                          text=True, timeout=600)
    return out, proc


def test_runs_end_to_end_and_says_what_to_send_back(report):
    out, proc = report
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"please send back {out}.zip" in proc.stdout
    names = set(zipfile.ZipFile(f"{out}.zip").namelist())
    assert {"report/summary.md", "report/report.json", "report/emitted/misc.metal"} <= names


def test_metal_sections_are_skipped_with_the_reason(report):
    out, _ = report
    results = json.loads((out / "report.json").read_text())
    assert list(results) == list(mac_check.SECTIONS)  # faults last
    for name in ("device", "compile_options"):
        assert results[name]["status"] == "skipped" and "needs macOS" in results[name]["why"]
    assert "Metal runs skipped: needs macOS" in results["functional"]["why"]
    assert results["timings"]["details"]["metal"].startswith("skipped: needs macOS")
    assert "ran on the CPU device" in results["faults"]["note"]
    summary = (out / "summary.md").read_text()
    assert "| device | skipped | needs macOS" in summary


def test_linux_parts_of_the_report(report):
    out, _ = report
    results = json.loads((out / "report.json").read_text())
    assert results["environment"]["details"]["metal"].startswith("needs macOS")
    constructs = results["constructs"]["details"]
    assert {"int_to_device_pointer", "fence_scoped", "simdgroup_functions", "atomic64", "double_rejected",
            "address_space_cast_rejected"} <= set(constructs)
    assert all(c["as_expected"] for c in constructs.values())
    assert constructs["fence_scoped"]["msl"]["3.2"] == "compiles" and "memory_order_seq_cst" in constructs["fence_scoped"]["msl"]["3.1"]
    assert constructs["double_rejected"]["msl"]["3.2"].startswith("fails")
    assert "reinterpret_cast from 'threadgroup uchar *'" in constructs["address_space_cast_rejected"]["msl"]["3.0"]
    emitted = results["emitted"]["details"]
    assert set(emitted) == {"arithmetic", "atomics", "indexing", "memory", "misc", "shared", "warp"}
    assert all(e["msl_check"] == "clean" and e["metallib_validation"] == "valid" for e in emitted.values())
    # a kernel the MSL back end refuses is left out of the MSL and named; every other one is in it
    refused = emitted["misc"]["msl_refused_kernels"]
    assert set(refused) <= {"calls"} and all("recursive" in why for why in refused.values())
    misc = (out / "emitted" / "misc.metal").read_text()
    assert all(f"kernel void {k}(" in misc for k in ("hello", "assert_false", "out_of_bounds") if k not in refused)
    assert (out / "emitted" / "warp.metallib").stat().st_size > 0
    cpu = results["functional"]["details"]["cpu"]
    assert cpu["returncode"] == 0 and sum(r == "passed" for r in cpu["tests"].values()) >= 25
    for case in results["faults"]["details"].values():
        assert case["result"]["fault_sync"] != "CUDA_SUCCESS" and case["result"]["later_result_correct"]
    assert results["timings"]["details"]["cpu"]["HtoD 64 MiB GB/s"] > 0
    programs = results["programs"]
    assert programs["status"] == "ok" and "CPU device only" in programs["note"]
    assert "PASSED" in programs["details"]["vector_add_cpu"]["stdout"]
    built = programs["details"]["programs_cpu"]["tests"]
    assert built and all(r == "passed" for r in built.values()) and len(built) >= 8, built


def test_a_crashing_section_is_a_finding_not_the_end(tmp_path, monkeypatch):
    monkeypatch.setitem(mac_check.RUNNERS, "environment", lambda out: 1 / 0)
    mac_check._one("environment", tmp_path, False)
    result = json.loads((tmp_path / "sections" / "environment.json").read_text())
    assert result["status"] == "failed" and "ZeroDivisionError" in result["why"]


@pytest.mark.parametrize("meta, per, expected", [
    ({"expect": "compile", "min-msl": "3.2"}, {"3.0": "fails: x", "3.1": "fails: x", "3.2": "compiles"}, True),
    ({"expect": "compile", "min-msl": "3.0"}, {"3.0": "fails: x", "3.2": "compiles"}, False),
    ({"expect": "fail"}, {"3.0": "fails: x", "3.2": "compiles"}, False),
    ({"expect": "either"}, {"3.0": "fails: x"}, True),
])
def test_expectations(meta, per, expected):
    assert mac_check._as_expected(meta, per) is expected


def test_regressions_against_the_cpu_run():
    """A test that passed on the CPU device and failed on Metal is listed; Metal-only tests and
    tests that failed on the CPU too are not."""
    cpu = {"tests.functional.test_misc::test_hello": "passed", "tests.functional.test_misc::test_bad": "failed",
           "tests.functional.test_misc::test_ok": "passed"}
    metal = {"tests.metal.test_functional_on_metal::test_functional_on_metal[test_misc::test_hello]": "failed",
             "tests.metal.test_functional_on_metal::test_functional_on_metal[test_misc::test_bad]": "failed",
             "tests.metal.test_functional_on_metal::test_functional_on_metal[test_misc::test_ok]": "passed",
             "tests.metal.test_metal_hardware::test_simd_width": "failed"}
    found = mac_check.regressions_vs_cpu({"cpu": {"tests": cpu}, "metal-msl": {"tests": metal}})
    assert found == {"metal-msl": ["tests.metal.test_functional_on_metal::test_functional_on_metal"
                                   "[test_misc::test_hello]"]}


@pytest.mark.parametrize("macos, skipped", [(13, True), (14, False), (26, False)])
def test_the_metallib_run_is_skipped_below_its_deployment_target(monkeypatch, macos, skipped):
    from cumetal.devices.metal import bridge

    monkeypatch.setattr(bridge, "macos_major", lambda: macos)
    why = mac_check.metallib_missing()
    assert (why is not None) == skipped
    if skipped:
        assert why == "CuMetal's .metallib targets macOS 14 (MSL 3.1); this is macOS 13"

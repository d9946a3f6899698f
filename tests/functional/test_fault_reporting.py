"""How a kernel fault is explained: one line on stderr from the device (silenced by
CUMETAL_QUIET=1), and the same text from cumetal.driver.last_error_message() after the call that
reports the fault."""

from __future__ import annotations

import ctypes

from cumetal import driver as cu

I64 = ctypes.c_longlong


def _fault(gpu) -> tuple:
    fn = gpu.kernel("misc", "out_of_bounds")
    d = gpu.zeros(4, "int32")
    err = gpu.launch(fn, (1,), (1,), [(d, None), (1 << 40, I64)])
    sync, = cu.cuCtxSynchronize()
    return err, sync


def test_fault_text_is_logged_once_and_kept_for_last_error_message(gpu, capfd, monkeypatch):
    monkeypatch.delenv("CUMETAL_QUIET", raising=False)
    err, sync = _fault(gpu)
    assert cu.CUresult.CUDA_ERROR_ILLEGAL_ADDRESS in (err, sync)
    message = cu.last_error_message()
    assert "out_of_bounds" in message and "illegal_address" in message, message
    lines = [ln for ln in capfd.readouterr().err.splitlines() if "out_of_bounds" in ln]
    assert lines == [f"cumetal: {message}"]  # the device's report, not repeated by the driver


def test_quiet_silences_the_fault_report(gpu, capfd, monkeypatch):
    monkeypatch.setenv("CUMETAL_QUIET", "1")
    err, sync = _fault(gpu)
    assert cu.CUresult.CUDA_ERROR_ILLEGAL_ADDRESS in (err, sync)
    assert capfd.readouterr().err == ""
    assert "out_of_bounds" in cu.last_error_message()

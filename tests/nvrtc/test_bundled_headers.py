"""NVRTC 13's bundled-header calls over CuMetal's own headers."""

from __future__ import annotations

from cumetal import nvrtc
from cumetal.cudacxx import include_dir

R = nvrtc.nvrtcResult


def test_info_counts_the_shipped_headers():
    err, info, log = nvrtc.nvrtcGetBundledHeadersInfo()
    assert err == R.NVRTC_SUCCESS and log is None
    files = [p for p in include_dir().rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    assert info.available == 1 and info.numFiles == len(files) > 10
    assert info.uncompressedSize == sum(p.stat().st_size for p in files)


def test_install_then_remove(tmp_path):
    target = tmp_path / "hdrs"
    err, log = nvrtc.nvrtcInstallBundledHeaders(str(target).encode(), 0)
    assert err == R.NVRTC_SUCCESS and log is None
    assert (target / "cuda_runtime.h").read_bytes() == (include_dir() / "cuda_runtime.h").read_bytes()
    assert (target / ".nvrtc_headers_version").is_file()
    err, _ = nvrtc.nvrtcRemoveBundledHeaders(str(target).encode())
    assert err == R.NVRTC_SUCCESS and not target.exists()


def test_remove_refuses_a_directory_it_did_not_install(tmp_path):
    keep = tmp_path / "keep.txt"
    keep.write_text("user data")
    err, log = nvrtc.nvrtcRemoveBundledHeaders(str(tmp_path).encode())
    assert err == R.NVRTC_ERROR_INVALID_INPUT and b"nvrtcInstallBundledHeaders" in log
    assert keep.read_text() == "user data"
    assert nvrtc.nvrtcInstallBundledHeaders(b"", 0)[0] == R.NVRTC_ERROR_INVALID_INPUT

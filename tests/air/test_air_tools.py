"""The console tools air_inspect and air_validate: output, exit status, errors without tracebacks."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from cumetal.tools import air_inspect, air_validate

EFFORT = Path(__file__).parent / "data" / "kolinko-effort-default.metallib"


def raw_names(data: bytes) -> list[str]:
    """Function names read straight from the bytes (NAME is the first tag of each group)."""
    count = struct.unpack_from("<I", data, 0x58)[0]
    pos, names = 0x5C, []
    for _ in range(count):
        size, tag, length = struct.unpack_from("<I4sH", data, pos)
        assert tag == b"NAME"
        names.append(data[pos + 10 : pos + 10 + length - 1].decode())
        pos += size
    return names


def test_inspect_json(capsys):
    assert air_inspect.main([str(EFFORT), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    data = EFFORT.read_bytes()
    assert [f["name"] for f in doc["functions"]] == raw_names(data)
    assert len(doc["functions"]) == 79 and doc["header"]["function_count"] == 79
    assert doc["header"]["container_version"] == "2.7" and doc["header"]["os_version"] == "14.4"
    assert doc["header"]["file_size"] == len(data)
    assert doc["header"]["extension_tags"] == ["HSRD", "RLST", "UUID"]
    for f in doc["functions"]:
        assert f["type"] == "kernel" and f["hash_ok"] is True
        assert (f["air_version"], f["language_version"]) == ("2.6", "3.1")
        assert f["module_size"] % 16 == 0 and 0 < f["bitcode_size"] <= f["module_size"] - 20
        assert data[f["module_offset"] + 20 : f["module_offset"] + 24] == b"BC\xc0\xde"


def test_inspect_text(capsys):
    assert air_inspect.main([str(EFFORT)]) == 0
    out = capsys.readouterr().out
    assert "79 functions" in out and "container 2.7" in out and "decodeQ8  kernel  AIR 2.6 MSL 3.1" in out
    assert "MISMATCH" not in out


def test_inspect_shows_hash_mismatch(tmp_path, capsys):
    data = bytearray(EFFORT.read_bytes())
    data[struct.unpack_from("<Q", data, 0x48)[0] + 64] ^= 1  # first module
    path = tmp_path / "x.metallib"
    path.write_bytes(data)
    assert air_inspect.main([str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [f["hash_ok"] for f in doc["functions"]].count(False) == 1 and doc["functions"][0][
        "hash_ok"
    ] is False


def test_validate_valid(capsys):
    assert air_validate.main([str(EFFORT)]) == 0
    assert capsys.readouterr().out.strip().endswith("valid")


def test_validate_invalid_names_offset_and_kernel(tmp_path, capsys):
    data = bytearray(EFFORT.read_bytes())
    data[struct.unpack_from("<Q", data, 0x48)[0] + 64] ^= 1
    struct.pack_into("<Q", data, 0x10, 5)
    path = tmp_path / "bad.metallib"
    path.write_bytes(data)
    assert air_validate.main([str(path), "--no-schema"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert any("offset 0x10" in line and "[header.file_size]" in line for line in lines)
    assert any("kernel 'decodeQ8'" in line and "[function.hash]" in line for line in lines)
    assert lines[-1].endswith("INVALID (2 problems)")


@pytest.mark.parametrize("tool", [air_inspect, air_validate])
def test_usage_errors(tool, tmp_path, capsys):
    assert tool.main([]) == 2
    assert tool.main([str(tmp_path / "missing.metallib")]) == 2
    assert tool.main(["--bogus", str(EFFORT)]) == 2
    err = capsys.readouterr().err
    assert "missing.metallib" in err and "Traceback" not in err


def test_unreadable_file(tmp_path, capsys):
    path = tmp_path / "junk.metallib"
    path.write_bytes(b"MTLB" + bytes(20))
    assert air_inspect.main([str(path)]) == 1
    assert air_validate.main([str(path)]) == 1
    captured = capsys.readouterr()
    assert "[header.truncated]" in captured.err and "[header.truncated]" in captured.out


def test_validate_schema_sample_on_mlx(mlx_metallib_path):
    path = mlx_metallib_path
    assert air_validate.main([str(path), "--schema-sample", "50", "--seed", "3"]) == 0
    assert air_validate.main([str(path), "--schema-sample", "-1"]) == 2


@pytest.mark.parametrize("args", [["air_inspect", "--json"], ["air_inspect"], ["air_validate"]])
def test_closed_pipe_ends_quietly(args):
    """`air_inspect --json x.metallib | head`: a reader that goes away is not a traceback."""
    import os
    import subprocess
    import sys

    r, w = os.pipe()
    os.close(r)  # every write of the tool now fails with EPIPE
    try:
        proc = subprocess.run([sys.executable, "-m", f"cumetal.tools.{args[0]}", *args[1:], str(EFFORT)],
                              stdout=w, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(w)
    assert "Traceback" not in proc.stderr and "BrokenPipeError" not in proc.stderr, proc.stderr
    assert proc.returncode == 141

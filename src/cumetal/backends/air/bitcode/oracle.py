"""Upstream LLVM 14 tools as an independent check of bitcode (test and validation use only).

``llvm-dis-14``/``llvm-as-14``/``llvm-bcanalyzer-14`` (Debian/Ubuntu package ``llvm-14``) read and
write the typed-pointer dialect Apple uses.  They are optional: callers check ``available()``.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

_TIMEOUT_S = 60


class LLVMToolError(RuntimeError):
    """An LLVM tool rejected its input; the message carries the tool's stderr."""


def tool_path(name: str) -> str | None:
    """Path of ``<name>-14`` (or LLVM 14's unversioned install directory), or None."""
    found = shutil.which(f"{name}-14")
    if found:
        return found
    candidate = Path("/usr/lib/llvm-14/bin") / name
    return str(candidate) if candidate.exists() else None


def available() -> bool:
    return all(tool_path(t) for t in ("llvm-dis", "llvm-as", "llvm-bcanalyzer"))


def _run(name: str, args: list[str], data: bytes) -> bytes:
    path = tool_path(name)
    if path is None:
        raise LLVMToolError(f"{name}-14 not found (install the llvm-14 package)")
    done = subprocess.run([path, *args], input=data, capture_output=True, timeout=_TIMEOUT_S, check=False)
    if done.returncode != 0:
        raise LLVMToolError(f"{name}-14 failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def llvm_dis(bitcode: bytes) -> str:
    """Disassemble bitcode; the ``; ModuleID`` line (it names the input file) is dropped."""
    text = _run("llvm-dis", ["-o", "-", "-"], bitcode).decode()
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("; ModuleID"))


def llvm_dis_many(modules: list[bytes]) -> list[str]:
    """Disassemble many modules with one llvm-dis-14 process (its start-up dominates small files)."""
    if not modules:
        return []
    with tempfile.TemporaryDirectory(prefix="cumetal-dis-") as tmp:
        paths = [Path(tmp) / f"m{i}.bc" for i in range(len(modules))]
        for p, data in zip(paths, modules, strict=True):
            p.write_bytes(data)
        _run("llvm-dis", [str(p) for p in paths], b"")
        return ["".join(line for line in p.with_suffix(".ll").read_text().splitlines(keepends=True)
                        if not line.startswith("; ModuleID")) for p in paths]


def llvm_as(text: str) -> bytes:
    return _run("llvm-as", ["-o", "-", "-"], text.encode())


def bcanalyzer_dump(bitcode: bytes) -> str:
    return _run("llvm-bcanalyzer", ["-dump", "-"], bitcode).decode(errors="replace")

"""The CUDA C++ compile cache (spec §5.6).

Two-level, like ccache's direct mode, so a hit never starts clang:
* the *lookup key* is SHA-256 of the source, its file name, the options, NVRTC-style in-memory
  headers, the compiler's identity, CuMetal's version and the front end's own code (the modules
  that build clang's command line and post-process its output: the base flags live there);
* the entry stores the headers the compile read (from clang's ``-MD`` output) with the SHA-256 of
  each (and its size and mtime, so unchanged files need not be read again), and is used only if
  every one of them still has that content.

Entries live in ``$CUMETAL_CACHE_DIR`` (or ``$CUMETAL_CACHE``, default ``~/.cache/cumetal``)
``/cudacxx/<key[:2]>/<key>`` (``$CUMETAL_CUDACXX_CACHE_DIR`` names this cache's directory alone): one file, a JSON header line then the payload, written to a temporary
file in the same directory and published with ``os.replace`` (atomic, so concurrent processes see
the old entry or the new one, never half of one). An entry that does not parse or whose payload
hash does not match is ignored (and later overwritten) — a corrupt cache only costs a recompile.
``CUMETAL_CUDACXX_CACHE=0`` turns the cache off.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from cumetal import __version__
from cumetal.cudacxx import toolchain
from cumetal.cudacxx.toolchain import find_clang

if TYPE_CHECKING:
    from cumetal.cudacxx.compile import CompileResult
    from cumetal.cudacxx.options import CudaOptions

FORMAT = 2


def cache_root() -> Path:
    """``$CUMETAL_CUDACXX_CACHE_DIR`` if set (this cache alone), else ``<CuMetal cache>/cudacxx``."""
    own = os.environ.get("CUMETAL_CUDACXX_CACHE_DIR")
    if own:
        return Path(own)
    root = os.environ.get("CUMETAL_CACHE_DIR") or os.environ.get("CUMETAL_CACHE") \
        or os.path.join(os.path.expanduser("~"), ".cache", "cumetal")
    return Path(root) / "cudacxx"


def enabled() -> bool:
    return os.environ.get("CUMETAL_CUDACXX_CACHE", "1") not in ("0", "off", "no", "false")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# the modules whose code decides the clang command line (BASE_FLAGS, option translation, the bundled
# standard library's flags) and what is done with clang's output
_FRONT_END = ("compile.py", "options.py", "toolchain.py", "inline_asm.py", "cluster_dims.py", "cache.py",
              "shared_init.py", "launch_chevrons.py")
_front_end_digest: str | None = None


def front_end_digest() -> str:
    """SHA-256 of the front end's own code (once per process): editing a base flag or the
    post-processing invalidates every entry, not only a changed option."""
    global _front_end_digest
    if _front_end_digest is None:
        h = hashlib.sha256()
        here = Path(__file__).parent
        for name in _FRONT_END:
            try:
                h.update((here / name).read_bytes())
            except OSError:
                h.update(b"missing:" + name.encode())
        _front_end_digest = h.hexdigest()
    return _front_end_digest


def make_key(kind: str, source: str, filename: str, options: CudaOptions,
             headers: dict[str, str] | None) -> str:
    h = hashlib.sha256()
    # host_libc: the integer types laid over the bundled C headers (a cache shared by a Mac and Linux)
    for part in (f"cumetal-cudacxx/{FORMAT}", __version__, front_end_digest(), find_clang().identity, toolchain.host_libc(),
                 kind, filename,
                 os.path.abspath(os.path.dirname(filename) or "."), options.cache_key_text(),
                 repr(sorted((headers or {}).items())), source):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def _entry_path(key: str) -> Path:
    return cache_root() / key[:2] / key


def _file_hash(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return _sha(f.read())
    except OSError:
        return None


def _stat_sig(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def _unchanged(path: str, digest: str, sig: list[int] | None) -> bool:
    """Same size and nanosecond mtime as when stored: trusted without reading (a hit stays well
    under a millisecond with ~150 headers); otherwise the content hash decides."""
    if sig is not None and _stat_sig(path) == sig:
        return True
    return _file_hash(path) == digest


def lookup(key: str) -> CompileResult | None:
    """The cached result for ``key`` if present, intact and its headers unchanged; else None."""
    from cumetal.cudacxx.compile import CompileResult

    try:
        with open(_entry_path(key), "rb") as f:
            blob = f.read()
        head, _, payload = blob.partition(b"\n")
        meta = json.loads(head)
        if meta.get("format") != FORMAT or meta.get("payload_sha256") != _sha(payload):
            return None
        for path, (digest, sig) in meta["files"].items():
            if not _unchanged(path, digest, sig):
                return None
        if meta["kind"] == "bc":
            return CompileResult(log=meta["log"], dependencies=meta["dependencies"], bitcode=payload,
                                 cached=True, source=meta.get("source", ""))
        return CompileResult(ptx=payload.decode(), log=meta["log"], dependencies=meta["dependencies"],
                             cached=True, source=meta.get("source", ""))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
        return None


def store(key: str, result: CompileResult, extra_deps: list[str] = ()) -> None:
    """Publish ``result`` under ``key`` (best effort: an unwritable cache is not an error)."""
    files: dict[str, tuple[str, list[int] | None]] = {}
    for path in [*result.dependencies, *extra_deps]:
        sig = _stat_sig(path)
        digest = _file_hash(path)
        if digest is None:
            return  # a header we cannot read back could never validate a hit
        files[path] = (digest, sig)
    payload = result.bitcode if result.bitcode else result.ptx.encode()
    meta = {"format": FORMAT, "kind": "bc" if result.bitcode else "ptx", "log": result.log,
            "dependencies": result.dependencies, "files": files, "payload_sha256": _sha(payload)}
    if result.source:
        meta["source"] = result.source
    try:
        publish_bytes(_entry_path(key), json.dumps(meta).encode() + b"\n" + payload)
    except OSError:
        pass


def publish_bytes(dest: Path, data: bytes) -> None:
    """Write ``dest`` atomically: a temporary file in the same directory, then ``os.replace``."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=dest.name[:16] + ".", suffix=".tmp", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)

"""Program caches as cuda.core 1.2 has them (``cuda.core.utils``): ``make_program_cache_key``,
``ProgramCacheResource`` (bytes in, bytes out), ``InMemoryProgramCache`` (LRU) and
``FileStreamProgramCache`` (a directory of atomically written files, shared by processes), and
``Program.compile(..., cache=...)``.

Keys are SHA-256 digests of everything that decides the output: the key schema, CuMetal's version
(its compilers are CuMetal's), the code type, target, source, the program options and the name
expressions. Options that read files (``include_path``, ``pre_include``) need an ``extra_digest``
from the caller (the cache cannot fingerprint those files itself), as in cuda.core.
"""

from __future__ import annotations

import abc
import collections
import dataclasses
import hashlib
import os
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

_KEY_SCHEMA = 1
_FILE_OPTIONS = ("include_path", "pre_include")


def _cumetal_version() -> str:
    try:
        from importlib.metadata import version

        return version("cumetal")
    except Exception:  # noqa: BLE001 - an uninstalled checkout: the key still covers the inputs
        return "source"


def make_program_cache_key(*, code: str | bytes, code_type: str, options: Any, target_type: str,
                           name_expressions: Sequence[str | bytes] = (), extra_digest: bytes | None = None) -> bytes:
    """A stable key (bytes) for compiling ``code`` with ``options`` to ``target_type``."""
    code_type, target_type = str(code_type).lower(), str(target_type).lower()
    if code_type not in ("c++", "ptx", "nvvm"):
        raise ValueError(f"code_type must be 'c++', 'ptx' or 'nvvm', got {code_type!r}")
    if target_type not in ("ptx", "cubin", "ltoir"):
        raise ValueError(f"target_type must be 'ptx', 'cubin' or 'ltoir', got {target_type!r}")
    if extra_digest is None:
        for name in _FILE_OPTIONS:
            if getattr(options, name, None):
                raise ValueError(f"ProgramOptions.{name} reads files the cache cannot see: compute a fingerprint of "
                                 "them and pass it as extra_digest")
    h = hashlib.sha256()

    def part(tag: str, value: bytes) -> None:
        h.update(tag.encode() + b"\0" + len(value).to_bytes(8, "little") + value)

    part("schema", str(_KEY_SCHEMA).encode())
    part("cumetal", _cumetal_version().encode())
    part("code_type", code_type.encode())
    part("target", target_type.encode())
    part("code", code.encode() if isinstance(code, str) else bytes(code))
    fields = dataclasses.asdict(options) if dataclasses.is_dataclass(options) else dict(vars(options))
    part("options", repr(sorted((k, repr(v)) for k, v in fields.items())).encode())
    for e in sorted(name_expressions, key=repr):
        if isinstance(e, bytearray):
            raise TypeError("name_expressions elements must be str or bytes (bytearray is unhashable)")
        part("name", (b"s" + e.encode()) if isinstance(e, str) else (b"b" + bytes(e)))
    if extra_digest is not None:
        part("extra", bytes(extra_digest))
    return h.digest()


def _key(key: object) -> bytes:
    if isinstance(key, bytes | bytearray):
        return bytes(key)
    if isinstance(key, str):
        return key.encode()
    raise TypeError(f"cache keys must be bytes or str, got {type(key).__name__}")


def _payload(value: object) -> bytes:
    from cumetal.core._program import ObjectCode

    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, ObjectCode):
        code = value.code
        if isinstance(code, str):  # a path-backed ObjectCode: store the file's bytes
            return Path(code).read_bytes()
        return bytes(code)
    raise TypeError(f"cache values must be bytes-like or ObjectCode, got {type(value).__name__}")


class ProgramCacheResource(abc.ABC):
    """A mapping from keys (bytes or str) to compiled programs (bytes); no ``in`` (racy across processes:
    use ``get``)."""

    @abc.abstractmethod
    def __getitem__(self, key: bytes | str) -> bytes: ...

    @abc.abstractmethod
    def __setitem__(self, key: bytes | str, value: Any) -> None: ...

    @abc.abstractmethod
    def __delitem__(self, key: bytes | str) -> None: ...

    @abc.abstractmethod
    def __len__(self) -> int: ...

    @abc.abstractmethod
    def clear(self) -> None: ...

    def get(self, key: bytes | str, default: bytes | None = None) -> bytes | None:
        try:
            return self[key]
        except KeyError:
            return default

    def update(self, items: Mapping[Any, Any] | Iterable[tuple[Any, Any]], /) -> None:
        for key, value in (items.items() if isinstance(items, Mapping) else items):
            self[key] = value

    def close(self) -> None:  # noqa: B027 - optional for subclasses
        """Release what the cache holds open (nothing for these two)."""

    def __enter__(self) -> ProgramCacheResource:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class InMemoryProgramCache(ProgramCacheResource):
    """A thread-safe LRU cache in this process; ``max_size_bytes`` bounds the stored bytes."""

    def __init__(self, *, max_size_bytes: int | None = None) -> None:
        if max_size_bytes is not None and max_size_bytes <= 0:
            raise ValueError("max_size_bytes must be positive or None")
        self._max = max_size_bytes
        self._entries: collections.OrderedDict[bytes, bytes] = collections.OrderedDict()
        self._total = 0
        self._lock = threading.RLock()

    def __getitem__(self, key: bytes | str) -> bytes:
        k = _key(key)
        with self._lock:
            if k not in self._entries:
                raise KeyError(key)
            self._entries.move_to_end(k)
            return self._entries[k]

    def __setitem__(self, key: bytes | str, value: Any) -> None:
        k, data = _key(key), _payload(value)
        with self._lock:
            if k in self._entries:
                self._total -= len(self._entries.pop(k))
            if self._max is not None and len(data) > self._max:
                return  # larger than the whole cache: not kept
            self._entries[k] = data
            self._total += len(data)
            while self._max is not None and self._total > self._max:
                _old, evicted = self._entries.popitem(last=False)
                self._total -= len(evicted)

    def __delitem__(self, key: bytes | str) -> None:
        with self._lock:
            data = self._entries.pop(_key(key), None)
            if data is None:
                raise KeyError(key)
            self._total -= len(data)

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._total = 0


def default_cache_dir() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "cumetal" / "program-cache"


class FileStreamProgramCache(ProgramCacheResource):
    """One file per entry under ``path`` (default ``~/.cache/cumetal/program-cache``), named by the
    key's digest and written atomically (temporary file, then ``os.replace``), so processes can
    share it; ``max_size_bytes`` evicts the least recently used files."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, max_size_bytes: int | None = None) -> None:
        if max_size_bytes is not None and max_size_bytes <= 0:
            raise ValueError("max_size_bytes must be positive or None")
        self._root = Path(path) if path is not None else default_cache_dir()
        self._root.mkdir(parents=True, exist_ok=True)
        self._max = max_size_bytes

    @property
    def path(self) -> Path:
        return self._root

    def _file(self, key: bytes | str) -> Path:
        digest = hashlib.sha256(_key(key)).hexdigest()
        return self._root / digest[:2] / f"{digest}.bin"

    def __getitem__(self, key: bytes | str) -> bytes:
        f = self._file(key)
        try:
            data = f.read_bytes()
        except FileNotFoundError:
            raise KeyError(key) from None
        try:
            os.utime(f)  # recency for eviction
        except OSError:
            pass
        return data

    def __setitem__(self, key: bytes | str, value: Any) -> None:
        data = _payload(value)
        f = self._file(key)
        f.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=f.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, f)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        if self._max is not None:
            self._evict(keep=f)

    def _entries(self) -> list[Path]:
        return [p for p in self._root.glob("??/*.bin") if p.is_file()]

    def _evict(self, keep: Path) -> None:
        """Remove the least recently used files until the rest fit (never the entry just written)."""
        entries = []
        for p in self._entries():
            try:
                st = p.stat()
            except FileNotFoundError:  # another process evicted it
                continue
            entries.append((st.st_mtime, st.st_size, p))
        total = sum(size for _t, size, _p in entries)
        for _t, size, p in sorted(entries):
            if total <= self._max:  # type: ignore[operator]
                break
            if p == keep:
                continue
            p.unlink(missing_ok=True)
            total -= size

    def __delitem__(self, key: bytes | str) -> None:
        try:
            self._file(key).unlink()
        except FileNotFoundError:
            raise KeyError(key) from None

    def __len__(self) -> int:
        return len(self._entries())

    def clear(self) -> None:
        for p in self._entries():
            p.unlink(missing_ok=True)


__all__ = ["FileStreamProgramCache", "InMemoryProgramCache", "ProgramCacheResource", "make_program_cache_key"]

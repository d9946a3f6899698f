"""Check emitted MSL on Linux the way Apple's compiler would: clang (ziglang's clang 22) compiles it
as C++14 with ``-fsyntax-only`` against ``backends/msl/check/cumetal_msl_check.h``, which poisons
MSL reserved words, models ``device``/``constant``/``threadgroup``/``thread`` as distinct address
spaces (explicit casts between them included: ``explicit_casts_checked``) and declares only the
features of the MSL version checked (see the header's comment).

    python -m cumetal.tools.msl_check FILE.metal [--msl 3.0|3.1|3.2] [--allow-double]

``check_msl(source)`` returns clang's diagnostics ("" when clean); ``check_many`` checks many
modules in a few clang runs (each module's kernel part in a namespace of its own after one copy
of the shared prelude) and maps each diagnostic back to its module.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cumetal.tools import quiet_on_closed_pipe

HEADER = Path(__file__).resolve().parents[1] / "backends" / "msl" / "check" / "cumetal_msl_check.h"
KERNELS_MARK = "// ---- kernels\n"
TIMEOUT_S = 600


class MslCheckUnavailable(RuntimeError):
    """clang (the ziglang package) is not installed."""


def metal_version_macro(version: int | str) -> int:
    """__METAL_VERSION__ for an MSL version given as 320, "3.2" or an MTLLanguageVersion (0x30002)."""
    if isinstance(version, str):
        major, _, minor = version.partition(".")
        return int(major) * 100 + int(minor or 0) * 10
    if version >= 0x10000:
        return (version >> 16) * 100 + (version & 0xFFFF) * 10
    return int(version)


def clang_command() -> list[str]:
    try:
        import ziglang  # noqa: F401
    except ImportError:
        raise MslCheckUnavailable("the MSL checker needs clang from the ziglang package (pip install ziglang)") from None
    return [sys.executable, "-m", "ziglang", "clang"]


def _flags(version: int | str, allow_double: bool, include: str) -> list[str]:
    flags = ["-x", "c++", "-std=c++14", "-fsyntax-only", "-nostdinc", "-nostdinc++", "-ferror-limit=50",
             "-fno-color-diagnostics", "-Wno-unknown-attributes", "-Wno-unused-value",
             f"-D__METAL_VERSION__={metal_version_macro(version)}", "-I", include,
             # MSL's keywords (kernel, device, ...) exist without any #include, as in Metal
             "-include", str(HEADER)]
    if allow_double:
        flags.append("-DCM_CHECK_ALLOW_DOUBLE")
    return flags


def _for_clang(source: str) -> str:
    # the header's comment says why these two changes are made
    return explicit_casts_checked(source.replace("[[threadgroup(", "[[cm_threadgroup("))


# A C-style cast to a pointer of an address space: `(device T*)`, `(threadgroup atomic_uint*)`...
_SPACE_CAST = re.compile(r"\((?:device|threadgroup|constant|thread)\s+(?:const\s+)?[A-Za-z_][\w:]*(?:<[\w\s,:]*>)?"
                         r"(?:\s+const)?\s*\*\s*\)")
_WORD = re.compile(r"[A-Za-z_][\w]*(?:::[A-Za-z_]\w*)*|\.?\d[\w.]*")
_CLOSE = {"(": ")", "[": "]", "<": ">"}


def _group_end(text: str, start: int) -> int:
    """The index after the bracket group opening at ``start`` (balanced, same bracket kind)."""
    opening, closing = text[start], _CLOSE[text[start]]
    depth = 0
    for i in range(start, len(text)):
        if text[i] == opening:
            depth += 1
        elif text[i] == closing:
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError("unbalanced")


def _operand_end(text: str, i: int) -> int:
    """The end of the cast operand (a C++ unary-expression) that starts at or after ``i``."""
    while text[i].isspace():
        i += 1
    while text[i] in "&*-+!~":  # prefix operators
        i += 1
        while text[i].isspace():
            i += 1
    if text[i] == "(":
        i = _group_end(text, i)
    else:
        word = _WORD.match(text, i)
        if word is None:
            raise ValueError("no operand")
        i = word.end()
        if word.group(0) == "reinterpret_cast" and text[i] == "<":  # a cast rewritten already
            i = _group_end(text, i)
    while True:  # postfix: calls, subscripts, members
        j = i
        while j < len(text) and text[j] in " \t":
            j += 1
        if j < len(text) and text[j] in "([":
            i = _group_end(text, j)
        elif text.startswith(("->", "."), j) and not text.startswith("...", j):
            k = j + (2 if text[j] == "-" else 1)
            word = _WORD.match(text, k)
            if word is None:
                return i
            i = word.end()
        else:
            return i


def explicit_casts_checked(source: str) -> str:
    """C-style casts to address-space pointers rewritten as ``reinterpret_cast``, which clang (like
    Apple's compiler for any cast) refuses between address spaces, while keeping integer -> pointer
    and same-space pointer casts legal: an explicit `(device T*)` of a threadgroup pointer is an
    error, as on a Mac. Rewritten from the last cast back, so nested casts are rewritten first."""
    for m in reversed(list(_SPACE_CAST.finditer(source))):
        try:
            end = _operand_end(source, m.end())
        except (ValueError, IndexError):
            continue  # not an expression (e.g. a function type): left to clang as written
        operand = source[m.end():end]
        source = f"{source[:m.start()]}reinterpret_cast<{m.group(0)[1:-1]}>({operand}){source[end:]}"
    return source


def _run(text: str, version: int | str, allow_double: bool) -> tuple[int, str]:
    with tempfile.TemporaryDirectory(prefix="cumetal-msl-check-") as tmp:
        Path(tmp, "metal_stdlib").write_text("// everything is in cumetal_msl_check.h (-include)\n")
        path = Path(tmp, "module.metal")
        path.write_text(text)
        try:
            out = subprocess.run([*clang_command(), *_flags(version, allow_double, tmp), str(path)],
                                 capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return 1, f"clang did not finish within {TIMEOUT_S} s"
        return out.returncode, (out.stdout + out.stderr).replace(str(path), "module.metal")


def check_msl(source: str, *, msl_version: int | str = 320, allow_double: bool = False) -> str:
    """Clang's diagnostics for one MSL source ("" when it is clean)."""
    rc, text = _run(_for_clang(source), msl_version, allow_double)
    return "" if rc == 0 else text.strip()


@dataclass
class _Part:
    index: int
    first_line: int
    last_line: int


def check_many(sources: Sequence[str], *, msl_version: int | str = 320, allow_double: bool = False,
               batch_bytes: int = 4 << 20) -> list[str]:
    """Diagnostics per source (same order), checking sources that share a prelude together."""
    results = [""] * len(sources)
    groups: dict[str, list[int]] = {}
    for i, src in enumerate(sources):
        head, mark, _ = src.partition(KERNELS_MARK)
        if not mark:
            results[i] = check_msl(src, msl_version=msl_version, allow_double=allow_double)
            continue
        groups.setdefault(head, []).append(i)
    for prelude, members in groups.items():
        batch: list[int] = []
        size = 0
        for i in members + [-1]:
            if i >= 0 and (not batch or size + len(sources[i]) < batch_bytes):
                batch.append(i)
                size += len(sources[i])
                continue
            _check_batch(prelude, [(j, sources[j].partition(KERNELS_MARK)[2]) for j in batch], results,
                         msl_version, allow_double)
            batch, size = ([i], len(sources[i])) if i >= 0 else ([], 0)
    return results


def _check_batch(prelude: str, parts: list[tuple[int, str]], results: list[str], version: int | str,
                 allow_double: bool) -> None:
    lines = [prelude + KERNELS_MARK]
    line = prelude.count("\n") + 2
    spans: list[_Part] = []
    for k, (index, body) in enumerate(parts):
        text = f"namespace cm_module_{k} {{\n{body}\n}}\n"
        spans.append(_Part(index, line, line + text.count("\n") - 1))
        line += text.count("\n")
        lines.append(text)
    rc, out = _run(_for_clang("".join(lines)), version, allow_double)
    if rc == 0:
        return
    blamed = False
    for m in re.finditer(r"^module\.metal:(\d+):\d+: (?:error|fatal error):.*$", out, re.M):
        n = int(m.group(1))
        owner = next((p for p in spans if p.first_line <= n <= p.last_line), None)
        if owner is None:  # in the shared prelude: every module of the batch has it
            for p in spans:
                results[p.index] += m.group(0) + "\n"
        else:
            results[owner.index] += m.group(0) + "\n"
        blamed = True
    if not blamed:
        for p in spans:
            results[p.index] = out.strip() or f"clang exited with {rc}"


def main(argv: Sequence[str] | None = None) -> int:
    return quiet_on_closed_pipe(lambda: _main(argv))


def _main(argv: Sequence[str] | None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cumetal.tools.msl_check", description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", help="MSL sources (.metal) written by cumetalc --emit=msl")
    ap.add_argument("--msl", default="3.2", choices=("3.0", "3.1", "3.2"),
                    help="MSL version to check against: 3.0, 3.1 or 3.2 (default 3.2)")
    ap.add_argument("--allow-double", action="store_true", help="accept double (Apple GPUs reject it)")
    args = ap.parse_args(argv)
    status = 0
    for name in args.files:
        try:
            source = Path(name).read_bytes().decode()
        except OSError as e:
            print(f"msl_check: {name}: {e.strerror}", file=sys.stderr)
            status = 2
            continue
        except UnicodeDecodeError as e:  # a .metallib, an object file: say so once, not a traceback
            print(f"msl_check: {name}: not MSL text (byte 0x{e.object[e.start]:02x} at offset {e.start} "
                  "is not UTF-8)", file=sys.stderr)
            status = 1
            continue
        try:
            problems = check_msl(source, msl_version=args.msl, allow_double=args.allow_double)
        except MslCheckUnavailable as e:
            print(f"msl_check: {e}", file=sys.stderr)
            return 2
        if problems:
            print(problems.replace("module.metal", os.fspath(name)), file=sys.stderr)
            status = 1
        else:
            print(f"{name}: OK (MSL {args.msl})")
    return status


if __name__ == "__main__":
    raise SystemExit(main())

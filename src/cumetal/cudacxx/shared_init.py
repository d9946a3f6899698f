"""``__shared__`` variables of class types with non-empty constructors or destructors, as nvcc takes them.

clang refuses ``__shared__ cuda::barrier<cuda::thread_scope_block> bar;`` ("initialization is not
supported for __shared__ variables": CCCL's barrier has a destructor with a body) where nvcc warns
(``static_var_with_dynamic_init``, which CUDA's samples silence) and runs neither the constructor nor
the destructor: the object is raw shared memory until the program initialises it (``init(&bar, n)``).
This is the idiomatic way to use ``cuda::barrier``, ``cuda::pipeline_shared_state`` and
``cuda::memcpy_async``, so the front end does what nvcc does: when clang reports that error in the
user's source, each such declaration ``SPECS T NAME[DIMS];`` becomes, on the same line,

    SPECS __attribute__((aligned(alignof(T[DIMS])))) unsigned char __cumetal_shared_NAME[sizeof(T[DIMS])];
    T (&NAME)[DIMS] = *reinterpret_cast<T (*)[DIMS]>(__cumetal_shared_NAME);

(storage of the type's size and alignment, no construction, and a reference under the user's name),
and the source compiles again with a warning like nvcc's. The rewritten text is handed back
(``CompileResult.source``) for the host pass, where clang reports the same error.
"""

from __future__ import annotations

import re

ERROR = "initialization is not supported for __shared__ variables"
_ERROR_AT = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): error: " + re.escape(ERROR) + r"\s*$", re.M)
_IDENT = re.compile(r"[A-Za-z_]\w*")
_SHARED = re.compile(r"\b__shared__\b")
# a pragma that silences nvcc's warning (cuda-samples write it before such declarations)
_SUPPRESS = re.compile(r"#\s*pragma\s+(?:nv_)?diag_suppress\b[^\n]*\bstatic_var_with_dynamic_init\b")


def error_positions(log: str, filename: str) -> list[tuple[int, int]]:
    """The (line, column) of each "initialization is not supported for __shared__ variables" error
    that clang reports in ``filename`` (each once, in order)."""
    seen: list[tuple[int, int]] = []
    for m in _ERROR_AT.finditer(log):
        pos = (int(m.group("line")), int(m.group("col")))
        if m.group("file") == filename and pos not in seen:
            seen.append(pos)
    return seen


def _offset(source: str, line: int, col: int) -> int | None:
    """Character offset of clang's 1-based line and byte column in ``source``."""
    lines = source.split("\n")
    if not 1 <= line <= len(lines):
        return None
    start = sum(len(x) + 1 for x in lines[: line - 1])
    text = lines[line - 1].encode("utf-8", "surrogatepass")
    if col - 1 > len(text):
        return None
    return start + len(text[: col - 1].decode("utf-8", "ignore"))


def _skip_balanced(text: str, i: int) -> int:
    """Index after the bracketed group that opens at ``text[i]`` (one of ``([<``), or -1."""
    pairs = {"(": ")", "[": "]", "<": ">"}
    stack = [pairs[text[i]]]
    j = i + 1
    while j < len(text) and stack:
        c = text[j]
        if c in "([":
            stack.append(pairs[c])
        elif c == "<" and stack[-1] == ">":
            stack.append(">")
        elif c == stack[-1]:
            stack.pop()
        elif c in ";{}":
            return -1
        j += 1
    return j if not stack else -1


_SPEC = re.compile(r"\s*(static\b|__shared__\b|alignas\s*(?=\()|__align__\s*(?=\()|__attribute__\s*(?=\(\()|(?=\[\[))")


def _split_specs(text: str) -> tuple[str, str] | None:
    """``text`` (what follows ``__shared__`` up to the name) as (specifiers, type)."""
    specs = []
    i = 0
    while True:
        m = _SPEC.match(text, i)
        if m is None or m.end() == i and not text.startswith("[[", m.end()):
            break
        j = m.end()
        if m.group(1) in ("static", "__shared__"):
            specs.append(m.group(1))
        else:
            k = _skip_balanced(text, j)
            if k < 0:
                return None
            specs.append(text[m.start(1):k])
            j = k
        i = j
    type_text = text[i:].strip()
    if not type_text or "," in _top_level(type_text) or ";" in type_text or "=" in _top_level(type_text):
        return None
    return " ".join(specs), type_text


def _top_level(text: str) -> str:
    """``text`` with the contents of (), [] and <> groups removed (to look for separators)."""
    out, depth = [], 0
    for c in text:
        if c in "([<":
            depth += 1
        elif c in ")]>" and depth:
            depth -= 1
        elif not depth:
            out.append(c)
    return "".join(out)


def _rewrite_one(source: str, at: int) -> tuple[str, str] | None:
    """The source with the declaration whose name starts at ``at`` rewritten, and that name."""
    m = _IDENT.match(source, at)
    if m is None:
        return None
    name = m.group(0)
    # the nearest __shared__ before the name, with no statement boundary in between
    head = source[:at]
    starts = [s.start() for s in _SHARED.finditer(head)]
    if not starts or any(c in head[starts[-1]:] for c in ";{}"):
        return None
    start = starts[-1]
    end = source.find(";", m.end())
    if end < 0:
        return None
    dims = source[m.end():end].strip()
    if dims and (not re.fullmatch(r"(\[[^\[\];{}=,]*\]\s*)+", dims)):
        return None  # an initializer or a second declarator: left to clang's error
    parts = _split_specs(source[start + len("__shared__"):at])
    if parts is None:
        return None
    specs, type_text = parts
    dims = re.sub(r"\s+", " ", dims)
    whole = f"{type_text}{dims}"
    raw = f"__cumetal_shared_{name}"
    # GNU 'aligned' (alignas may not follow 'static' or a GNU attribute list)
    new = (f"__shared__ {specs + ' ' if specs else ''}__attribute__((aligned(alignof({whole})))) unsigned char "
           f"{raw}[sizeof({whole})]; "
           f"{type_text} (&{name}){dims} = *reinterpret_cast<{type_text} (*){dims}>({raw});")
    old = source[start:end + 1]
    # keep every later line where it was (diagnostics, __LINE__)
    new += "\n" * old.count("\n")
    return source[:start] + new + source[end + 1:], name


def rewrite(source: str, positions: list[tuple[int, int]], filename: str) -> tuple[str, str]:
    """``source`` with the ``__shared__`` declarations clang refused (at ``positions``) turned into
    uninitialised storage plus a reference, and the warnings to show (none where the source
    silences nvcc's ``static_var_with_dynamic_init``). The source comes back unchanged where a
    declaration is not of the simple form ``SPECS T NAME[DIMS];`` (clang's error then stands)."""
    found: dict[int, tuple[int, int]] = {}
    for ln, col in positions:
        o = _offset(source, ln, col)
        if o is not None:
            found.setdefault(o, (ln, col))
    names: list[tuple[tuple[int, int], str]] = []
    original = source
    for at in sorted(found, reverse=True):  # from the end, so earlier offsets stay valid
        r = _rewrite_one(source, at)
        if r is None:
            return original, ""
        source, name = r
        names.append((found[at], name))
    if _SUPPRESS.search(source):
        return source, ""
    return source, "".join(
        f"{filename}:{ln}:{col}: warning: dynamic initialization is not supported for a __shared__ variable: "
        f"'{name}' is neither constructed nor destroyed (as with nvcc); initialise it in the kernel "
        "(e.g. init(&bar, n) for a cuda::barrier)\n" for (ln, col), name in reversed(names))

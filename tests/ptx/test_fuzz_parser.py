"""Mutation fuzzing of the PTX parser and ``cumetalc --parse-only`` with real corpus files as seeds.

Properties, for every input: ``parse()`` returns (no exception escapes), within PER_INPUT_SECONDS
(enforced with SIGALRM where available, and measured), and reports problems only as diagnostics
that format as ``FILE:LINE:COL: severity: message``. When a mutant still parses without errors,
printing it and parsing the print must give the same structure. The CLI exits with 0 or 1 only,
never with a traceback. Mutants are deterministic (fixed seed): a failure names the mutant so it can
be rebuilt with ``make_mutant(seed_index)``.
"""

from __future__ import annotations

import io
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import pytest

from cumetal.ptx import parse, print_module, structure
from cumetal.tools.cumetalc import main as cumetalc_main

SEED = 20261122
N_MUTANTS = 1200
N_CLI_INPROCESS = 120
N_CLI_SUBPROCESS = 8
PER_INPUT_SECONDS = 5.0
MAX_SEED_BYTES = 40_000  # seeds are the smaller corpus files, so 1,200 mutants parse in seconds

DIAG_LINE = re.compile(r"^(?P<file>[^\n]+?):(?:(?P<line>\d+):(?P<col>\d+):)? (?P<sev>error|warning|note): \S")
CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "ptx"

# Parser bugs this fuzzer found (.work/parser-bugs.md 1-5: deep nesting recursion, float constant
# overflow, out-of-range register counts and array sizes) are fixed; their inputs stay below as tests.


class ParseTimeout(Exception):
    pass


@contextmanager
def time_limit(seconds: float):
    """Interrupt a runaway parse with SIGALRM (Unix main thread); elsewhere only measure."""
    use_alarm = hasattr(signal, "setitimer") and __import__("threading").current_thread().name == "MainThread"
    if use_alarm:
        def on_alarm(signum, frame):  # noqa: ARG001
            raise ParseTimeout(f"no result after {seconds} s")

        old = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)


@cache
def seeds() -> tuple[bytes, ...]:
    files = sorted(p for p in CORPUS.rglob("*.ptx") if p.stat().st_size <= MAX_SEED_BYTES)
    return tuple(p.read_bytes() for p in files)


# ----------------------------------------------------------------------------- mutation operators
TOKEN = re.compile(rb"%?[A-Za-z_$][\w$.:]*|0[fFdD][0-9A-Fa-f]+|\d+|\S")
HUGE_NUMBERS = [b"99999999999999999999999999999999999999", b"0xffffffffffffffffffffffffffffffffffff",
                b"-9223372036854775809", b"18446744073709551616", b"0f" + b"F" * 40, b"0d" + b"7" * 64,
                b"1e99999", b"0b" + b"1" * 200, b"%r<99999999999999999999>", b"[%rd1+99999999999999999999999]"]
NON_UTF8 = [b"\xff\xfe", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\x80", b"\xe2\x82"]


def _span(rng: random.Random, data: bytes, max_len: int = 200) -> tuple[int, int]:
    a = rng.randrange(len(data) + 1)
    return a, min(len(data), a + rng.randint(1, max_len))


def m_bit_flips(rng, data, _other):
    b = bytearray(data)
    for _ in range(rng.randint(1, 12)):
        if b:
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    return bytes(b)


def m_delete(rng, data, _other):
    a, e = _span(rng, data)
    return data[:a] + data[e:]


def m_duplicate(rng, data, _other):
    a, e = _span(rng, data, 2000)
    at = rng.randrange(len(data) + 1)
    return data[:at] + data[a:e] * rng.randint(1, 4) + data[at:]


def m_truncate(rng, data, _other):
    return data[: rng.randrange(len(data) + 1)]


def m_token_swap(rng, data, _other):
    toks = list(TOKEN.finditer(data))
    if len(toks) < 2:
        return data
    out = data
    for _ in range(rng.randint(1, 5)):
        x, y = sorted(rng.sample(range(len(toks)), 2))
        tx, ty = toks[x], toks[y]
        out = data[: tx.start()] + ty.group() + data[tx.end() : ty.start()] + tx.group() + data[ty.end() :]
        data = out
        toks = list(TOKEN.finditer(data))
    return out


def m_splice_lines(rng, data, other):
    lines, olines = data.split(b"\n"), other.split(b"\n")
    a = rng.randrange(len(olines))
    chunk = olines[a : a + rng.randint(1, 40)]
    at = rng.randrange(len(lines) + 1)
    return b"\n".join(lines[:at] + chunk + lines[at:])


def m_huge_number(rng, data, _other):
    toks = [t for t in TOKEN.finditer(data) if t.group()[:1].isdigit() or t.group().startswith(b"%")]
    if not toks:
        return data + rng.choice(HUGE_NUMBERS)
    t = rng.choice(toks)
    return data[: t.start()] + rng.choice(HUGE_NUMBERS) + data[t.end() :]


def m_deep_braces(rng, data, _other):
    depth = rng.choice([300, 5_000, 50_000])
    opener = rng.choice([b"{", b"(", b"[", b"{ "])
    closer = {b"{": b"}", b"(": b")", b"[": b"]", b"{ ": b"} "}[opener]
    at = rng.randrange(len(data) + 1)
    balanced = rng.random() < 0.5
    return data[:at] + opener * depth + (closer * depth if balanced else b"") + data[at:]


def m_long_identifier(rng, data, _other):
    toks = [t for t in TOKEN.finditer(data) if t.group()[:1].isalpha() or t.group()[:1] in b"%$_"]
    name = rng.choice([b"a", b"%r", b"$L__", b"_Z"]) + b"x" * rng.choice([300, 10_000, 200_000])
    if not toks:
        return data + name
    t = rng.choice(toks)
    return data[: t.start()] + name + data[t.end() :]


def m_non_utf8(rng, data, _other):
    out = data
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(out) + 1)
        out = out[:at] + rng.choice(NON_UTF8) + out[at:]
    return out


def m_junk(rng, data, _other):
    at = rng.randrange(len(data) + 1)
    junk = bytes(rng.choice(b";{}[]()<>|,.:%@!+-_\"/*\\\n\t 0123456789abcdefxyz\x00") for _ in range(rng.randint(1, 80)))
    return data[:at] + junk + data[at:]


def m_line_shuffle(rng, data, _other):
    lines = data.split(b"\n")
    a = rng.randrange(len(lines))
    seg = lines[a : a + rng.randint(2, 30)]
    rng.shuffle(seg)
    return b"\n".join(lines[:a] + seg + lines[a + len(seg) :])


OPERATORS: list[Callable[[random.Random, bytes, bytes], bytes]] = [
    m_bit_flips, m_delete, m_duplicate, m_truncate, m_token_swap, m_splice_lines, m_huge_number,
    m_deep_braces, m_long_identifier, m_non_utf8, m_junk, m_line_shuffle,
]


def make_mutant(i: int) -> tuple[str, bytes]:
    """Mutant number i: deterministic for a given corpus (its own RNG stream per index)."""
    rng = random.Random(SEED * 1_000_003 + i)
    pool = seeds()
    data, other = rng.choice(pool), rng.choice(pool)
    names = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        op = OPERATORS[(i + len(names)) % len(OPERATORS)] if not names else rng.choice(OPERATORS)
        data = op(rng, data, other)
        names.append(op.__name__[2:])
    return "+".join(names), data


# ----------------------------------------------------------------------------- the checks
def check_parse(name: str, data: bytes | str, strict: bool = False) -> list[str]:
    """Problems found when parsing one input (empty list: all properties hold)."""
    problems: list[str] = []
    t0 = time.perf_counter()
    try:
        with time_limit(PER_INPUT_SECONDS):
            res = parse(data, name, strict=strict)
    except ParseTimeout as e:
        return [f"{name}: hang: {e}"]
    except Exception as e:  # the property under test: nothing escapes parse()
        return [f"{name}: parse() raised {type(e).__name__}: {e}"]
    elapsed = time.perf_counter() - t0
    if elapsed > PER_INPUT_SECONDS:
        problems.append(f"{name}: took {elapsed:.1f} s")
    raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    max_line = raw.count(b"\n") + raw.count(b"\r") + 2  # generous: CR, CRLF or LF line ends
    for d in res.diagnostics:
        if not 0 <= d.loc.line <= max_line or d.loc.col < 0:
            problems.append(f"{name}: diagnostic at impossible place {d.loc.line}:{d.loc.col}: {d.message[:100]}")
        try:
            text = d.format()
        except Exception as e:
            problems.append(f"{name}: Diagnostic.format() raised {type(e).__name__}: {e}")
            continue
        if not DIAG_LINE.match(text) or not text.startswith(name):
            problems.append(f"{name}: badly formed diagnostic: {text[:200]!r}")
    if res.ok:
        try:
            with time_limit(PER_INPUT_SECONDS):
                again = parse(print_module(res.module), name + ".printed")
            if not again.ok:
                problems.append(f"{name}: printed module does not reparse: {again.errors[0].format()[:300]}")
            elif structure(again.module) != structure(res.module):
                problems.append(f"{name}: printed module reparses to a different structure")
        except Exception as e:
            problems.append(f"{name}: print/reparse of an error-free parse raised {type(e).__name__}: {e}")
    return problems


def test_seed_pool_is_real_corpus() -> None:
    assert len(seeds()) >= 100
    assert all(s.lstrip().startswith(b"//") for s in seeds())


def test_mutants_only_produce_diagnostics() -> None:
    problems: list[str] = []
    kinds: dict[str, int] = {}
    for i in range(N_MUTANTS):
        ops, data = make_mutant(i)
        kinds[ops.split("+")[0]] = kinds.get(ops.split("+")[0], 0) + 1
        problems += check_parse(f"mutant{i}[{ops}].ptx", data, strict=(i % 7 == 0))
    assert len(kinds) == len(OPERATORS)
    assert not problems, f"{len(problems)} problems, first ones:\n" + "\n".join(problems[:15])


def test_mutants_mostly_change_the_verdict() -> None:
    """Sanity of the fuzzer itself: a good share of mutants must actually be rejected."""
    rejected = 0
    for i in range(0, N_MUTANTS, 10):
        _, data = make_mutant(i)
        rejected += not parse(data, "m.ptx").ok
    assert rejected >= N_MUTANTS // 10 // 4


# Hand-made hostile inputs (name, bytes, expect_errors: True / False / None = either). Where an
# expectation is given for a borderline case, it is ptxas 13.0's verdict on the same text.
VALID = (CORPUS / "nvcc" / "sm80" / "vector_add.ptx").read_bytes()
HEAD = b".version 8.0\n.target sm_80\n.address_size 64\n"


def _entry(body: bytes) -> bytes:
    return HEAD + b".visible .entry k(.param .u64 p)\n{\n" + body + b"\n}\n"


NASTY: list[tuple[str, bytes, bool | None]] = [
    ("empty", b"", None),
    ("only-whitespace", b" \t\n\r\n\f\v   \n" * 1000, None),
    ("only-newlines", b"\n" * 200_000, None),
    ("nul-bytes", b"\x00" * 10_000, True),
    ("nul-inside-valid", VALID[:300] + b"\x00" + VALID[300:], True),
    ("binary-junk", random.Random(SEED).randbytes(200_000), True),
    ("utf16-bom", b"\xff\xfe" + VALID.decode().encode("utf-16-le"), True),
    ("utf8-bom-valid", b"\xef\xbb\xbf" + VALID, None),
    ("crlf-valid", VALID.replace(b"\n", b"\r\n"), False),
    ("huge-line", _entry(b".reg .b32 %r<4>;" + b" add.s32 %r1, %r2, %r3;" * 20_000), False),
    ("huge-line-garbage", b"x" * 3_000_000, True),
    ("huge-register-range", _entry(b".reg .b32 %r<100000000>;\nmov.u32 %r99999999, 1;"), False),
    ("register-range-overflow", _entry(b".reg .b32 %r<99999999999999999999999>;"), True),
    ("negative-register-range", _entry(b".reg .b32 %r<-5>;"), True),
    ("huge-array", HEAD + b".global .b8 g[999999999999999999999999];\n", True),
    ("deep-braces", _entry(b"{" * 100_000 + b"}" * 100_000), None),
    ("deep-braces-unbalanced", _entry(b"{" * 100_000), True),
    ("deep-closing", _entry(b"}" * 100_000), True),
    ("deep-parens", _entry(b"call.uni f, " + b"(" * 50_000 + b");"), True),
    ("deep-vector", _entry(b"mov.b64 %rd1, " + b"{" * 20_000 + b"%r1" + b"}" * 20_000 + b";"), True),
    ("unterminated-block-comment", VALID[:500] + b"/* never closed " + VALID[500:], True),
    ("unterminated-string", HEAD + b'.file 1 "never closed\n' + VALID, True),
    ("unterminated-entry", VALID[: VALID.rindex(b"}")], True),
    ("comment-only", b"// nothing but a comment", None),
    ("long-identifier", _entry(b".reg .b32 " + b"%" + b"r" * 1_000_000 + b";"), None),
    ("long-label", _entry(b"L" + b"x" * 500_000 + b":\nret;"), None),
    ("many-modifiers", _entry(b"add" + b".rn" * 50_000 + b".f32 %f1, %f2, %f3;"), True),
    ("many-operands", _entry(b"add.s32 " + b"%r1, " * 100_000 + b"%r2;"), True),
    ("many-errors", _entry(b"add.s32 %r1, , ;\n" * 50_000), True),
    ("many-unknown-opcodes", _entry(b"bogus.op %r1;\n" * 50_000), False),  # warnings, not errors
    ("huge-float-literals", _entry(b"mov.f32 %f1, 0f" + b"F" * 5000 + b";\nmov.f64 %fd1, 1e999999;"), True),
    ("version-overflow", b".version 99999999999999999999999.9999999999999999\n.target sm_80\n", None),
    ("float-overflow", _entry(b".reg .f64 %fd<3>;\nadd.f64 %fd1, %fd2, 1e99999;"), True),
    ("control-chars", _entry(bytes(range(1, 32)) * 1000), True),
    ("lone-surrogates", VALID[:200] + "\ud800\udfff".encode("utf-8", "surrogatepass") + VALID[200:], None),
    ("section-unterminated", HEAD + b".section .debug_info {\n.b8 1, 2, 3\n" * 2000, True),
    ("pragma-junk", HEAD + b'.pragma "' + b"\\" * 100_000 + b'";\n', None),
]


@pytest.mark.parametrize("name,data,expect_errors", NASTY, ids=[n for n, _, _ in NASTY])
def test_hand_made_nasty_input(name: str, data: bytes, expect_errors: bool | None) -> None:
    problems = check_parse(name + ".ptx", data)
    assert not problems, "\n".join(problems[:10])
    if expect_errors is not None:
        res = parse(data, name + ".ptx")
        assert (not res.ok) == expect_errors, [d.format()[:200] for d in res.diagnostics[:3]]


def test_nasty_input_as_str_is_handled_too() -> None:
    for name, data, _ in NASTY:
        text = data.decode("utf-8", errors="surrogateescape")
        problems = check_parse(name + ".str.ptx", text)
        assert not problems, "\n".join(problems[:10])


def test_crlf_file_has_same_structure_as_lf() -> None:
    lf = parse(VALID, "a.ptx")
    crlf = parse(VALID.replace(b"\n", b"\r\n"), "a.ptx")
    assert lf.ok and crlf.ok
    assert structure(lf.module) == structure(crlf.module)


def _cli_inputs() -> list[tuple[str, bytes]]:
    step = N_MUTANTS // N_CLI_INPROCESS
    return [(f"mutant{i}", make_mutant(i)[1]) for i in range(0, N_MUTANTS, step)] + [
        (n, d) for n, d, _ in NASTY[:: max(1, len(NASTY) // 10)]
    ]


def test_cumetalc_parse_only_exit_codes_on_mutants(tmp_path: Path) -> None:
    for name, data in _cli_inputs():
        path = tmp_path / f"{name}.ptx"
        path.write_bytes(data)
        out, err = io.StringIO(), io.StringIO()
        try:
            with time_limit(PER_INPUT_SECONDS * 2):
                rc = cumetalc_main(["--parse-only", str(path)], out, err)
        except ParseTimeout:
            pytest.fail(f"cumetalc --parse-only hangs on {name}")
        assert rc in (0, 1), (name, rc, err.getvalue()[:500])
        has_error = re.search(r": error: ", err.getvalue()) is not None
        assert (rc == 1) == has_error, (name, rc, err.getvalue()[:500])
        assert "Traceback" not in err.getvalue()


def test_cumetalc_parse_only_in_subprocesses(tmp_path: Path) -> None:
    inputs = _cli_inputs()
    chosen = inputs[:: max(1, len(inputs) // N_CLI_SUBPROCESS)][:N_CLI_SUBPROCESS]
    paths = []
    for name, data in chosen:
        p = tmp_path / f"{name}.ptx"
        p.write_bytes(data)
        paths.append(p)
    for p in paths:
        r = subprocess.run([sys.executable, "-m", "cumetal.tools.cumetalc", "--parse-only", str(p)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode in (0, 1), (p.name, r.returncode, r.stderr[-1000:])
        assert "Traceback" not in r.stderr, r.stderr[-2000:]
    # Several files in one run: exit 1 if any has errors.
    r = subprocess.run([sys.executable, "-m", "cumetal.tools.cumetalc", "--parse-only", *map(str, paths)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr

"""PTX text → typed AST (``cumetal.ptx.ast``), with per-instruction degradation.

Recursive descent over the tokens of ``cumetal.ptx.lexer``. Instructions are decoded against the
instruction table (``cumetal.ptx.table``): an unknown opcode becomes an ``UnknownInstruction`` with a
warning (an error in strict mode); a malformed instruction becomes one with an error, and the parser
resynchronises at the next ``;``, ``}`` or statement-starting line. Nothing a file contains raises.
"""

from __future__ import annotations

import dataclasses
import gc
import math
import re
from dataclasses import dataclass, field

from cumetal.diagnostics import Diagnostic, DiagnosticSink
from cumetal.ptx import ast as A
from cumetal.ptx.declarations import DeclarationParser
from cumetal.ptx.forms import ADDRESS, PLIST, VALUE
from cumetal.ptx.lexer import EOF, FLOAT, HEXF, INT, PUNCT, WORD, int_value
from cumetal.ptx.special_registers import special_register
from cumetal.ptx.table import decode, operand_count_problem

MAX_BLOCK_DEPTH = 200  # nested { } scopes; deeper input is reported and skipped
_COLON = re.compile(r"[ \t]*:")


@dataclass(slots=True)
class ParseResult:
    module: A.Module
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(d.severity == "error" for d in self.diagnostics)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]


def parse(text: str | bytes, filename: str = "<input>", strict: bool = False) -> ParseResult:
    """Parse PTX source. Never raises on bad input: problems are in ``.diagnostics``."""
    sink = DiagnosticSink()
    bad_utf8_at = -1
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            bad_utf8_at = len(e.object[: e.start].decode("utf-8", errors="replace"))
            text = bytes(text).decode("utf-8", errors="replace")
    # The tree is acyclic; without this, the cyclic GC re-walks the growing tree again and again
    # and large files parse in super-linear time.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        p = _Parser(text, filename, strict, sink)
        if bad_utf8_at >= 0:
            p.diag("warning", "file is not valid UTF-8; invalid bytes were replaced", bad_utf8_at)
        module = p.parse_module()
    finally:
        if gc_was_enabled:
            gc.enable()
    return ParseResult(module, sink.diagnostics)


class _Parser(DeclarationParser):
    def __init__(self, text: str, filename: str, strict: bool, sink: DiagnosticSink) -> None:
        super().__init__(text, filename, sink)
        self.strict = strict
        self._op_cache: dict[str, A.Operand] = {}
        self._form_cache: dict[tuple, tuple] = {}
        self._plain_regs: dict[str, int] = {}  # register names without '%' visible in this scope
        self._plain_ranges: dict[str, list[int]] = {}  # 'temp<3>' without '%': prefix -> counts in scope

    # ------------------------------------------------------------------ function bodies
    def parse_block(self, depth: int) -> A.Block:
        """Parse ``{ … }`` (current token is '{')."""
        loc = self.loc(self.start)
        self.advance()
        declared: list[str] = []
        stmts = self.parse_statements(depth, declared)
        for n in declared:
            if n[0] == "<":  # a range: temp<N>
                stack = self._plain_ranges[n[1:]]
                stack.pop()
                if not stack:
                    del self._plain_ranges[n[1:]]
                continue
            c = self._plain_regs[n] - 1
            if c:
                self._plain_regs[n] = c
            else:
                del self._plain_regs[n]
        if self.kind == PUNCT and self.val == "}":
            self.advance()
        else:
            self.diag("error", "expected '}' to close the block opened here", loc)
        return A.Block(stmts, loc)

    def parse_statements(self, depth: int, declared: list[str]) -> list[A.Statement]:
        stmts = self._statements(depth, declared)
        seen: dict[str, A.SourceLoc] = {}
        for st in stmts:  # ptxas 13.0: "Duplicate definition of label 'L1'" (a nested block may reuse it)
            if isinstance(st, A.Label):
                first = seen.setdefault(st.name, st.loc)
                if first is not st.loc:
                    self.diag("error", f"label '{st.name}' is defined twice in this block (first at line "
                              f"{first.line})", st.loc)
        return stmts

    def _statements(self, depth: int, declared: list[str]) -> list[A.Statement]:
        stmts: list[A.Statement] = []
        append = stmts.append
        text = self.text
        while True:
            kind = self.kind
            val = self.val
            if kind == WORD:
                m = _COLON.match(text, self.end)
                if m is not None and not val.startswith("%"):
                    self.statement_label(stmts)
                    continue
                append(self.instruction(None))
            elif kind == PUNCT:
                if val == "}":
                    return stmts
                if val == "@":
                    append(self.guarded_instruction())
                elif val == "{":
                    if depth >= MAX_BLOCK_DEPTH:
                        self.diag("error", f"blocks nested deeper than {MAX_BLOCK_DEPTH} levels", self.start)
                        self.skip_balanced()
                    else:
                        append(self.parse_block(depth + 1))
                elif val == ";":
                    self.advance()  # empty statement
                else:
                    self.unexpected("a statement")
            elif kind == "dir":
                self.body_directive(stmts, declared)
            elif kind == EOF:
                return stmts
            else:
                self.unexpected("a statement")

    def statement_label(self, stmts: list[A.Statement]) -> None:
        name, start = self.val, self.start
        loc = self.loc(start)
        self.advance()  # name
        self.advance()  # ':'
        if self.kind == "dir" and self.val == ".callprototype":
            stmts.append(self.callprototype(name, loc))
        elif self.kind == "dir" and self.val in (".branchtargets", ".calltargets"):
            stmts.append(self.target_list(name, loc))
        else:
            stmts.append(A.Label(name, loc))

    def body_directive(self, stmts: list[A.Statement], declared: list[str]) -> None:
        v = self.val
        if v == ".reg":
            for d in self.reg_decl():
                stmts.append(d)
                if d.count is not None:  # 'temp<3>' declares temp0 temp1 temp2
                    prefix = d.names[0]
                    if not prefix.startswith("%"):
                        self._plain_ranges.setdefault(prefix, []).append(d.count)
                        declared.append("<" + prefix)
                    continue
                for n in d.names:
                    if not n.startswith("%"):
                        self._plain_regs[n] = self._plain_regs.get(n, 0) + 1
                        declared.append(n)
        elif v in (".local", ".shared", ".param", ".const", ".global", ".tex") or v in (
            ".visible", ".extern", ".weak", ".common"
        ):
            stmts.extend(self.var_decl())
        elif v == ".pragma":
            stmts.append(self.pragma())
        elif v == ".loc":
            stmts.append(self.loc_directive())
        else:
            self.diag("error", f"unexpected directive '{v}' in a function body", self.start)
            self.resync(self.start)

    # ------------------------------------------------------------------ instructions
    def guarded_instruction(self) -> A.Instruction | A.UnknownInstruction:
        at = self.start
        self.advance()  # '@'
        negated = False
        if self.kind == PUNCT and self.val == "!":
            negated = True
            self.advance()
        if self.kind != WORD:
            self.diag("error", "expected a predicate register after '@'", self.start)
            return self.malformed(at, "expected a predicate register after '@'", None)
        guard = A.Guard(self.val, negated)
        self.advance()
        if self.kind != WORD:
            self.diag("error", "expected an instruction after the guard", self.start)
            return self.malformed(at, "expected an instruction after the guard", guard)
        return self.instruction(guard)

    def instruction(self, guard: A.Guard | None) -> A.Instruction | A.UnknownInstruction:
        start = self.start
        opcode = self.val
        m = _FAST_OPS.match(self.text, self.end)
        if m is not None:
            # fast path: one-line operand list without comments/strings, split by a regex, each
            # operand text looked up in a cache (real files repeat the same operands constantly)
            fast = self.fast_operands(m.start(1), m.end(1))
            if fast is not None:
                if fast is _FAILED:
                    return self.malformed(start, None, guard)
                semi = m.end() - 1
                self.end = m.end()
                self.advance()
                return self.finish(start, semi, opcode, fast, guard)
            self.end = len(opcode) + start
        self.advance()
        operands: list[A.Operand] = []
        if not (self.kind == PUNCT and self.val == ";"):
            operand = self.operand
            while True:
                op = operand()
                if op is None:
                    return self.malformed(start, None, guard)
                operands.append(op)
                if self.kind == PUNCT:
                    if self.val == ",":
                        self.advance()
                        continue
                    if self.val == ";":
                        break
                self.diag("error", "expected ';' after the instruction", self.prev_end)
                return self.malformed(start, "expected ';' after the instruction", guard)
        end = self.start
        self.advance()  # ';'
        return self.finish(start, end, opcode, tuple(operands), guard)

    def finish(self, start: int, end: int, opcode: str, ops: tuple, guard: A.Guard | None
               ) -> A.Instruction | A.UnknownInstruction:
        """Decode the opcode against the table and pick the form whose operand shape fits."""
        loc = self.loc(start)
        # the chosen form depends only on the opcode text and the operand kinds: cache it
        key = (opcode, tuple(map(type, ops)))
        hit = self._form_cache.get(key)
        if hit is not None:
            root, fields, mods, index = hit
            return A.Instruction(root, dict(fields), ops, loc, mods, guard, index)
        dec = decode(opcode)
        if dec.root is None:
            msg = f"unknown instruction '{opcode}'"
            self.diag("error" if self.strict else "warning", msg, loc)
            return A.UnknownInstruction(self.text[start:end].rstrip(), opcode, loc, msg, guard)
        count_problem = None
        for form, fields in dec.candidates:
            if _shape_ok(form.operands, form.min_operands, ops):
                problem = operand_count_problem(dec.root, form, fields, len(ops))
                if problem is not None:
                    count_problem = count_problem or problem
                    continue
                if len(self._form_cache) < 100_000:
                    self._form_cache[key] = (dec.root, fields, dec.mods, form.index)
                return A.Instruction(dec.root, dict(fields), ops, loc, dec.mods, guard, form.index)
        if count_problem is not None:
            msg = f"wrong operands for '{opcode}': it {count_problem}"
        elif dec.bad_mods:
            bad = ", ".join("." + m for m in dec.bad_mods)
            msg = f"unknown modifier {bad} for '{dec.root}'"
        elif not dec.candidates:
            msg = f"invalid modifier combination '{opcode}'"
        else:
            msg = f"wrong operands for '{opcode}': expected '{dec.candidates[0][0].text.partition(' ')[2]}'"
        self.diag("error", msg, loc)
        return A.UnknownInstruction(self.text[start:end].rstrip(), opcode, loc, msg, guard)

    def fast_operands(self, s: int, e: int) -> tuple | object | None:
        """Operands of text[s:e] (no ';'): a tuple, None to take the token path instead (nothing
        reported), or _FAILED after a reported syntax error."""
        if s == e:
            return ()
        cache = self._op_cache
        text = self.text
        optext = text[s:e]
        if "{" not in optext:  # common case: split on commas, every operand already cached
            ops = []
            for piece in optext.split(","):
                op = cache.get(piece.strip())
                if op is None:
                    break
                ops.append(op)
            else:
                return tuple(ops)
        ops = []
        pos = s
        for m in _PIECE.finditer(text, s, e):
            if m.start() != pos:
                return None
            pos = m.end()
            piece = m.group(1)
            op = cache.get(piece)
            if op is None:
                self.end = m.start(1)
                self.advance()
                op = self.operand()
                if op is None:
                    return _FAILED
                if self.start < m.end(1):
                    return None
                if _context_free(op):
                    cache[piece] = op
            ops.append(op)
        if pos != e:
            return None
        return tuple(ops)

    def malformed(self, start: int, msg: str | None, guard: A.Guard | None) -> A.UnknownInstruction:
        """Resynchronise after a syntax error inside an instruction; keep it as UnknownInstruction."""
        end = self.resync(start)
        loc = self.loc(start)
        word = self.text[start:end].split(None, 1)
        opcode = word[0] if word else ""
        return A.UnknownInstruction(self.text[start:end].rstrip(), opcode, loc, msg or "malformed instruction",
                                    guard)

    # ------------------------------------------------------------------ operands
    def operand(self, pair_ok: bool = True) -> A.Operand | None:
        """One operand; ``pair_ok`` False for the second half of 'd|p' (no chains, no recursion)."""
        kind = self.kind
        val = self.val
        if kind == WORD:
            op = self._op_cache.get(val)
            if op is None:
                op = self.word_operand(val)
            else:
                self.advance()
            if self.kind == PUNCT:
                v = self.val
                if v == "|" and pair_ok:
                    self.advance()
                    if self.kind == PUNCT:  # 'd|p' pairs two plain operands; no chains or nesting
                        self.diag("error", f"expected a register after '|', found {self.describe()}", self.start)
                        return None
                    second = self.operand(pair_ok=False)
                    return None if second is None else A.Pair(op, second)
                if (v == "+" or v == "-") and isinstance(op, A.Sym):
                    off = self.signed_offset()
                    return None if off is None else A.Sym(op.name, off)
                if (v == "+" or v == "-") and isinstance(op, A.Reg) and not op.negated:
                    off = self.signed_offset()
                    return None if off is None else A.Reg(op.name, op.component, False, off)
            return op
        if kind == INT or kind == HEXF or kind == FLOAT:
            op = self._op_cache.get(val)
            if op is None:
                op = _imm(kind, val)
                if kind == FLOAT and math.isinf(op.value):
                    self.diag("error", f"floating-point constant '{val}' overflows", self.start)
                    return None
                self._op_cache[val] = op
            self.advance()
            return op
        if kind == PUNCT:
            if val == "[":
                return self.address()
            if val == "{":
                vec = self.vector()
                if vec is not None and pair_ok and self.kind == PUNCT and self.val == "|":  # {d0, d1}|p
                    self.advance()
                    if self.kind == PUNCT:
                        self.diag("error", f"expected a register after '|', found {self.describe()}", self.start)
                        return None
                    second = self.operand(pair_ok=False)
                    return None if second is None else A.Pair(vec, second)
                return vec
            if val == "(":
                return self.param_list()
            if val == "!":
                self.advance()
                if self.kind != WORD:  # '!' applies to a predicate register: no '!!…' recursion
                    self.diag("error", "'!' must be followed by a predicate register", self.start)
                    return None
                inner = self.operand()
                if isinstance(inner, A.Reg):
                    return A.Reg(inner.name, inner.component, True)
                self.diag("error", "'!' must be followed by a predicate register", self.prev_start)
                return None
            if val == "-":
                self.advance()
                if self.kind in (INT, HEXF, FLOAT):
                    v = _imm(self.kind, self.val)
                    if v.kind == "float" and math.isinf(v.value):
                        self.diag("error", f"floating-point constant '{self.val}' overflows", self.start)
                        return None
                    self.advance()
                    return _negate(v)
                if self.kind == WORD:  # '-%r' (vmad's negated operands)
                    inner = self.operand(pair_ok=False)
                    if isinstance(inner, A.Reg) and not inner.negated and not inner.minus:
                        return dataclasses.replace(inner, minus=True)
                    self.diag("error", "'-' must be followed by a number or a register", self.prev_start)
                    return None
                self.diag("error", "expected a number or a register after '-'", self.start)
                return None
        self.diag("error", f"expected an operand, found {self.describe()}", self.start)
        return None

    def word_operand(self, val: str) -> A.Operand:
        """Register, special register, sink or symbol (current token is the word)."""
        self.advance()
        if val[0] == "%":
            name, _, comp = val.partition(".")
            op: A.Operand = A.Reg(name, comp or None)
            sreg = special_register(name) if comp else None
            if sreg is not None and comp not in _SREG_COMPONENTS[bool(sreg.components)]:
                # ptxas 13.0: "Unknown vector selector: 'q'", "Unknown field '.x'" (for %laneid.x)
                self.diag("error", f"special register {name} has no component '.{comp}'" + (
                    " (x, y, z, w or r, g, b, a)" if sreg.components else " (it is a scalar)"), self.prev_start)
                return op
            if sreg is not None and comp in _SREG_ALIAS:  # %tid.r is %tid.x (ptxas 13.0; H100-checked)
                op = A.Reg(name, _SREG_ALIAS[comp])
            self._op_cache[val] = op
            return op
        if val == "_":
            return A.Sink()
        name, _, comp = val.partition(".")
        if name in self._plain_regs or (self._plain_ranges and self._in_plain_range(name)):
            return A.Reg(name, comp or None)
        return A.Sym(val)

    def _in_plain_range(self, name: str) -> bool:
        """Is ``name`` one of the registers of a visible range declared without '%' (temp<3>: temp0..2)?"""
        i = len(name)
        while i > 0 and name[i - 1].isdigit():
            i -= 1
        digits = name[i:]
        if not digits or (len(digits) > 1 and digits[0] == "0"):
            return False
        counts = self._plain_ranges.get(name[:i])
        return counts is not None and int(digits) < max(counts)

    def signed_offset(self) -> int | None:
        """``+ 4`` / ``- 4`` / ``+ -4`` after a base (current token is '+' or '-')."""
        sign = -1 if self.val == "-" else 1
        self.advance()
        if self.kind == PUNCT and self.val == "-":
            sign = -sign
            self.advance()
        if self.kind != INT:
            self.diag("error", f"expected an integer offset, found {self.describe()}", self.start)
            return None
        v = int_value(self.val) * sign
        self.advance()
        return v

    def address(self) -> A.Address | None:
        open_at = self.start
        self.advance()  # '['
        base: A.Reg | A.Sym | None = None
        offset = 0
        coords = sampler = None
        if self.kind == WORD:
            b = self.word_operand(self.val) if self.val not in self._op_cache else self._cached_advance()
            if isinstance(b, A.Sink) or not isinstance(b, A.Reg | A.Sym):
                self.diag("error", "bad address base", open_at)
                return None
            base = b
            if self.kind == PUNCT and self.val in "+-":
                off = self.signed_offset()
                if off is None:
                    return None
                offset = off
        elif self.kind == INT or (self.kind == PUNCT and self.val == "-"):
            neg = self.val == "-"
            if neg:
                self.advance()
            if self.kind != INT:
                self.diag("error", "expected an address", self.start)
                return None
            offset = -int_value(self.val) if neg else int_value(self.val)
            self.advance()
        else:
            self.diag("error", f"expected an address, found {self.describe()}", self.start)
            return None
        if self.kind == PUNCT and self.val == ",":
            self.advance()
            if self.kind == WORD:  # [tex, sampler, {coords}]
                s = self.word_operand(self.val)
                if not isinstance(s, A.Reg | A.Sym):
                    self.diag("error", "bad sampler in address", self.prev_start)
                    return None
                sampler = s
                if not (self.kind == PUNCT and self.val == ","):
                    self.diag("error", "expected ',' and coordinates after the sampler", self.start)
                    return None
                self.advance()
            if not (self.kind == PUNCT and self.val == "{"):
                self.diag("error", f"expected a coordinate vector, found {self.describe()}", self.start)
                return None
            coords = self.vector()
            if coords is None:
                return None
        if not (self.kind == PUNCT and self.val == "]"):
            self.diag("error", f"expected ']', found {self.describe()}", self.start)
            return None
        self.advance()
        unified = False
        if self.kind == "dir" and self.val == ".unified":
            unified = True
            self.advance()
        return A.Address(base, offset, coords, sampler, unified)

    def _cached_advance(self) -> A.Operand:
        op = self._op_cache[self.val]
        self.advance()
        return op

    def vector(self) -> A.Vector | None:
        open_at = self.start
        self.advance()  # '{'
        elems: list[A.Operand] = []
        while True:
            if self.kind == PUNCT and self.val in ("{", "(", "["):  # checked before recursing: no deep nesting
                self.diag("error", "vector elements must be registers or immediates", self.start)
                return None
            op = self.operand()
            if op is None:
                return None
            if isinstance(op, A.Address | A.ParamList | A.Vector):
                self.diag("error", "vector elements must be registers or immediates", open_at)
                return None
            elems.append(op)
            if self.kind == PUNCT and self.val == ",":
                self.advance()
                continue
            if self.kind == PUNCT and self.val == "}":
                self.advance()
                return A.Vector(tuple(elems))
            self.diag("error", f"expected ',' or '}}' in vector, found {self.describe()}", self.start)
            return None

    def param_list(self) -> A.ParamList | None:
        self.advance()  # '('
        items: list[A.Operand] = []
        if self.kind == PUNCT and self.val == ")":
            self.advance()
            return A.ParamList(())
        while True:
            if self.kind == PUNCT and self.val == "(":  # checked before recursing: no deep nesting
                self.diag("error", "argument lists cannot be nested", self.start)
                return None
            op = self.operand()
            if op is None:
                return None
            items.append(op)
            if self.kind == PUNCT and self.val == ",":
                self.advance()
                continue
            if self.kind == PUNCT and self.val == ")":
                self.advance()
                return A.ParamList(tuple(items))
            self.diag("error", f"expected ',' or ')' in argument list, found {self.describe()}", self.start)
            return None


_FAILED = object()
_FAST_OPS = re.compile(r"[ \t]*((?:[^;{}\"/\n]|\{[^;{}\"/\n]*\})*?)[ \t]*;")
_PIECE = re.compile(r"[ \t]*((?:\{[^}]*\}|\[[^\]]*\]|[^,{\[ \t]|[ \t]+(?=[^, \t]))+)[ \t]*(?:,|$)")


def _context_free(op: A.Operand) -> bool:
    """True if the operand's meaning does not depend on scope (no symbol, no register without %)."""
    t = type(op)
    if t is A.Reg:
        return op.name[0] == "%"
    if t is A.Imm or t is A.Sink:
        return True
    if t is A.Address:
        return (op.base is None or _context_free(op.base)) and op.sampler is None and (
            op.coords is None or _context_free(op.coords))
    if t is A.Vector:
        return all(_context_free(x) for x in op.elems)
    if t is A.Pair:
        return _context_free(op.first) and _context_free(op.second)
    return False


def _imm(kind: str, val: str) -> A.Imm:
    if kind == INT:
        return A.Imm(int_value(val))
    if kind == HEXF:
        return A.Imm(int(val[2:], 16), "f32" if val[1] in "fF" else "f64")
    return A.Imm(float(val), "float")


def _negate(v: A.Imm) -> A.Imm:
    if v.kind == "int":
        return A.Imm(-v.value)
    if v.kind == "f32":
        return A.Imm(int(v.value) ^ 0x8000_0000, "f32")
    if v.kind == "f64":
        return A.Imm(int(v.value) ^ 0x8000_0000_0000_0000, "f64")
    return A.Imm(-v.value, "float")


# Components a vector special register may be read with (ptxas 13.0 accepts all eight; .w/.a is the
# unused fourth element of the .v4 register); a scalar special register has none.
_SREG_COMPONENTS = {True: frozenset("xyzwrgba"), False: frozenset()}
_SREG_ALIAS = {"r": "x", "g": "y", "b": "z", "a": "w"}


def _shape_ok(specs: tuple, nmin: int, ops: tuple) -> bool:
    n = len(ops)
    if n < nmin or n > len(specs):
        return False
    for spec, op in zip(specs, ops, strict=False):
        t = type(op)
        k = spec.kind
        if k == VALUE:
            if t is A.Address or t is A.ParamList or (t is A.Pair and not spec.pair):
                return False
        elif k == ADDRESS:
            if t is not A.Address:
                return False
        elif k == PLIST:
            if t is not A.ParamList:
                return False
    return True


__all__ = ["ParseResult", "parse"]

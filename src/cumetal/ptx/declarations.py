"""Token cursor, diagnostics plumbing and the declaration grammar of PTX (module directives,
functions and their parameters, variables, registers, initializers, DWARF sections).

``cumetal.ptx.parser`` adds function bodies and instructions on top of this class.
"""

from __future__ import annotations

import math
import re

from cumetal.diagnostics import DiagnosticSink
from cumetal.ptx import ast as A
from cumetal.ptx.isa.sets import ALL_TYPES
from cumetal.ptx.lexer import (
    _MASTER,
    BADCOMMENT,
    BADSTR,
    EOF,
    FLOAT,
    HEXF,
    INT,
    JUNK,
    PUNCT,
    STRING,
    WORD,
    int_literal_fits,
    int_value,
)

LINKAGES = (".visible", ".extern", ".weak", ".common")
VAR_SPACES = (".global", ".shared", ".const", ".local", ".param", ".tex", ".shared::cta", ".shared::cluster")
TYPE_NAMES = frozenset(ALL_TYPES)
PERF_DIRECTIVES = frozenset((
    ".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm", ".maxnreg", ".maxclusterrank",
    ".reqnctapercluster", ".explicitcluster", ".blocksareclusters", ".abi_preserve",
    ".abi_preserve_control",
))
MAX_INIT_DEPTH = 64
# everything up to the next brace, skipping comments and strings
_BRACE_SCAN = re.compile(r'(?:[^{}"/]+|//[^\n]*|/\*(?:[^*]|\*(?!/))*\*/|"(?:[^"\\\n]|\\.)*"|/(?![/*]))*')
_match = _MASTER.match


class TokenCursor:
    """Current token (kind, val, start, end), positions → SourceLoc, diagnostics, resync."""

    def __init__(self, text: str, filename: str, sink: DiagnosticSink) -> None:
        self.text = text
        self.filename = filename
        self.sink = sink
        self.kind = EOF
        self.val = ""
        self.start = self.end = 0
        self.prev_start = self.prev_end = 0
        self._lpos = 0
        self._line = 1
        self._lstart = 0
        self._capped = False
        self.advance()

    # ------------------------------------------------------------------ tokens
    def advance(self) -> None:
        self.prev_start = self.start
        self.prev_end = self.end
        m = _match(self.text, self.end)
        kind = m.lastgroup
        if kind == WORD or kind == PUNCT or kind == "dir" or kind == INT or kind == EOF:
            self.kind = kind
            self.val = m.group(kind)
            self.start = m.start(kind)
            self.end = m.end()
            if kind == INT and len(self.val) > 19 and not int_literal_fits(self.val):
                shown = self.val if len(self.val) <= 24 else f"{self.val[:20]}… ({len(self.val)} characters)"
                self.diag("error", f"integer constant {shown} does not fit in 64 bits", self.start)
                self.val = "0"  # parse on without cascading errors
            return
        while kind == JUNK:  # report once per line and skip the rest of that line
            start = m.start(kind)
            ch = m.group(kind)
            shown = repr(ch) if not ch.isprintable() or ch == "\ufffd" else f"'{ch}'"
            self.diag("error", f"invalid character {shown}", start)
            nl = self.text.find("\n", start)
            m = _match(self.text, len(self.text) if nl < 0 else nl)
            kind = m.lastgroup
        self.kind = kind
        self.val = m.group(kind)
        self.start = m.start(kind)
        self.end = m.end()
        if kind == BADCOMMENT:
            self.diag("error", "unterminated /* comment", self.start)
            n = len(self.text)
            self.kind, self.val, self.start, self.end = EOF, "", n, n
        elif kind == BADSTR:
            self.diag("error", "unterminated string literal", self.start)
            self.kind = STRING
            self.val = self.val + '"'

    def describe(self) -> str:
        if self.kind == EOF:
            return "end of file"
        v = self.val if len(self.val) <= 40 else self.val[:40] + "…"
        return f"'{v}'"

    # ------------------------------------------------------------------ locations / diagnostics
    def loc(self, pos: int) -> A.SourceLoc:
        text = self.text
        lp = self._lpos
        if pos >= lp:
            n = text.count("\n", lp, pos)
            if n:
                self._line += n
                self._lstart = text.rfind("\n", lp, pos) + 1
        else:
            n = text.count("\n", pos, lp)
            if n:
                self._line -= n
                self._lstart = text.rfind("\n", 0, pos) + 1
        self._lpos = pos
        return A.SourceLoc(self.filename, self._line, pos - self._lstart + 1)

    def diag(self, severity: str, message: str, where: int | A.SourceLoc) -> None:
        sink = self.sink
        if len(sink.diagnostics) >= sink.max_errors - 1:
            if not self._capped:
                self._capped = True
                sink.max_errors += 1
                loc = where if isinstance(where, A.SourceLoc) else self.loc(where)
                sink.report("note", "too many diagnostics; the rest are suppressed", loc)
            return
        if not sink.lines:
            sink.lines = self.text.split("\n")
        loc = where if isinstance(where, A.SourceLoc) else self.loc(where)
        sink.report(severity, message, loc)

    def unexpected(self, what: str) -> None:
        self.diag("error", f"expected {what}, found {self.describe()}", self.start)
        self.resync(self.start)

    def expect_punct(self, p: str, what: str | None = None) -> bool:
        if self.kind == PUNCT and self.val == p:
            self.advance()
            return True
        self.diag("error", f"expected {what or repr(p)}, found {self.describe()}", self.start)
        return False

    def resync(self, stmt_start: int) -> int:
        """Skip to the next ';' (consumed), '}' (not consumed) or a statement that starts a later
        line; return the end of the skipped text."""
        text = self.text
        line_end = text.find("\n", stmt_start)
        if line_end < 0:
            line_end = len(text)
        while True:
            k = self.kind
            if k == EOF:
                return self.start
            v = self.val
            if k == PUNCT:
                if v == ";":
                    end = self.start
                    self.advance()
                    return end
                if v == "}":
                    return self.start
            if self.start > line_end:
                if k == "dir" or (k == WORD and v[0] != "%") or (k == PUNCT and v in "@{"):
                    return self.prev_end
                line_end = text.find("\n", self.start)
                if line_end < 0:
                    line_end = len(text)
            self.advance()

    def skip_balanced(self) -> None:
        """Skip a '{ … }' group without recursion (current token is '{'); jumps brace to brace with
        one regex match each (DWARF sections are large and brace-free inside)."""
        text = self.text
        n = len(text)
        depth = 1
        pos = self.end
        while pos < n:
            pos = _BRACE_SCAN.match(text, pos).end()
            if pos >= n:
                break
            c = text[pos]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    self.end = pos + 1
                    self.start = pos
                    self.val = "}"
                    self.advance()
                    return
            elif c == "/" and text.startswith("/*", pos):
                self.diag("error", "unterminated /* comment", pos)
                break
            pos += 1  # '/', or the '"' of an unterminated string
        self.end = n
        self.advance()

    def int_token(self, what: str) -> int | None:
        neg = False
        if self.kind == PUNCT and self.val == "-":
            neg = True
            self.advance()
        if self.kind != INT:
            self.diag("error", f"expected {what}, found {self.describe()}", self.start)
            return None
        v = int_value(self.val)
        self.advance()
        return -v if neg else v


# Largest register count / array size accepted (ptxas reports larger constants as overflows).
MAX_COUNT = 1 << 40


class DeclarationParser(TokenCursor):
    """Module-level grammar; ``parse_block`` (function bodies) comes from the subclass."""

    def parse_block(self, depth: int) -> A.Block:  # pragma: no cover - provided by the parser
        raise NotImplementedError

    def parse_module(self) -> A.Module:
        mod = A.Module(self.filename)
        items = mod.items
        while self.kind != EOF:
            k, v = self.kind, self.val
            start = self.start
            if k == "dir":
                if v == ".version":
                    self.advance()
                    if self.kind in (FLOAT, INT):
                        major, _, minor = self.val.partition(".")
                        mod.version = (int(major), int(minor or 0))
                        self.advance()
                    else:
                        self.unexpected("a version number such as 8.0")
                elif v == ".target":
                    self.advance()
                    targets = []
                    while self.kind == WORD:
                        targets.append(self.val)
                        self.advance()
                        if not (self.kind == PUNCT and self.val == ","):
                            break
                        self.advance()
                    if not targets:
                        self.unexpected("a target such as sm_80")
                    mod.targets = mod.targets + tuple(targets)
                elif v == ".address_size":
                    self.advance()
                    n = self.int_token("an address size (32 or 64)")
                    if n is not None:
                        mod.address_size = n
                elif v == ".file":
                    f = self.file_directive()
                    if f is not None:
                        items.append(f)
                elif v == ".section":
                    s = self.section()
                    if s is not None:
                        items.append(s)
                elif v == ".pragma":
                    items.append(self.pragma())
                elif v == ".alias":
                    a = self.alias()
                    if a is not None:
                        items.append(a)
                elif v in (".entry", ".func") or v in LINKAGES or v in VAR_SPACES:
                    self.linked_item(items)
                else:
                    self.diag("error", f"unknown directive '{v}'", start)
                    self.resync(start)
            elif k == PUNCT and v == "}":
                self.diag("error", "unmatched '}'", start)
                self.advance()
            elif k == PUNCT and v == ";":
                self.advance()
            elif k == WORD:
                self.diag("error", f"unexpected '{v}' outside a function", start)
                self.resync(start)
                if self.kind == PUNCT and self.val == "}":
                    self.advance()
            else:
                self.unexpected("a directive")
        self.check_duplicates(items)
        return mod

    def check_duplicates(self, items: list) -> None:
        """A module-scope name defined twice is an error, as ptxas 13.0 says ("Duplicate definition of
        function 'k'", "Inconsistent redefinition of variable 'f'"). Declarations (a function without a
        body, an ``.extern`` variable) may repeat anywhere and ``.weak``/``.common`` definitions are left
        alone, where ptxas is stricter (a prototype after the body is a duplicate to it)."""
        seen: dict[str, tuple[str, bool, A.SourceLoc]] = {}  # name -> (kind, defined, where)
        for it in items:
            if isinstance(it, A.Function):
                kind, defined = "function", it.body is not None
            elif isinstance(it, A.VarDecl):
                kind, defined = "variable", it.linkage != "extern"
            else:
                continue
            if getattr(it, "linkage", None) in ("weak", "common"):
                continue
            prev = seen.get(it.name)
            if prev is None:
                seen[it.name] = (kind, defined, it.loc)
                continue
            pkind, pdefined, ploc = prev
            if pkind != kind:
                self.diag("error", f"'{it.name}' is a {pkind} (line {ploc.line}) and a {kind}", it.loc)
            elif defined and pdefined:
                self.diag("error", f"duplicate definition of {kind} '{it.name}' (first at line {ploc.line})", it.loc)
            elif defined:
                seen[it.name] = (kind, True, it.loc)

    def linked_item(self, items: list) -> None:
        start = self.start
        linkage = None
        while self.kind == "dir" and self.val in LINKAGES:
            linkage = self.val[1:]
            self.advance()
        if self.kind == "dir" and self.val in (".entry", ".func"):
            fn = self.function(linkage, start)
            if fn is not None:
                items.append(fn)
        else:
            items.extend(self.var_decl(linkage, start))

    # ------------------------------------------------------------------ module directives
    def file_directive(self) -> A.FileDirective | None:
        start = self.start
        self.advance()
        idx = self.int_token("a file index")
        if idx is None:
            self.resync(start)
            return None
        if self.kind != STRING:
            self.unexpected("a file name string")
            return None
        path = _unquote(self.val)
        self.advance()
        extra = []
        while self.kind == PUNCT and self.val == ",":
            self.advance()
            n = self.int_token("a number")
            if n is None:
                self.resync(start)
                break
            extra.append(str(n))
        return A.FileDirective(idx, path, self.loc(start), ", ".join(extra))

    def section(self) -> A.SectionDirective | None:
        start = self.start
        self.advance()
        if self.kind not in ("dir", WORD):
            self.unexpected("a section name")
            return None
        name = self.val
        self.advance()
        if not (self.kind == PUNCT and self.val == "{"):
            self.unexpected("'{' opening the section")
            return None
        body_start = self.end
        self.skip_balanced()
        if self.prev_end <= body_start or self.text[self.prev_start] != "}":
            self.diag("error", "unterminated .section", start)
            return A.SectionDirective(name, self.text[body_start:], self.loc(start))
        return A.SectionDirective(name, self.text[body_start : self.prev_start], self.loc(start))

    def pragma(self) -> A.Pragma:
        start = self.start
        self.advance()
        parts = []
        while self.kind == STRING:
            parts.append(self.val)
            self.advance()
            if self.kind == PUNCT and self.val == ",":
                self.advance()
        if not parts:
            self.diag("error", "expected a pragma string", self.start)
        if not (self.kind == PUNCT and self.val == ";"):
            self.diag("error", f"expected ';' after .pragma, found {self.describe()}", self.start)
            self.resync(start)
        else:
            self.advance()
        return A.Pragma(", ".join(parts), self.loc(start))

    def alias(self) -> A.Alias | None:
        start = self.start
        self.advance()
        if self.kind != WORD:
            self.unexpected("an alias name")
            return None
        name = self.val
        self.advance()
        if not self.expect_punct(","):
            self.resync(start)
            return None
        if self.kind != WORD:
            self.unexpected("the aliased function")
            return None
        target = self.val
        self.advance()
        if not self.expect_punct(";"):
            self.resync(start)
        return A.Alias(name, target, self.loc(start))

    def loc_directive(self) -> A.LocDirective | None:
        start = self.start
        self.advance()
        nums = []
        for what in ("a file index", "a line", "a column"):
            n = self.int_token(what)
            if n is None:
                self.resync(start)
                return A.LocDirective(0, 0, 0, self.loc(start))
            nums.append(n)
        extra = []
        while self.kind == PUNCT and self.val == ",":
            self.advance()
            key = self.val if self.kind == WORD else ""
            if key == "function_name":
                self.advance()
                if self.kind != WORD:
                    self.unexpected("a function-name label")
                    break
                part = f"function_name {self.val}"
                self.advance()
                if self.kind == PUNCT and self.val in "+-":
                    sign = self.val
                    self.advance()
                    n = self.int_token("an offset")
                    if n is None:
                        break
                    part += f"{sign}{n}"
                extra.append(part)
            elif key == "inlined_at":
                self.advance()
                ns = [self.int_token("a number") for _ in range(3)]
                if None in ns:
                    self.resync(start)
                    break
                extra.append("inlined_at " + " ".join(str(n) for n in ns))
            else:
                self.unexpected("function_name or inlined_at")
                break
        return A.LocDirective(nums[0], nums[1], nums[2], self.loc(start), ", ".join(extra))

    # ------------------------------------------------------------------ functions
    def function(self, linkage: str | None, start: int) -> A.Function | None:
        loc = self.loc(start)
        kind = self.val[1:]
        self.advance()
        ret: list[A.Param] = []
        if kind == "func" and self.kind == PUNCT and self.val == "(":
            r = self.params()
            if r is None:
                return None
            ret = r
        if self.kind != WORD:
            self.unexpected("a function name")
            return None
        name = self.val
        self.advance()
        params: list[A.Param] = []
        if self.kind == PUNCT and self.val == "(":
            p = self.params()
            if p is None:
                return None
            params = p
        fn = A.Function(name, kind, params, loc, ret, linkage)
        while self.kind == "dir":
            v = self.val
            if v == ".noreturn":
                fn.noreturn = True
                self.advance()
            elif v == ".pragma":
                fn.pragmas.append(self.pragma().text)
            elif v in PERF_DIRECTIVES:
                self.advance()
                nums: list[int] = []
                while self.kind == INT:
                    nums.append(int_value(self.val))
                    self.advance()
                    if not (self.kind == PUNCT and self.val == ","):
                        break
                    self.advance()
                fn.directives[v[1:]] = tuple(nums)
            else:
                break
        if self.kind == PUNCT and self.val == "{":
            # .reg parameters may be named without '%': visible as registers inside the body.
            plain = getattr(self, "_plain_regs", None)
            reg_params = [p.name for p in (*ret, *params) if p.space == "reg" and not p.name.startswith("%")]
            if plain is not None:
                for n in reg_params:
                    plain[n] = plain.get(n, 0) + 1
            fn.body = self.parse_block(0)
            if plain is not None:
                for n in reg_params:
                    plain[n] -= 1
                    if not plain[n]:
                        del plain[n]
        elif self.kind == PUNCT and self.val == ";":
            self.advance()
        else:
            self.diag("error", f"expected '{{' or ';' after the header of '{name}', found {self.describe()}",
                      self.start)
            self.resync(self.start)
        return fn

    def params(self) -> list[A.Param] | None:
        """``( .param .b32 a, … )`` (current token is '(')."""
        self.advance()
        out: list[A.Param] = []
        if self.kind == PUNCT and self.val == ")":
            self.advance()
            return out
        while True:
            p = self.param()
            if p is None:
                self._skip_to_close_paren()
                return None
            out.append(p)
            if self.kind == PUNCT and self.val == ",":
                self.advance()
                continue
            if self.kind == PUNCT and self.val == ")":
                self.advance()
                return out
            self.diag("error", f"expected ',' or ')' in the parameter list, found {self.describe()}",
                      self.start)
            self._skip_to_close_paren()
            return None

    def _skip_to_close_paren(self) -> None:
        while self.kind != EOF and not (self.kind == PUNCT and self.val in "){;"):
            self.advance()
        if self.kind == PUNCT and self.val == ")":
            self.advance()

    def param(self) -> A.Param | None:
        start = self.start
        if not (self.kind == "dir" and self.val in (".param", ".reg")):
            self.diag("error", f"expected .param or .reg, found {self.describe()}", start)
            return None
        space = self.val[1:]
        self.advance()
        align = ptr_space = ptr_align = vector = None
        typ = None
        is_ptr = False
        while self.kind == "dir":
            v = self.val
            if v in (".v2", ".v4", ".v8") and typ is None and vector is None:
                vector = int(v[2:])
                self.advance()
                continue
            if v == ".align":
                self.advance()
                n = self.int_token("an alignment")
                if n is None:
                    return None
                if is_ptr:
                    ptr_align = n
                else:
                    align = n
                continue
            if v == ".ptr":
                is_ptr = True
            elif is_ptr and v in (".global", ".shared", ".const", ".local"):
                ptr_space = v[1:]
            elif typ is None and v[1:] in TYPE_NAMES:
                typ = v[1:]
            else:
                self.diag("error", f"unexpected '{v}' in a parameter declaration", self.start)
                return None
            self.advance()
        if typ is None:
            self.diag("error", "parameter without a type", start)
            return None
        if self.kind != WORD:
            self.diag("error", f"expected a parameter name, found {self.describe()}", self.start)
            return None
        name = self.val
        self.advance()
        dims = self.dims()
        if dims is None:
            return None
        return A.Param(name, typ, self.loc(start), space, dims, align, ptr_space, ptr_align, is_ptr, vector)

    def dims(self) -> tuple[int | None, ...] | None:
        out: list[int | None] = []
        while self.kind == PUNCT and self.val == "[":
            self.advance()
            if self.kind == PUNCT and self.val == "]":
                out.append(None)
            else:
                at = self.start
                n = self.int_token("an array size")
                if n is None:
                    return None
                if not 0 <= n < MAX_COUNT:
                    self.diag("error", f"array size {n} is out of range", at)
                    return None
                out.append(n)
            if not self.expect_punct("]"):
                return None
        return tuple(out)

    def callprototype(self, label: str, loc: A.SourceLoc) -> A.CallPrototype:
        start = self.start
        self.advance()
        ret: list[A.Param] = []
        params: list[A.Param] = []
        if self.kind == PUNCT and self.val == "(":
            ret = self.params() or []
        if self.kind == WORD and self.val == "_":
            self.advance()
        else:
            self.diag("error", f"expected '_' in .callprototype, found {self.describe()}", self.start)
        if self.kind == PUNCT and self.val == "(":
            params = self.params() or []
        noreturn = False
        if self.kind == "dir" and self.val == ".noreturn":
            noreturn = True
            self.advance()
        if not self.expect_punct(";"):
            self.resync(start)
        return A.CallPrototype(label, ret, params, loc, noreturn)

    def target_list(self, label: str, loc: A.SourceLoc) -> A.TargetList:
        start = self.start
        kind = self.val[1:]
        self.advance()
        targets = []
        while self.kind == WORD:
            targets.append(self.val)
            self.advance()
            if not (self.kind == PUNCT and self.val == ","):
                break
            self.advance()
        if not self.expect_punct(";"):
            self.resync(start)
        return A.TargetList(label, kind, tuple(targets), loc)

    # ------------------------------------------------------------------ variables / registers
    def var_decl(self, linkage: str | None = None, start: int | None = None) -> list[A.VarDecl]:
        if start is None:
            start = self.start
        space = typ = None
        align = vector = None
        attrs: list[str] = []
        while self.kind == "dir":
            v = self.val
            if v in LINKAGES and space is None:
                linkage = v[1:]
            elif v in VAR_SPACES and space is None:
                space = v[1:]
            elif v == ".align":
                self.advance()
                align = self.int_token("an alignment")
                if align is None:
                    self.resync(start)
                    return []
                continue
            elif v in (".v2", ".v4", ".v8"):
                vector = int(v[2:])
            elif v == ".attribute":
                self.advance()
                parts = []
                if self.expect_punct("("):
                    while self.kind == "dir":
                        parts.append(self.val)
                        self.advance()
                        if self.kind == PUNCT and self.val == ",":
                            self.advance()
                    self.expect_punct(")")
                attrs.append(f".attribute({', '.join(parts)})")
                continue
            elif typ is None and v[1:] in TYPE_NAMES:
                typ = v[1:]
            else:
                self.diag("error", f"unexpected '{v}' in a variable declaration", self.start)
                self.resync(start)
                return []
            self.advance()
        if space is None or typ is None:
            self.diag("error", f"variable declaration needs a state space and a type, found {self.describe()}",
                      self.start)
            self.resync(start)
            return []
        out: list[A.VarDecl] = []
        loc = self.loc(start)
        while True:
            if self.kind != WORD:
                self.diag("error", f"expected a variable name, found {self.describe()}", self.start)
                self.resync(start)
                return out
            name = self.val
            self.advance()
            dims = self.dims()
            if dims is None:
                self.resync(start)
                return out
            init = None
            if self.kind == PUNCT and self.val == "=":
                at = self.start
                self.advance()
                init = self.initializer(0)
                if init is None:
                    self.resync(start)
                    return out
                if typ in _NO_INITIALIZER:  # ptxas 13.0: "No initial value is allowed for .f16 type"
                    self.diag("error", f"'{name}': a .{typ} variable cannot have an initial value (ptxas refuses "
                              "it; initialize a .b16/.b32 variable with the bits instead)", at)
                    self.resync(start)
                    return out
                dims = self.sized_by_initializer(name, dims, vector, init, at)
                if dims is None:
                    self.resync(start)
                    return out
            out.append(A.VarDecl(space, typ, name, loc, dims, align, vector, linkage, init, tuple(attrs)))
            if self.kind == PUNCT and self.val == ",":
                self.advance()
                continue
            if self.kind == PUNCT and self.val == ";":
                self.advance()
                return out
            self.diag("error", f"expected ';' after the declaration, found {self.describe()}", self.prev_end)
            self.resync(start)
            return out

    def sized_by_initializer(self, name: str, dims: tuple[int | None, ...], vector: int | None,
                             init: A.Initializer, at: int) -> tuple[int | None, ...] | None:
        """The dimensions once the initializer is known, as ptxas 13.0 reads them (checked on its
        .nv.global.init sections): an unsized first dimension is the number of top-level elements
        (``a[] = {1, 2, 3}`` is ``a[3]``, ``m[][2] = {{1, 2}, {3, 4}, {5, 6}}`` is ``m[3][2]``); the
        values fill the variable in order, nested braces only grouping them; more values than the
        variable holds is an error. None after reporting one."""
        if dims and dims[0] is None:
            dims = (len(init) if isinstance(init, tuple) else 1, *dims[1:])
        if any(d is None for d in dims):
            self.diag("error", f"'{name}': only the first dimension of an initialized array may be left open", at)
            return None
        capacity = (vector or 1) * math.prod(d for d in dims if d is not None)
        count = _leaves(init)
        if count > capacity:
            self.diag("error", f"initializer of '{name}' has {count} values, more than the {capacity} the "
                      "variable holds", at)
            return None
        return dims

    def initializer(self, depth: int) -> A.Initializer | None:
        k, v = self.kind, self.val
        if k == PUNCT and v == "{":
            if depth >= MAX_INIT_DEPTH:
                self.diag("error", f"initializer braces nested deeper than {MAX_INIT_DEPTH} levels", self.start)
                self.skip_balanced()
                return None
            self.advance()
            items: list[A.Initializer] = []
            if self.kind == PUNCT and self.val == "}":
                self.advance()
                return ()
            while True:
                it = self.initializer(depth + 1)
                if it is None:
                    return None
                items.append(it)
                if self.kind == PUNCT and self.val == ",":
                    self.advance()
                    continue
                if self.expect_punct("}", "',' or '}' in the initializer"):
                    return tuple(items)
                return None
        if k == WORD:
            generic = False
            if v == "generic" and _match(self.text, self.end).group(PUNCT) == "(":
                generic = True
                self.advance()
                self.advance()  # '('
                if self.kind != WORD:
                    self.diag("error", f"expected a symbol in generic(), found {self.describe()}", self.start)
                    return None
                v = self.val
                self.advance()
                if not self.expect_punct(")"):
                    return None
            else:
                self.advance()
            off = 0
            if self.kind == PUNCT and self.val in "+-":
                sign = -1 if self.val == "-" else 1
                self.advance()
                n = self.int_token("an offset")
                if n is None:
                    return None
                off = sign * n
            return A.Sym(v, off, generic)
        neg = False
        if k == PUNCT and v == "-":
            neg = True
            self.advance()
            k, v = self.kind, self.val
        if k == INT:
            self.advance()
            return A.Imm(-int_value(v) if neg else int_value(v))
        if k == HEXF:
            self.advance()
            bits = int(v[2:], 16)
            if v[1] in "fF":
                return A.Imm(bits ^ 0x8000_0000 if neg else bits, "f32")
            return A.Imm(bits ^ 0x8000_0000_0000_0000 if neg else bits, "f64")
        if k == FLOAT:
            f = float(v)
            if f in (float("inf"), float("-inf")):
                self.diag("error", f"floating-point constant '{v}' overflows", self.start)
                return None
            self.advance()
            return A.Imm(-f if neg else f, "float")
        self.diag("error", f"expected an initializer value, found {self.describe()}", self.start)
        return None

    def reg_decl(self) -> list[A.RegDecl]:
        start = self.start
        loc = self.loc(start)
        self.advance()  # .reg
        typ = None
        vector = align = None
        while self.kind == "dir":
            v = self.val
            if v in (".v2", ".v4", ".v8"):
                vector = int(v[2:])
            elif v == ".align":
                self.advance()
                align = self.int_token("an alignment")
                continue
            elif typ is None and v[1:] in TYPE_NAMES:
                typ = v[1:]
            else:
                self.diag("error", f"unexpected '{v}' in a register declaration", self.start)
                self.resync(start)
                return []
            self.advance()
        if typ is None:
            self.diag("error", f"register declaration without a type, found {self.describe()}", self.start)
            self.resync(start)
            return []
        out: list[A.RegDecl] = []
        plain: list[str] = []
        while True:
            if self.kind != WORD:
                self.diag("error", f"expected a register name, found {self.describe()}", self.start)
                self.resync(start)
                break
            name = self.val
            self.advance()
            if self.kind == PUNCT and self.val == "<":
                self.advance()
                at = self.start
                n = self.int_token("a register count")
                if n is not None and not 0 < n < MAX_COUNT:
                    self.diag("error", f"register count {n} is out of range", at)
                    n = None
                if n is None or not self.expect_punct(">"):
                    self.resync(start)
                    break
                if plain:
                    out.append(A.RegDecl(typ, tuple(plain), loc, None, vector, align))
                    plain = []
                out.append(A.RegDecl(typ, (name,), loc, n, vector, align))
            else:
                plain.append(name)
            if self.kind == PUNCT and self.val == ",":
                self.advance()
                continue
            if self.kind == PUNCT and self.val == ";":
                self.advance()
                break
            self.diag("error", f"expected ';' after the register declaration, found {self.describe()}",
                      self.prev_end)
            self.resync(start)
            break
        if plain:
            out.append(A.RegDecl(typ, tuple(plain), loc, None, vector, align))
        return out


def _unquote(s: str) -> str:
    body = s[1:-1] if len(s) >= 2 and s.endswith('"') else s[1:]
    return body.replace('\\"', '"').replace("\\\\", "\\")


# Types ptxas 13.0 gives no initial value (f16: "No initial value is allowed"; f16x2, pred: "Initial
# value type mismatch" whatever the value; bf16 and the fp8/fp6/fp4 types are not variable types to it).
_NO_INITIALIZER = frozenset({"f16", "bf16", "f16x2", "bf16x2", "pred", "e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2",
                             "e2m1x2", "ue8m0x2"})


def _leaves(init: A.Initializer) -> int:
    """How many values an initializer holds (nested braces only group them)."""
    if not isinstance(init, tuple):
        return 1
    return sum(_leaves(x) for x in init)

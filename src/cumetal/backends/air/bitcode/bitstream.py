"""Generic LLVM bitstream writer (the container format under LLVM bitcode).

Facts used (LLVM "Bitstream Format" documentation): bits are packed least-significant first into
little-endian 32-bit words; abbreviation IDs 0..3 are END_BLOCK, ENTER_SUBBLOCK, DEFINE_ABBREV and
UNABBREV_RECORD; a sub-block header is [ENTER_SUBBLOCK, blockid vbr8, newabbrevlen vbr4, align32,
blocklen 32 bits (in words)]; END_BLOCK aligns to 32 bits; an unabbreviated record is
[code vbr6, numops vbr6, ops vbr6...]; abbreviations defined inside a block get IDs from 4 upwards.
"""

from __future__ import annotations

from dataclasses import dataclass

END_BLOCK, ENTER_SUBBLOCK, DEFINE_ABBREV, UNABBREV_RECORD = 0, 1, 2, 3
_FIXED, _VBR, _ARRAY, _CHAR6, _BLOB = 1, 2, 3, 4, 5


@dataclass(frozen=True)
class AbbrevOp:
    kind: str  # "literal" | "fixed" | "vbr" | "array" | "char6" | "blob"
    value: int = 0  # literal value or bit width

    @staticmethod
    def literal(v: int) -> AbbrevOp:
        return AbbrevOp("literal", v)

    @staticmethod
    def fixed(width: int) -> AbbrevOp:
        return AbbrevOp("fixed", width)

    @staticmethod
    def vbr(width: int) -> AbbrevOp:
        return AbbrevOp("vbr", width)

    @staticmethod
    def array() -> AbbrevOp:
        return AbbrevOp("array")

    @staticmethod
    def blob() -> AbbrevOp:
        return AbbrevOp("blob")


class BitstreamWriter:
    def __init__(self) -> None:
        self._buf = bytearray()
        self._cur = 0  # pending bits, not yet a full word
        self._nbits = 0
        self._width = 2  # abbreviation-ID width at top level
        self._stack: list[tuple[int, int, list[tuple[AbbrevOp, ...]]]] = []
        self._abbrevs: list[tuple[AbbrevOp, ...]] = []
        self._patches: list[tuple[int, int, int]] = []  # (bit position, value, width)

    # -- raw bits
    @property
    def bit_pos(self) -> int:
        return len(self._buf) * 8 + self._nbits

    def emit(self, value: int, width: int) -> None:
        if width == 0:
            return
        if value < 0 or value >> width:
            raise ValueError(f"value {value} does not fit in {width} bits")
        self._cur |= value << self._nbits
        self._nbits += width
        while self._nbits >= 32:
            self._buf += (self._cur & 0xFFFFFFFF).to_bytes(4, "little")
            self._cur >>= 32
            self._nbits -= 32

    def emit_vbr(self, value: int, width: int) -> None:
        if value < 0:
            raise ValueError(f"VBR value {value} is negative")
        hi = 1 << (width - 1)
        while value >= hi:
            self.emit((value & (hi - 1)) | hi, width)
            value >>= width - 1
        self.emit(value, width)

    def align32(self) -> None:
        if self._nbits:
            self.emit(0, 32 - self._nbits)

    def emit_bytes(self, data: bytes) -> None:
        if self._nbits:
            raise AssertionError("emit_bytes needs a word-aligned position")
        self._buf += data
        self._buf += bytes(-len(data) % 4)  # keep the byte buffer whole words

    # -- blocks
    def enter_block(self, block_id: int, abbrev_width: int) -> None:
        self.emit(ENTER_SUBBLOCK, self._width)
        self.emit_vbr(block_id, 8)
        self.emit_vbr(abbrev_width, 4)
        self.align32()
        size_at = len(self._buf)
        self.emit(0, 32)  # block length in words, patched by exit_block
        self._stack.append((self._width, size_at, self._abbrevs))
        self._width, self._abbrevs = abbrev_width, []

    def exit_block(self) -> None:
        self.emit(END_BLOCK, self._width)
        self.align32()
        width, size_at, abbrevs = self._stack.pop()
        words = (len(self._buf) - size_at - 4) // 4
        self._buf[size_at:size_at + 4] = words.to_bytes(4, "little")
        self._width, self._abbrevs = width, abbrevs

    # -- records
    def record(self, code: int, ops: list[int] | tuple[int, ...] = ()) -> None:
        self.emit(UNABBREV_RECORD, self._width)
        self.emit_vbr(code, 6)
        self.emit_vbr(len(ops), 6)
        for op in ops:
            self.emit_vbr(op, 6)

    def define_abbrev(self, ops: list[AbbrevOp]) -> int:
        """Define a block-local abbreviation; returns its ID."""
        self.emit(DEFINE_ABBREV, self._width)
        self.emit_vbr(len(ops), 5)
        for op in ops:
            if op.kind == "literal":
                self.emit(1, 1)
                self.emit_vbr(op.value, 8)
                continue
            self.emit(0, 1)
            code = {"fixed": _FIXED, "vbr": _VBR, "array": _ARRAY, "char6": _CHAR6, "blob": _BLOB}[op.kind]
            self.emit(code, 3)
            if op.kind in ("fixed", "vbr"):
                self.emit_vbr(op.value, 5)
        self._abbrevs.append(tuple(ops))
        return 3 + len(self._abbrevs)

    def abbrev_record(self, abbrev_id: int, ops: list[int], blob: bytes | None = None) -> list[int]:
        """Emit a record through an abbreviation whose array/blob (if any) is last.
        Returns the bit positions of its fixed-width fields (for backpatching)."""
        abbrev = self._abbrevs[abbrev_id - 4]
        self.emit(abbrev_id, self._width)
        positions: list[int] = []
        vals = iter(ops)
        for op in abbrev:
            if op.kind == "literal":
                continue
            if op.kind == "fixed":
                positions.append(self.bit_pos)
                self.emit(next(vals), op.value)
            elif op.kind == "vbr":
                self.emit_vbr(next(vals), op.value)
            elif op.kind == "blob":
                assert blob is not None
                self.emit_vbr(len(blob), 6)
                self.align32()
                self.emit_bytes(blob)  # pads to a word boundary
            else:
                raise NotImplementedError(f"abbreviation operand {op.kind}")
        return positions

    def patch(self, bit_pos: int, value: int, width: int) -> None:
        """Overwrite ``width`` bits at ``bit_pos`` once the stream is complete."""
        self._patches.append((bit_pos, value, width))

    def getvalue(self) -> bytes:
        if self._stack:
            raise AssertionError("unterminated block")
        self.align32()
        out = bytearray(self._buf)
        for pos, value, width in self._patches:
            for i in range(width):
                byte, bit = divmod(pos + i, 8)
                if (value >> i) & 1:
                    out[byte] |= 1 << bit
                else:
                    out[byte] &= ~(1 << bit) & 0xFF
        return bytes(out)


def vbr6_lengths_blob(lengths: list[int]) -> bytes:
    """The METADATA_STRINGS length table: vbr6 values in a nested bitstream, word-aligned."""
    w = BitstreamWriter()
    for n in lengths:
        w.emit_vbr(n, 6)
    w.align32()
    return bytes(w._buf)

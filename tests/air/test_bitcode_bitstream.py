"""The generic bitstream layer, decoded by llvm-bcanalyzer-14 (an independent reader)."""

from __future__ import annotations

import pytest

from cumetal.backends.air.bitcode import oracle
from cumetal.backends.air.bitcode.bitstream import AbbrevOp, BitstreamWriter, vbr6_lengths_blob

needs_llvm14 = pytest.mark.skipif(not oracle.available(), reason="llvm-14 tools not installed")


def test_bits_are_packed_lsb_first_into_little_endian_words():
    w = BitstreamWriter()
    w.emit(0b101, 3)
    w.emit(0x1F, 5)
    w.emit(0xABCDEF, 24)
    assert w.getvalue() == bytes([0b11111101, 0xEF, 0xCD, 0xAB])


def test_vbr_chunks():
    w = BitstreamWriter()
    w.emit_vbr(27, 3)  # 27 = 0b11011 -> chunks 11, 10, 01 (each with a continuation bit but the last)
    w.align32()
    bits = int.from_bytes(w.getvalue(), "little")
    assert [(bits >> s) & 7 for s in (0, 3, 6)] == [0b111, 0b110, 0b001]


def test_values_must_fit():
    w = BitstreamWriter()
    with pytest.raises(ValueError, match="does not fit"):
        w.emit(8, 3)
    with pytest.raises(ValueError, match="negative"):
        w.emit_vbr(-1, 6)


def test_metadata_string_lengths_blob_is_word_aligned_vbr6():
    blob = vbr6_lengths_blob([3, 40])
    assert len(blob) == 4
    bits = int.from_bytes(blob, "little")
    assert bits & 63 == 3 and (bits >> 6) & 63 == (40 & 31) | 32 and (bits >> 12) & 63 == 40 >> 5


@needs_llvm14
def test_bcanalyzer_decodes_blocks_records_abbreviations_and_blobs():
    w = BitstreamWriter()
    w.emit_bytes(b"BC\xc0\xde")
    w.enter_block(99, 4)
    w.record(5, [0, 1, 31, 32, 2**32 - 1, 2**40 + 5])
    abbrev = w.define_abbrev([AbbrevOp.literal(7), AbbrevOp.fixed(32), AbbrevOp.vbr(4), AbbrevOp.blob()])
    (fixed_at,) = w.abbrev_record(abbrev, [0, 1000], blob=b"hello")
    w.patch(fixed_at, 0xDEADBEEF, 32)  # backpatch a non-aligned fixed field, as VSTOFFSET needs
    w.enter_block(100, 2)
    w.record(1, [])
    w.exit_block()
    w.record(6, [3])
    w.exit_block()
    dump = oracle.bcanalyzer_dump(w.getvalue())
    assert "<UnknownCode5 op0=0 op1=1 op2=31 op3=32 op4=4294967295 op5=1099511627781/>" in dump
    assert f"<UnknownCode7 abbrevid=4 op0={0xDEADBEEF} op1=1000/> blob data = 'hello'" in dump
    assert "<UnknownBlock100 NumWords=1 BlockCodeSize=2>" in dump
    assert "<UnknownCode6 op0=3/>" in dump


def test_unterminated_block_is_an_error():
    w = BitstreamWriter()
    w.enter_block(8, 3)
    with pytest.raises(AssertionError, match="unterminated"):
        w.getvalue()

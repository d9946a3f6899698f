"""Reading device code out of the containers programs hand to CUDA (spec §5.1, §6.6).

``extract_ptx(data)`` accepts, and returns the PTX of:

* CuMetal's own container (``cumetal.capi.blob``), as ``build_program`` embeds it;
* NVIDIA fatbinaries (magic ``0xBA55ED50``): each entry has a 64- or 80-byte header (kind 1 = PTX,
  2 = ELF cubin; the target architecture; flags) and a payload that may be compressed: flag
  ``0x2000`` is an LZ4 block (nvcc ``--compress-mode=speed``), flag ``0x8000`` a zstd frame (nvcc 13's
  default and ``size``/``balance``; decoded with the ``zstandard`` package). When several PTX entries
  exist the newest architecture CuMetal accepts (≤ sm_90) is taken;
* ELF cubins that carry their PTX (``-lineinfo`` / ``-G`` builds keep it in ``.nv_debug_ptx_txt``);
* PTX text itself.

Anything else is a :class:`FatbinError` that names what is missing (e.g. a SASS-only fatbinary:
"rebuild with -gencode arch=compute_80,code=compute_80"). ``image_at(address)`` reads a container
from memory given only its address (the registration and ``cuModuleLoadData`` case).
Layouts were checked against files made by nvcc 13.0 (``scripts/make_capi_fatbins.sh``).
"""

from __future__ import annotations

import ctypes
import struct

from cumetal.capi import blob

FATBIN_MAGIC = 0xBA55ED50
WRAPPER_MAGIC = 0x466243B1
KIND_PTX, KIND_ELF = 1, 2
FLAG_LZ4, FLAG_ZSTD = 0x2000, 0x8000
_FATBIN_HEADER = struct.Struct("<IHHQ")
_ENTRY = struct.Struct("<HHIQIIHHIIIQQQ")
_MAX = 1 << 31
_BEST_ARCH = 90


class FatbinError(ValueError):
    """The container holds no usable PTX (or is malformed); the message says why."""


# ---------------------------------------------------------------- decompression
def lz4_block_decompress(src: bytes, size: int) -> bytes:
    """Decode one LZ4 block (the raw block format: token, literals, 2-byte offset, match)."""
    out = bytearray()
    i, n = 0, len(src)
    while i < n:
        token = src[i]
        i += 1
        lit = token >> 4
        if lit == 15:
            while True:
                if i >= n:
                    raise FatbinError("LZ4 data truncated in a literal length")
                b = src[i]
                i += 1
                lit += b
                if b != 255:
                    break
        if i + lit > n:
            raise FatbinError("LZ4 data truncated in literals")
        out += src[i:i + lit]
        i += lit
        if i >= n or len(out) >= size:
            break  # the last sequence has literals only
        if i + 2 > n:
            raise FatbinError("LZ4 data truncated in a match offset")
        offset = src[i] | (src[i + 1] << 8)
        i += 2
        if offset == 0 or offset > len(out):
            raise FatbinError(f"LZ4 match offset {offset} points before the start of the output")
        mlen = token & 15
        if mlen == 15:
            while True:
                if i >= n:
                    raise FatbinError("LZ4 data truncated in a match length")
                b = src[i]
                i += 1
                mlen += b
                if b != 255:
                    break
        mlen += 4
        start = len(out) - offset
        for k in range(mlen):  # byte by byte: the match may overlap what it produces
            out.append(out[start + k])
    return bytes(out[:size])


def zstd_decompress(src: bytes, size: int) -> bytes:
    try:
        import zstandard  # noqa: PLC0415 - optional dependency, needed only for compressed fatbins
    except ImportError:
        raise FatbinError("this fatbinary entry is zstd-compressed (nvcc 13's default); reading it needs "
                          "the 'zstandard' package (pip install zstandard), or rebuild with "
                          "'-Xfatbin --compress-mode=none' / '--compress-mode=none'") from None
    try:
        return zstandard.ZstdDecompressor().decompress(src, max_output_size=max(size, 1))
    except zstandard.ZstdError as e:
        raise FatbinError(f"zstd-compressed fatbinary entry does not decode: {e}") from None


# ---------------------------------------------------------------- NVIDIA fatbinary
def _fatbin_entries(data: bytes) -> list[tuple[int, int, bytes]]:
    """(kind, arch, payload) for each entry, decompressed."""
    if len(data) < _FATBIN_HEADER.size:
        raise FatbinError("fatbinary: truncated header")
    magic, _version, header_size, fat_size = _FATBIN_HEADER.unpack_from(data, 0)
    end = header_size + fat_size
    if magic != FATBIN_MAGIC or end > len(data):
        raise FatbinError(f"fatbinary: bad header (magic 0x{magic:x}, {end} bytes claimed, {len(data)} present)")
    out, off = [], header_size
    while off + _ENTRY.size <= end:
        (kind, _attr, ehs, psize, csize, _z, _vmin, _vmaj, arch, _no, _nl, flags, _z2,
         dsize) = _ENTRY.unpack_from(data, off)
        if ehs < _ENTRY.size or off + ehs + psize > end:
            raise FatbinError(f"fatbinary: entry at offset {off} runs past the end")
        payload = data[off + ehs: off + ehs + psize]
        if flags & FLAG_ZSTD:
            payload = zstd_decompress(payload[:csize or psize], dsize)
        elif flags & FLAG_LZ4:
            payload = lz4_block_decompress(payload[:csize or psize], dsize)
        out.append((kind, arch, payload))
        off += ehs + psize
    return out


def _ptx_text(payload: bytes) -> str:
    return payload.rstrip(b"\0").decode("utf-8", "replace")


def _elf_debug_ptx(elf: bytes) -> str | None:
    """The PTX an ELF cubin carries in ``.nv_debug_ptx_txt`` (NUL-separated lines), if any."""
    try:
        if elf[4] != 2:  # ELFCLASS64
            return None
        (shoff,) = struct.unpack_from("<Q", elf, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
        secs = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
        names = secs[shstrndx]
        for s in secs:
            start = names[4] + s[0]
            name = elf[start: elf.index(b"\0", start)]
            if name == b".nv_debug_ptx_txt":
                text = elf[s[4]: s[4] + s[5]]
                return "\n".join(t.decode("utf-8", "replace") for t in text.split(b"\0")).strip() + "\n"
    except (struct.error, IndexError, ValueError):
        return None
    return None


def _elf_arch(elf: bytes) -> str:
    try:
        (flags,) = struct.unpack_from("<I", elf, 0x30)
        sm = (flags >> 8) & 0xFF  # EF_CUDA_SM in the ELF header flags (nvcc 13 cubins)
        return f"sm_{sm}" if sm else "unknown"
    except struct.error:
        return "unknown"


def _choose(ptx: list[tuple[int, str]]) -> str:
    """The newest architecture CuMetal accepts (<= sm_90), else the oldest there is."""
    usable = [p for p in ptx if p[0] <= _BEST_ARCH]
    return max(usable, key=lambda p: p[0])[1] if usable else min(ptx, key=lambda p: p[0])[1]


def extract_ptx(data: bytes, what: str = "image") -> str:
    """The PTX inside ``data`` (see the module docstring); FatbinError if there is none."""
    data = bytes(data)
    if blob.is_blob(data):
        try:
            entries = blob.unpack(data)
        except blob.BlobError as e:
            raise FatbinError(f"{what}: {e}") from None
        ptx = [e.payload.decode("utf-8", "replace") for e in entries if e.kind == blob.KIND_PTX]
        if not ptx:
            raise FatbinError(f"{what}: CuMetal container holds no PTX entry")
        return "\n".join(ptx) if len(ptx) == 1 else _merge(ptx, what)
    if len(data) >= 4 and struct.unpack_from("<I", data, 0)[0] == FATBIN_MAGIC:
        ptx, sass = [], []
        for kind, arch, payload in _fatbin_entries(data):
            if kind == KIND_PTX:
                ptx.append((arch, _ptx_text(payload)))
            elif kind == KIND_ELF:
                dbg = _elf_debug_ptx(payload)
                if dbg:
                    ptx.append((arch, dbg))
                else:
                    sass.append(f"sm_{arch}")
        if ptx:
            return _choose(ptx)
        archs = ", ".join(sorted(set(sass))) or "none"
        raise FatbinError(f"{what}: the fatbinary holds only SASS (machine code for {archs}) and no PTX; "
                          "CuMetal runs PTX: rebuild with -gencode arch=compute_80,code=compute_80 (or "
                          "-arch=compute_80) so that nvcc embeds it")
    if data[:4] == b"\x7fELF":
        dbg = _elf_debug_ptx(data)
        if dbg:
            return dbg
        raise FatbinError(f"{what}: an ELF cubin for {_elf_arch(data)} (SASS only) without PTX; CuMetal runs PTX: "
                          "load the .ptx (nvcc -ptx) or a fatbinary with PTX (-gencode arch=compute_80,code=compute_80)")
    text = data.rstrip(b"\0")
    if b".version" in text[:4096] or b".entry" in text or b".target" in text[:4096]:
        return text.decode("utf-8", "replace")
    raise FatbinError(f"{what}: not PTX, a CUDA fatbinary, a cubin or a CuMetal container "
                      f"(first bytes {data[:8].hex()})")


def _merge(ptx: list[str], what: str) -> str:
    raise FatbinError(f"{what}: CuMetal container with {len(ptx)} PTX entries (one per module expected)")


# ---------------------------------------------------------------- reading from memory
def _elf_size(address: int) -> int:
    """The extent of an ELF image in memory: the furthest of its header tables and sections."""
    head = ctypes.string_at(address, 64)
    (phoff, shoff) = struct.unpack_from("<QQ", head, 0x20)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", head, 0x36)
    end = max(64, phoff + phentsize * phnum, shoff + shentsize * shnum)
    if shoff + shentsize * shnum > _MAX:
        return end
    table = ctypes.string_at(address + shoff, shentsize * shnum)
    for i in range(shnum):
        _name, kind, _flags, _addr, offset, size = struct.unpack_from("<IIQQQQ", table, i * shentsize)
        if kind != 8:  # SHT_NOBITS occupies no file space
            end = max(end, offset + size)
    return end


def image_at(address: int) -> bytes:
    """The bytes of the container at ``address`` (a registration wrapper is followed), sized from its
    own header; PTX text is read up to its NUL."""
    if not address:
        raise FatbinError("image is NULL")
    head = ctypes.string_at(address, 16)
    (magic,) = struct.unpack_from("<I", head, 0)
    if magic == WRAPPER_MAGIC:
        data_ptr = ctypes.c_void_p.from_address(address + 8).value
        if not data_ptr:
            raise FatbinError("registration wrapper with a NULL data pointer")
        return image_at(data_ptr)
    if head[:8] == blob.MAGIC:
        return ctypes.string_at(address, blob.size_at(address))
    if magic == FATBIN_MAGIC:
        _m, _v, header_size, fat_size = _FATBIN_HEADER.unpack(head)
        if header_size + fat_size > _MAX:
            raise FatbinError(f"fatbinary claims {header_size + fat_size} bytes")
        return ctypes.string_at(address, header_size + fat_size)
    if head[:4] == b"\x7fELF":
        size = _elf_size(address)
        if size > _MAX:
            raise FatbinError(f"ELF image claims {size} bytes")
        return ctypes.string_at(address, size)
    return ctypes.string_at(address)  # NUL-terminated PTX text

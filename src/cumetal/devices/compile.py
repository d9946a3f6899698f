"""Turning module images given to the driver into kernel IR."""

from __future__ import annotations

from cumetal.ir import Module as IRModule


class ModuleLoadError(Exception):
    """The image cannot be used. ``kind``: 'invalid_image' (not PTX at all), 'invalid_ptx'
    (PTX that does not compile) or 'unsupported' (a binary format CuMetal cannot read)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


_ELF_MAGIC = b"\x7fELF"
_FATBIN_MAGICS = (b"\x50\xed\x55\xba", b"\x46\x62\x43\xa1")  # fatbin file / fatbin wrapper, little-endian


def image_to_text(image: bytes | str) -> str:
    """The PTX text of a module image; binary images are rejected with a clear reason."""
    if isinstance(image, str):
        text = image
    else:
        data = bytes(image)
        if data.startswith(_ELF_MAGIC):
            raise ModuleLoadError("unsupported", "cubin (ELF) images cannot run on CuMetal; load the PTX instead "
                                  "(nvcc -ptx)")
        if data[:4] in _FATBIN_MAGICS:
            raise ModuleLoadError("unsupported", "fatbin images are not supported yet; load the PTX instead "
                                  "(nvcc -ptx)")
        nul = data.find(b"\0")
        if nul >= 0:
            data = data[:nul]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ModuleLoadError("invalid_image", f"image is neither PTX text nor a known binary format ({e})") from None
    if not text.strip():
        raise ModuleLoadError("invalid_image", "image is empty")
    return text


def compile_image(image: bytes | str, filename: str) -> IRModule:
    """Compile a PTX image to kernel IR; raise ModuleLoadError when nothing can be used."""
    text = image_to_text(image)
    try:
        from cumetal.passes import CompileError, compile_ptx
    except ImportError as e:
        raise ModuleLoadError("invalid_ptx", f"the PTX compiler is not available ({e})") from None
    try:
        return compile_ptx(text, filename)
    except CompileError as e:
        raise ModuleLoadError("invalid_ptx", str(e)) from None

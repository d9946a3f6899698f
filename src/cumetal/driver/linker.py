"""The JIT linker: ``cuLinkCreate``/``cuLinkAddData``/``cuLinkAddFile``/``cuLinkComplete``/``cuLinkDestroy``.

Inputs are PTX (``CU_JIT_INPUT_PTX``, and ``CU_JIT_INPUT_CUBIN`` when the "cubin" is CuMetal's, i.e.
PTX text as ``cumetal.nvrtc`` produces for ``sm_XX``) and NVVM IR or LTO IR (``CU_JIT_INPUT_NVVM``:
text or bitcode, compiled with ``cumetal.nvvmir``). ``cuLinkComplete`` produces one PTX module (CuMetal's
"cubin", loaded by ``cuModuleLoadData``): NVVM inputs are linked and compiled together; several PTX
modules are merged, each ``.extern`` declaration resolved by a definition in another input.
The output stays valid until ``cuLinkDestroy``, as in CUDA. Errors are written to a
``CU_JIT_ERROR_LOG_BUFFER`` option's buffer when one is given (and to stderr, as every driver error).
"""

from __future__ import annotations

import ctypes
import os
import re
from dataclasses import dataclass, field
from typing import Any

from cumetal.driver.enums import CUjit_option, CUjitInputType, CUresult
from cumetal.driver.errors import CudaError, api
from cumetal.driver.handles_more import CUlinkState
from cumetal.driver.register_caps import with_maxnreg
from cumetal.driver.state import STATE

R = CUresult
J = CUjitInputType


@dataclass(eq=False)
class LinkRec:
    handle: int
    options: dict[int, Any]
    ptx: list[tuple[str, str]] = field(default_factory=list)  # (name, text)
    nvvm: list[tuple[str, bytes]] = field(default_factory=list)
    output: Any = None  # ctypes buffer holding the NUL-terminated result


def _options(n: Any, keys: Any, values: Any) -> dict[int, Any]:
    count = int(n or 0)
    ks, vs = list(keys or []), list(values or [])
    if count < 0 or len(ks) < count or len(vs) < count:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"numOptions={count} but {len(ks)} options and {len(vs)} values")
    out = {}
    for k, v in zip(ks[:count], vs[:count], strict=True):
        try:
            out[int(CUjit_option(int(k)))] = v
        except (ValueError, TypeError):
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{k!r} is not a CUjit_option") from None
    return out


def _state(value: Any) -> LinkRec:
    return STATE.lookup(value, LinkRec, CUlinkState, R.CUDA_ERROR_INVALID_HANDLE, "link state")


def _fail(rec: LinkRec, code: CUresult, message: str) -> CudaError:
    buf = rec.options.get(int(CUjit_option.CU_JIT_ERROR_LOG_BUFFER))
    if isinstance(buf, bytearray | memoryview) or hasattr(buf, "__setitem__"):
        data = message.encode()[: max(0, len(buf) - 1)] + b"\0"
        try:
            buf[: len(data)] = data
        except (TypeError, ValueError):
            pass
    return CudaError(code, message)


@api(1)
def cuLinkCreate(numOptions: Any, options: Any, optionValues: Any) -> tuple:  # noqa: N802, N803
    STATE.current()
    rec = LinkRec(STATE.new_id(), _options(numOptions, options, optionValues))
    STATE.objects[rec.handle] = rec
    return (CUlinkState(rec.handle),)


def _data_bytes(data: Any, size: int) -> bytes:
    if isinstance(data, str):
        return data.encode()
    if isinstance(data, int) and not isinstance(data, bool):
        if data == 0:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "data is NULL")
        return ctypes.string_at(data, size) if size else ctypes.string_at(data)
    try:
        raw = bytes(memoryview(data).cast("B"))
    except TypeError:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"data must be bytes, a buffer or an address, got "
                        f"{type(data).__name__}") from None
    return raw[:size] if size else raw


def _add(rec: LinkRec, kind: Any, data: bytes, name: str) -> None:
    try:
        t = J(int(kind))
    except (ValueError, TypeError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{kind!r} is not a CUjitInputType") from None
    looks_like_ptx = b".version" in data[:4096] or b".target" in data[:4096]
    if t == J.CU_JIT_INPUT_PTX or (t == J.CU_JIT_INPUT_CUBIN and looks_like_ptx):
        rec.ptx.append((name, data.split(b"\0", 1)[0].decode("utf-8", "replace")))
    elif t == J.CU_JIT_INPUT_NVVM:
        rec.nvvm.append((name, data))
    elif t in (J.CU_JIT_INPUT_CUBIN, J.CU_JIT_INPUT_FATBINARY, J.CU_JIT_INPUT_OBJECT, J.CU_JIT_INPUT_LIBRARY):
        raise _fail(rec, R.CUDA_ERROR_NO_BINARY_FOR_GPU, f"{name}: {t.name}: NVIDIA machine code cannot run on "
                    "this device; link the PTX or NVVM IR instead")
    else:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{t.name} is not an input type")


@api(0)
def cuLinkAddData(state: Any, typename: Any, data: Any, size: Any, name: Any,  # noqa: N802
                  numOptions: Any, options: Any, optionValues: Any) -> tuple:  # noqa: N803
    rec = _state(state)
    _options(numOptions, options, optionValues)
    label = name.decode() if isinstance(name, bytes) else str(name or "<data>")
    _add(rec, typename, _data_bytes(data, int(size or 0)), label)
    return ()


@api(0)
def cuLinkAddFile(state: Any, typename: Any, path: Any, numOptions: Any, options: Any,  # noqa: N802
                  optionValues: Any) -> tuple:  # noqa: N803
    rec = _state(state)
    _options(numOptions, options, optionValues)
    p = os.fsdecode(path) if isinstance(path, bytes) else str(path)
    try:
        with open(p, "rb") as fh:
            data = fh.read()
    except OSError as e:
        raise CudaError(R.CUDA_ERROR_FILE_NOT_FOUND, f"{p}: {e.strerror}") from None
    _add(rec, typename, data, p)
    return ()


_HEADER = re.compile(r"^\s*\.(version|target|address_size)\b[^\n]*\n", re.M)
_EXTERN = re.compile(r"\.extern\s+(?:\.func|\.global|\.shared|\.const)\b[^;{]*?([A-Za-z_$][\w$]*)\s*(?:\([^;{]*)?;",
                     re.S)
_DEFINED_FUNC = re.compile(r"\.(?:visible|weak)\s+(?:\.func|\.entry)\s*(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)")
_DEFINED_VAR = re.compile(r"\.(?:visible|weak)\s+(?:\.global|\.const)\b[^;{=\[]*?([A-Za-z_$][\w$]*)\s*[;\[=]")


_WEAK_FUNC = re.compile(r"\.weak\s+(?:\.func|\.entry)\s*(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)")
_WEAK_VAR = re.compile(r"\.weak\s+(?:\.global|\.const)\b[^;{=\[]*?([A-Za-z_$][\w$]*)\s*[;\[=]")


def _without_definition(text: str, sym: str) -> str:
    """``text`` without its ``.weak`` definition of ``sym`` (a function body or a variable)."""
    for pattern in (_WEAK_FUNC, _WEAK_VAR):
        for m in pattern.finditer(text):
            if m.group(1) != sym:
                continue
            start = m.start()
            if pattern is _WEAK_VAR:
                return text[:start] + text[text.index(";", m.end() - 1) + 1:]
            brace = text.find("{", m.end())
            semi = text.find(";", m.end())
            if brace < 0 or (0 <= semi < brace):  # a prototype, not a definition
                continue
            depth = 0
            for i in range(brace, len(text)):
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                if depth == 0:
                    return text[:start] + text[i + 1:]
    return text


def merge_ptx(modules: list[tuple[str, str]]) -> str:
    """One PTX module from several: the first header, the others' bodies, ``.extern`` declarations of
    symbols another module defines dropped. A symbol defined twice is an error (as in nvlink), unless
    the definitions are ``.weak`` (LLVM's linkonce/weak linkage, e.g. numba-cuda's device functions
    compiled once per caller with debug info): the strong one, else the first weak one, is kept."""
    keep: dict[str, int] = {}  # symbol -> the module whose definition stays
    strong: dict[str, str] = {}
    per_module: list[tuple[set[str], set[str]]] = []
    for i, (name, text) in enumerate(modules):
        weak = set(_WEAK_FUNC.findall(text)) | set(_WEAK_VAR.findall(text))
        mine = set(_DEFINED_FUNC.findall(text)) | set(_DEFINED_VAR.findall(text))
        per_module.append((mine, weak))
        for sym in mine - weak:
            if sym in strong:
                raise CudaError(R.CUDA_ERROR_INVALID_IMAGE, f"'{sym}' is defined in both {strong[sym]} and {name}")
            strong[sym] = name
            keep[sym] = i
        for sym in mine & weak:
            keep.setdefault(sym, i)
    defined = set(keep)
    drop = [{sym for sym in mine & weak if keep[sym] != i} for i, (mine, weak) in enumerate(per_module)]
    out = []
    for i, (_name, text) in enumerate(modules):
        body = text if i == 0 else _HEADER.sub("", text)
        for sym in drop[i]:
            body = _without_definition(body, sym)
        body = _EXTERN.sub(lambda m: "" if m.group(1) in defined else m.group(0), body)
        out.append(body)
    return "\n".join(out)


@api(2)
def cuLinkComplete(state: Any) -> tuple:  # noqa: N802
    rec = _state(state)
    modules = list(rec.ptx)
    if rec.nvvm:
        from cumetal.nvvmir.compile import NvvmError, compile_nvvm_to_ptx

        try:
            ptx = compile_nvvm_to_ptx([d for _n, d in rec.nvvm], names=[n for n, _d in rec.nvvm])
        except NvvmError as e:
            raise _fail(rec, R.CUDA_ERROR_INVALID_IMAGE, f"NVVM IR: {e.log}") from None
        modules.insert(0, ("<nvvm>", ptx))
    if not modules:
        raise _fail(rec, R.CUDA_ERROR_INVALID_VALUE, "nothing was added to link")
    try:
        text = modules[0][1] if len(modules) == 1 else merge_ptx(modules)
    except CudaError as e:
        raise _fail(rec, e.code, e.message) from None
    from cumetal.driver.modules import jit_int

    limit = rec.options.get(int(CUjit_option.CU_JIT_MAX_REGISTERS))
    if limit is not None and jit_int(limit, "CU_JIT_MAX_REGISTERS") > 0:  # carried as each kernel's .maxnreg
        text = with_maxnreg(text, jit_int(limit, "CU_JIT_MAX_REGISTERS"))
    data = text.encode() + b"\0"
    rec.output = ctypes.create_string_buffer(data, len(data))
    return (ctypes.addressof(rec.output), len(data))


@api(0)
def cuLinkDestroy(state: Any) -> tuple:  # noqa: N802
    rec = _state(state)
    STATE.objects.pop(rec.handle, None)
    rec.output = None
    return ()

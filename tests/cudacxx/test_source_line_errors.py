"""A kernel CuMetal cannot run is reported at its CUDA source line (from the PTX's .loc line tables),
not only at a line of PTX the user never wrote."""

from __future__ import annotations

import pathlib

from cudacxx_harness import ptx_of

from cumetal import driver as cu

SOURCE = """\
__global__ void counts(unsigned *out)
{
    unsigned t = threadIdx.x;
    asm volatile("pmevent 3;");
    out[t] = t;
}
"""


def _load_error(ptx: str) -> str:
    (err,) = cu.cuInit(0)
    assert err == cu.CUresult.CUDA_SUCCESS
    err, dev = cu.cuDeviceGet(0)
    err, ctx = cu.cuCtxCreate(0, dev)
    try:
        err, mod = cu.cuModuleLoadData(ptx.encode() + b"\0")
        if err == cu.CUresult.CUDA_SUCCESS:  # compiled lazily: the failure shows at cuModuleGetFunction
            err, _ = cu.cuModuleGetFunction(mod, b"_Z6countsPj")
        assert err == cu.CUresult.CUDA_ERROR_INVALID_PTX
        from cumetal.driver import last_error_message

        return last_error_message()
    finally:
        cu.cuCtxDestroy(ctx)


def test_error_names_the_cuda_source_line(tmp_path: pathlib.Path) -> None:
    src = tmp_path / "counts.cu"
    src.write_text(SOURCE)
    message = _load_error(ptx_of(SOURCE, str(src), lineinfo=True))
    assert f"{src}:4:" in message, message
    assert 'asm volatile("pmevent 3;");' in message  # the source line is quoted
    assert "pmevent" in message and "generated PTX" in message


def test_without_line_info_the_ptx_line_is_named() -> None:
    message = _load_error(ptx_of(SOURCE, "counts.cu"))
    assert "counts.cu" not in message.split("error:")[0]
    assert "pmevent" in message


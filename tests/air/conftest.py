"""Fixtures for the .metallib container tests: real Apple files and tiny hand-written AIR modules.

Apple's ``mlx.metallib`` comes from the PyPI wheel via scripts/fetch_apple_metallib.py (cached in
``$CUMETAL_TEST_CACHE`` or ``.cache/``); the tests that need it skip with the reason when the
download is impossible. ``llvm-as-14``/``llvm-dis-14`` are the oracle for LLVM-14 bitcode.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from string import Template

import pytest

from cumetal.backends.air.air_schema import AIR_DATALAYOUT
from cumetal.backends.air.metallib import AirVersions

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).resolve().parents[2]
EFFORT_METALLIB = DATA / "kolinko-effort-default.metallib"


def _load_fetch_script():
    spec = importlib.util.spec_from_file_location(
        "fetch_apple_metallib", REPO / "scripts" / "fetch_apple_metallib.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


fetch_script = _load_fetch_script()


@pytest.fixture(scope="session")
def mlx_metallib_path() -> Path:
    try:
        return fetch_script.fetch_mlx_metallib()
    except fetch_script.FetchError as exc:
        pytest.skip(f"Apple's mlx.metallib is not available here: {exc}")


@pytest.fixture(scope="session")
def mlx_metallib_bytes(mlx_metallib_path) -> bytes:
    return mlx_metallib_path.read_bytes()


@pytest.fixture(scope="session")
def mlx_lib(mlx_metallib_bytes):
    from cumetal.backends.air.metallib import read_metallib

    return read_metallib(mlx_metallib_bytes)


def git_sample_bytes(repo: str) -> bytes:
    """A GitHub sample from the cache (not committed: its repository has no licence), or skip."""
    sample = next(s for s in fetch_script.GIT_SAMPLES if s.repo == repo)
    path = fetch_script.cached_git_sample(sample)
    if path is None:
        pytest.skip(
            f"{repo} sample not in the cache; run scripts/fetch_apple_metallib.py --from-git-mirror ROOT "
            "(the file is unlicensed, so it is not committed)"
        )
    return path.read_bytes()


# ------------------------------------------------------------------------------- tiny AIR module

# One kernel ``add_one(device float *out [[buffer(0)]], uint tid [[thread_position_in_grid]])``
# written after Apple's conventions (docs/metallib-container.md). $BUF / $KREF switch between LLVM-14
# typed pointers (for llvm-as-14) and opaque pointers (for llvmlite, LLVM 22).
AIR_TEMPLATE = Template(
    r"""source_filename = "add_one"
target datalayout = "$DATALAYOUT"
target triple = "$TRIPLE"

define void @add_one($BUF noundef "air-buffer-no-alias" %out, $TID noundef %tid) #0 {
entry:
  %idx = zext i32 %tid to i64
  %p = getelementptr inbounds float, $BUF %out, i64 %idx
  %v = load float, $BUF %p, align 4
  %r = fadd float %v, 1.000000e+00
  store float %r, $BUF %p, align 4
  ret void
}

attributes #0 = { mustprogress nounwind "frame-pointer"="all" "no-builtins" "no-trapping-math"="true" }

!llvm.module.flags = !{!0, !1, !2, !3, !4, !5, !6, !7}
!llvm.ident = !{!8}
!air.version = !{!9}
!air.language_version = !{!10}
!air.compile_options = !{!11, !12, !13}
!air.kernel = !{!14}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"frame-pointer", i32 2}
!2 = !{i32 7, !"air.max_device_buffers", i32 31}
!3 = !{i32 7, !"air.max_constant_buffers", i32 31}
!4 = !{i32 7, !"air.max_threadgroup_buffers", i32 31}
!5 = !{i32 7, !"air.max_textures", i32 128}
!6 = !{i32 7, !"air.max_read_write_textures", i32 8}
!7 = !{i32 7, !"air.max_samplers", i32 16}
!8 = !{!"cumetal test module"}
!9 = !{i32 $AIR_MAJOR, i32 $AIR_MINOR, i32 0}
!10 = !{!"Metal", i32 $MSL_MAJOR, i32 $MSL_MINOR, i32 0}
!11 = !{!"air.compile.denorms_disable"}
!12 = !{!"air.compile.fast_math_disable"}
!13 = !{!"air.compile.framebuffer_fetch_enable"}
!14 = !{$KREF, !15, !16}
!15 = !{}
!16 = !{!17, !18}
!17 = !{i32 0, !"air.buffer", !"air.location_index", i32 0, i32 1, !"air.read_write", !"air.address_space", i32 $AS, !"air.arg_type_size", i32 4, !"air.arg_type_align_size", i32 4, !"air.arg_type_name", !"float", !"air.arg_name", !"out"}
!18 = !{i32 1, !"air.thread_position_in_grid", !"air.arg_type_name", !"$TIDNAME", !"air.arg_name", !"tid"}
"""
)


def air_text(versions: AirVersions | None = None, typed: bool = True, **overrides: str) -> str:
    """The test kernel as AIR text; ``overrides`` replace template fields (to break one rule)."""
    versions = versions or AirVersions()
    fields = {
        "DATALAYOUT": AIR_DATALAYOUT,
        "TRIPLE": versions.triple(),
        "AIR_MAJOR": str(versions.air[0]),
        "AIR_MINOR": str(versions.air[1]),
        "MSL_MAJOR": str(versions.msl[0]),
        "MSL_MINOR": str(versions.msl[1]),
        "AS": "1",
        "TID": "i32",
        "TIDNAME": "uint",
        "BUF": "float addrspace(1)*" if typed else "ptr addrspace(1)",
        "KREF": "void (float addrspace(1)*, i32)* @add_one" if typed else "ptr @add_one",
    }
    fields.update(overrides)
    return AIR_TEMPLATE.substitute(fields)


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (apt-get install llvm-14)")
    return path


def llvm_as_14(text: str) -> bytes:
    """Assemble LLVM-14 typed-pointer text with upstream llvm-as-14 (writes Apple's wrapper itself)."""
    done = subprocess.run(
        [_tool("llvm-as-14"), "-o", "-", "-"], input=text.encode(), capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


def llvm_dis_14(bitcode: bytes) -> str:
    done = subprocess.run(
        [_tool("llvm-dis-14"), "-o", "-", "-"], input=bitcode, capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


def llvmlite_bitcode(text: str) -> bytes:
    """Bitcode of opaque-pointer text, written by llvmlite (always available); LLVM adds the Darwin
    wrapper itself for Apple triples."""
    import llvmlite.binding as llvm

    module = llvm.parse_assembly(text)
    module.verify()
    return module.as_bitcode()


@pytest.fixture(scope="session")
def air():
    """Helpers for tests: AIR text, assemblers/disassemblers, cached GitHub samples."""
    from types import SimpleNamespace

    return SimpleNamespace(
        text=air_text,
        llvm_as_14=llvm_as_14,
        llvm_dis_14=llvm_dis_14,
        llvmlite_bitcode=llvmlite_bitcode,
        git_sample=git_sample_bytes,
    )


@pytest.fixture
def cpu_device_whatever_the_backend(request):
    """For tests that swap the engine under the CPU device (its launches go to the air-sim, the
    reference runs on the CPU engine): pin that device whatever ``CUMETAL_BACKEND`` says (an
    air-sim device's own launcher would run both sides on the air-sim)."""
    if (os.environ.get("CUMETAL_BACKEND", "").strip().lower() or "cpu") != "cpu":
        request.getfixturevalue("cpu_backend")

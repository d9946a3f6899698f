"""Types whose definition comes from the C library agree between a program's device pass (the bundled
musl headers) and its host compile (the system's): on glibc, int_fast16_t/int_fast32_t are long, so a
kernel templated on uint_fast32_t (cuda::std::philox4x32 is) is found by the host's launch and a
struct holding them has one layout (tests/cudacxx/host_device/fast_types.cu)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

SRC = Path(__file__).with_name("host_device") / "fast_types.cu"


def test_fast_integer_types_agree(tmp_path: Path) -> None:
    from cumetal.capi.build import build_program  # noqa: PLC0415

    exe = tmp_path / "fast_types"
    build_program([str(SRC)], str(exe))
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, check=False,
                          env=dict(os.environ, CUMETAL_BACKEND="cpu", CUMETAL_QUIET="1"))
    assert (proc.returncode, proc.stdout) == (0, "PASSED\n"), proc.stdout + proc.stderr


def _darwin_host_kernel_names(src: Path, tmp_path: Path) -> set[str]:
    """The kernel names a macOS (arm64) host compile registers for ``src``: clang's host side of CUDA
    against the Darwin C headers the ziglang wheel carries (Apple's own definitions of the types)."""
    import re  # noqa: PLC0415

    from cumetal.cudacxx.compile import fallback_include_dir, include_dir  # noqa: PLC0415
    from cumetal.cudacxx.toolchain import _LIBCXX_CONFIG, find_clang  # noqa: PLC0415

    clang = find_clang()
    lib = clang.resource_dir
    assert lib is not None and (lib / "libc" / "include" / "any-darwin-any" / "stdint.h").is_file()
    gpubinary = tmp_path / "empty.bin"
    gpubinary.write_bytes(b"\0" * 16)
    args = ["-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-Xclang", "-target-sdk-version=12.0",
            "-Wno-unknown-cuda-version", "--cuda-gpu-arch=sm_80", "-std=c++17", "-target", "arm64-apple-macos14",
            "-nostdlibinc", "-nostdinc++"]
    for d in ("libcxx/include", "libcxxabi/include", "libc/include/any-darwin-any"):
        args += ["-isystem", str(lib / d)]
    args += ["-D" + m for m in _LIBCXX_CONFIG]
    args += ["-I", str(include_dir()), "-idirafter", str(fallback_include_dir()), "-include", "cuda_runtime.h",
             "-Xclang", "-fcuda-include-gpubinary", "-Xclang", str(gpubinary),
             "-c", "-o", str(tmp_path / "host.o"), str(src)]
    proc = subprocess.run(clang.command(args), capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    # the registration strings: the device-side names, as the host mangles them (not the stubs)
    return set(re.findall(rb"(?<![A-Za-z0-9_])_Z\d+(?:fill|from_literal)I[A-Za-z0-9_]+",
                          (tmp_path / "host.o").read_bytes()))


def test_device_pass_sees_darwin_integer_types(tmp_path: Path, monkeypatch) -> None:
    """On a macOS host the device pass lays Darwin's <cstdint> over musl's (never run on a Mac: the
    Darwin host compile here is clang's own cross compile against the Darwin headers)."""
    import re  # noqa: PLC0415

    from cumetal.cudacxx import toolchain  # noqa: PLC0415
    from cumetal.cudacxx.compile import compile_to_ptx  # noqa: PLC0415
    from cumetal.cudacxx.options import CudaOptions  # noqa: PLC0415

    src = SRC.with_name("int_types_templates.cu")
    host = {n.decode() for n in _darwin_host_kernel_names(src, tmp_path)}
    assert "_Z4fillIxEvPT_S0_" in host and "_Z4fillIsEvPT_S0_" in host  # long long, short on Darwin
    monkeypatch.setattr(toolchain, "host_libc", lambda: "darwin")
    ptx = compile_to_ptx(src.read_text(), str(src), CudaOptions()).ptx
    device = set(re.findall(r"\.entry\s+(\w+)", ptx))
    assert device == host

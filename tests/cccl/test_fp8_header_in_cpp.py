"""``cuda_fp8.h`` in a host-only C++ file (``.cpp``, no ``cuda_runtime.h`` included by the compiler):
CCCL 3.5's ``cuda/std`` floating-point headers include it from any translation unit that includes
Thrust, so the ``.cpp`` half of Thrust's own ``cpp_integration`` example failed with "use of undeclared
identifier 'make_float2'" (the x4 e8m0 conversions). The header now includes ``vector_functions.h``
itself. Truth: an e8m0 byte of a power of two 2^k is k + 127 (OCP MX spec), computed here with
``math.frexp``."""

from __future__ import annotations

import math
import os
import subprocess
import sys

SOURCE = r"""
#include <cuda_fp8.h>
#include <cstdio>
int main() {
  __nv_fp8x4_e8m0 v(float4{1.0f, 2.0f, 0.5f, 1024.0f});
  float4 back = static_cast<float4>(v);
  std::printf("%08x %g %g %g %g\n", v.__x, back.x, back.y, back.z, back.w);
  return 0;
}
"""


def test_cuda_fp8_header_compiles_in_a_host_cpp_file(tmp_path) -> None:
    src = tmp_path / "fp8_host.cpp"
    src.write_text(SOURCE)
    exe = tmp_path / "fp8_host"
    proc = subprocess.run([sys.executable, "-m", "cumetal.tools.cumetalc", str(src), "-o", str(exe)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=True,
                         env=dict(os.environ, CUMETAL_QUIET="1")).stdout.split()
    values = [1.0, 2.0, 0.5, 1024.0]
    expected = sum((math.frexp(x)[1] - 1 + 127) << (8 * i) for i, x in enumerate(values))
    assert int(out[0], 16) == expected
    assert [float(t) for t in out[1:]] == values

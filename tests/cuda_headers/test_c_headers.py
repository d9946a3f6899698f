"""vector_types.h compiled as C (host .c files of NVIDIA's samples include it through
builtin_types.h): every vector type has its plain typedef name, with CUDA's sizes and alignments."""

from __future__ import annotations

import subprocess

from cumetal.cudacxx import include_dir
from cumetal.cudacxx.toolchain import find_clang

NAMES = [f"{base}{n}" for base in ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "longlong",
                                   "ulonglong", "float", "double") for n in (1, 2, 3, 4)]


def test_every_vector_type_has_a_c_typedef(tmp_path) -> None:
    # (size, alignment) per the CUDA C++ Programming Guide's vector-type table
    checks = ["_Static_assert(sizeof(float4) == 16 && _Alignof(float4) == 16, \"float4\");",
              "_Static_assert(sizeof(uchar3) == 3 && _Alignof(uchar3) == 1, \"uchar3\");",
              "_Static_assert(sizeof(double2) == 16 && _Alignof(double2) == 16, \"double2\");",
              "_Static_assert(sizeof(longlong4_32a) == 32 && _Alignof(longlong4_32a) == 32, \"longlong4_32a\");",
              "_Static_assert(sizeof(dim3) == 12, \"dim3\");"]
    uses = "\n".join(f"{n} v_{n};" for n in NAMES)
    src = tmp_path / "t.c"
    src.write_text("#include <vector_types.h>\n" + uses + "\n" + "\n".join(checks) + "\nint main(void) { return 0; }\n")
    cmd = find_clang().command(["-x", "c", "-std=c11", "-Wall", "-Werror", "-Wno-ignored-attributes",
                                "-fsyntax-only", "-I", str(include_dir()), str(src)])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_curand_kernel_h_in_plain_host_cpp_gives_the_state_types(tmp_path) -> None:
    """A .cpp built by a host C++ compiler (not as CUDA) includes curand_kernel.h for its state types
    (NVIDIA's MonteCarloMultiGPU sample); the device functions (threadIdx, __syncthreads) stay out."""
    src = tmp_path / "t.cpp"
    src.write_text("#include <cuda_runtime.h>\n#include <curand_kernel.h>\n"
                   "struct Plan { curandState *xorwow; curandStatePhilox4_32_10_t philox; curandStateMRG32k3a_t mrg;\n"
                   "              curandStateMtgp32 *mtgp; curandStateSobol32_t sobol; };\n"
                   "int main() { Plan p{}; return (int)(sizeof(p) == 0); }\n")
    for std in ("c++11", "c++17"):
        cmd = find_clang().command(["-x", "c++", f"-std={std}", "-Wall", "-Werror", "-Wno-ignored-attributes",
                                    "-fsyntax-only", "-I", str(include_dir()), str(src)])
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr[-3000:]

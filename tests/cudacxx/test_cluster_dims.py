"""__cluster_dims__: clang 22 emits nothing for the attribute on NVPTX, so CuMetal's header also
annotates the kernel and the front end writes nvcc's .explicitcluster / .reqnctapercluster
(cudacxx/cluster_dims.py); a plain launch of such a kernel then runs in clusters of that shape."""

from __future__ import annotations

import os

import numpy as np
import pytest
from cudacxx_harness import ptx_of

from cumetal.cudacxx.cluster_dims import add_cluster_directives, cluster_dims_from_ir
from cumetal.cudacxx.compile import CudaCompileError

SOURCE = """
constexpr int CY = 2;
__global__ void __cluster_dims__(2, 1, 1) ranks(unsigned *o) {
    unsigned n, r;
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    o[2 * blockIdx.x] = n;
    o[2 * blockIdx.x + 1] = r;
}
template <int N> __global__ void __cluster_dims__(N, CY) shaped(int *o) { o[0] = N; }
template __global__ void shaped<4>(int *);
__global__ void plain(int *o) { o[0] = 1; }
"""


def _entry(ptx: str, name: str) -> str:
    start = ptx.index(f".entry {name}(")
    return ptx[start:ptx.index("{", start)]


def test_directives_as_nvcc_writes_them():
    ptx = ptx_of(SOURCE, "clusters.cu", arch="sm_90")
    assert ".explicitcluster\n.reqnctapercluster 2, 1, 1" in _entry(ptx, "_Z5ranksPj")
    assert ".reqnctapercluster 4, 2, 1" in _entry(ptx, "_Z6shapedILi4EEvPi")  # template argument, constexpr
    assert "cluster" not in _entry(ptx, "_Z5plainPi")


def test_below_sm90_is_an_error_as_with_nvcc():
    with pytest.raises(CudaCompileError) as e:
        ptx_of(SOURCE, "clusters.cu", arch="sm_80")
    assert "cluster_dims" in e.value.log


@pytest.mark.skipif(os.environ.get("CUMETAL_BACKEND", "cpu") not in ("cpu", "cpu-jit"),
                    reason="Metal has no thread-block clusters (such launches are CUDA_ERROR_NOT_SUPPORTED)")
def test_plain_launch_runs_in_clusters(gpu):
    fn = gpu.function(gpu.load(SOURCE, "clusters.cu", arch="sm_90"), "_Z5ranksPj")
    d = gpu.zeros(8, np.uint32)
    gpu.run(fn, (4,), (32,), [(d, None)])
    assert gpu.from_device(d, 8, np.uint32).tolist() == [2, 0, 2, 1, 2, 0, 2, 1]


def test_annotation_parsing_and_patching():
    ir = ('@.str = private unnamed_addr constant [21 x i8] c"cumetal.cluster_dims\\00", section "llvm.metadata"\n'
          '@.str.1 = private unnamed_addr constant [5 x i8] c"a.cu\\00", section "llvm.metadata"\n'
          '@.str.2 = private unnamed_addr constant [6 x i8] c"other\\00", section "llvm.metadata"\n'
          '@.args = private unnamed_addr constant { i32 } { i32 8 }, section "llvm.metadata"\n'
          '@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, '
          'ptr } { ptr @k, ptr @.str, ptr @.str.1, i32 3, ptr @.args }, { ptr, ptr, ptr, i32, ptr } { ptr @j, '
          'ptr @.str.2, ptr @.str.1, i32 4, ptr null }], section "llvm.metadata"\n')
    assert cluster_dims_from_ir(ir) == {"k": (8, 1, 1)}
    ptx = ".visible .entry k(\n\t.param .u64 p\n)\n.maxntid 64\n{\n\tret;\n}\n"
    assert add_cluster_directives(ptx, {"k": (8, 1, 1)}).startswith(
        ".visible .entry k(\n\t.param .u64 p\n)\n.explicitcluster\n.reqnctapercluster 8, 1, 1\n.maxntid 64")


def test_a_header_that_only_mentions_cluster_dims_costs_no_ir_compile(tmp_path, monkeypatch):
    """CCCL 3's cuda_capabilities.h defines a macro using __cluster_dims__ for nvcc only: the name is in
    a header, the macro is never expanded, so no kernel has a cluster shape and the second compile
    (to LLVM IR, which read the shapes) is skipped; a header whose macro is expanded still gets them."""
    import subprocess

    from cumetal.cudacxx.compile import compile_to_ptx
    from cumetal.cudacxx.options import CudaOptions

    (tmp_path / "mentions.h").write_text("// __cluster_dims__ is for nvcc here\n"
                                         "#define NVCC_ONLY(n) __cluster_dims__ n\n")
    (tmp_path / "uses.h").write_text("#define CLUSTERED __cluster_dims__(2, 1, 1)\n")
    runs = []
    real = subprocess.run

    def counting(cmd, *a, **k):
        runs.append(next((f for f in ("-E", "-emit-llvm") if f in cmd), "ptx"))
        return real(cmd, *a, **k)

    monkeypatch.setattr(subprocess, "run", counting)
    opts = CudaOptions(arch="sm_90", include_dirs=[str(tmp_path)])
    ptx = compile_to_ptx('#include "mentions.h"\n__global__ void k(int *o) { o[0] = 1; }', "m.cu", opts,
                         use_cache=False).ptx
    assert runs == ["ptx", "-E"] and ".reqnctapercluster" not in ptx
    runs.clear()
    ptx = compile_to_ptx('#include "uses.h"\n__global__ void CLUSTERED k(int *o) { o[0] = 1; }', "u.cu", opts,
                         use_cache=False).ptx
    assert runs == ["ptx", "-E", "-emit-llvm"]
    assert ".explicitcluster\n.reqnctapercluster 2, 1, 1" in _entry(ptx, "_Z1kPi")

"""``__shared__`` objects whose class has a non-empty constructor or destructor (CCCL's
``cuda::barrier<thread_scope_block>``): nvcc warns and constructs/destroys nothing; clang refuses
them, so CuMetal's front end rewrites each into raw storage plus a reference (cudacxx/shared_init.py).
Kernels run on the CPU backend through ``cumetal.driver``; results are checked against numpy."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest
from tests.cccl import cccl_build
from tests.cccl.cccl_install import SKIP_REASON, cccl_include
from tests.cudacxx.cudacxx_harness import Gpu, ok  # puts the functional harness on sys.path

from cumetal import driver as cu
from cumetal.cudacxx import shared_init
from cumetal.cudacxx.compile import CudaCompileError, compile_to_ptx
from cumetal.cudacxx.options import CudaOptions

I32 = ctypes.c_int


@pytest.fixture
def gpu():
    g = Gpu()
    yield g
    g.close()


def _load(gpu, ptx: str):
    m = ok(cu.cuModuleLoadData(ptx.encode()))
    gpu.modules[f"<{len(gpu.modules)}>"] = m
    return m


# A class clang will not accept as __shared__ (constructor and destructor with bodies), 16-aligned.
OWN = r"""
struct alignas(16) Acc {
    int v[3];
    __device__ Acc() { v[0] = v[1] = v[2] = 12345; }
    __device__ ~Acc() { v[0] = -1; }
    __device__ void add(int i, int x) { atomicAdd(&v[i], x); }
};
template <class T> struct Box { T t; __device__ Box() : t() {} __device__ ~Box() {} };

extern "C" __global__ void acc(const int *in, int *out, int n) {
    static __shared__ Acc a[2];
    __shared__ alignas(32) Box<int> b;
    if (threadIdx.x < 6) a[threadIdx.x / 3].v[threadIdx.x % 3] = 0;
    if (threadIdx.x == 0) b.t = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) { a[i & 1].add(i % 3, in[i]); atomicAdd(&b.t, 1); }
    __syncthreads();
    if (threadIdx.x < 6) out[threadIdx.x] = a[threadIdx.x / 3].v[threadIdx.x % 3];
    if (threadIdx.x == 0) out[6] = b.t;
    if (threadIdx.x == 0) out[7] = (int)((unsigned long long)&a[1] - (unsigned long long)&a[0]);
}
"""


def test_own_class_compiles_with_warning_and_runs(gpu):
    res = compile_to_ptx(OWN, "own.cu", CudaOptions(), use_cache=False)
    # nvcc's behaviour: a warning naming the variable, no construction
    assert re.search(r"own\.cu:\d+:\d+: warning: dynamic initialization is not supported .*'a'", res.log)
    assert "'b'" in res.log
    assert "__cumetal_shared_a" in res.source and res.source.count("\n") == OWN.count("\n")
    # storage of the type's size and alignment (2 x 16 bytes, 16-aligned; Box<int> with alignas(32))
    assert re.search(r"\.shared \.align 16 \.b8 \S*__cumetal_shared_a\S*\[32\]", res.ptx), res.ptx[:3000]
    assert re.search(r"\.shared \.align 32 \.b8 \S*__cumetal_shared_b\S*\[4\]", res.ptx)
    assert "12345" not in res.ptx  # the constructor is not run
    rng = np.random.default_rng(3)
    n = 1000
    x = rng.integers(-100, 100, n).astype(np.int32)
    d_in, d_out = gpu.to_device(x), gpu.zeros(8, np.int32)
    fn = ok(cu.cuModuleGetFunction(_load(gpu, res.ptx), b"acc"))
    gpu.run(fn, (1,), (128,), [(d_in, None), (d_out, None), (n, I32)])
    i = np.arange(n)
    want = [int(x[(i & 1 == j // 3) & (i % 3 == j % 3)].sum()) for j in range(6)]
    assert gpu.from_device(d_out, 8, np.int32).tolist() == [*want, n, 16]


def test_pragma_silences_warning_and_unsupported_forms_keep_clangs_error():
    src = OWN.replace('extern "C"', '#pragma nv_diag_suppress static_var_with_dynamic_init\nextern "C"')
    assert "warning" not in compile_to_ptx(src, "quiet.cu", CudaOptions(), use_cache=False).log
    # an initializer, or a second declarator: left as clang's error (nvcc also refuses the first)
    for decl in ("__shared__ Acc a2 = Acc();", "__shared__ Acc a2, a3;"):
        bad = OWN.replace("__shared__ alignas(32) Box<int> b;", "__shared__ alignas(32) Box<int> b; " + decl)
        with pytest.raises(CudaCompileError) as e:
            compile_to_ptx(bad, "bad.cu", CudaOptions(), use_cache=False)
        assert shared_init.ERROR in e.value.log


def test_rewrite_forms():
    src = "  static __shared__ alignas(8) cuda::x<A, B<2>> bar[2][3];\n  __shared__ typename T::s st;\n"
    lines = src.split("\n")
    out, warn = shared_init.rewrite(src, [(1, lines[0].index("bar") + 1), (2, lines[1].index("st;") + 1)], "f.cu")
    assert out.count("\n") == 2 and warn.count("warning") == 2
    first, second = out.split("\n")[:2]
    assert first.startswith("  static __shared__ alignas(8) __attribute__((aligned(alignof(cuda::x<A, B<2>>[2][3])))) "
                            "unsigned char "
                            "__cumetal_shared_bar[sizeof(cuda::x<A, B<2>>[2][3])];")
    assert first.endswith("cuda::x<A, B<2>> (&bar)[2][3] = *reinterpret_cast<cuda::x<A, B<2>> (*)[2][3]>"
                          "(__cumetal_shared_bar);")
    assert "typename T::s (&st) = *reinterpret_cast<typename T::s (*)>(__cumetal_shared_st);" in second
    assert shared_init.rewrite(src, [(1, 10)], "f.cu") == (src, "")  # not at a declared name


@pytest.mark.skipif(cccl_include() is None, reason=SKIP_REASON)
def test_cccl_barrier_and_pipeline_program(tmp_path):
    """cumetalc -I<CCCL> programs/shared_barrier.cu -o ...: both passes take the rewrite (the host pass
    refuses the original too); the kernels' results are checked against the host's in the program."""
    exe = cccl_build.build(cccl_include(), ("shared_barrier",), tmp_path)["shared_barrier"]
    assert cccl_build.run(exe, []) == ["barrier_memcpy_async", "pipeline_shared_state"]

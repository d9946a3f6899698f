"""Abstract classes in device code: a vtable names __cxa_pure_virtual, which CUDA's device runtime
defines (calling it aborts the kernel). Objects of derived classes work; the module loads."""

from __future__ import annotations

import numpy as np
from cudacxx_harness import ptx_of
from functional_harness import I32

SOURCE = r"""
struct Shape {
    __device__ __noinline__ Shape() {}  // an out-of-line base constructor keeps Shape's vtable
    __device__ virtual float area() const = 0;
    __device__ virtual ~Shape() {}
};
struct Square : Shape {
    float s;
    __device__ explicit Square(float v) : s(v) {}
    __device__ float area() const override { return s * s; }
};
struct Circle : Shape {
    float r;
    __device__ explicit Circle(float v) : r(v) {}
    __device__ float area() const override { return 3.0f * r * r; }
};
extern "C" __global__ void areas(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Square sq(x[i]);
    Circle ci(x[i]);
    const Shape *s = (i & 1) ? static_cast<const Shape *>(&ci) : static_cast<const Shape *>(&sq);
    y[i] = s->area();
}
"""


def test_derived_objects_of_an_abstract_class(gpu, tmp_path):
    src = tmp_path / "shapes.cu"
    src.write_text(SOURCE)
    assert "__cxa_pure_virtual" in ptx_of(SOURCE, str(src))  # the case this test is about
    mod = gpu.load(SOURCE, str(src))
    n = 100
    x = np.random.default_rng(5).standard_normal(n).astype(np.float32)
    d_x, d_y = gpu.to_device(x), gpu.zeros(n, np.float32)
    gpu.run(gpu.function(mod, "areas"), (1,), (128,), [(d_x, None), (d_y, None), (n, I32)])
    odd = (np.arange(n) & 1).astype(bool)
    expect = np.where(odd, np.float32(3) * x * x, x * x)
    assert np.array_equal(gpu.from_device(d_y, n, np.float32), expect)

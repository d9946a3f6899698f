"""The functional suite (tests/functional) run from its CUDA C++ sources: each ``kernels/*.cu`` is
compiled by ``cumetalc -ptx`` (CuMetal's front end, not nvcc), loaded through ``cumetal.driver`` and checked by the same
test bodies against the same numpy/exact references. The ``gpu`` fixture of this directory's
conftest makes ``gpu.kernel("misc", "hello")`` compile ``kernels/misc.cu``."""

from __future__ import annotations

import test_memory_arith_indexing as _memory
import test_misc as _misc
import test_shared_warp_atomics as _shared

for _mod in (_memory, _misc, _shared):
    for _name, _fn in vars(_mod).items():
        if _name.startswith("test_") and callable(_fn):
            globals()[_name] = _fn
del _mod, _name, _fn

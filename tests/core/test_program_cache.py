"""cumetal.core.utils program caches (cuda.core 1.2): keys, the in-memory LRU and file caches, and
Program.compile(cache=) returning the stored result without compiling again."""

from __future__ import annotations

import numpy as np
import pytest

from cumetal import driver as cu
from cumetal.core import Device, LaunchConfig, Program, ProgramOptions, launch
from cumetal.core.utils import FileStreamProgramCache, InMemoryProgramCache, make_program_cache_key

SRC = 'extern "C" __global__ void fill(int* x, int v) { x[threadIdx.x] = v + threadIdx.x; }'


@pytest.fixture(scope="module")
def dev():
    d = Device()
    d.set_current()
    yield d
    from cumetal.core import _device

    d.sync()
    cu.cuCtxSetCurrent(None)
    cu.cuDevicePrimaryCtxRelease(0)
    _device._tls.__dict__.clear()


def test_keys_follow_every_input():
    opts = ProgramOptions(arch="sm_80")
    key = make_program_cache_key(code=SRC, code_type="c++", options=opts, target_type="ptx")
    assert key == make_program_cache_key(code=SRC.encode(), code_type="C++", options=ProgramOptions(arch="sm_80"),
                                         target_type="PTX")
    others = [make_program_cache_key(code=SRC + " ", code_type="c++", options=opts, target_type="ptx"),
              make_program_cache_key(code=SRC, code_type="c++", options=opts, target_type="ltoir"),
              make_program_cache_key(code=SRC, code_type="c++", options=ProgramOptions(arch="sm_80", ftz=True),
                                     target_type="ptx"),
              make_program_cache_key(code=SRC, code_type="c++", options=opts, target_type="ptx", name_expressions=["f"]),
              make_program_cache_key(code=SRC, code_type="c++", options=opts, target_type="ptx", name_expressions=[b"f"]),
              make_program_cache_key(code=SRC, code_type="c++", options=opts, target_type="ptx", extra_digest=b"h")]
    assert len({key, *others}) == 7
    with pytest.raises(ValueError):  # headers the cache cannot fingerprint
        make_program_cache_key(code=SRC, code_type="c++", options=ProgramOptions(include_path=["/x"]), target_type="ptx")
    with pytest.raises(ValueError):
        make_program_cache_key(code=SRC, code_type="fortran", options=opts, target_type="ptx")


def test_in_memory_lru_and_file_cache(tmp_path):
    mem = InMemoryProgramCache(max_size_bytes=10)
    mem["a"], mem[b"b"] = b"12345", b"67890"
    assert mem.get("a") == b"12345"  # a is now the most recent
    mem["c"] = b"xyz"  # evicts b, the least recently used
    assert mem.get("b") is None and len(mem) == 2
    del mem["a"]
    with pytest.raises(KeyError):
        mem["a"]  # noqa: B018
    files = FileStreamProgramCache(tmp_path / "pc", max_size_bytes=8)
    files["k1"] = b"abcd"
    files["k2"] = bytearray(b"efgh")
    assert FileStreamProgramCache(tmp_path / "pc")["k1"] == b"abcd"  # another instance (process) sees it
    files["k3"] = b"ijkl"  # over 8 bytes: the oldest goes
    assert len(files) == 2 and files.get("k3") == b"ijkl"
    files.clear()
    assert len(files) == 0
    with pytest.raises(ValueError):
        InMemoryProgramCache(max_size_bytes=0)


def test_compile_with_cache_reuses_the_result(dev, tmp_path):
    cache = FileStreamProgramCache(tmp_path / "compiled")
    first = Program(SRC, code_type="c++").compile("ptx", cache=cache)
    assert len(cache) == 1

    class Log:
        text = []

        def write(self, msg):
            self.text.append(msg)

    again = Program(SRC, code_type="c++").compile("ptx", logs=Log(), cache=cache)  # a hit: no compile, no log
    assert again.code == first.code and Log.text == []
    out = dev.allocate(16)
    launch(dev.default_stream, LaunchConfig(grid=1, block=4), again.get_kernel("fill"), out, np.int32(40))
    dev.sync()
    assert np.from_dlpack(out).view(np.int32).tolist() == [40, 41, 42, 43]
    with pytest.raises(ValueError):
        Program(SRC, code_type="c++").compile("ptx", name_expressions=["fill"], cache=cache)
    out.close()

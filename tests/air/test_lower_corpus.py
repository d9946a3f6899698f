"""Every kernel of the PTX corpus (tests/corpus/ptx: nvcc, nvrtc, clang, numba, triton, llvmlite
output) that the front end compiles becomes a .metallib that passes air_validate. The only
refusal allowed is the documented one of CUDA's device heap (cpu-only so far); it must name file,
line and kernel. printf is no longer a reason: formats loaded into a reused register resolve
(issue 11; test_corpus_printf in tests/apple names the files that used to be refused)."""

from __future__ import annotations

import pytest
from air_corpus import CORPUS, FILES, corpus_metallibs

DOCUMENTED_REFUSALS = ("CUDA's device heap",)


@pytest.mark.skipif(not FILES, reason="no PTX corpus checked out")
def test_corpus_kernels_compile_to_valid_metallibs():
    compiled, refused, problems = 0, [], []
    for entry in corpus_metallibs():
        where = entry.path.relative_to(CORPUS)
        if entry.data is None:
            documented = any(d in entry.refusal for d in DOCUMENTED_REFUSALS)
            (refused if documented else problems).append(f"{where}: {entry.refusal}")
            continue
        compiled += 1  # compile_metallib validated it (a problem raises AirLoweringError)
    assert not problems, "\n".join(problems)
    assert compiled >= 320, f"only {compiled} corpus files compiled"
    for msg in refused:
        assert ".ptx:" in msg and "kernel " in msg

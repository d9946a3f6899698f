"""CuMetal's C ABI: ``libcumetal`` (the CUDA Runtime and Driver API as a C library that forwards to
``cumetal.runtime`` / ``cumetal.driver`` through an embedded Python), building CUDA programs
(``build_program``), and reading device-code containers (our blob, NVIDIA fatbinaries).
See docs/c-abi.md."""

from __future__ import annotations

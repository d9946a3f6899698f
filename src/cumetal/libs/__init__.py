"""CuMetal's CUDA libraries: cuBLAS and cuBLASLt (:mod:`cumetal.libs.cublas`), cuRAND
(:mod:`cumetal.libs.curand`). The C ABI (``libcumetal_libs``, linked by ``cumetalc … -lcublas
-lcublasLt -lcurand``) is built on first use by :func:`cumetal.libs.build.library_path`."""

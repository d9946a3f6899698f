// Empty stand-in: clang-19's __clang_cuda_runtime_wrapper.h includes this header, which CUDA 13 no
// longer ships. Used only by scripts/make_ptx_corpus.py when compiling with clang-19.

"""CuMetal: a CUDA compiler and runtime for Apple Silicon GPUs, with a CPU backend for every kernel."""

__version__ = "0.1.0"

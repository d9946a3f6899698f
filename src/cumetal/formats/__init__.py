"""Data formats shared by several layers (descriptors the driver writes and kernels read)."""

"""PTX instruction sweep (spec section 10.2): small PTX kernels with goldens taken on NVIDIA hardware."""

"""cuBLAS status codes and enumerations (values as in CUDA 13's cublas_api.h, checked by
tests/libs/test_headers.py against tests/libs/golden/cuda_lib_enums.json recorded on NVIDIA's)."""

from __future__ import annotations

SUCCESS = 0
NOT_INITIALIZED = 1
ALLOC_FAILED = 3
INVALID_VALUE = 7
ARCH_MISMATCH = 8
MAPPING_ERROR = 11
EXECUTION_FAILED = 13
INTERNAL_ERROR = 14
NOT_SUPPORTED = 15
LICENSE_ERROR = 16

STATUS_NAMES = {
    SUCCESS: ("CUBLAS_STATUS_SUCCESS", "success"),
    NOT_INITIALIZED: ("CUBLAS_STATUS_NOT_INITIALIZED", "the library was not initialized"),
    ALLOC_FAILED: ("CUBLAS_STATUS_ALLOC_FAILED", "the resource allocation failed"),
    INVALID_VALUE: ("CUBLAS_STATUS_INVALID_VALUE", "an invalid numeric value was used as an argument"),
    ARCH_MISMATCH: ("CUBLAS_STATUS_ARCH_MISMATCH", "an absent device architectural feature is required"),
    MAPPING_ERROR: ("CUBLAS_STATUS_MAPPING_ERROR", "an access to GPU memory space failed"),
    EXECUTION_FAILED: ("CUBLAS_STATUS_EXECUTION_FAILED", "the GPU program failed to execute"),
    INTERNAL_ERROR: ("CUBLAS_STATUS_INTERNAL_ERROR", "an internal operation failed"),
    NOT_SUPPORTED: ("CUBLAS_STATUS_NOT_SUPPORTED", "the functionality requested is not supported"),
    LICENSE_ERROR: ("CUBLAS_STATUS_LICENSE_ERROR", "license error"),
}

OP_N, OP_T, OP_C, OP_CONJG = 0, 1, 2, 3
FILL_LOWER, FILL_UPPER, FILL_FULL = 0, 1, 2
DIAG_NON_UNIT, DIAG_UNIT = 0, 1
SIDE_LEFT, SIDE_RIGHT = 0, 1
POINTER_HOST, POINTER_DEVICE = 0, 1
ATOMICS_NOT_ALLOWED, ATOMICS_ALLOWED = 0, 1
DEFAULT_MATH, TENSOR_OP_MATH, PEDANTIC_MATH, TF32_TENSOR_OP_MATH = 0, 1, 2, 3
MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16

# cublasComputeType_t
COMPUTE_16F, COMPUTE_16F_PEDANTIC = 64, 65
COMPUTE_32F, COMPUTE_32F_PEDANTIC = 68, 69
COMPUTE_64F, COMPUTE_64F_PEDANTIC = 70, 71
COMPUTE_32I, COMPUTE_32I_PEDANTIC = 72, 73
COMPUTE_32F_FAST_16F, COMPUTE_32F_FAST_16BF, COMPUTE_32F_FAST_TF32 = 74, 75, 77

# cudaDataType_t (library_types.h)
R_16F, C_16F, R_16BF, C_16BF = 2, 6, 14, 15
R_32F, C_32F, R_64F, C_64F = 0, 4, 1, 5
R_8I, C_8I, R_8U, R_32I = 3, 7, 8, 10

VERSION = 130000  # CUDA 13.0's cuBLAS: major * 10000 + minor * 100 + patch

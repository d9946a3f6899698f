/* CuMetal clean-room CUDA headers: cublasLt.h — the cuBLASLt API CuMetal implements (handles,
 * matmul descriptors, matrix layouts, preferences, heuristics, cublasLtMatmul). Written from the
 * cuBLAS documentation; the enumerators' values are CUDA 13's ABI (names and numbers recorded from
 * NVIDIA's header by scripts/make_curand_goldens.py, checked by tests/libs/test_headers.py).
 * Descriptors are opaque handles; the stack-allocated *Init forms register the struct's address. */
#ifndef CUBLASLT_H_
#define CUBLASLT_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cublas_api.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cublasLtContext;
typedef struct cublasLtContext *cublasLtHandle_t;
typedef struct cublasLtMatmulDescOpaque_st *cublasLtMatmulDesc_t;
typedef struct cublasLtMatrixLayoutOpaque_st *cublasLtMatrixLayout_t;
typedef struct cublasLtMatmulPreferenceOpaque_st *cublasLtMatmulPreference_t;
typedef struct cublasLtMatrixTransformDescOpaque_st *cublasLtMatrixTransformDesc_t;
typedef struct cublasLtEmulationDescOpaque_st *cublasLtEmulationDesc_t;

/* storage for the stack-allocated forms (cublasLtMatmulDescInit, …): the structs the handles point to,
 * so that &desc is a cublasLtMatmulDesc_t as in CUDA's header (NVIDIA's samples pass &opaque) */
typedef struct cublasLtMatmulDescOpaque_st {
    uint64_t data[32];
} cublasLtMatmulDescOpaque_t;
typedef struct cublasLtMatrixLayoutOpaque_st {
    uint64_t data[8];
} cublasLtMatrixLayoutOpaque_t;
typedef struct cublasLtMatmulPreferenceOpaque_st {
    uint64_t data[8];
} cublasLtMatmulPreferenceOpaque_t;
typedef struct cublasLtMatrixTransformDescOpaque_st {
    uint64_t data[8];
} cublasLtMatrixTransformDescOpaque_t;
typedef struct cublasLtEmulationDescOpaque_st {
    uint64_t data[8];
} cublasLtEmulationDescOpaque_t;

/* floating-point emulation settings of a matmul (CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR); kept,
 * CuMetal computes natively */
typedef enum {
    CUBLASLT_EMULATION_DESC_STRATEGY = 0,
    CUBLASLT_EMULATION_DESC_SPECIAL_VALUES_SUPPORT = 1,
    CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_CONTROL = 2,
    CUBLASLT_EMULATION_DESC_FIXEDPOINT_MAX_MANTISSA_BIT_COUNT = 3,
    CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_BIT_OFFSET = 4,
    CUBLASLT_EMULATION_DESC_FIXEDPOINT_MANTISSA_BIT_COUNT_POINTER = 5
} cublasLtEmulationDescAttributes_t;

typedef struct {
    uint64_t data[8];
} cublasLtMatmulAlgo_t;

typedef struct {
    cublasLtMatmulAlgo_t algo;
    size_t workspaceSize;
    cublasStatus_t state;
    float wavesCount;
    int reserved[4];
} cublasLtMatmulHeuristicResult_t;

typedef enum {
    CUBLASLT_MATMUL_DESC_COMPUTE_TYPE = 0,
    CUBLASLT_MATMUL_DESC_SCALE_TYPE = 1,
    CUBLASLT_MATMUL_DESC_POINTER_MODE = 2,
    CUBLASLT_MATMUL_DESC_TRANSA = 3,
    CUBLASLT_MATMUL_DESC_TRANSB = 4,
    CUBLASLT_MATMUL_DESC_TRANSC = 5,
    CUBLASLT_MATMUL_DESC_FILL_MODE = 6,
    CUBLASLT_MATMUL_DESC_EPILOGUE = 7,
    CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8,
    CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE = 10,
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER = 11,
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD = 12,
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE = 13,
    CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE = 14,
    CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET = 15,
    CUBLASLT_MATMUL_DESC_A_SCALE_POINTER = 17,
    CUBLASLT_MATMUL_DESC_B_SCALE_POINTER = 18,
    CUBLASLT_MATMUL_DESC_C_SCALE_POINTER = 19,
    CUBLASLT_MATMUL_DESC_D_SCALE_POINTER = 20,
    CUBLASLT_MATMUL_DESC_AMAX_D_POINTER = 21,
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE = 22,
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER = 23,
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER = 24,
    CUBLASLT_MATMUL_DESC_FAST_ACCUM = 25,
    CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 26,
    CUBLASLT_MATMUL_DESC_A_SCALE_MODE = 31,
    CUBLASLT_MATMUL_DESC_B_SCALE_MODE = 32,
    CUBLASLT_MATMUL_DESC_C_SCALE_MODE = 33,
    CUBLASLT_MATMUL_DESC_D_SCALE_MODE = 34,
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE = 35,
    CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER = 36,
    CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE = 37,
    CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR = 38
} cublasLtMatmulDescAttributes_t;

typedef enum {
    CUBLASLT_MATRIX_LAYOUT_TYPE = 0,
    CUBLASLT_MATRIX_LAYOUT_ORDER = 1,
    CUBLASLT_MATRIX_LAYOUT_ROWS = 2,
    CUBLASLT_MATRIX_LAYOUT_COLS = 3,
    CUBLASLT_MATRIX_LAYOUT_LD = 4,
    CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5,
    CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6,
    CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET = 7,
    CUBLASLT_MATRIX_LAYOUT_BATCH_MODE = 8
} cublasLtMatrixLayoutAttribute_t;

typedef enum { CUBLASLT_BATCH_MODE_STRIDED = 0, CUBLASLT_BATCH_MODE_POINTER_ARRAY = 1 } cublasLtBatchMode_t;

typedef enum {
    CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F = 0,
    CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3 = 1,
    CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0 = 2,
    CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F = 3,
    CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F = 4,
    CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F = 5,
    CUBLASLT_MATMUL_MATRIX_SCALE_END = 6
} cublasLtMatmulMatrixScale_t;

typedef enum {
    CUBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE = 0,
    CUBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE = 1,
    CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA = 2,
    CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSB = 3
} cublasLtMatrixTransformDescAttributes_t;

typedef enum {
    CUBLASLT_SEARCH_BEST_FIT = 0,
    CUBLASLT_SEARCH_LIMITED_BY_ALGO_ID = 1
} cublasLtMatmulSearch_t;

typedef enum {
    CUBLASLT_REDUCTION_SCHEME_NONE = 0,
    CUBLASLT_REDUCTION_SCHEME_INPLACE = 1,
    CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE = 2,
    CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE = 4,
    CUBLASLT_REDUCTION_SCHEME_MASK = 7
} cublasLtReductionScheme_t;

typedef enum {
    CUBLASLT_ALGO_CAP_SPLITK_SUPPORT = 0,
    CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK = 1,
    CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT = 2,
    CUBLASLT_ALGO_CAP_STRIDED_BATCH_SUPPORT = 3,
    CUBLASLT_ALGO_CAP_OUT_OF_PLACE_RESULT_SUPPORT = 4,
    CUBLASLT_ALGO_CAP_UPLO_SUPPORT = 5,
    CUBLASLT_ALGO_CAP_TILE_IDS = 6,
    CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX = 7,
    CUBLASLT_ALGO_CAP_CUSTOM_MEMORY_ORDER = 10,
    CUBLASLT_ALGO_CAP_POINTER_MODE_MASK = 11,
    CUBLASLT_ALGO_CAP_EPILOGUE_MASK = 12,
    CUBLASLT_ALGO_CAP_STAGES_IDS = 13,
    CUBLASLT_ALGO_CAP_LD_NEGATIVE = 14,
    CUBLASLT_ALGO_CAP_NUMERICAL_IMPL_FLAGS = 15,
    CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES = 16,
    CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES = 17,
    CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES = 18,
    CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES = 19,
    CUBLASLT_ALGO_CAP_POINTER_ARRAY_BATCH_SUPPORT = 21,
    CUBLASLT_ALGO_CAP_FLOATING_POINT_EMULATION_SUPPORT = 22
} cublasLtMatmulAlgoCapAttributes_t;

typedef enum {
    CUBLASLT_ALGO_CONFIG_ID = 0,
    CUBLASLT_ALGO_CONFIG_TILE_ID = 1,
    CUBLASLT_ALGO_CONFIG_SPLITK_NUM = 2,
    CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME = 3,
    CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING = 4,
    CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION = 5,
    CUBLASLT_ALGO_CONFIG_STAGES_ID = 6,
    CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID = 7,
    CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID = 8
} cublasLtMatmulAlgoConfigAttributes_t;

/* CuMetal's one algorithm reports UNDEFINED tile / stages / shapes and accepts only those; the named
 * tiles and cluster shapes are there for programs that name them (CUDA 13's values; the tile list
 * stops at 31, CUDA's goes on to 634) */
typedef enum {
    CUBLASLT_MATMUL_TILE_UNDEFINED = 0,
    CUBLASLT_MATMUL_TILE_8x8 = 1, CUBLASLT_MATMUL_TILE_8x16 = 2, CUBLASLT_MATMUL_TILE_16x8 = 3,
    CUBLASLT_MATMUL_TILE_8x32 = 4, CUBLASLT_MATMUL_TILE_16x16 = 5, CUBLASLT_MATMUL_TILE_32x8 = 6,
    CUBLASLT_MATMUL_TILE_8x64 = 7, CUBLASLT_MATMUL_TILE_16x32 = 8, CUBLASLT_MATMUL_TILE_32x16 = 9,
    CUBLASLT_MATMUL_TILE_64x8 = 10, CUBLASLT_MATMUL_TILE_32x32 = 11, CUBLASLT_MATMUL_TILE_32x64 = 12,
    CUBLASLT_MATMUL_TILE_64x32 = 13, CUBLASLT_MATMUL_TILE_32x128 = 14, CUBLASLT_MATMUL_TILE_64x64 = 15,
    CUBLASLT_MATMUL_TILE_128x32 = 16, CUBLASLT_MATMUL_TILE_64x128 = 17, CUBLASLT_MATMUL_TILE_128x64 = 18,
    CUBLASLT_MATMUL_TILE_64x256 = 19, CUBLASLT_MATMUL_TILE_128x128 = 20, CUBLASLT_MATMUL_TILE_256x64 = 21,
    CUBLASLT_MATMUL_TILE_64x512 = 22, CUBLASLT_MATMUL_TILE_128x256 = 23, CUBLASLT_MATMUL_TILE_256x128 = 24,
    CUBLASLT_MATMUL_TILE_512x64 = 25, CUBLASLT_MATMUL_TILE_64x96 = 26, CUBLASLT_MATMUL_TILE_96x64 = 27,
    CUBLASLT_MATMUL_TILE_96x128 = 28, CUBLASLT_MATMUL_TILE_128x160 = 29, CUBLASLT_MATMUL_TILE_160x128 = 30,
    CUBLASLT_MATMUL_TILE_192x128 = 31
} cublasLtMatmulTile_t;
typedef enum { CUBLASLT_MATMUL_STAGES_UNDEFINED = 0 } cublasLtMatmulStages_t;
typedef enum { CUBLASLT_MATMUL_INNER_SHAPE_UNDEFINED = 0 } cublasLtMatmulInnerShape_t;
typedef enum {
    CUBLASLT_CLUSTER_SHAPE_AUTO = 0,
    CUBLASLT_CLUSTER_SHAPE_1x1x1 = 2, CUBLASLT_CLUSTER_SHAPE_2x1x1 = 3, CUBLASLT_CLUSTER_SHAPE_4x1x1 = 4,
    CUBLASLT_CLUSTER_SHAPE_1x2x1 = 5, CUBLASLT_CLUSTER_SHAPE_2x2x1 = 6, CUBLASLT_CLUSTER_SHAPE_4x2x1 = 7,
    CUBLASLT_CLUSTER_SHAPE_1x4x1 = 8, CUBLASLT_CLUSTER_SHAPE_2x4x1 = 9, CUBLASLT_CLUSTER_SHAPE_4x4x1 = 10,
    CUBLASLT_CLUSTER_SHAPE_8x1x1 = 11, CUBLASLT_CLUSTER_SHAPE_1x8x1 = 12, CUBLASLT_CLUSTER_SHAPE_8x2x1 = 13,
    CUBLASLT_CLUSTER_SHAPE_2x8x1 = 14, CUBLASLT_CLUSTER_SHAPE_16x1x1 = 15, CUBLASLT_CLUSTER_SHAPE_1x16x1 = 16,
    CUBLASLT_CLUSTER_SHAPE_3x1x1 = 17, CUBLASLT_CLUSTER_SHAPE_5x1x1 = 18, CUBLASLT_CLUSTER_SHAPE_6x1x1 = 19,
    CUBLASLT_CLUSTER_SHAPE_7x1x1 = 20, CUBLASLT_CLUSTER_SHAPE_9x1x1 = 21, CUBLASLT_CLUSTER_SHAPE_10x1x1 = 22,
    CUBLASLT_CLUSTER_SHAPE_11x1x1 = 23, CUBLASLT_CLUSTER_SHAPE_12x1x1 = 24, CUBLASLT_CLUSTER_SHAPE_13x1x1 = 25,
    CUBLASLT_CLUSTER_SHAPE_14x1x1 = 26, CUBLASLT_CLUSTER_SHAPE_15x1x1 = 27, CUBLASLT_CLUSTER_SHAPE_3x2x1 = 28,
    CUBLASLT_CLUSTER_SHAPE_5x2x1 = 29, CUBLASLT_CLUSTER_SHAPE_6x2x1 = 30, CUBLASLT_CLUSTER_SHAPE_7x2x1 = 31,
    CUBLASLT_CLUSTER_SHAPE_1x3x1 = 32, CUBLASLT_CLUSTER_SHAPE_2x3x1 = 33, CUBLASLT_CLUSTER_SHAPE_3x3x1 = 34,
    CUBLASLT_CLUSTER_SHAPE_4x3x1 = 35, CUBLASLT_CLUSTER_SHAPE_5x3x1 = 36, CUBLASLT_CLUSTER_SHAPE_3x4x1 = 37,
    CUBLASLT_CLUSTER_SHAPE_1x5x1 = 38, CUBLASLT_CLUSTER_SHAPE_2x5x1 = 39, CUBLASLT_CLUSTER_SHAPE_3x5x1 = 40,
    CUBLASLT_CLUSTER_SHAPE_1x6x1 = 41, CUBLASLT_CLUSTER_SHAPE_2x6x1 = 42, CUBLASLT_CLUSTER_SHAPE_1x7x1 = 43,
    CUBLASLT_CLUSTER_SHAPE_2x7x1 = 44, CUBLASLT_CLUSTER_SHAPE_1x9x1 = 45, CUBLASLT_CLUSTER_SHAPE_1x10x1 = 46,
    CUBLASLT_CLUSTER_SHAPE_1x11x1 = 47, CUBLASLT_CLUSTER_SHAPE_1x12x1 = 48, CUBLASLT_CLUSTER_SHAPE_1x13x1 = 49,
    CUBLASLT_CLUSTER_SHAPE_1x14x1 = 50, CUBLASLT_CLUSTER_SHAPE_1x15x1 = 51,
    CUBLASLT_CLUSTER_SHAPE_END
} cublasLtClusterShape_t;

typedef enum {
    CUBLASLT_MATMUL_PREF_SEARCH_MODE = 0,
    CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,
    CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK = 3,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES = 6,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES = 7,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES = 8,
    CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT = 9,
    CUBLASLT_MATMUL_PREF_IMPL_MASK = 12
} cublasLtMatmulPreferenceAttributes_t;

typedef enum {
    CUBLASLT_EPILOGUE_DEFAULT = 1,
    CUBLASLT_EPILOGUE_RELU = 2,
    CUBLASLT_EPILOGUE_BIAS = 4,
    CUBLASLT_EPILOGUE_RELU_BIAS = 6,
    CUBLASLT_EPILOGUE_GELU = 32,
    CUBLASLT_EPILOGUE_GELU_BIAS = 36,
    CUBLASLT_EPILOGUE_RELU_AUX = 130,
    CUBLASLT_EPILOGUE_RELU_AUX_BIAS = 134,
    CUBLASLT_EPILOGUE_DRELU = 136,
    CUBLASLT_EPILOGUE_DRELU_BGRAD = 152,
    CUBLASLT_EPILOGUE_GELU_AUX = 160,
    CUBLASLT_EPILOGUE_GELU_AUX_BIAS = 164,
    CUBLASLT_EPILOGUE_DGELU = 192,
    CUBLASLT_EPILOGUE_DGELU_BGRAD = 208,
    CUBLASLT_EPILOGUE_BGRADA = 256,
    CUBLASLT_EPILOGUE_BGRADB = 512
} cublasLtEpilogue_t;

typedef enum {
    CUBLASLT_ORDER_COL = 0,
    CUBLASLT_ORDER_ROW = 1,
    CUBLASLT_ORDER_COL32 = 2,
    CUBLASLT_ORDER_COL4_4R2_8C = 3,
    CUBLASLT_ORDER_COL32_2R_4R4 = 4
} cublasLtOrder_t;

typedef enum {
    CUBLASLT_POINTER_MODE_MASK_HOST = 1,
    CUBLASLT_POINTER_MODE_MASK_DEVICE = 2,
    CUBLASLT_POINTER_MODE_MASK_DEVICE_VECTOR = 4,
    CUBLASLT_POINTER_MODE_MASK_ALPHA_DEVICE_VECTOR_BETA_ZERO = 8,
    CUBLASLT_POINTER_MODE_MASK_ALPHA_DEVICE_VECTOR_BETA_HOST = 16
} cublasLtPointerModeMask_t;

typedef enum {
    CUBLASLT_POINTER_MODE_DEVICE_VECTOR = 2,
    CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO = 3,
    CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST = 4
} cublasLtPointerMode_t;

typedef void (*cublasLtLoggerCallback_t)(int logLevel, const char *functionName, const char *message);

cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle);
cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle);
size_t cublasLtGetVersion(void);
size_t cublasLtGetCudartVersion(void);
cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int *value);
const char *cublasLtGetStatusName(cublasStatus_t status);
const char *cublasLtGetStatusString(cublasStatus_t status);

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc, cublasComputeType_t computeType,
                                        cudaDataType scaleType);
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc);
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc, cublasLtMatmulDescAttributes_t attr,
                                              const void *buf, size_t sizeInBytes);
cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t matmulDesc, cublasLtMatmulDescAttributes_t attr,
                                              void *buf, size_t sizeInBytes, size_t *sizeWritten);

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout, cudaDataType type, uint64_t rows,
                                          uint64_t cols, int64_t ld);
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout);
cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout,
                                                cublasLtMatrixLayoutAttribute_t attr, const void *buf,
                                                size_t sizeInBytes);
cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t matLayout,
                                                cublasLtMatrixLayoutAttribute_t attr, void *buf, size_t sizeInBytes,
                                                size_t *sizeWritten);

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref);
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref);
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr, const void *buf,
                                                    size_t sizeInBytes);
cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr, void *buf,
                                                    size_t sizeInBytes, size_t *sizeWritten);

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
                                              cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                                              cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                                              cublasLtMatmulPreference_t preference, int requestedAlgoCount,
                                              cublasLtMatmulHeuristicResult_t heuristicResultsArray[],
                                              int *returnAlgoCount);

cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc, const void *alpha,
                              const void *A, cublasLtMatrixLayout_t Adesc, const void *B, cublasLtMatrixLayout_t Bdesc,
                              const void *beta, const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
                              cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo, void *workspace,
                              size_t workspaceSizeInBytes, cudaStream_t stream);

cublasStatus_t cublasLtMatmulAlgoGetIds(cublasLtHandle_t lightHandle, cublasComputeType_t computeType,
                                         cudaDataType scaleType, cudaDataType Atype, cudaDataType Btype,
                                         cudaDataType Ctype, cudaDataType Dtype, int requestedAlgoCount,
                                         int algoIdsArray[], int *returnAlgoCount);
cublasStatus_t cublasLtMatmulAlgoInit(cublasLtHandle_t lightHandle, cublasComputeType_t computeType,
                                      cudaDataType scaleType, cudaDataType Atype, cudaDataType Btype,
                                      cudaDataType Ctype, cudaDataType Dtype, int algoId,
                                      cublasLtMatmulAlgo_t *algo);
cublasStatus_t cublasLtMatmulAlgoCheck(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
                                       cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                                       cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                                       const cublasLtMatmulAlgo_t *algo, cublasLtMatmulHeuristicResult_t *result);
cublasStatus_t cublasLtMatmulAlgoCapGetAttribute(const cublasLtMatmulAlgo_t *algo, cublasLtMatmulAlgoCapAttributes_t attr,
                                                 void *buf, size_t sizeInBytes, size_t *sizeWritten);
cublasStatus_t cublasLtMatmulAlgoConfigSetAttribute(cublasLtMatmulAlgo_t *algo,
                                                    cublasLtMatmulAlgoConfigAttributes_t attr, const void *buf,
                                                    size_t sizeInBytes);
cublasStatus_t cublasLtMatmulAlgoConfigGetAttribute(const cublasLtMatmulAlgo_t *algo,
                                                    cublasLtMatmulAlgoConfigAttributes_t attr, void *buf,
                                                    size_t sizeInBytes, size_t *sizeWritten);

cublasStatus_t cublasLtMatrixTransformDescCreate(cublasLtMatrixTransformDesc_t *transformDesc, cudaDataType scaleType);
cublasStatus_t cublasLtMatrixTransformDescDestroy(cublasLtMatrixTransformDesc_t transformDesc);
cublasStatus_t cublasLtMatrixTransformDescSetAttribute(cublasLtMatrixTransformDesc_t transformDesc,
                                                       cublasLtMatrixTransformDescAttributes_t attr, const void *buf,
                                                       size_t sizeInBytes);
cublasStatus_t cublasLtMatrixTransformDescGetAttribute(cublasLtMatrixTransformDesc_t transformDesc,
                                                       cublasLtMatrixTransformDescAttributes_t attr, void *buf,
                                                       size_t sizeInBytes, size_t *sizeWritten);
cublasStatus_t cublasLtMatrixTransform(cublasLtHandle_t lightHandle, cublasLtMatrixTransformDesc_t transformDesc,
                                       const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
                                       const void *beta, const void *B, cublasLtMatrixLayout_t Bdesc, void *C,
                                       cublasLtMatrixLayout_t Cdesc, cudaStream_t stream);

cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t matmulDesc, size_t size,
                                               cublasComputeType_t computeType, cudaDataType scaleType);
cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t matLayout, size_t size, cudaDataType type,
                                                 uint64_t rows, uint64_t cols, int64_t ld);
cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t pref, size_t size);
cublasStatus_t cublasLtMatrixTransformDescInit_internal(cublasLtMatrixTransformDesc_t transformDesc, size_t size,
                                                        cudaDataType scaleType);
static inline cublasStatus_t cublasLtMatmulDescInit(cublasLtMatmulDesc_t matmulDesc, cublasComputeType_t computeType,
                                                    cudaDataType scaleType) {
    return cublasLtMatmulDescInit_internal(matmulDesc, sizeof(cublasLtMatmulDescOpaque_t), computeType, scaleType);
}
static inline cublasStatus_t cublasLtMatrixLayoutInit(cublasLtMatrixLayout_t matLayout, cudaDataType type,
                                                      uint64_t rows, uint64_t cols, int64_t ld) {
    return cublasLtMatrixLayoutInit_internal(matLayout, sizeof(cublasLtMatrixLayoutOpaque_t), type, rows, cols, ld);
}
static inline cublasStatus_t cublasLtMatmulPreferenceInit(cublasLtMatmulPreference_t pref) {
    return cublasLtMatmulPreferenceInit_internal(pref, sizeof(cublasLtMatmulPreferenceOpaque_t));
}
static inline cublasStatus_t cublasLtMatrixTransformDescInit(cublasLtMatrixTransformDesc_t transformDesc,
                                                             cudaDataType scaleType) {
    return cublasLtMatrixTransformDescInit_internal(transformDesc, sizeof(cublasLtMatrixTransformDescOpaque_t),
                                                    scaleType);
}

cublasStatus_t cublasLtEmulationDescCreate(cublasLtEmulationDesc_t *emulationDesc);
cublasStatus_t cublasLtEmulationDescDestroy(cublasLtEmulationDesc_t emulationDesc);
cublasStatus_t cublasLtEmulationDescSetAttribute(cublasLtEmulationDesc_t emulationDesc,
                                                 cublasLtEmulationDescAttributes_t attr, const void *buf,
                                                 size_t sizeInBytes);
cublasStatus_t cublasLtEmulationDescGetAttribute(cublasLtEmulationDesc_t emulationDesc,
                                                 cublasLtEmulationDescAttributes_t attr, void *buf, size_t sizeInBytes,
                                                 size_t *sizeWritten);
cublasStatus_t cublasLtEmulationDescInit_internal(cublasLtEmulationDesc_t emulationDesc, size_t size);
static inline cublasStatus_t cublasLtEmulationDescInit(cublasLtEmulationDesc_t emulationDesc) {
    return cublasLtEmulationDescInit_internal(emulationDesc, sizeof(cublasLtEmulationDescOpaque_t));
}

cublasStatus_t cublasLtHeuristicsCacheGetCapacity(size_t *capacity);
cublasStatus_t cublasLtHeuristicsCacheSetCapacity(size_t capacity);
unsigned cublasLtDisableCpuInstructionsSetMask(unsigned mask);

cublasStatus_t cublasLtLoggerSetCallback(cublasLtLoggerCallback_t callback);
cublasStatus_t cublasLtLoggerSetFile(FILE *file);
cublasStatus_t cublasLtLoggerOpenFile(const char *logFile);
cublasStatus_t cublasLtLoggerSetLevel(int level);
cublasStatus_t cublasLtLoggerSetMask(int mask);
cublasStatus_t cublasLtLoggerForceDisable(void);

#ifdef __cplusplus
}
#endif

#endif /* CUBLASLT_H_ */

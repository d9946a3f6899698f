/* libcumetal_libs: cuBLASLt. Arguments go to cumetal.libs.cublas.lt_capi as integers; the
 * declarations come from CuMetal's cublasLt.h. */
#include "cublasLt.h"

#include "cml_core.h"

static cublasStatus_t lt_status(long long v) {
    return v == CML_FAILED ? CUBLAS_STATUS_NOT_INITIALIZED : (cublasStatus_t)v;
}
#define LT(name, fmt, ...) return lt_status(cml_call(CML_CUBLASLT, name, fmt, __VA_ARGS__))
#define P(x) CML_P(x)
#define U(x) ((unsigned long long)(x))

CML_EXPORT cublasStatus_t cublasLtCreate(cublasLtHandle_t *h) { LT("create", "(K)", P(h)); }
CML_EXPORT cublasStatus_t cublasLtDestroy(cublasLtHandle_t h) { LT("destroy", "(K)", P(h)); }
CML_EXPORT size_t cublasLtGetVersion(void) { return CUBLAS_VERSION; }
CML_EXPORT size_t cublasLtGetCudartVersion(void) { return 13000; }
CML_EXPORT cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int *value) {
    return cublasGetProperty(type, value);
}
CML_EXPORT const char *cublasLtGetStatusName(cublasStatus_t s) { return cublasGetStatusName(s); }
CML_EXPORT const char *cublasLtGetStatusString(cublasStatus_t s) { return cublasGetStatusString(s); }

CML_EXPORT cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *d, cublasComputeType_t compute,
                                                   cudaDataType scale) {
    LT("desc_create", "(Kii)", P(d), (int)compute, (int)scale);
}
CML_EXPORT cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l, cudaDataType type, uint64_t rows,
                                                     uint64_t cols, int64_t ld) {
    LT("layout_create", "(KiKKL)", P(l), (int)type, U(rows), U(cols), (long long)ld);
}
CML_EXPORT cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *p) {
    LT("pref_create", "(K)", P(p));
}

#define OBJECT_FUNCS(KIND, NAME, T, ATTR)                                                                              \
    CML_EXPORT cublasStatus_t cublasLt##NAME##Destroy(T obj) { LT("obj_destroy", "(iK)", KIND, P(obj)); }            \
    CML_EXPORT cublasStatus_t cublasLt##NAME##SetAttribute(T obj, ATTR attr, const void *buf, size_t size) {         \
        LT("obj_set", "(iKiKK)", KIND, P(obj), (int)attr, P(buf), U(size));                                            \
    }                                                                                                                  \
    CML_EXPORT cublasStatus_t cublasLt##NAME##GetAttribute(T obj, ATTR attr, void *buf, size_t size,                 \
                                                           size_t *written) {                                          \
        LT("obj_get", "(iKiKKK)", KIND, P(obj), (int)attr, P(buf), U(size), P(written));                               \
    }
OBJECT_FUNCS(0, MatmulDesc, cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t)
OBJECT_FUNCS(1, MatrixLayout, cublasLtMatrixLayout_t, cublasLtMatrixLayoutAttribute_t)
OBJECT_FUNCS(2, MatmulPreference, cublasLtMatmulPreference_t, cublasLtMatmulPreferenceAttributes_t)
OBJECT_FUNCS(3, MatrixTransformDesc, cublasLtMatrixTransformDesc_t, cublasLtMatrixTransformDescAttributes_t)
OBJECT_FUNCS(4, EmulationDesc, cublasLtEmulationDesc_t, cublasLtEmulationDescAttributes_t)

CML_EXPORT cublasStatus_t cublasLtEmulationDescCreate(cublasLtEmulationDesc_t *d) {
    LT("emulation_desc_create", "(K)", P(d));
}
CML_EXPORT cublasStatus_t cublasLtEmulationDescInit_internal(cublasLtEmulationDesc_t d, size_t size) {
    LT("obj_init", "(iKKLLLL)", 4, P(d), U(size), 0LL, 0LL, 0LL, 0LL);
}

CML_EXPORT cublasStatus_t cublasLtMatrixTransformDescCreate(cublasLtMatrixTransformDesc_t *d, cudaDataType scale) {
    LT("transform_desc_create", "(Ki)", P(d), (int)scale);
}
CML_EXPORT cublasStatus_t cublasLtMatrixTransform(cublasLtHandle_t h, cublasLtMatrixTransformDesc_t desc,
                                                  const void *alpha, const void *A, cublasLtMatrixLayout_t adesc,
                                                  const void *beta, const void *B, cublasLtMatrixLayout_t bdesc,
                                                  void *C, cublasLtMatrixLayout_t cdesc, cudaStream_t stream) {
    LT("transform", "(KKKKKKKKKKK)", P(h), P(desc), P(alpha), P(A), P(adesc), P(beta), P(B), P(bdesc), P(C), P(cdesc),
       P(stream));
}

/* the stack-allocated forms: the struct's address becomes the object's handle */
CML_EXPORT cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t d, size_t size,
                                                          cublasComputeType_t compute, cudaDataType scale) {
    LT("obj_init", "(iKKLLLL)", 0, P(d), U(size), (long long)compute, (long long)scale, 0LL, 0LL);
}
CML_EXPORT cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t l, size_t size, cudaDataType type,
                                                            uint64_t rows, uint64_t cols, int64_t ld) {
    LT("obj_init", "(iKKLLLL)", 1, P(l), U(size), (long long)type, (long long)rows, (long long)cols, (long long)ld);
}
CML_EXPORT cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t p, size_t size) {
    LT("obj_init", "(iKKLLLL)", 2, P(p), U(size), 0LL, 0LL, 0LL, 0LL);
}
CML_EXPORT cublasStatus_t cublasLtMatrixTransformDescInit_internal(cublasLtMatrixTransformDesc_t d, size_t size,
                                                                   cudaDataType scale) {
    LT("obj_init", "(iKKLLLL)", 3, P(d), U(size), (long long)scale, 0LL, 0LL, 0LL);
}

CML_EXPORT cublasStatus_t cublasLtMatmulAlgoGetIds(cublasLtHandle_t h, cublasComputeType_t compute,
                                                   cudaDataType scale, cudaDataType a, cudaDataType b,
                                                   cudaDataType c, cudaDataType d, int requested, int ids[],
                                                   int *count) {
    LT("algo_get_ids", "(KiiiiiiiKK)", P(h), (int)compute, (int)scale, (int)a, (int)b, (int)c, (int)d, requested,
       P(ids), P(count));
}
CML_EXPORT cublasStatus_t cublasLtMatmulAlgoInit(cublasLtHandle_t h, cublasComputeType_t compute, cudaDataType scale,
                                                 cudaDataType a, cudaDataType b, cudaDataType c, cudaDataType d,
                                                 int id, cublasLtMatmulAlgo_t *algo) {
    LT("algo_init", "(KiiiiiiiK)", P(h), (int)compute, (int)scale, (int)a, (int)b, (int)c, (int)d, id, P(algo));
}
CML_EXPORT cublasStatus_t cublasLtMatmulAlgoCheck(cublasLtHandle_t h, cublasLtMatmulDesc_t op, cublasLtMatrixLayout_t a,
                                                  cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c,
                                                  cublasLtMatrixLayout_t d, const cublasLtMatmulAlgo_t *algo,
                                                  cublasLtMatmulHeuristicResult_t *result) {
    LT("algo_check", "(KKKKKKKK)", P(h), P(op), P(a), P(b), P(c), P(d), P(algo), P(result));
}
CML_EXPORT cublasStatus_t cublasLtMatmulAlgoCapGetAttribute(const cublasLtMatmulAlgo_t *algo,
                                                            cublasLtMatmulAlgoCapAttributes_t attr, void *buf,
                                                            size_t size, size_t *written) {
    LT("algo_cap_get", "(KiKKK)", P(algo), (int)attr, P(buf), U(size), P(written));
}
CML_EXPORT cublasStatus_t cublasLtMatmulAlgoConfigSetAttribute(cublasLtMatmulAlgo_t *algo,
                                                               cublasLtMatmulAlgoConfigAttributes_t attr,
                                                               const void *buf, size_t size) {
    LT("algo_config_set", "(KiKK)", P(algo), (int)attr, P(buf), U(size));
}
CML_EXPORT cublasStatus_t cublasLtMatmulAlgoConfigGetAttribute(const cublasLtMatmulAlgo_t *algo,
                                                               cublasLtMatmulAlgoConfigAttributes_t attr, void *buf,
                                                               size_t size, size_t *written) {
    LT("algo_config_get", "(KiKKK)", P(algo), (int)attr, P(buf), U(size), P(written));
}

CML_EXPORT cublasStatus_t cublasLtHeuristicsCacheGetCapacity(size_t *capacity) {
    LT("heuristics_cache", "(iK)", 1, P(capacity));
}
CML_EXPORT cublasStatus_t cublasLtHeuristicsCacheSetCapacity(size_t capacity) {
    LT("heuristics_cache", "(iK)", 0, U(capacity));
}
static unsigned cpu_instructions_mask;
CML_EXPORT unsigned cublasLtDisableCpuInstructionsSetMask(unsigned mask) {
    unsigned old = cpu_instructions_mask; /* stored: CuMetal's library has no CPU-specific paths to disable */
    cpu_instructions_mask = mask;
    return old;
}

CML_EXPORT cublasStatus_t cublasLtLoggerSetCallback(cublasLtLoggerCallback_t callback) {
    LT("logger_set_callback", "(K)", P(callback));
}
CML_EXPORT cublasStatus_t cublasLtLoggerSetFile(FILE *file) { LT("logger_set_file", "(K)", P(file)); }
CML_EXPORT cublasStatus_t cublasLtLoggerOpenFile(const char *path) { LT("logger_open_file", "(K)", P(path)); }
CML_EXPORT cublasStatus_t cublasLtLoggerSetLevel(int level) { LT("logger_set_level", "(i)", level); }
CML_EXPORT cublasStatus_t cublasLtLoggerSetMask(int mask) { LT("logger_set_mask", "(i)", mask); }
CML_EXPORT cublasStatus_t cublasLtLoggerForceDisable(void) { LT("logger_force_disable", "()", 0); }

CML_EXPORT cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t h, cublasLtMatmulDesc_t op,
                                                         cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                                         cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                                                         cublasLtMatmulPreference_t pref, int requested,
                                                         cublasLtMatmulHeuristicResult_t results[], int *count) {
    LT("heuristic", "(KKKKKKKiKK)", P(h), P(op), P(a), P(b), P(c), P(d), P(pref), requested, P(results), P(count));
}

CML_EXPORT cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t desc, const void *alpha,
                                         const void *A, cublasLtMatrixLayout_t adesc, const void *B,
                                         cublasLtMatrixLayout_t bdesc, const void *beta, const void *C,
                                         cublasLtMatrixLayout_t cdesc, void *D, cublasLtMatrixLayout_t ddesc,
                                         const cublasLtMatmulAlgo_t *algo, void *workspace, size_t workspace_size,
                                         cudaStream_t stream) {
    LT("matmul", "(KKKKKKKKKKKKKK)", P(h), P(desc), P(alpha), P(A), P(adesc), P(B), P(bdesc), P(beta), P(C), P(cdesc),
       P(D), P(ddesc), P(stream), P(algo));
}

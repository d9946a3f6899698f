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
    LT("matmul", "(KKKKKKKKKKKKK)", P(h), P(desc), P(alpha), P(A), P(adesc), P(B), P(bdesc), P(beta), P(C), P(cdesc),
       P(D), P(ddesc), P(stream));
}

/* From C: cuda_runtime.h (make_float4 as a compound literal) and cublas_v2.h; the handle API and a
 * batched least-squares solve (cublasDgelsBatched, a C-only caller of the new QR entry points). */
#include <cuda_runtime.h>
#include <cublas_v2.h>

int plain_c_cublas_handle(void) {
    float4 v = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
    if (v.x + v.y + v.z + v.w != 10.0f)
        return 3;
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS)
        return 1;
    /* library_types.h's enums under both typedef names, as C code spells them */
    cudaDataType_t t1 = CUDA_R_32F;
    cudaDataType t2 = t1;
    libraryPropertyType_t major = MAJOR_VERSION;
    cudaEmulationStrategy_t strategy = CUDA_EMULATION_STRATEGY_EAGER;
    cudaEmulationSpecialValuesSupport_t mask = CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_NAN;
    cudaEmulationSpecialValuesSupport mask_read;
    cudaEmulationMantissaControl control = CUDA_EMULATION_MANTISSA_CONTROL_FIXED;
    cudaEmulationMantissaControl_t control_read;
    if (t2 != CUDA_R_32F || major != MAJOR_VERSION || strategy != CUDA_EMULATION_STRATEGY_EAGER ||
        cublasSetEmulationSpecialValuesSupport(handle, mask) != CUBLAS_STATUS_SUCCESS ||
        cublasGetEmulationSpecialValuesSupport(handle, &mask_read) != CUBLAS_STATUS_SUCCESS || mask_read != mask ||
        cublasSetFixedPointEmulationMantissaControl(handle, control) != CUBLAS_STATUS_SUCCESS ||
        cublasGetFixedPointEmulationMantissaControl(handle, &control_read) != CUBLAS_STATUS_SUCCESS ||
        control_read != control)
        return 5;
    /* min ||A x - b||: A's columns (1,1,1,1) and (0,1,2,3), b = (1,3,5,8): x = (0.8, 2.3) */
    double a[8] = {1, 1, 1, 1, 0, 1, 2, 3}, b[4] = {1, 3, 5, 8}, x[4];
    double *da, *db, **pa, **pb;
    int *dev_info, info = -99, failed = 0;
    cudaMalloc((void **)&da, sizeof a);
    cudaMalloc((void **)&db, sizeof b);
    cudaMalloc((void **)&pa, sizeof da);
    cudaMalloc((void **)&pb, sizeof db);
    cudaMalloc((void **)&dev_info, sizeof info);
    cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
    cudaMemcpy(pa, &da, sizeof da, cudaMemcpyHostToDevice);
    cudaMemcpy(pb, &db, sizeof db, cudaMemcpyHostToDevice);
    if (cublasDgelsBatched(handle, CUBLAS_OP_N, 4, 2, 1, pa, 4, pb, 4, &info, dev_info, 1) != CUBLAS_STATUS_SUCCESS ||
        info != 0)
        failed = 4;
    cudaMemcpy(x, db, sizeof x, cudaMemcpyDeviceToHost);
    if (!failed && (x[0] < 0.8 - 1e-12 || x[0] > 0.8 + 1e-12 || x[1] < 2.3 - 1e-12 || x[1] > 2.3 + 1e-12))
        failed = 5;
    cudaFree(da);
    cudaFree(db);
    cudaFree(pa);
    cudaFree(pb);
    cudaFree(dev_info);
    if (cublasDestroy(handle) != CUBLAS_STATUS_SUCCESS)
        return 2;
    return failed;
}

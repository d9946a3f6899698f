/* CuMetal clean-room CUDA headers: curand_mtgp32.h — the MTGP32 types of cuRAND's device API
 * (cuRAND documentation, "Bit Generation with the MTGP32 generator"; the MTGP algorithm of Saito and
 * Matsumoto). One state serves one thread block of up to 256 threads; the kernel parameters hold
 * up to 200 parameter sets (curand_mtgp32dc_p_11213.h) in device memory. */
#ifndef CURAND_MTGP32_H
#define CURAND_MTGP32_H

#define MTGPDC_MEXP 11213
#define MTGPDC_N 351
#define MTGPDC_FLOOR_2P 256
#define MTGPDC_CEIL_2P 512
#define MTGPDC_PARAM_TABLE mtgp32dc_params_fast_11213
#define MTGP32_STATE_SIZE 1024
#define MTGP32_STATE_MASK 1023
#define CURAND_NUM_MTGP32_PARAMS 200
#define MEXP 11213
#define THREAD_NUM MTGPDC_FLOOR_2P
#define LARGE_SIZE (THREAD_NUM * 3)
#define BLOCK_NUM_MAX CURAND_NUM_MTGP32_PARAMS
#define TBL_SIZE 16

/* one published parameter set (as the MTGP distribution lays it out) */
typedef struct mtgp32_params_fast {
    int mexp;                       /* Mersenne exponent: 11213 */
    int pos;                        /* pick-up position */
    int sh1;                        /* shift value 1 */
    int sh2;                        /* shift value 2 */
    unsigned int tbl[16];           /* recursion table */
    unsigned int tmp_tbl[16];       /* tempering table */
    unsigned int flt_tmp_tbl[16];   /* tempering table for floats in [1, 2): tmp_tbl >> 9 | 1.0f */
    unsigned int mask;              /* the 32 - (mexp mod 32) high bits of the first word */
    unsigned char poly_sha1[21];    /* SHA-1 of the characteristic polynomial (identification) */
} mtgp32_params_fast_t;

/* the parameter sets in the layout the device functions read (curandMakeMTGP32Constants) */
typedef struct mtgp32_kernel_params {
    unsigned int pos_tbl[CURAND_NUM_MTGP32_PARAMS];
    unsigned int param_tbl[CURAND_NUM_MTGP32_PARAMS][TBL_SIZE];
    unsigned int temper_tbl[CURAND_NUM_MTGP32_PARAMS][TBL_SIZE];
    unsigned int single_temper_tbl[CURAND_NUM_MTGP32_PARAMS][TBL_SIZE];
    unsigned int sh1_tbl[CURAND_NUM_MTGP32_PARAMS];
    unsigned int sh2_tbl[CURAND_NUM_MTGP32_PARAMS];
    unsigned int mask[1];
} mtgp32_kernel_params_t;

/* one block's generator: the last MTGPDC_N words of the sequence in a ring of 1024 */
typedef struct curandStateMtgp32 {
    unsigned int s[MTGP32_STATE_SIZE];
    int offset;
    int pIdx;
    mtgp32_kernel_params_t *k;
} curandStateMtgp32_t;

#endif /* CURAND_MTGP32_H */

/* CuMetal clean-room CUDA headers: curand_mtgp32_host.h — the host half of cuRAND's MTGP32 device
 * API (cuRAND documentation, "Bit Generation with the MTGP32 generator"):
 *   curandMakeMTGP32Constants(params, k)            copy a parameter table (e.g.
 *                                                   mtgp32dc_params_fast_11213) to device memory k
 *   curandMakeMTGP32KernelState(s, params, k, n, seed)  initialise n block states in device memory:
 *                                                   state i runs parameter set i from MTGP's
 *                                                   initialisation with s + i + 1, s being the two
 *                                                   halves of the seed XORed, as cuRAND's host
 *                                                   generator does (recorded on an H100, tests/libs). */
#ifndef CURAND_MTGP32_HOST_H
#define CURAND_MTGP32_HOST_H

#include <stdlib.h>
#include <string.h>

#include "curand.h"
#include "curand_mtgp32.h"

/* MTGP's state initialisation: the seed, a hidden word from the parameter set, then the
 * multiplicative recurrence of Knuth's initialiser XORed over a byte-filled array */
static inline void __cm_mtgp32_init_state(unsigned int s[], const mtgp32_params_fast_t *para, unsigned int seed) {
    const int size = para->mexp / 32 + 1;
    unsigned int hidden = para->tbl[4] ^ (para->tbl[8] << 16);
    unsigned int fill = hidden;
    fill += fill >> 16;
    fill += fill >> 8;
    memset(s, (int)(fill & 0xff), sizeof(unsigned int) * (size_t)size);
    s[0] = seed;
    s[1] = hidden;
    for (int i = 1; i < size; i++) s[i] ^= 1812433253u * (s[i - 1] ^ (s[i - 1] >> 30)) + (unsigned int)i;
}

static inline curandStatus_t curandMakeMTGP32Constants(const mtgp32_params_fast_t params[],
                                                       mtgp32_kernel_params_t *p) {
    mtgp32_kernel_params_t *h = (mtgp32_kernel_params_t *)calloc(1, sizeof(mtgp32_kernel_params_t));
    if (h == NULL) return CURAND_STATUS_ALLOCATION_FAILED;
    for (int i = 0; i < CURAND_NUM_MTGP32_PARAMS; i++) {
        h->pos_tbl[i] = (unsigned int)params[i].pos;
        h->sh1_tbl[i] = (unsigned int)params[i].sh1;
        h->sh2_tbl[i] = (unsigned int)params[i].sh2;
        for (int j = 0; j < TBL_SIZE; j++) {
            h->param_tbl[i][j] = params[i].tbl[j];
            h->temper_tbl[i][j] = params[i].tmp_tbl[j];
            h->single_temper_tbl[i][j] = params[i].flt_tmp_tbl[j];
        }
    }
    h->mask[0] = params[0].mask;
    cudaError_t e = cudaMemcpy(p, h, sizeof(mtgp32_kernel_params_t), cudaMemcpyHostToDevice);
    free(h);
    return e == cudaSuccess ? CURAND_STATUS_SUCCESS : CURAND_STATUS_INITIALIZATION_FAILED;
}

static inline curandStatus_t curandMakeMTGP32KernelState(curandStateMtgp32_t *s, mtgp32_params_fast_t params[],
                                                         mtgp32_kernel_params_t *k, int n,
                                                         unsigned long long seed) {
    if (n <= 0 || n > CURAND_NUM_MTGP32_PARAMS) return CURAND_STATUS_OUT_OF_RANGE;
    curandStateMtgp32_t *h = (curandStateMtgp32_t *)calloc((size_t)n, sizeof(curandStateMtgp32_t));
    if (h == NULL) return CURAND_STATUS_ALLOCATION_FAILED;
    for (int i = 0; i < n; i++) {
        __cm_mtgp32_init_state(h[i].s, &params[i], (unsigned int)(seed ^ (seed >> 32)) + (unsigned int)i + 1u);
        h[i].offset = 0;
        h[i].pIdx = i;
        h[i].k = k;
    }
    cudaError_t e = cudaMemcpy(s, h, sizeof(curandStateMtgp32_t) * (size_t)n, cudaMemcpyHostToDevice);
    free(h);
    return e == cudaSuccess ? CURAND_STATUS_SUCCESS : CURAND_STATUS_INITIALIZATION_FAILED;
}

#endif /* CURAND_MTGP32_HOST_H */

/* cuRAND's host API: the per-element H100 models and the generators' inner loops in C
 * (libcumetal_curand_host, built by cumetal.libs.build.curand_host_path, called through ctypes by
 * cumetal.libs.curand.fast). Every function here has a numpy twin in cumetal/libs/curand/ that
 * gives the same bits (tests/libs/test_curand_fast.py); constants and tables come from those
 * modules through the cmh_set_* calls, so each model has one set of constants.
 * Built with -ffp-contract=off and no fast-math: every a * b + c here is two roundings, every
 * fma() one, as in the numpy twins. */
#pragma once
#include <stdint.h>

#define CMH_API __attribute__((visibility("default")))

/* h100_f64 / h100_erfcinv constants: the polynomials (lowest order first) and the scalars */
CMH_API void cmh_set_f64(const double *sin_p, const double *cos_q, const double *exp_p, const double *log_p,
                         const double *p_central, const double *erf_log_p, const double *scalars);
CMH_API void cmh_fma_f64(const double *a, const double *b, const double *c, int64_t n, double *out);
CMH_API void cmh_sincospi(const double *v, int64_t n, double *s, double *c);
CMH_API void cmh_exp(const double *x, int64_t n, double *out);
CMH_API void cmh_log(const double *u, int64_t n, double *out);
CMH_API void cmh_erfcinv(const double *c, int64_t n, double *out, uint8_t *central);

/* MUFU tables (cumetal.ir.semantics.mufu.Interp: words, then per coefficient pos, bits, shift, bias, then
 * c2_sign, xl_bits) for sin, ex2, lg2; the truncated squarer's terms (j, square, mask); the float
 * scalars (see fast._load) and the logf / erfcinvf coefficients */
CMH_API void cmh_set_f32(const uint64_t *sin_words, const int64_t *sin_desc, const uint64_t *ex2_words,
                         const int64_t *ex2_desc, const uint64_t *lg2_words, const int64_t *lg2_desc,
                         const int64_t *sq_terms, int64_t nterms, const uint32_t *scalars,
                         const uint32_t *logf_coeffs, const uint32_t *erfcinvf_coeffs);
CMH_API void cmh_sincos_bits(const uint32_t *x, int64_t n, uint32_t *s, uint32_t *c);
CMH_API void cmh_logf_bits(const uint32_t *x, int64_t n, uint32_t *out);
CMH_API void cmh_expf_bits(const uint32_t *x, int64_t n, uint32_t *out);
CMH_API void cmh_lg2_bits(const uint32_t *x, int64_t n, uint32_t *out);
CMH_API void cmh_erfcinvf_bits(const uint32_t *c, int64_t n, uint32_t *out, uint8_t *central);

/* MRG32k3a: states of consecutive subsequences, and positions of many subsequences */
CMH_API void cmh_mrg_chain(const int64_t *s0, const int64_t *j1, const int64_t *j2, int64_t count, int64_t *out);
CMH_API void cmh_mrg_positions(const int64_t *states, int64_t t, const int64_t *a1, const int64_t *a2,
                               int64_t count, double *out);

/* MT19937: states jumped by a polynomial given as its Horner schedule (steps, digit) */
CMH_API void cmh_mt_jump(const uint32_t *states, int64_t count, const int64_t *sched_steps,
                         const int64_t *sched_digit, int64_t nsched, int64_t tail_steps, uint32_t *out);
/* MTGP32: len outputs of each of count states (mtgp32.sequences; per-state parameter rows) */
CMH_API void cmh_mtgp_sequences(const uint32_t *states, int64_t count, const int64_t *pos, const uint32_t *sh1,
                                const uint32_t *sh2, const uint32_t *tbl, const uint32_t *tmp, uint32_t mask,
                                int64_t len, uint32_t *out);
/* MT19937: the first len outputs (tempered) of each of count states */
CMH_API void cmh_mt_outputs(const uint32_t *states, int64_t count, int64_t len, uint32_t *out);

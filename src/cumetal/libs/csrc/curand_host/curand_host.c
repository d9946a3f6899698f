/* cuRAND's host API in C: see curand_host.h. The steps follow the numpy models line by line:
 * h100_f64.py (sincospi, exp, log), h100_erfcinv.py (erfcinv), streams.py (MRG32k3a),
 * mt19937.py (the jump). */
#include "curand_host.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- double models (h100_f64.py, h100_erfcinv.py) ---------------------------------------- */

static double SIN_P[6], COS_Q[8], EXP_P[11], LOG_P[8], P_CENTRAL[23];
static double PI_HI, PI_LO, LOG_LN2_HI, LOG_LN2_LO, SQRT_HALF, LOG2E, LN2_HI, LN2_LO, ERF_LN2, SPLIT_W, CENTRE;

void cmh_set_f64(const double *sin_p, const double *cos_q, const double *exp_p, const double *log_p,
                 const double *p_central, const double *sc) {
  memcpy(SIN_P, sin_p, sizeof SIN_P);
  memcpy(COS_Q, cos_q, sizeof COS_Q);
  memcpy(EXP_P, exp_p, sizeof EXP_P);
  memcpy(LOG_P, log_p, sizeof LOG_P);
  memcpy(P_CENTRAL, p_central, sizeof P_CENTRAL);
  PI_HI = sc[0]; PI_LO = sc[1]; LOG_LN2_HI = sc[2]; LOG_LN2_LO = sc[3]; SQRT_HALF = sc[4];
  LOG2E = sc[5]; LN2_HI = sc[6]; LN2_LO = sc[7]; ERF_LN2 = sc[8]; SPLIT_W = sc[9]; CENTRE = sc[10];
}

/* p = c[n-1]; p = fma(p, z, c[k]) for k = n-2 .. 0 (h100_f64.horner) */
static inline double horner(const double *c, int n, double z) {
  double p = c[n - 1];
  for (int k = n - 2; k >= 0; k--) p = fma(p, z, c[k]);
  return p;
}

void cmh_fma_f64(const double *a, const double *b, const double *c, int64_t n, double *out) {
  for (int64_t i = 0; i < n; i++) out[i] = fma(a[i], b[i], c[i]);
}

void cmh_sincospi(const double *v, int64_t n, double *so, double *co) {
  for (int64_t i = 0; i < n; i++) {
    double vi = v[i];
    double j = rint(2.0 * vi);
    double t = vi - 0.5 * j;
    double x = fma(t, PI_HI, t * PI_LO);
    double r = x * x;
    double s = fma(horner(SIN_P, 6, r) * r, x, x);
    double c = fma(horner(COS_Q, 8, r), r, 1.0);
    /* numpy's int64 cast of a non-finite or huge j gives INT64_MIN (quadrant 0) on x86 */
    int64_t q = (isfinite(j) && fabs(j) < 9.2e18) ? (((int64_t)j) & 3) : 0;
    double sn = q == 0 ? s : q == 1 ? c : q == 2 ? -s : -c;
    double cs = q == 0 ? c : q == 1 ? -s : q == 2 ? -c : s;
    if (t == 0) {  /* multiples of 1/2 */
      if ((q & 1) == 0) sn = copysign(0.0, vi);
      else cs = 0.0;
    }
    so[i] = sn;
    co[i] = cs;
  }
}

/* |x| <= 708 only: the caller fills the rest with numpy's exp */
void cmh_exp(const double *x, int64_t n, double *out) {
  for (int64_t i = 0; i < n; i++) {
    double xi = fabs(x[i]) <= 708.0 ? x[i] : 0.0;
    double j = rint(xi * LOG2E);
    double r = fma(-j, LN2_LO, fma(-j, LN2_HI, xi));
    out[i] = ldexp(fma(horner(EXP_P, 11, r), r, 1.0), (int)j);
  }
}

/* finite u > 0 only: the caller fills the rest with numpy's log */
void cmh_log(const double *u, int64_t n, double *out) {
  for (int64_t i = 0; i < n; i++) {
    double uu = (isfinite(u[i]) && u[i] > 0) ? u[i] : 1.0;
    int ex;
    double mant = frexp(uu, &ex);
    int small = mant < SQRT_HALF;
    double m = small ? 2.0 * mant : mant;
    double e = (double)(small ? ex - 1 : ex);
    double f = m - 1.0;
    double g = 1.0 / (m + 1.0);
    double w = (2.0 * f) * g;
    double w_lo = g * fma(-w, f, 2.0 * (f - w));
    double v = w * w;
    double lo = fma(w, v * horner(LOG_P, 8, v), w_lo);
    double hi = e * LOG_LN2_HI;
    double s = hi + w;
    double bb = s - hi;
    double s_lo = (hi - (s - bb)) + (w - bb);
    out[i] = s + (s_lo + fma(e, LOG_LN2_LO, lo));
  }
}

/* h100_erfcinv.log: the same steps summed as fma(e, RN(ln2), fma(w, RN(v P(v)), w + w_lo)) */
static inline double erf_log(double u) {
  int ex;
  double mant = frexp(u, &ex);
  int small = mant < SQRT_HALF;
  double m = small ? 2.0 * mant : mant;
  double e = (double)(small ? ex - 1 : ex);
  double f = m - 1.0;
  double g = 1.0 / (m + 1.0);
  double w = (2.0 * f) * g;
  double w_lo = g * fma(-w, f, 2.0 * (f - w));
  double v = w * w;
  double r = fma(w, v * horner(LOG_P, 8, v), w + w_lo);
  return fma(e, ERF_LN2, r);
}

void cmh_erfcinv(const double *c, int64_t n, double *out, uint8_t *central) {
  for (int64_t i = 0; i < n; i++) {
    double ci = c[i];
    int upper = ci > 1.0;
    double cc = upper ? 2.0 - ci : ci;
    int ok = cc > 0.0 && cc < 1.0;
    double cs = ok ? cc : 0.5;
    double w = -erf_log(cs * (2.0 - cs));
    int cen = ok && w < SPLIT_W;
    double t = (cen ? w : CENTRE) - CENTRE;
    double p = P_CENTRAL[0];
    for (int k = 1; k < 23; k++) p = fma(p, t, P_CENTRAL[k]);
    double y = fma(p, -cs, p);
    if (upper) y = -y;
    if (ci == 1.0) { cen = 1; y = 0.0; }
    out[i] = cen ? y : (double)NAN;
    central[i] = (uint8_t)cen;
  }
}

/* ---- MRG32k3a (streams.py) ------------------------------------------------------------------ */

#define MRG_M1 4294967087LL
#define MRG_M2 4294944443LL

static inline int64_t mulmod(int64_t a, int64_t b, int64_t m) {  /* a, b in [0, m), m < 2^32 */
  return (int64_t)(((uint64_t)a * (uint64_t)b) % (uint64_t)m);
}

static inline void mat_vec(const int64_t *a, int64_t *v, int64_t m) {
  int64_t r[3];
  for (int i = 0; i < 3; i++)
    r[i] = (mulmod(a[3 * i], v[0], m) + mulmod(a[3 * i + 1], v[1], m) + mulmod(a[3 * i + 2], v[2], m)) % m;
  v[0] = r[0]; v[1] = r[1]; v[2] = r[2];
}

/* out[s] = (j1^s s0[0:3], j2^s s0[3:6]) for s < count */
void cmh_mrg_chain(const int64_t *s0, const int64_t *j1, const int64_t *j2, int64_t count, int64_t *out) {
  int64_t a[3] = {s0[0], s0[1], s0[2]}, b[3] = {s0[3], s0[4], s0[5]};
  for (int64_t s = 0; s < count; s++) {
    int64_t *o = out + 6 * s;
    o[0] = a[0]; o[1] = a[1]; o[2] = a[2]; o[3] = b[0]; o[4] = b[1]; o[5] = b[2];
    mat_vec(j1, a, MRG_M1);
    mat_vec(j2, b, MRG_M2);
  }
}

static inline int64_t pmod(int64_t x, int64_t m) {
  int64_t r = x % m;
  return r < 0 ? r + m : r;
}

/* out[i * t + s]: position i of subsequence s (states (t, 6), first advanced by a1/a2 when given) */
void cmh_mrg_positions(const int64_t *states, int64_t t, const int64_t *a1, const int64_t *a2,
                       int64_t count, double *out) {
  for (int64_t s = 0; s < t; s++) {
    int64_t x[3] = {states[6 * s], states[6 * s + 1], states[6 * s + 2]};
    int64_t y[3] = {states[6 * s + 3], states[6 * s + 4], states[6 * s + 5]};
    if (a1) {
      mat_vec(a1, x, MRG_M1);
      mat_vec(a2, y, MRG_M2);
    }
    int64_t s10 = x[0], s11 = x[1], s12 = x[2], s20 = y[0], s21 = y[1], s22 = y[2];
    for (int64_t i = 0; i < count; i++) {
      int64_t p1 = pmod(1403580 * s11 - 810728 * s10, MRG_M1);
      s10 = s11; s11 = s12; s12 = p1;
      int64_t p2 = pmod(527612 * s22 - 1370589 * s20, MRG_M2);
      s20 = s21; s21 = s22; s22 = p2;
      int64_t p = p1 - p2;
      out[i * t + s] = (double)(p <= 0 ? p + MRG_M1 : p);
    }
  }
}

/* ---- MT19937 jump (mt19937.py) ------------------------------------------------------------- */

#define MT_N 624
#define MT_M 397
#define MT_WINDOW 7

/* k one-word steps of the recurrence on a circular state whose logical word 0 is at ptr */
static int mt_run(uint32_t *mt, int ptr, int64_t k) {
  for (int64_t j = 0; j < k; j++) {
    int i1 = ptr + 1 == MT_N ? 0 : ptr + 1;
    int im = ptr + MT_M >= MT_N ? ptr + MT_M - MT_N : ptr + MT_M;
    uint32_t y = (mt[ptr] & 0x80000000u) | (mt[i1] & 0x7fffffffu);
    mt[ptr] = mt[im] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    ptr = i1;
  }
  return ptr;
}

/* dst += src as states (logical word i of each at (ptr + i) % N) */
static void mt_add(uint32_t *restrict dst, int dptr, const uint32_t *restrict src, int sptr) {
  int shift = ((dptr - sptr) % MT_N + MT_N) % MT_N;
  for (int i = 0; i < MT_N - shift; i++) dst[shift + i] ^= src[i];
  for (int i = 0; i < shift; i++) dst[i] ^= src[MT_N - shift + i];
}

void cmh_mt_jump(const uint32_t *states, int64_t count, const int64_t *sched_steps, const int64_t *sched_digit,
                 int64_t nsched, int64_t tail_steps, uint32_t *out) {
  uint32_t *powers = malloc(sizeof(uint32_t) * MT_N * (MT_WINDOW + 1));
  uint32_t *table = malloc(sizeof(uint32_t) * MT_N * (1 << MT_WINDOW));
  uint32_t acc[MT_N];
  for (int64_t g = 0; g < count; g++) {
    const uint32_t *st = states + (size_t)g * MT_N;
    memcpy(powers, st, sizeof(uint32_t) * MT_N);
    for (int k = 0; k < MT_WINDOW; k++) {  /* powers[k] = F^k(states), ptr k */
      memcpy(powers + (k + 1) * MT_N, powers + k * MT_N, sizeof(uint32_t) * MT_N);
      mt_run(powers + (k + 1) * MT_N, k, 1);
    }
    for (int d = 0; d < (1 << MT_WINDOW); d++) {
      uint32_t *t = table + (size_t)d * MT_N;
      memcpy(t, powers + MT_WINDOW * MT_N, sizeof(uint32_t) * MT_N);
      for (int b = 0; b < MT_WINDOW; b++)
        if ((d >> b) & 1) mt_add(t, MT_WINDOW, powers + b * MT_N, b);
    }
    memset(acc, 0, sizeof acc);
    int ptr = 0;
    for (int64_t s = 0; s < nsched; s++) {
      ptr = mt_run(acc, ptr, sched_steps[s]);
      if (sched_digit[s] < 0) mt_add(acc, ptr, st, 0);
      else mt_add(acc, ptr, table + (size_t)sched_digit[s] * MT_N, MT_WINDOW);
    }
    ptr = mt_run(acc, ptr, tail_steps);
    uint32_t *o = out + (size_t)g * MT_N;
    for (int i = 0; i < MT_N; i++) o[i] = acc[(ptr + i) % MT_N];
  }
  free(powers);
  free(table);
}

/* cuRAND's host API in C: see curand_host.h. The steps follow the numpy models line by line:
 * h100_f64.py (sincospi, exp, log), h100_erfcinv.py (erfcinv), streams.py (MRG32k3a),
 * mt19937.py (the jump). */
#include "curand_host.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- double models (h100_f64.py, h100_erfcinv.py) ---------------------------------------- */

static double SIN_P[6], COS_Q[8], EXP_P[11], LOG_P[8], P_CENTRAL[23], ERF_LOG_P[20];
static double PI_HI, PI_LO, LOG_LN2_HI, LOG_LN2_LO, SQRT_HALF, LOG2E, LN2_HI, LN2_LO, ERF_LN2, SPLIT_W, CENTRE;

void cmh_set_f64(const double *sin_p, const double *cos_q, const double *exp_p, const double *log_p,
                 const double *p_central, const double *erf_log_p, const double *sc) {
  memcpy(SIN_P, sin_p, sizeof SIN_P);
  memcpy(COS_Q, cos_q, sizeof COS_Q);
  memcpy(EXP_P, exp_p, sizeof EXP_P);
  memcpy(LOG_P, log_p, sizeof LOG_P);
  memcpy(P_CENTRAL, p_central, sizeof P_CENTRAL);
  memcpy(ERF_LOG_P, erf_log_p, sizeof ERF_LOG_P);
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

/* h100_erfcinv.log: u = 4^k m, m in [1/2, 2); the quotient 2f/(m+1) refined once; fma(2k, RN(ln2), r) */
static inline double erf_log(double u) {
  int ex;
  double mant = frexp(u, &ex);  /* [1/2, 1) */
  int odd = ((ex - 1) & 1) != 0;
  double m = odd ? mant : 2.0 * mant;
  double k2 = (double)(odd ? ex : ex - 1);
  double f = m - 1.0;
  double g = 1.0 / (m + 1.0);
  double w0 = (2.0 * f) * g;
  double w = fma(g, fma(-w0, f, 2.0 * (f - w0)), w0);
  double w_lo = g * fma(-w, f, 2.0 * (f - w));
  double v = w * w;
  double r = fma(w, v * horner(ERF_LOG_P, 20, v), w + w_lo);
  return fma(k2, ERF_LN2, r);
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

/* ---- float models: MUFU sin/cos/ex2/lg2 (ir/semantics/mufu.py), logf (logf.py), expf (expf.py),
 * erfcinvf (h100_erfcinvf.py); integer steps in int64 as the numpy models ---------------------- */

typedef struct {
  const uint64_t *words;
  int64_t pos[3], bits[3], shift[3], bias[3];
  int64_t c2_sign, xl_bits;
} Interp;

static Interp SIN_T, EX2_T, LG2_T;
static int64_t SQ_J[32], SQ_SQUARE[32], SQ_MASK[32];
static int SQ_N;
static uint32_t TURN, LOGF_REDUCE, LOGF_LN2, EXPF_SPLIT, EXPF_L2E, EXPF_L2E_LO, EXPF_MAGIC, EXPF_UNBIAS, ERFCINVF_SPLIT;
static uint32_t LOGF_C[8], ERFCINVF_C[11];
static uint64_t *WORDS_COPY[3];

static void set_interp(Interp *t, const uint64_t *words, const int64_t *d, int which) {
  free(WORDS_COPY[which]);
  WORDS_COPY[which] = malloc(sizeof(uint64_t) * (size_t)d[14]);
  memcpy(WORDS_COPY[which], words, sizeof(uint64_t) * (size_t)d[14]);
  t->words = WORDS_COPY[which];
  for (int f = 0; f < 3; f++) {
    t->pos[f] = d[4 * f];
    t->bits[f] = d[4 * f + 1];
    t->shift[f] = d[4 * f + 2];
    t->bias[f] = d[4 * f + 3];
  }
  t->c2_sign = d[12];
  t->xl_bits = d[13];
}

void cmh_set_f32(const uint64_t *sin_words, const int64_t *sin_desc, const uint64_t *ex2_words,
                 const int64_t *ex2_desc, const uint64_t *lg2_words, const int64_t *lg2_desc,
                 const int64_t *sq_terms, int64_t nterms, const uint32_t *sc,
                 const uint32_t *logf_coeffs, const uint32_t *erfcinvf_coeffs) {
  set_interp(&SIN_T, sin_words, sin_desc, 0);
  set_interp(&EX2_T, ex2_words, ex2_desc, 1);
  set_interp(&LG2_T, lg2_words, lg2_desc, 2);
  SQ_N = (int)nterms;
  for (int i = 0; i < SQ_N && i < 32; i++) {
    SQ_J[i] = sq_terms[3 * i];
    SQ_SQUARE[i] = sq_terms[3 * i + 1];
    SQ_MASK[i] = sq_terms[3 * i + 2];
  }
  TURN = sc[0]; LOGF_REDUCE = sc[1]; LOGF_LN2 = sc[2]; EXPF_SPLIT = sc[3]; EXPF_L2E = sc[4];
  EXPF_L2E_LO = sc[5]; EXPF_MAGIC = sc[6]; EXPF_UNBIAS = sc[7]; ERFCINVF_SPLIT = sc[8];
  memcpy(LOGF_C, logf_coeffs, sizeof LOGF_C);
  memcpy(ERFCINVF_C, erfcinvf_coeffs, sizeof ERFCINVF_C);
}

static inline float f_of(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static inline uint32_t b_of(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

/* R = C0 + C1 xl + sign C2 (tsq(xl) >> 19), segment r >> xl_bits (mufu.interpolate) */
static inline int64_t interpolate(const Interp *t, int64_t r) {
  int64_t seg = r >> t->xl_bits;
  uint64_t w = t->words[seg];
  int64_t xl = r & ((1LL << t->xl_bits) - 1);
  int64_t xs = xl << (17 - t->xl_bits);
  int64_t tsq = 0;
  for (int i = 0; i < SQ_N; i++)
    if ((xs >> SQ_J[i]) & 1) tsq += SQ_SQUARE[i] + ((xs & SQ_MASK[i]) << (SQ_J[i] + 1));
  int64_t c[3];
  for (int f = 0; f < 3; f++)
    c[f] = ((int64_t)((w >> t->pos[f]) & ((1ULL << t->bits[f]) - 1)) << t->shift[f]) + t->bias[f];
  return c[0] + c[1] * xl + t->c2_sign * c[2] * (tsq >> 19);
}

/* f32 bits of v >= 0 rounded toward zero (mufu._int_to_f32_rz; v = 0 gives (127 << 23)) */
static inline int64_t int_to_f32_rz(int64_t v) {
  int64_t nb = v > 0 ? 63 - __builtin_clzll((uint64_t)v) : 0;
  int64_t mant = nb > 23 ? v >> (nb - 23) : v << (23 - nb);
  return ((nb + 127) << 23) | (mant & 0x7FFFFF);
}

static inline int64_t turn_index(uint32_t bits) {
  int64_t a = bits & 0x7FFFFFFF, e = a >> 23;
  if (e == 0) return 0;
  int64_t mant = (a & 0x7FFFFF) | 0x800000;
  int64_t p = mant * (int64_t)((TURN & 0x7FFFFF) | 0x800000);
  int drop = p >= (1LL << 47) ? 24 : 23;
  uint64_t pw = (uint64_t)((p >> drop) << drop);
  int64_t sh = e - 151;
  uint64_t k;
  if (sh >= 0) k = sh >= 40 ? 0 : pw << sh;
  else k = -sh > 63 ? 0 : pw >> (-sh);
  return (int64_t)(k & ((1ULL << 25) - 1));
}

static inline uint32_t quadrant_value(int64_t k) {
  int64_t q = k >> 23, r = k & 0x7FFFFF;
  if (q & 1) r ^= 0x7FFFFF;
  int64_t big = interpolate(&SIN_T, r);
  int64_t bits = big == 0 ? 0 : int_to_f32_rz(big) - (37LL << 23);
  return (uint32_t)(bits | (q >= 2 ? 0x80000000LL : 0));
}

void cmh_sincos_bits(const uint32_t *x, int64_t n, uint32_t *so, uint32_t *co) {
  for (int64_t i = 0; i < n; i++) {
    uint32_t b = x[i];
    if ((b & 0x7F800000u) == 0x7F800000u) { so[i] = co[i] = 0x7FFFFFFFu; continue; }
    int64_t k = turn_index(b);
    so[i] = quadrant_value(k) ^ (b & 0x80000000u);
    co[i] = quadrant_value((k + (1LL << 23)) & ((1LL << 25) - 1));
  }
}

static inline uint32_t mufu_ex2(uint32_t xb) {
  int64_t bits = xb, a = bits & 0x7FFFFFFF, e = a >> 23;
  int64_t mant = (a & 0x7FFFFF) | 0x800000;
  int big_arg = e >= 127 + 8;
  int64_t fixed = e >= 127 ? mant << (e - 127 > 7 ? 7 : e - 127) : mant >> (127 - e > 63 ? 63 : 127 - e);
  if (e == 0) fixed = 0;
  int64_t ipart = fixed >> 23, frac = fixed & 0x7FFFFF;
  int neg = (bits >> 31) != 0;
  int64_t expo = neg ? (frac == 0 ? -ipart : -ipart - 1) : ipart;
  if (neg && frac != 0) frac ^= 0x7FFFFF;
  int64_t mbits = (interpolate(&EX2_T, frac) >> (39 - 23)) & 0x7FFFFF;
  int64_t r = ((expo + 127) << 23) | mbits;
  r = expo > 127 ? 0x7F800000 : expo < -126 ? 0 : r;
  if (big_arg) r = neg ? 0 : 0x7F800000;
  if (isnan(f_of(xb))) r = 0x7FFFFFFF;
  return (uint32_t)r;
}

static inline uint32_t ex2_bits(uint32_t xb) {
  float x = f_of(xb);
  if (x < -126.0f) {
    float r = f_of(mufu_ex2(b_of(x * 0.5f)));
    return b_of(r * r);
  }
  return mufu_ex2(xb);
}

void cmh_expf_bits(const uint32_t *xs, int64_t n, uint32_t *out) {
  for (int64_t i = 0; i < n; i++) {
    float x = f_of(xs[i]);
    float t = fmaf(x, f_of(EXPF_SPLIT), 0.5f);
    t = t > 0 ? (t < 1 ? t : 1.0f) : 0.0f;
    /* fma.rm(t, 252, 1.5 2^23 + 1): the exact sum rounded down, ulp 1 there, so floor(252 t) + magic */
    float j = (float)(floor(252.0 * (double)t) + (double)f_of(EXPF_MAGIC));
    float k = j + f_of(EXPF_UNBIAS);
    float r = fmaf(x, f_of(EXPF_L2E), -k);
    r = fmaf(x, f_of(EXPF_L2E_LO), r);
    out[i] = b_of(f_of(ex2_bits(b_of(r))) * f_of(b_of(j) << 23));
  }
}

void cmh_logf_bits(const uint32_t *xs, int64_t n, uint32_t *out) {
  for (int64_t i = 0; i < n; i++) {
    uint32_t b = xs[i];
    float x = f_of(b);
    if (x == 0) { out[i] = 0xFF800000u; continue; }
    if (b == 0x7F800000u) { out[i] = 0x7F800000u; continue; }
    if (!(x > 0 && x < INFINITY)) { out[i] = 0x7FFFFFFFu; continue; }
    int sub = x < 0x1p-126f;
    float xsc = sub ? x * 0x1p23f : x;
    uint32_t xb = b_of(xsc);
    uint32_t e = (xb - LOGF_REDUCE) & 0xFF800000u;
    float m = f_of(xb - e);
    float fi = (float)((int32_t)e >> 23) - (sub ? 23.0f : 0.0f);
    float f = m - 1.0f;
    float q = f_of(LOGF_C[7]);
    for (int c = 6; c >= 0; c--) q = fmaf(q, f, f_of(LOGF_C[c]));
    q = fmaf(q, f, -0.5f);
    float t = q * f;
    float r = fmaf(t, f, f);
    out[i] = b_of(fmaf(fi, f_of(LOGF_LN2), r));
  }
}

static inline uint32_t mufu_lg2(int64_t b) {
  int64_t e = ((b >> 23) & 0xFF) - 127;
  int64_t rq = (e * (1LL << 38) + interpolate(&LG2_T, b & 0x7FFFFF)) >> 2;
  int64_t mag = rq < 0 ? ~rq : rq;
  int64_t fb = mag == 0 ? 0 : int_to_f32_rz(mag) - (36LL << 23);
  int64_t o = fb | (rq < 0 ? 0x80000000LL : 0);
  return b == 0x3F800000 ? 0 : (uint32_t)o;
}

static inline uint32_t lg2_one(uint32_t u) {
  int64_t b = u, a = b & 0x7FFFFFFF;
  int sub = a < 0x00800000;
  int64_t arg = (sub ? (int64_t)b_of(f_of(u) * 0x1p24f) : b) & 0x7FFFFFFF;
  uint32_t r = mufu_lg2(arg == 0 ? 0x3F800000 : arg);
  if (sub) r = b_of(f_of(r) + -24.0f);
  if (a == 0) r = 0xFF800000u;
  if (a == 0x7F800000) r = 0x7F800000u;
  if ((b >> 31) != 0 && a != 0) r = 0x7FFFFFFFu;
  if (a > 0x7F800000) r = 0x7FFFFFFFu;
  return r;
}

void cmh_lg2_bits(const uint32_t *x, int64_t n, uint32_t *out) {
  for (int64_t i = 0; i < n; i++) out[i] = lg2_one(x[i]);
}

void cmh_erfcinvf_bits(const uint32_t *cb, int64_t n, uint32_t *out, uint8_t *central) {
  float split = f_of(ERFCINVF_SPLIT);
  for (int64_t i = 0; i < n; i++) {
    float c = f_of(cb[i]);
    float two_minus = 2.0f - c;
    float mn = c < two_minus ? c : two_minus;
    int cen = c > 0 && c < 2 && mn >= split;
    float cc = cen ? c : 0.5f;
    float t = 2.0f - cc;
    float p = cc * t;
    float w = f_of(lg2_one(b_of(p)) ^ 0x80000000u);
    float q = f_of(ERFCINVF_C[0]);
    for (int k = 1; k < 11; k++) q = fmaf(q, w, f_of(ERFCINVF_C[k]));
    out[i] = b_of(fmaf(q, -cc, q));
    central[i] = (uint8_t)cen;
  }
}

/* MT19937 outputs: out[g * len + i] = the (i+1)-th tempered word genrand_int32 returns from the
 * initial state g (mt19937.outputs_at, numpy's MT19937 with pos = N) */
void cmh_mt_outputs(const uint32_t *states, int64_t count, int64_t len, uint32_t *out) {
  uint32_t mt[MT_N];
  for (int64_t g = 0; g < count; g++) {
    memcpy(mt, states + (size_t)g * MT_N, sizeof mt);
    uint32_t *o = out + (size_t)g * len;
    for (int64_t base = 0; base < len; base += MT_N) {
      mt_run(mt, 0, MT_N);  /* one twist: the block's 624 words, ptr back at 0 */
      int64_t m = len - base < MT_N ? len - base : MT_N;
      for (int64_t i = 0; i < m; i++) {
        uint32_t y = mt[i];
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c5680u;
        y ^= (y << 15) & 0xefc60000u;
        o[base + i] = y ^ (y >> 18);
      }
    }
  }
}

/* ---- MTGP32 (mtgp32.py: sequences) ------------------------------------------------------------ */

#define MTGP_N 351

/* out[s * len + j], len = rounds * 256: the recursion's outputs for state s with its parameter set's
 * pos, sh1, sh2, tbl[16], tmp_tbl[16] (row s of each), one value after another */
void cmh_mtgp_sequences(const uint32_t *states, int64_t count, const int64_t *pos, const uint32_t *sh1,
                        const uint32_t *sh2, const uint32_t *tbl, const uint32_t *tmp, uint32_t mask,
                        int64_t len, uint32_t *out) {
  uint32_t *x = malloc(sizeof(uint32_t) * (size_t)(MTGP_N + len));
  for (int64_t s = 0; s < count; s++) {
    memcpy(x, states + (size_t)s * MTGP_N, sizeof(uint32_t) * MTGP_N);
    const uint32_t *tb = tbl + 16 * s, *tm = tmp + 16 * s;
    int64_t p = pos[s];
    uint32_t a1 = sh1[s], a2 = sh2[s];
    uint32_t *o = out + (size_t)s * len;
    for (int64_t j = 0; j < len; j++) {
      uint32_t v = (x[j] & mask) ^ x[j + 1];
      v ^= v << a1;
      uint32_t y = v ^ (x[j + p] >> a2);
      y ^= tb[y & 15];
      x[MTGP_N + j] = y;
      uint32_t u = x[j + p - 1];
      u ^= u >> 16;
      u ^= u >> 8;
      o[j] = y ^ tm[u & 15];
    }
  }
  free(x);
}

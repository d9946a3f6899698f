// Integer intrinsics: __popc(ll), __clz(ll), __brev(ll), __ffs, __byte_perm, __funnelshift_l/r,
// __mulhi/__umulhi/__mul64hi, __sad/__usad, __dp4a/__dp2a, __hadd/__rhadd, __mul24, min/max, abs.
__global__ void int_intrinsics(const unsigned *a, const unsigned *b, unsigned *out,
                               const unsigned long long *w, unsigned long long *wout) {
  int i = threadIdx.x;
  unsigned x = a[i], y = b[i];
  unsigned long long z = w[i];
  unsigned r = 0;
  r += __popc(x) + __popcll(z);
  r += __clz((int)x) + __clzll((long long)z);
  r ^= __brev(x);
  r += __ffs((int)y) + __ffsll((long long)z);
  r ^= __byte_perm(x, y, 0x5140);
  r += __funnelshift_l(x, y, i & 31) ^ __funnelshift_r(x, y, i & 31) ^ __funnelshift_lc(x, y, i) ^
       __funnelshift_rc(x, y, i);
  r += __mulhi((int)x, (int)y) + __umulhi(x, y) + __mul24((int)x, (int)y) + __umul24(x, y);
  r += __sad((int)x, (int)y, 3u) + __usad(x, y, 5u);
  r += __dp4a((int)x, (int)y, 7) + __dp4a(x, y, 9u) + __dp2a_lo((int)x, (int)y, 1) + __dp2a_hi(x, y, 2u);
  r += __hadd((int)x, (int)y) + __rhadd((int)x, (int)y) + __uhadd(x, y) + __urhadd(x, y);
  r += min(x, y) + max((int)x, (int)y) + abs((int)(x - y));
  out[i] = r;
  wout[i] = __brevll(z) ^ __umul64hi(z, (unsigned long long)x) ^ (unsigned long long)__mul64hi((long long)z, -3ll) ^
            llabs((long long)z) ^ (z >> (x & 63)) ^ (z << (y & 63));
}

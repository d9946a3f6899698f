// cuRAND's per-part device headers (curand_philox4x32_x.h, curand_uniform.h, ...) and the public
// Philox block function: curand_Philox4x32_10 against the Philox4x32-10 known-answer vectors of
// Salmon et al. (Random123) and against the first curand4 of a curand_init'ed state, whose counter
// is (0, 0, subsequence) and key the seed. Prints "ok" or the first mismatch.
#include <curand_philox4x32_x.h>
#include <curand_uniform.h>
#include <curand_normal.h>
#include <curand_lognormal.h>
#include <curand_poisson.h>
#include <curand_discrete.h>
#include <curand_discrete2.h>
#include <curand_mrg32k3a.h>
#include <curand_globals.h>
#include <curand_precalc.h>
#include <curand_normal_static.h>
#include <cstdio>

__global__ void blocks(uint4 *out) {
    out[0] = curand_Philox4x32_10(make_uint4(0, 0, 0, 0), make_uint2(0, 0));
    out[1] = curand_Philox4x32_10(make_uint4(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu),
                                  make_uint2(0xffffffffu, 0xffffffffu));
    out[2] = curand_Philox4x32_10(make_uint4(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u),
                                  make_uint2(0xa4093822u, 0x299f31d0u));
    curandStatePhilox4_32_10_t s;
    curand_init(0x0123456789abcdefULL, 77, 0, &s);
    out[3] = curand4(&s);
    out[4] = curand_Philox4x32_10(make_uint4(0, 0, 77, 0), make_uint2(0x89abcdefu, 0x01234567u));
}

static bool same(uint4 a, uint4 b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }

int main() {
    uint4 *d, h[5];
    if (cudaMalloc(&d, sizeof h) != cudaSuccess) return 1;
    blocks<<<1, 1>>>(d);
    if (cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    const uint4 kat[3] = {{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u},
                          {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu},
                          {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}};
    for (int i = 0; i < 3; i++)
        if (!same(h[i], kat[i])) {
            std::printf("known-answer vector %d: %08x %08x %08x %08x\n", i, h[i].x, h[i].y, h[i].z, h[i].w);
            return 1;
        }
    if (!same(h[3], h[4])) {
        std::printf("curand4 %08x %08x %08x %08x != block %08x %08x %08x %08x\n", h[3].x, h[3].y, h[3].z, h[3].w,
                    h[4].x, h[4].y, h[4].z, h[4].w);
        return 1;
    }
    std::printf("ok\n");
    return 0;
}

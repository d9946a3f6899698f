/* CuMetal clean-room CUDA headers: thin wrappers over the PTX mbarrier instructions (the 64-bit
 * barrier object in shared memory), used by cuda/barrier and cuda/pipeline. Addresses are generic
 * pointers to shared memory. The cpu backend runs these exactly; the Apple backends refuse a
 * kernel that uses them with a message naming the instruction. */
#ifndef CUMETAL_MBARRIER_H
#define CUMETAL_MBARRIER_H
#include "cumetal/qualifiers.h"

namespace cuda {
namespace cumetal_mbar {
typedef unsigned long long word;

__device__ inline void init(word *bar, unsigned int count) {
    asm volatile("mbarrier.init.b64 [%0], %1;" ::"l"(bar), "r"(count) : "memory");
}
__device__ inline void inval(word *bar) { asm volatile("mbarrier.inval.b64 [%0];" ::"l"(bar) : "memory"); }
__device__ inline word arrive(word *bar, unsigned int count = 1) {
    word token;
    asm volatile("mbarrier.arrive.b64 %0, [%1], %2;" : "=l"(token) : "l"(bar), "r"(count) : "memory");
    return token;
}
__device__ inline word arrive_drop(word *bar, unsigned int count = 1) {
    word token;
    asm volatile("mbarrier.arrive_drop.b64 %0, [%1], %2;" : "=l"(token) : "l"(bar), "r"(count) : "memory");
    return token;
}
__device__ inline word arrive_expect_tx(word *bar, unsigned int tx) {
    word token;
    asm volatile("mbarrier.arrive.expect_tx.b64 %0, [%1], %2;" : "=l"(token) : "l"(bar), "r"(tx) : "memory");
    return token;
}
__device__ inline void expect_tx(word *bar, unsigned int tx) {
    asm volatile("mbarrier.expect_tx.relaxed.cta.b64 [%0], %1;" ::"l"(bar), "r"(tx) : "memory");
}
__device__ inline bool test_token(word *bar, word token) {
    unsigned int done;
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "l"(bar), "l"(token) : "memory");
    return done != 0;
}
__device__ inline bool try_token(word *bar, word token) {
    unsigned int done;
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "l"(bar), "l"(token) : "memory");
    return done != 0;
}
__device__ inline bool try_parity(word *bar, unsigned int parity) {
    unsigned int done;
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "l"(bar), "r"(parity) : "memory");
    return done != 0;
}
__device__ inline void wait_token(word *bar, word token) {
    while (!try_token(bar, token)) {
    }
}
__device__ inline void wait_parity(word *bar, unsigned int parity) {
    while (!try_parity(bar, parity)) {
    }
}
/* a bulk copy global -> shared of size bytes (multiples of 16, 16-byte aligned) completing tx on bar */
__device__ inline void bulk_copy_g2s(void *dst, const void *src, unsigned int size, word *bar) {
    asm volatile("{\n\t.reg .u64 d, b;\n\tcvta.to.shared.u64 d, %0;\n\tcvta.to.shared.u64 b, %3;\n\t"
                 "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [d], [%1], %2, [b];\n\t}"
                 ::"l"(dst), "l"(src), "r"(size), "l"(bar) : "memory");
}
}  // namespace cumetal_mbar
}  // namespace cuda
#endif

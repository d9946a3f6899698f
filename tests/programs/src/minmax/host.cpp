// CUDA's min/max overloads in plain C++ (built by the host compiler, not in CUDA mode): nvcc's
// cuda_runtime.h gives .cpp files the same integer/float min/max as device code, and they must
// not clash with std::min/std::max, even after `using namespace std`. The C math library comes
// with cuda_runtime.h too (NVIDIA's simpleCUBLAS calls sqrt with nothing else included).
#include <algorithm>
#include <cuda_runtime.h>
#include "../check.h"

using namespace std;

int run_kernels(void);   // minmax.cu

int main() {
    CHECK(min(3, -4) == -4 && max(3, -4) == 3);
    CHECK(min(7u, 9u) == 7u && max(-1, 2u) == 0xffffffffu);   // int/unsigned mix: CUDA's unsigned compare
    CHECK(min(2.5f, -1.0f) == -1.0f && max(2.5, 4.0) == 4.0);
    CHECK(max(1.5f, 2.0) == 2.0);                               // float/double mix: double
    CHECK(min(-5LL, 3LL) == -5LL && max(10UL, 11UL) == 11UL);
    CHECK(umin(5u, 6u) == 5u && umax(5u, 6u) == 6u && llmin(-9LL, 1LL) == -9LL && ullmax(1ULL, 2ULL) == 2ULL);
    CHECK(std::min(4, 5) == 4 && std::max<long>(4, 5L) == 5);   // std's templates still there
    CHECK(std::min({3, 1, 2}) == 1);
    CHECK(sqrt(2.25f) == 1.5f && fabs(-3.0) == 3.0);            // the C math library, via cuda_runtime.h only
    CHECK(run_kernels() == 0);
    return finish("minmax");
}

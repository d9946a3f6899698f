/* CuMetal clean-room CUDA headers: the function objects of cooperative_groups reduce/scan. */
#ifndef CUMETAL_CG_FUNCTIONAL_H
#define CUMETAL_CG_FUNCTIONAL_H
#include "cumetal/qualifiers.h"
namespace cooperative_groups {
namespace __v1 {  // the layout NVIDIA's headers and CCCL's forward declarations use
template <class T> struct plus {
    __host__ __device__ T operator()(const T &a, const T &b) const { return a + b; }
};
template <class T> struct less { /* the smaller value: reduce(g, v, less<T>()) is the minimum */
    __host__ __device__ T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};
template <class T> struct greater { /* the larger value: the maximum */
    __host__ __device__ T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
template <class T> struct bit_and {
    __host__ __device__ T operator()(const T &a, const T &b) const { return a & b; }
};
template <class T> struct bit_or {
    __host__ __device__ T operator()(const T &a, const T &b) const { return a | b; }
};
template <class T> struct bit_xor {
    __host__ __device__ T operator()(const T &a, const T &b) const { return a ^ b; }
};
}  // namespace __v1
using namespace __v1;
}  // namespace cooperative_groups
#endif

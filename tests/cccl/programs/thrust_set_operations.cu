// Thrust's set operations (and merge_by_key) on device_vector, built by cumetalc against the user's
// CCCL (tests/cccl/test_cccl_set_operations.py). Thrust sizes their tiles for the 48 KiB of shared
// memory every CUDA device gives a block. The program only runs them; the test computes the truth
// (Python's collections.Counter multisets, numpy's set routines) and compares.
// Usage: thrust_set_operations IN OUT. IN: pairs of int32 blocks "n, n values", the sorted ranges A
// and B of each case. OUT: per case, one block per result in the order of the calls in run_case (keys,
// then values for the _by_key forms).
#include <cuda/std/functional>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/merge.h>
#include <thrust/reverse.h>
#include <thrust/sequence.h>
#include <thrust/set_operations.h>

#include <cstdio>
#include <vector>

static bool read_block(FILE *f, std::vector<int> &v) {
    int n = 0;
    if (fread(&n, sizeof n, 1, f) != 1 || n < 0) return false;
    v.resize(n);
    return fread(v.data(), sizeof(int), n, f) == static_cast<size_t>(n);
}

static void write_block(FILE *f, const thrust::device_vector<int> &d, long n) {
    thrust::host_vector<int> h(d.begin(), d.begin() + n);
    int m = static_cast<int>(n);
    fwrite(&m, sizeof m, 1, f);
    fwrite(h.data(), sizeof(int), h.size(), f);
}

static void run_case(FILE *out, const std::vector<int> &a, const std::vector<int> &b) {
    thrust::device_vector<int> A(a.begin(), a.end()), B(b.begin(), b.end());
    thrust::device_vector<int> VA(a.size()), VB(b.size());  // values: 1000000 + index in A, 2000000 + index in B
    thrust::sequence(VA.begin(), VA.end(), 1000000);
    thrust::sequence(VB.begin(), VB.end(), 2000000);
    const size_t room = a.size() + b.size();
    thrust::device_vector<int> K(room), V(room);

    // plain set operations
    write_block(out, K, thrust::set_union(A.begin(), A.end(), B.begin(), B.end(), K.begin()) - K.begin());
    write_block(out, K, thrust::set_intersection(A.begin(), A.end(), B.begin(), B.end(), K.begin()) - K.begin());
    write_block(out, K, thrust::set_difference(A.begin(), A.end(), B.begin(), B.end(), K.begin()) - K.begin());
    write_block(out, K,
                thrust::set_symmetric_difference(A.begin(), A.end(), B.begin(), B.end(), K.begin()) - K.begin());

    // the _by_key forms and merge_by_key: keys, then the values that travelled with them
    auto r = thrust::set_union_by_key(A.begin(), A.end(), B.begin(), B.end(), VA.begin(), VB.begin(), K.begin(),
                                      V.begin());
    write_block(out, K, r.first - K.begin());
    write_block(out, V, r.second - V.begin());
    r = thrust::set_intersection_by_key(A.begin(), A.end(), B.begin(), B.end(), VA.begin(), K.begin(), V.begin());
    write_block(out, K, r.first - K.begin());
    write_block(out, V, r.second - V.begin());
    r = thrust::set_difference_by_key(A.begin(), A.end(), B.begin(), B.end(), VA.begin(), VB.begin(), K.begin(),
                                      V.begin());
    write_block(out, K, r.first - K.begin());
    write_block(out, V, r.second - V.begin());
    r = thrust::set_symmetric_difference_by_key(A.begin(), A.end(), B.begin(), B.end(), VA.begin(), VB.begin(),
                                                K.begin(), V.begin());
    write_block(out, K, r.first - K.begin());
    write_block(out, V, r.second - V.begin());
    r = thrust::merge_by_key(A.begin(), A.end(), B.begin(), B.end(), VA.begin(), VB.begin(), K.begin(), V.begin());
    write_block(out, K, r.first - K.begin());
    write_block(out, V, r.second - V.begin());

    // descending ranges with a comparator
    thrust::reverse(A.begin(), A.end());
    thrust::reverse(B.begin(), B.end());
    write_block(out, K,
                thrust::set_union(A.begin(), A.end(), B.begin(), B.end(), K.begin(), cuda::std::greater<int>()) -
                    K.begin());
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s IN OUT\n", argv[0]);
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    FILE *out = fopen(argv[2], "wb");
    if (!in || !out) {
        fprintf(stderr, "cannot open %s or %s\n", argv[1], argv[2]);
        return 2;
    }
    std::vector<int> a, b;
    int cases = 0;
    while (read_block(in, a)) {
        if (!read_block(in, b)) {
            fprintf(stderr, "%s: case %d has no second range\n", argv[1], cases);
            return 2;
        }
        run_case(out, a, b);
        ++cases;
    }
    fclose(in);
    cudaError_t err = cudaDeviceSynchronize();
    fclose(out);
    if (err != cudaSuccess) {
        fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err));
        return 1;
    }
    return 0;
}

#pragma once
int run_axpb(int *host, int n, int a, int b);
/* __CUDA_ARCH_LIST__ as the .cu saw it: a .cpp must see the same (nvcc defines it for both; Thrust's ABI
 * namespace spells it) */
int cu_arch_list();

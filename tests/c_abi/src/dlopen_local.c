/* A program that loads the CUDA driver library itself, as NVIDIA's matrixMulDynlinkJIT and lazy
 * loaders do: dlopen(path, RTLD_NOW | RTLD_LOCAL), then dlsym. libcumetal must still start Python
 * (its extension modules need libpython's symbols) and answer. Prints "devices N" and exits 0. */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*init_fn)(unsigned int);
typedef int (*count_fn)(int *);

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s LIBRARY\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    init_fn cu_init = (init_fn)dlsym(lib, "cuInit");
    count_fn cu_count = (count_fn)dlsym(lib, "cuDeviceGetCount");
    if (cu_init == NULL || cu_count == NULL) {
        fprintf(stderr, "dlsym failed\n");
        return 1;
    }
    int n = -1;
    int err = cu_init(0);
    if (err == 0) err = cu_count(&n);
    printf("cuInit/cuDeviceGetCount: %d, devices %d\n", err, n);
    return err == 0 && n == 1 ? 0 : 1;
}

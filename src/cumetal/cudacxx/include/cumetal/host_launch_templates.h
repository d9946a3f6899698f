/* CuMetal clean-room CUDA headers: the C++ form of cudaLaunchKernelEx — the kernel's own parameter
 * types, each argument converted to its parameter type and passed by address, as <<<>>> does. */
#ifndef CUMETAL_HOST_LAUNCH_TEMPLATES_H
#define CUMETAL_HOST_LAUNCH_TEMPLATES_H

template <typename... ExpTypes, typename... ActTypes>
static inline cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(ExpTypes...),
                                             ActTypes &&...args) {
    static_assert(sizeof...(ExpTypes) == sizeof...(ActTypes), "cudaLaunchKernelEx: wrong number of arguments");
    return [&](ExpTypes... coerced) {
        void *pArgs[sizeof...(ExpTypes) + 1] = {(void *)&coerced..., 0};
        return cudaLaunchKernelExC(config, (const void *)kernel, pArgs);
    }(static_cast<ExpTypes>(args)...);
}

static inline cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, const void *kernel, void **args) {
    return cudaLaunchKernelExC(config, kernel, args);
}

#endif

/* libcumetal: the native launch path (cm_native_launch.c). A kernel launch from C that repeats a
 * launch the Python side has already validated and compiled (same kernel, grid, block, shared
 * size and stream) is enqueued here without entering Python: its arguments are packed by a cached
 * layout into the stream's doorbell (devices/stream_bell.c), and the stream's worker (or the thread
 * that synchronises) runs a batch of such launches with one call of cm_native_run. */
#ifndef CUMETAL_CAPI_NATIVE_LAUNCH_H
#define CUMETAL_CAPI_NATIVE_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

/* 1 when the launch was enqueued natively; 0: take the Python path (no plan, a stale plan, a NULL
 * argument pointer, a full doorbell, or a plan for another configuration). */
int cm_native_launch(const void *func, const unsigned int grid[3], const unsigned int block[3], void **args,
                     size_t shared, const void *stream);

/* cuLaunchKernel's form: plans of driver CUfunctions are keyed with this bit set. */
#define CM_NATIVE_DRIVER_KEY (1ull << 63)
int cm_native_launch_driver(const void *function, const unsigned int grid[3], const unsigned int block[3],
                            void **params, void **extra, unsigned int shared, const void *stream);

/* The address of the API table that the Python side (devices/native_launch.py) arms plans with. */
unsigned long long cm_native_api_address(void);

/* Called by cm_call for every entry point that goes into Python: all but a few calls that cannot
 * change what a plan assumes (synchronisations, copies, events, errors) invalidate every plan. */
void cm_native_note_call(const char *name);

#endif

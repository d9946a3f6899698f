/* CuMetal: a serial OpenMP runtime for host code, used only when no other omp.h is on the include
 * path (this directory is searched last, -idirafter). CuMetal's host compiler has no OpenMP
 * runtime, so cumetalc drops -fopenmp (with a note): `#pragma omp` is ignored and every parallel
 * region runs on one thread. These routines answer as the OpenMP API specification says they do
 * in a sequential program: one thread, thread number 0, locks that a single thread can hold.
 * Written from the OpenMP 5.2 API specification (runtime library routines). */
#ifndef CUMETAL_SERIAL_OMP_H
#define CUMETAL_SERIAL_OMP_H

#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { int held; } omp_lock_t;
typedef struct { int depth; } omp_nest_lock_t;
typedef enum omp_sched_t { omp_sched_static = 1, omp_sched_dynamic = 2, omp_sched_guided = 3, omp_sched_auto = 4 } omp_sched_t;

static inline int omp_get_num_threads(void) { return 1; }
static inline int omp_get_max_threads(void) { return 1; }
static inline int omp_get_thread_num(void) { return 0; }
static inline int omp_get_num_procs(void) { return 1; }
static inline int omp_in_parallel(void) { return 0; }
static inline void omp_set_num_threads(int n) { (void)n; }
static inline void omp_set_dynamic(int flag) { (void)flag; }
static inline int omp_get_dynamic(void) { return 0; }
static inline void omp_set_nested(int flag) { (void)flag; }
static inline int omp_get_nested(void) { return 0; }
static inline void omp_set_max_active_levels(int n) { (void)n; }
static inline int omp_get_max_active_levels(void) { return 1; }
static inline int omp_get_level(void) { return 0; }
static inline int omp_get_active_level(void) { return 0; }
static inline int omp_get_ancestor_thread_num(int level) { return level == 0 ? 0 : -1; }
static inline int omp_get_team_size(int level) { return level == 0 ? 1 : -1; }
static inline int omp_get_thread_limit(void) { return 1; }
static inline void omp_set_schedule(omp_sched_t kind, int chunk) { (void)kind; (void)chunk; }
static inline void omp_get_schedule(omp_sched_t *kind, int *chunk) { *kind = omp_sched_static; *chunk = 0; }
static inline int omp_in_final(void) { return 1; }
static inline int omp_get_num_devices(void) { return 0; }
static inline int omp_get_default_device(void) { return 0; }
static inline int omp_is_initial_device(void) { return 1; }

static inline double omp_get_wtime(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static inline double omp_get_wtick(void) { return 1e-9; }

static inline void omp_init_lock(omp_lock_t *lock) { lock->held = 0; }
static inline void omp_destroy_lock(omp_lock_t *lock) { lock->held = 0; }
static inline void omp_set_lock(omp_lock_t *lock) { lock->held = 1; }
static inline void omp_unset_lock(omp_lock_t *lock) { lock->held = 0; }
static inline int omp_test_lock(omp_lock_t *lock) { return lock->held ? 0 : (lock->held = 1); }
static inline void omp_init_nest_lock(omp_nest_lock_t *lock) { lock->depth = 0; }
static inline void omp_destroy_nest_lock(omp_nest_lock_t *lock) { lock->depth = 0; }
static inline void omp_set_nest_lock(omp_nest_lock_t *lock) { ++lock->depth; }
static inline void omp_unset_nest_lock(omp_nest_lock_t *lock) { --lock->depth; }
static inline int omp_test_nest_lock(omp_nest_lock_t *lock) { return ++lock->depth; }

#ifdef __cplusplus
}
#endif

#endif /* CUMETAL_SERIAL_OMP_H */

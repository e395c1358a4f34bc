/* pool: the thread pool of the parallel stages (pool.c). */
#ifndef SHEAF_SITE_POOL_H
#define SHEAF_SITE_POOL_H

#include <stddef.h>

/* Runs fn(i, worker) for i in [0, n) on `jobs` threads (0: one per core). */
void site_parallel(size_t n, int jobs, void (*fn)(void *ctx, size_t i, int worker), void *ctx);
int site_jobs(int jobs);

#endif

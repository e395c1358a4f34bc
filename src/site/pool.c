/* pool: a parallel for over page jobs. Each worker has a fixed number (0 ..
 * jobs-1) so it can use its own arena; jobs are handed out one index at a
 * time through an atomic counter, so uneven pages balance out. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "site/pool.h"
#include "util/xalloc.h"

int site_jobs(int jobs)
{
    if (jobs > 0)
        return jobs > 256 ? 256 : jobs;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

typedef struct pool_run {
    size_t n;
    atomic_size_t next;
    void (*fn)(void *ctx, size_t i, int worker);
    void *ctx;
} pool_run;

typedef struct pool_arg {
    pool_run *run;
    int worker;
} pool_arg;

static void *pool_main(void *varg)
{
    pool_arg *a = varg;
    for (;;) {
        size_t i = atomic_fetch_add(&a->run->next, 1);
        if (i >= a->run->n)
            break;
        a->run->fn(a->run->ctx, i, a->worker);
    }
    return NULL;
}

void site_parallel(size_t n, int jobs, void (*fn)(void *ctx, size_t i, int worker), void *ctx)
{
    int t = site_jobs(jobs);
    if ((size_t)t > n)
        t = n ? (int)n : 1;
    pool_run run = { .n = n, .fn = fn, .ctx = ctx };
    atomic_init(&run.next, 0);
    if (t <= 1) {
        pool_arg a = { &run, 0 };
        pool_main(&a);
        return;
    }
    pthread_t *th = xcalloc((size_t)t, sizeof *th);
    pool_arg *args = xcalloc((size_t)t, sizeof *args);
    for (int i = 0; i < t; i++) {
        args[i].run = &run;
        args[i].worker = i;
        if (i > 0 && pthread_create(&th[i], NULL, pool_main, &args[i]) != 0)
            args[i].run = NULL;
    }
    pool_main(&args[0]);
    for (int i = 1; i < t; i++)
        if (args[i].run)
            pthread_join(th[i], NULL);
    free(th);
    free(args);
}

/* xalloc: allocation wrappers that abort on out-of-memory. */
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ckd.h"

static void oom(size_t n)
{
    fprintf(stderr, "sheaf: out of memory (allocating %zu bytes)\n", n);
    abort();
}

_Noreturn void xalloc_too_large(void)
{
    fprintf(stderr, "sheaf: out of memory (a size too large to allocate)\n");
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *xcalloc(size_t count, size_t n)
{
    void *p = calloc(count ? count : 1, n ? n : 1);
    if (!p)
        oom(count * n);
    return p;
}

void *xcalloc_written(size_t count, size_t n)
{
    size_t bytes;
    if (ckd_mul(&bytes, count, n))
        xalloc_too_large();
    void *p = xmalloc(bytes);
    memset(p, 0, bytes);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

/* vec: growing the arrays of vec.h. */
#include <stdint.h>
#include <string.h>

#include "util/vec.h"
#include "util/xalloc.h"

static size_t next_cap(size_t cap, size_t first, size_t size)
{
    size_t n = cap ? cap : first ? first : 1;
    if (cap && n > SIZE_MAX / 2)
        xalloc_too_large();
    n = cap ? 2 * n : n;
    if (n > SIZE_MAX / size)
        xalloc_too_large();
    return n;
}

void *vec_grow(void *v, size_t *cap, size_t first, size_t size)
{
    *cap = next_cap(*cap, first, size);
    return xrealloc(v, *cap * size);
}

void *vec_grow_in(arena *a, const void *v, size_t n, size_t *cap, size_t first, size_t size)
{
    *cap = next_cap(*cap, first, size);
    void *nv = arena_alloc(a, *cap * size);
    if (n)
        memcpy(nv, v, n * size);
    return nv;
}

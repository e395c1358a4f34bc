/* vec: the growable array, written once. An array is three lvalues its
 * owner keeps side by side — the items pointer v, the count n and the
 * capacity cap (size_t) — and it grows by doubling, from `first` items:
 *
 *     VEC_PUSH(v, n, cap, first, x)       appends x; v is xrealloc'd, and
 *                                         the owner frees it with free(v)
 *     T *e = VEC_ADD(v, n, cap, first)    room for one more item, returned
 *                                         as it is (not zeroed)
 *     VEC_PUSH_IN(a, v, n, cap, first, x) and VEC_ADD_IN: the same with the
 *                                         items in arena a (a grown array
 *                                         leaves its old copy in the arena)
 *
 * Zero-initialised v, n and cap are an empty array. The macros evaluate
 * their arguments more than once: pass plain lvalues. A size that would
 * overflow is fatal, like running out of memory (xalloc.h). */
#ifndef SHEAF_VEC_H
#define SHEAF_VEC_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"

/* v with room for cap' = (cap ? 2 * cap : first) items of `size` bytes;
 * *cap becomes cap'. vec_grow reallocates; vec_grow_in copies the n items
 * into a new block of a. */
void *vec_grow(void *v, size_t *cap, size_t first, size_t size);
void *vec_grow_in(arena *a, const void *v, size_t n, size_t *cap, size_t first, size_t size);

#define VEC_ADD(v, n, cap, first) \
    ((void)((n) < (cap) || ((v) = vec_grow((v), &(cap), (first), sizeof *(v)), 0)), &(v)[(n)++])
#define VEC_PUSH(v, n, cap, first, x) (*VEC_ADD(v, n, cap, first) = (x))
#define VEC_ADD_IN(a, v, n, cap, first) \
    ((void)((n) < (cap) || ((v) = vec_grow_in((a), (v), (n), &(cap), (first), sizeof *(v)), 0)), \
     &(v)[(n)++])
#define VEC_PUSH_IN(a, v, n, cap, first, x) (*VEC_ADD_IN(a, v, n, cap, first) = (x))

/* qsort for an array that may be empty: an empty growable array's items
 * pointer is NULL, and qsort(NULL, 0, …) is undefined behaviour. Every
 * sort in sheaf goes through here. */
static inline void vec_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(v, n, size, cmp);
}

/* vec_sort's comparison for an array of strings (char *), by strcmp. */
static inline int vec_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

#endif

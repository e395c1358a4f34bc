/* util/lines.c: the line index (lines.h). */
#include "util/lines.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void lines_index(lines *l, const char *s, size_t n)
{
    lines_release(l);
    size_t count = 1;
    for (const char *p = s, *end = s + n; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
        count++;
    l->start = xmalloc(count * sizeof *l->start);
    l->start[l->n++] = 0;
    for (const char *p = s, *end = s + n; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
        l->start[l->n++] = (size_t)(p - s) + 1;
}

void lines_place(const lines *l, size_t off, int *line, int *col)
{
    size_t lo = 0, hi = l->n; /* start[lo] <= off < start[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->start[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    *line = (int)lo + 1;
    *col = (int)(off - l->start[lo]) + 1;
}

void lines_release(lines *l)
{
    free(l->start);
    l->start = NULL;
    l->n = 0;
}

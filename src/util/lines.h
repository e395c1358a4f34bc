/* util/lines: a line index of a text — where each line starts — so that
 * many byte offsets turn into line:column in O(log lines) each. Counting
 * from the top for every message made a file with many problems quadratic
 * (issue 34: an imported post with 40,000 Liquid tags took 35 s). */
#ifndef SHEAF_UTIL_LINES_H
#define SHEAF_UTIL_LINES_H

#include <stddef.h>

typedef struct lines {
    size_t *start; /* offset of each line's first byte; start[0] = 0 */
    size_t n;      /* how many lines (1 for an empty text) */
} lines;

/* Indexes the n bytes at s into l (whatever l held is released first).
 * The index lives on the heap: lines_release frees it. */
void lines_index(lines *l, const char *s, size_t n);
/* The 1-based line and column (in bytes) of byte off; off past the last
 * line start lands on the last line. */
void lines_place(const lines *l, size_t off, int *line, int *col);
/* Frees the index; l is then empty (lines_index may use it again). */
void lines_release(lines *l);

#endif

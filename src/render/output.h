/* output: writes a build into a temporary folder beside the target and
 * swaps it in at the end. A file whose bytes equal the previous build's is
 * hard-linked from it (same inode, same mtime), so an unchanged site
 * rewrites nothing. Safe to call from many threads at once. */
#ifndef SHEAF_OUTPUT_H
#define SHEAF_OUTPUT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"

typedef struct output {
    char *target;   /* the output folder, e.g. "public" */
    char *tmp;      /* ".public.tmp-<pid>" beside it */
    bool write;     /* false: count and compare nothing, write nothing */
    atomic_size_t written, unchanged, removed, copied;
} output;

/* Prepares the temporary folder. */
bool output_begin(output *o, const char *target, bool write, diag_list *d);
/* Writes one file (rel: "posts/a/index.html"). */
bool output_put(output *o, const char *rel, const void *data, size_t len, diag_list *d);
/* Copies a file from src (or `data` when not NULL). */
bool output_copy(output *o, const char *rel, const char *src, const void *data, size_t len,
                 diag_list *d);
/* Swaps the new folder in (ok) or throws it away (!ok). */
bool output_end(output *o, bool ok, diag_list *d);
void output_free(output *o);

#endif

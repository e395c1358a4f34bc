/* output: stages a build beside the target and commits it at the end.
 *
 * Each output is compared with the file the previous build left in the
 * target: identical bytes → nothing is written (the file keeps its inode
 * and mtime, so rsync, ETags and caches see no change); otherwise the new
 * bytes go to a staging folder beside the target. Only when the whole build
 * succeeded are the staged files renamed into the target (each rename is
 * atomic) and files no longer produced removed; a failed build throws the
 * staging folder away and leaves the target byte-for-byte as it was. The
 * first build renames the whole staging folder into place. Safe to call
 * from many threads at once. */
#ifndef SHEAF_OUTPUT_H
#define SHEAF_OUTPUT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"

#include <pthread.h>

struct strmap;

typedef struct output {
    char *target;   /* the output folder, e.g. "public" */
    char *tmp;      /* ".public.tmp-<pid>" beside it: the staged files */
    bool write;     /* false: count and compare nothing, write nothing */
    bool fresh;     /* the target did not exist: the staging folder becomes it */
    atomic_size_t written, unchanged, removed, copied;
    pthread_mutex_t mu;
    struct strmap *produced; /* every output path of this build */
    char **keys;
    size_t nkeys, capkeys;
    char **staged;  /* paths written to the staging folder */
    size_t nstaged, capstaged;
} output;

/* Prepares the temporary folder. */
bool output_begin(output *o, const char *target, bool write, diag_list *d);
/* Writes one file (rel: "posts/a/index.html"). */
bool output_put(output *o, const char *rel, const void *data, size_t len, diag_list *d);
/* Copies a file from src (or `data` when not NULL). */
bool output_copy(output *o, const char *rel, const char *src, const void *data, size_t len,
                 diag_list *d);
/* Commits the staged files (ok) or throws them away (!ok). */
bool output_end(output *o, bool ok, diag_list *d);
void output_free(output *o);

#endif

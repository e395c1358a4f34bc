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
#include <stdint.h>

#include "diag/diag.h"

#include <pthread.h>

struct strmap;

/* What a build session last committed to its output folder: each path with
 * the length and a 64-bit hash of its bytes. With it, unchanged outputs are
 * recognised without reading the old files, and stale ones without walking
 * the folder. Valid only while nothing but the session writes the folder
 * (`sheaf serve`'s private one). */
typedef struct output_memory output_memory;
output_memory *output_memory_new(void);
/* output_memory_free(NULL) does nothing. */
void output_memory_free(output_memory *m);

typedef struct output {
    char *target;   /* the output folder, e.g. "public" */
    char *tmp;      /* ".public.tmp-<pid>" beside it: the staged files */
    bool write;     /* false: count and compare nothing, write nothing */
    bool fresh;     /* the target did not exist: the staging folder becomes it */
    atomic_size_t written, unchanged, removed, copied;
    pthread_mutex_t mu;
    struct strmap *produced; /* every output path of this build */
    char **keys;
    uint64_t *hashes; /* of keys[i]'s bytes; lens[i] SIZE_MAX: a copied file */
    size_t *lens;
    size_t nkeys, capkeys;
    output_memory *mem; /* the session's record to update, or NULL */
    bool known;         /* mem holds the target's contents: trust it */
    bool partial;       /* only some outputs are produced: the others stay */
    char **staged;  /* paths written to the staging folder */
    size_t nstaged, capstaged;
} output;

/* Prepares the temporary folder. mem (may be NULL) is the session's record
 * of the target; output_end brings it up to date. */
bool output_begin(output *o, const char *target, bool write, output_memory *mem, diag_list *d);
/* Writes one file (rel: "posts/a/index.html"). */
bool output_put(output *o, const char *rel, const void *data, size_t len, diag_list *d);
/* Copies a file from src (or `data` when not NULL). */
bool output_copy(output *o, const char *rel, const char *src, const void *data, size_t len,
                 diag_list *d);
/* Commits the staged files (ok) or throws them away (!ok). */
bool output_end(output *o, bool ok, diag_list *d);
void output_free(output *o);

#endif

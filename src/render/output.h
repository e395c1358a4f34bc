/* output: builds the new output folder beside the old one and exchanges
 * the two in one step.
 *
 * What sheaf touches (docs/publishing.md says it for users):
 * - It writes only inside the output folder and in staging folders beside
 *   it named `.<name>.sheaf-new-<pid>-<start>` (and `-old-` for the
 *   fallback below), <start> being the process's start time in clock ticks
 *   since boot (field 22 of /proc/<pid>/stat), so that a later build can
 *   prove a leftover one is its own and dead.
 * - The output folder holds `.sheaf-manifest`: every path the last build
 *   wrote. sheaf removes only those. Anything else found in the folder
 *   (a `.git`, a CNAME someone added) is carried over to the new tree. An
 *   existing non-empty folder without a manifest is refused unless
 *   `force`; a file not in the manifest that stands where the build writes
 *   is refused too, unless `force` (then the build's file replaces it).
 *
 * A build: every output is compared with the file the previous build left
 * (by the session's memory of hashes, or by reading it): identical bytes →
 * the old file is hard-linked into the staging folder (it keeps its inode
 * and mtime, so rsync, ETags and caches see no change); otherwise the new
 * bytes are written there. When the whole build succeeded, the files of the
 * old folder that are not sheaf's are linked over too, the manifest is
 * written, and renameat2(RENAME_EXCHANGE) swaps the staging folder and the
 * output folder in one step; the old tree is kept as the spare (below).
 * A failed build (a disk full included) removes the staging
 * folder and leaves the output byte for byte as it was. Where the kernel or
 * the file system cannot exchange, the old folder is renamed aside (to the
 * `-old-` name) and the new one into place: a kill between the two renames
 * leaves no output folder, and the next build renames the old one back.
 * Where hard links are refused, unchanged files are copied (new inodes).
 *
 * The spare (docs/internals.md, "The commit"): after the exchange the old
 * tree is not removed but kept beside the target as `.<name>.sheaf-spare`,
 * and the next build stages into it, rewriting only what differs from the
 * target — the files this build changed and those the last one changed
 * (the target's manifest lists them) — instead of making a whole new tree
 * and removing the old one. A spare is used only when its manifest is the
 * one the target's manifest names (a hash); before it is touched its
 * manifest is removed, so a spare a build was killed in is never trusted
 * again. Otherwise the build stages a whole tree as above. Other people's
 * files are found by walking the target, listing only the folders whose
 * stamp moved since the last walk of that tree (output.c, "folder
 * stamps"; the stamps travel in the manifests' \folder lines).
 *
 * A build session's partial rebuild (`sheaf serve` after a body edit)
 * writes its few changed files to the staging folder and renames each into
 * the output folder; the set of paths, so the manifest, stays the same.
 * Safe to call from many threads at once. */
#ifndef SHEAF_OUTPUT_H
#define SHEAF_OUTPUT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "diag/diag.h"
#include "util/fileid.h"
#include "util/manifest.h"

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
    char *tmp;      /* the staging folder beside it (see above) */
    char *old;      /* the fallback's name for the old tree */
    bool write;     /* false: count and compare nothing, write nothing */
    bool fresh;     /* nothing to carry over: no old folder, or an empty one */
    bool force;     /* write into a folder (or over files) sheaf did not make */
    bool exists;    /* the target folder exists */
    atomic_size_t written, unchanged, removed, copied;
    atomic_bool disk_failed; /* a write failed for want of space: said once */
    pthread_mutex_t mu;
    struct strmap *produced; /* every output path of this build (written or not) */
    manifest manifest;       /* the paths the last build wrote */
    char **keys;      /* in key_text */
    struct arena *key_text;
    uint64_t *hashes; /* of keys[i]'s bytes; lens[i] SIZE_MAX: a copied file */
    size_t *lens;
    size_t nkeys, capkeys;
    output_memory *mem; /* the session's record to update, or NULL */
    bool known;         /* mem holds the target's contents: trust it */
    bool partial;       /* only some outputs are produced: the others stay */
    char **staged;  /* paths written to the staging folder */
    size_t nstaged, capstaged;
    char *spare;    /* the previous generation's tree, kept beside the target */
    bool use_spare; /* tmp is the spare, brought up to date in place */
    bool spare_busy; /* another build holds the spare's lock: left alone */
    int spare_fd;   /* the spare, open and locked while this build may use it */
    int target_fd;  /* the target folder, open (O_PATH) while the build runs: output_keep's
                     * stat is of rel under it, not of the whole path again; -1: none */
    manifest spare_m;       /* the spare's manifest, when use_spare */
    struct folder_index *spare_index; /* its records of folders, indexed while the sources
                                       * were read (output.c), or NULL */
    struct strmap *stale;   /* paths whose file in the spare is not the target's:
                               STALE_IN_SPARE when the spare holds one, else
                               STALE_NOT_IN_SPARE (output.c) */
    char **user;    /* what this build found in the target that is not sheaf's */
    size_t nuser, capuser;
    struct strmap *pdirs; /* the folders of this build's files (use_spare) */
    char **pdir_keys;
    size_t npdir, cappdir;
    struct timespec clock;  /* the file system's clock before the walk of the target */
    manifest_folder *seen;  /* the target's folders as that walk saw them */
    struct arena *seen_paths; /* the paths of those the walk listed */
    size_t nseen, capseen;
    manifest_folder *own;     /* the staged tree's own folders, stat-ed once it was whole
                               * (\own lines: a tree staged whole, output.c) */
    size_t nown;
    struct arena *own_paths;  /* their paths */
    size_t nours;   /* paths made that the target's manifest lists (each once) */
    size_t ndup;    /* paths made twice */
    char **gone;    /* the target's paths (of its manifest) this build did not make */
    size_t ngone;
    size_t nlisted, nknown; /* folders that walk listed, and took from the last one's records */
    double ms_folders, ms_walk, ms_manifest; /* output_end's steps (--stats): the folders
                                              * stat-ed ahead, the walk, the manifest written */
} output;

/* The name of the manifest in the output folder. */
#define OUTPUT_MANIFEST MANIFEST_NAME

/* The folder a build writes for `target`: the path without trailing
 * slashes, made absolute when it ends in "." or "..", and followed through
 * symbolic links (the link stays, the folder it names is replaced).
 * Caller frees. */
char *output_real_target(const char *target);
/* The manifests of the output folder `target` and of its spare, read on a
 * thread of its own from now on (output.c, "the manifests read ahead"),
 * for output_begin. output_prefetch_free (NULL: nothing) waits for the
 * thread and frees what output_begin did not take. */
typedef struct output_prefetch output_prefetch;
output_prefetch *output_prefetch_start(const char *target);
void output_prefetch_free(output_prefetch *p);
/* Prepares the staging folder (removing stale ones of dead builds first)
 * and reads the output folder's manifest; refuses (false, reported to d) a
 * non-empty folder without one unless `force`. mem (may be NULL) is the
 * session's record of the target; output_end brings it up to date. pre
 * (may be NULL): the manifests read ahead for this target. */
bool output_begin(output *o, const char *target, bool write, bool force, output_memory *mem,
                  output_prefetch *pre, diag_list *d);
/* Writes one file (rel: "posts/a/index.html"). */
bool output_put(output *o, const char *rel, const void *data, size_t len, diag_list *d);
/* A large output written in pieces (the search index), so its bytes are
 * never all in memory: output_stream_open starts rel in the staging
 * folder, output_stream_write appends to it, output_stream_close compares
 * the whole with the old file as output_put does (keeping the old one when
 * they are equal) and records it. Only where no session memory needs the
 * bytes' hash (o->mem NULL); a failed write is reported once, by close. */
typedef struct output_stream {
    char *rel, *dst;
    int fd;       /* -1: nothing is written (`write` off, or it failed) */
    size_t len;
    int error;    /* errno of the first failed write, or 0 */
} output_stream;
void output_stream_open(output *o, const char *rel, output_stream *st);
void output_stream_write(output_stream *st, const void *data, size_t n);
bool output_stream_close(output *o, output_stream *st, diag_list *d);
/* Who a file of the output is on disk: enough for a later build to tell,
 * without reading it, that the file it finds at the same path is still
 * the one this build put there. Not the change time: carrying a file into
 * the next tree by hard link changes it. */
typedef file_id output_file_id; /* util/fileid.h; the hash of its bytes as a session's memory keeps them */
/* output_put, then *id is the file now staged for rel (written, or kept
 * from the old tree). False with *id zeroed when nothing was staged (an
 * error, or `sheaf check`, which writes nothing). */
bool output_put_id(output *o, const char *rel, const void *data, size_t len, diag_list *d,
                   output_file_id *id);
/* Keeps the old tree's file for rel, unread, when it is sheaf's and still
 * the file *id names (device, inode, size and modification time to the
 * nanosecond): the caller knows that file holds the bytes it would write.
 * False (nothing done) otherwise, and always in `sheaf check` and on a
 * fresh output folder: then the caller writes the bytes with output_put. */
bool output_keep(output *o, const char *rel, const output_file_id *id);
/* Copies a file from src (or `data` when not NULL). */
bool output_copy(output *o, const char *rel, const char *src, const void *data, size_t len,
                 diag_list *d);
/* output_copy from src, then *id is the file now staged for rel, with
 * hash 0 (its bytes are not known; output_keep then records them so). False
 * with *id zeroed when nothing was staged. */
bool output_copy_id(output *o, const char *rel, const char *src, diag_list *d, output_file_id *id);
/* A file made a piece at a time: fill calls put(pc, piece, n) for each
 * piece in order (put returns false: stop) and returns whether it made
 * them all; a reason it could not (its source unreadable) it reports to d. */
typedef bool (*output_put_fn)(void *pc, const void *piece, size_t n);
typedef bool (*output_fill_fn)(void *ctx, output_put_fn put, void *pc, diag_list *d);
/* Writes one file of `len` bytes (hash: their hash_bytes) that fill makes,
 * never holding more than a piece of it: compared with the old file (by
 * the session's memory, or piece by piece) as output_put compares. */
bool output_fill(output *o, const char *rel, size_t len, uint64_t hash, output_fill_fn fill, void *ctx,
                 diag_list *d);
/* Commits the staged tree (ok) or throws it away (!ok). */
bool output_end(output *o, bool ok, diag_list *d);
void output_free(output *o);

#endif

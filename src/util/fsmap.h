/* fsmap: a file mapped read-only, for the one input too large to read
 * whole: a notebook with its images (issue 30). Its pages are the page
 * cache's; what the reader is done with it gives back (fs_map_drop), so the
 * memory a 200 MB file keeps is a few MiB, however often it is walked.
 *
 * A file cut shorter while mapped would make a read past its new end a
 * SIGBUS. While a thread has a map guarded (fs_map_guard), such a page of
 * that map reads as zeros instead and the map's `cut` is set: the reader
 * sees a broken file, and its caller says the file changed while it was
 * read. A SIGBUS anywhere else keeps its usual effect. */
#ifndef SHEAF_FSMAP_H
#define SHEAF_FSMAP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct fs_map {
    const char *data; /* len bytes ("" when len is 0); not NUL-terminated */
    size_t len;
    volatile sig_atomic_t cut; /* a page was past the file's end (guarded) */
    size_t maplen;             /* internal: len rounded up to pages */
} fs_map;

/* Maps the regular file path (a link to one is followed) read-only: false
 * with errno as fs_read_file_within sets it (FS_EOUTSIDE outside
 * root_real, FS_ENOTREG, EISDIR), FS_ETOOBIG when it has more than max
 * bytes. m is then zeroed. */
bool fs_map_within(const char *root_real, const char *path, size_t max, fs_map *m);
/* The whole pages of [off, off + n) leave this process's memory; read
 * again, they come back from the file. Only a hint: never changes what the
 * bytes read. */
void fs_map_drop(const fs_map *m, size_t off, size_t n);
/* While guarded (on the calling thread), a read of m past its file's end
 * gives zeros and sets m->cut instead of a SIGBUS. One map per thread. */
void fs_map_guard(fs_map *m);
void fs_map_unguard(void);
/* Unmaps m (a zeroed m is fine). */
void fs_map_free(fs_map *m);

#endif

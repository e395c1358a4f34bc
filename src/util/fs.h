/* fs: the few file-system helpers every stage needs — whole-file reads and
 * writes, recursive mkdir/remove, and a sorted recursive walk. */
#ifndef SHEAF_FS_H
#define SHEAF_FS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* Appends the whole file to out (data stays NUL-terminated). Returns false
 * with errno set (EISDIR for a folder). The one whole-file reader: sources,
 * site.yaml, templates, `render --data` (a pipe too) and old outputs. */
bool fs_read_file(const char *path, buf *out);
/* The same for a file already open (fd stays open): reads to its end. */
bool fs_read_fd(int fd, buf *out);
/* Writes data to path in one call (created or truncated). false + errno. */
bool fs_write_file(const char *path, const void *data, size_t len);
/* mkdir -p; false + errno. */
bool fs_mkdirs(const char *path);
/* rm -rf, never following symbolic links; a missing path (or an entry that
 * vanishes meanwhile) is fine. false (errno set) when something stayed. */
bool fs_rmtree(const char *path);
/* Copies everything from `in` (from its offset) to `out`: copy_file_range,
 * or read and write where the kernel cannot. false + errno; *write_failed
 * (may be NULL) says whether writing (not reading) failed. */
bool fs_copy_fd(int in, int out, bool *write_failed);
/* Copies the file src to dst (created or truncated, mode 0644). false + errno. */
bool fs_copy_file(const char *src, const char *dst);
bool fs_is_dir(const char *path);

/* Calls fn for every regular file below root (not following symlinked
 * folders), and for every symlink that points nowhere (so that whoever
 * reads it reports the problem), in byte order of the relative path; `rel` is relative to root.
 * Hidden names (starting with '.') are skipped when skip_hidden. Returns
 * false (errno set) when a folder cannot be read. */
typedef void (*fs_walk_fn)(void *ctx, const char *rel);
bool fs_walk(const char *root, bool skip_hidden, fs_walk_fn fn, void *ctx);

/* What fs_visit meets: a regular file, a symbolic link (to anything; not
 * followed), or a folder it cannot read or a name it cannot look at (err:
 * the errno). */
typedef enum fs_kind { FS_FILE, FS_LINK, FS_UNREADABLE } fs_kind;
typedef void (*fs_visit_fn)(void *ctx, const char *rel, fs_kind kind, int err);
/* Calls fn for every regular file and every symbolic link below root, in
 * byte order of the relative path (rel), entering folders but never
 * following a link: what a link leads to is for the caller to decide. A
 * sub-folder that cannot be read is reported to fn by name (FS_UNREADABLE)
 * and the walk goes on. Hidden names are skipped when skip_hidden; other
 * kinds of file (fifos, sockets, devices) are left out. Returns false (errno
 * set) when root or any folder below it cannot be read. */
bool fs_visit(const char *root, bool skip_hidden, fs_visit_fn fn, void *ctx);

/* An absolute, normalised form of path ("." and ".." resolved, symbolic
 * links too as far as the path exists): its longest existing prefix through
 * realpath, the rest appended. The path need not exist. Caller frees. */
char *fs_resolve(const char *path);
/* Whether the normalised path a is b or lies inside it. */
bool fs_inside(const char *a, const char *b);

/* a/b joined with one slash; caller frees. */
char *fs_join(const char *a, const char *b);

#endif

/* fs: the few file-system helpers every stage needs — whole-file reads and
 * writes, recursive mkdir/remove, and a sorted recursive walk. */
#ifndef SHEAF_FS_H
#define SHEAF_FS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* The most sheaf reads of one file into memory (a page, a template,
 * site.yaml, a data file, a .bib, a cache entry): 64 MiB. Copied files
 * (static/, a page bundle's images) are streamed, not read, and have none. */
#define FS_READ_MAX ((size_t)64 << 20)
#define FS_READ_MAX_TEXT "64 MiB"
/* errno values of the readers below beyond the system's (fs_strerror says
 * what they mean): not a regular file; more bytes than the bound. */
#define FS_ENOTREG 0x10001
#define FS_ETOOBIG 0x10002
/* ... and a path the containment rule refuses (fs_read_file_within). */
#define FS_EOUTSIDE 0x10003

/* strerror, and the words for FS_ENOTREG, FS_ETOOBIG and FS_EOUTSIDE.
 * Static text. */
const char *fs_strerror(int e);

/* Appends the whole file to out (data stays NUL-terminated). Only a
 * regular file is read (a link to one is followed): a folder is EISDIR, a
 * device, FIFO or socket FS_ENOTREG (a FIFO never blocks the reader), and
 * a file of more than max bytes (also one that grows past it while read)
 * FS_ETOOBIG. Returns false with errno set. The whole-file reader of
 * everything a person may be writing while it is read: sources, site.yaml,
 * templates, data files, bibliographies and old outputs. */
bool fs_read_file_max(const char *path, size_t max, buf *out);
/* The same for a file sheaf renamed into place whole and never writes
 * again (the build cache's entries): a regular file of at most max bytes,
 * read to the size it had when opened: four system calls, where a link
 * check before fs_read_file_max took six. A link is not followed. *there: something is at path (a link or anything
 * but a regular file is there, and not read). */
bool fs_read_file_placed(const char *path, size_t max, buf *out, bool *there);

struct stat;
/* Who a file is, for a record to tell it again without reading it:
 * "DEV INO SIZE MTIME.NS CTIME.NS" (git's rule for its index: a rewrite
 * changes the change time even when a tool sets the modification time
 * back). */
void fs_put_who(buf *b, const struct stat *st);
/* fs_read_file_max with FS_READ_MAX. */
bool fs_read_file(const char *path, buf *out);
/* The containment rule (issue 34): whether path, after every symbolic
 * link on the way (fs_resolve), is the folder root_real or lies inside it.
 * root_real must be resolved itself (realpath, fs_resolve). Every input
 * folder and every file a build (or an import) reads is checked so against
 * the site (or the import's source), so a link, `..` or a config path
 * cannot make sheaf read — and publish — a file from elsewhere. */
bool fs_within(const char *root_real, const char *path);
/* fs_read_file_max, refusing a path outside root_real (FS_EOUTSIDE)
 * before anything is opened; root_real NULL: no rule. */
bool fs_read_file_within(const char *root_real, const char *path, size_t max, buf *out);
/* A folder whose reads keep to the containment rule: its resolved path,
 * and the folder held open, so that the kernel resolves a read below it
 * beneath it in the open itself (openat2, RESOLVE_BENEATH) instead of
 * fs_within's three calls before it. A zeroed fs_root has neither. */
typedef struct fs_root {
    char *real; /* dir resolved (fs_resolve) */
    int fd;     /* dir open (O_PATH), or 0: not open */
} fs_root;
void fs_root_open(fs_root *r, const char *dir);
void fs_root_close(fs_root *r);
/* What fs_read_file_within(r->real, r->real + "/" + rel, max, out)
 * answers, errno too, opened in one call where that takes four. A path
 * the kernel will not resolve beneath the folder (through a link to an
 * absolute path, say), or a kernel without openat2, gets fs_within. who:
 * when not NULL, the file's stat, taken as it was read. */
bool fs_read_file_below(const fs_root *r, const char *rel, size_t max, buf *out, struct stat *who);
/* The first n bytes of a regular file (fewer when it is shorter), with the
 * same checks: to tell what a file is without reading it all. */
bool fs_read_head(const char *path, size_t n, buf *out);
/* The same for a file already open (fd stays open), a pipe too (`sheaf
 * render --data -`): reads to its end, at most FS_READ_MAX bytes. */
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
/* Copies the regular file src (FS_ENOTREG for a device, a FIFO or a
 * socket) to dst (created or truncated, mode 0644). false + errno. */
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
/* A name a build and the preview server both leave out: hidden (a leading
 * '.', which also covers ".#a.md" locks and ".a.md.swp"), or an editor's
 * dropping ("a.md~", "#a.md#", "a.swx", "a.swpx", vim's probe "4913") —
 * so a full build and a rebuild on save see the same files. */
bool fs_left_out(const char *name);

/* An absolute, normalised form of path ("." and ".." resolved, symbolic
 * links too as far as the path exists): its longest existing prefix through
 * realpath, the rest appended. The path need not exist. Caller frees. */
char *fs_resolve(const char *path);
/* Whether the normalised path a is b or lies inside it. */
bool fs_inside(const char *a, const char *b);

/* a/b joined with one slash; caller frees. */
char *fs_join(const char *a, const char *b);

#endif

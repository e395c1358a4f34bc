/* fs: file-system helpers (see fs.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(SYS_openat2) && defined(O_PATH) && __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HAVE_OPENAT2 1 /* fs_read_file_below: Linux 5.6 */
#endif

#include "util/buf.h"
#include "util/fs.h"
#include "util/xalloc.h"
#include "util/vec.h"

const char *fs_strerror(int e)
{
    if (e == FS_ENOTREG)
        return "not a regular file (a device, a pipe or a socket; sheaf reads only regular files)";
    if (e == FS_ETOOBIG)
        return "larger than " FS_READ_MAX_TEXT ", the most sheaf reads of one file";
    if (e == FS_EOUTSIDE)
        return "it leads outside the site folder (through a symbolic link or '..'), and sheaf reads "
               "nothing from outside the site";
    return strerror(e);
}

/* Reads fd to its end, but at most max bytes: one more is FS_ETOOBIG.
 * hint: a regular file's size when it was opened, or 0; its bytes read,
 * the read stops without the call that would say the end (a file that
 * grows meanwhile is read as it was: its change is seen by its stamp). */
static bool read_bounded(int fd, size_t max, size_t hint, buf *out)
{
    size_t start = out->len, want = hint ? hint + 1 : 4096;
    for (;;) {
        if (out->cap - out->len < 2 || out->cap == 0)
            buf_grow(out, want < max + 2 ? want : max + 2);
        size_t room = out->cap - out->len - 1, left = max + 1 - (out->len - start);
        ssize_t n = read(fd, out->data + out->len, room < left ? room : left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        if (n == 0)
            break;
        out->len += (size_t)n;
        out->data[out->len] = 0;
        if (out->len - start > max) {
            errno = FS_ETOOBIG;
            return false;
        }
        if (hint && out->len - start == hint)
            break;
        want = 65536;
    }
    return true;
}

bool fs_read_fd(int fd, buf *out)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        return false;
    }
    bool sized = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
    if (sized && (uintmax_t)st.st_size > FS_READ_MAX) {
        errno = FS_ETOOBIG;
        return false;
    }
    return read_bounded(fd, FS_READ_MAX, sized ? (size_t)st.st_size : 0, out);
}

/* Reads the file open at fd (closed here): a regular file of at most max
 * bytes, else false with errno (EISDIR, FS_ENOTREG, FS_ETOOBIG); who it
 * is into *who when who is not NULL. */
static bool read_opened(int fd, size_t max, buf *out, struct stat *who)
{
    struct stat own, *st = who ? who : &own;
    bool ok = fstat(fd, st) == 0;
    if (ok && S_ISDIR(st->st_mode)) {
        errno = EISDIR;
        ok = false;
    } else if (ok && !S_ISREG(st->st_mode)) {
        errno = FS_ENOTREG;
        ok = false;
    } else if (ok && (uintmax_t)st->st_size > max) {
        errno = FS_ETOOBIG;
        ok = false;
    }
    ok = ok && read_bounded(fd, max, (size_t)st->st_size, out);
    int e = errno;
    close(fd);
    errno = e;
    return ok;
}

/* fs_read_file_max, who as read_opened's. */
static bool read_path(const char *path, size_t max, buf *out, struct stat *who)
{
    /* O_NONBLOCK: opening a FIFO waits for a writer without it; the type
     * is checked before anything is read */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    return fd >= 0 && read_opened(fd, max, out, who);
}

bool fs_read_file_max(const char *path, size_t max, buf *out) { return read_path(path, max, out, NULL); }

bool fs_read_file_placed(const char *path, size_t max, buf *out, bool *there)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        *there = errno != ENOENT && errno != ENOTDIR;
        return false;
    }
    *there = true;
    struct stat st;
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uintmax_t)st.st_size <= max;
    size_t n = ok ? (size_t)st.st_size : 0, got = 0;
    if (ok)
        buf_grow(out, n);
    while (ok && got < n) {
        ssize_t r = read(fd, out->data + out->len + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        ok = r > 0;
        got += ok ? (size_t)r : 0;
    }
    close(fd);
    if (ok) {
        out->len += n;
        out->data[out->len] = 0;
    }
    return ok;
}

void fs_put_who(buf *b, const struct stat *st)
{
    buf_printf(b, "%llu %llu %llu %lld.%09ld %lld.%09ld", (unsigned long long)st->st_dev,
               (unsigned long long)st->st_ino, (unsigned long long)st->st_size, (long long)st->st_mtim.tv_sec,
               st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

bool fs_read_head(const char *path, size_t n, buf *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    struct stat st;
    bool ok = fstat(fd, &st) == 0;
    if (ok && !S_ISREG(st.st_mode)) {
        errno = S_ISDIR(st.st_mode) ? EISDIR : FS_ENOTREG;
        ok = false;
    }
    buf_grow(out, n + 1);
    for (size_t got = 0; ok && got < n;) {
        ssize_t r = read(fd, out->data + out->len, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            ok = r == 0;
            break;
        }
        got += (size_t)r;
        out->len += (size_t)r;
        out->data[out->len] = 0;
    }
    int e = errno;
    close(fd);
    errno = e;
    return ok;
}

bool fs_within(const char *root_real, const char *path)
{
    char *r = fs_resolve(path);
    bool in = fs_inside(r, root_real);
    free(r);
    return in;
}

/* fs_read_file_within, who as read_opened's. */
static bool read_within(const char *root_real, const char *path, size_t max, buf *out, struct stat *who)
{
    if (root_real && !fs_within(root_real, path)) {
        errno = FS_EOUTSIDE;
        return false;
    }
    return read_path(path, max, out, who);
}

bool fs_read_file_within(const char *root_real, const char *path, size_t max, buf *out)
{
    return read_within(root_real, path, max, out, NULL);
}

void fs_root_open(fs_root *r, const char *dir)
{
    r->real = fs_resolve(dir);
    r->fd = 0;
#ifdef HAVE_OPENAT2
    int fd = open(r->real, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd > 0)
        r->fd = fd;
    else if (fd == 0)
        close(fd); /* 0 reads as "not open" */
#endif
}

void fs_root_close(fs_root *r)
{
    if (r->fd > 0)
        close(r->fd);
    free(r->real);
    *r = (fs_root){ 0 };
}

bool fs_read_file_below(const fs_root *r, const char *rel, size_t max, buf *out, struct stat *who)
{
#ifdef HAVE_OPENAT2
    if (r->fd > 0) {
        /* beneath the folder, no /proc link on the way: then the file is
         * inside it, as fs_within would find */
        struct open_how how = { .flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK,
                                .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };
        long fd = syscall(SYS_openat2, r->fd, rel, &how, sizeof how);
        if (fd >= 0)
            return read_opened((int)fd, max, out, who);
        /* refused, or not there: the answer, and its errno, are
         * fs_within's */
    }
#endif
    char *full = fs_join(r->real, rel);
    bool ok = read_within(r->real, full, max, out, who);
    int e = errno;
    free(full);
    errno = e;
    return ok;
}

bool fs_read_file(const char *path, buf *out)
{
    return fs_read_file_max(path, FS_READ_MAX, out);
}

bool fs_write_file(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    const char *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            errno = e;
            return false;
        }
        p += n;
        len -= (size_t)n;
    }
    return close(fd) == 0;
}

bool fs_mkdirs(const char *path)
{
    if (mkdir(path, 0755) == 0)
        return true;
    if (errno == EEXIST) {
        if (fs_is_dir(path))
            return true;
        errno = ENOTDIR;
        return false;
    }
    if (errno != ENOENT)
        return false;
    char *copy = xstrdup(path);
    char *slash = strrchr(copy, '/');
    bool ok = true;
    if (slash && slash != copy) {
        *slash = 0;
        ok = fs_mkdirs(copy);
    }
    free(copy);
    if (!ok)
        return false;
    return mkdir(path, 0755) == 0 || (errno == EEXIST && fs_is_dir(path));
}

/* ---- rm -rf ----
 *
 * The walk lists the tree; then its files go, then its folders, deepest
 * first. Removing a folder can wait on the disk far longer than unlinking
 * a file (≈ 3 ms a folder against ≈ 25 µs a file, measured on ext4 mounted
 * with `discard`, where each freed folder block is trimmed; unlinking a
 * file waits too when the disk is busy): a build's old output tree has a
 * folder per page, so thousands of them. The files do not depend on each
 * other, nor do folders of one depth, so each such batch is removed by
 * several threads at once, which overlap those waits (3,000 folders: 9 s →
 * 0.4 s there). */

typedef struct rm_dir {
    char *path;
    int depth;
} rm_dir;

typedef struct rm_state {
    rm_dir *dirs;
    size_t n, cap;
    rm_dir *files; /* depth unused */
    size_t nfiles, fcap;
    int err; /* the first failure's errno, 0 when none */
} rm_state;

static void rm_fail(rm_state *st, int e)
{
    if (!st->err)
        st->err = e;
}

/* Lists what is under path: the folders (path included) and the rest. */
static void rm_walk(rm_state *st, char *path, int depth)
{
    VEC_PUSH(st->dirs, st->n, st->cap, 64, ((rm_dir){ path, depth }));
    DIR *d = opendir(path);
    if (!d) {
        if (errno != ENOENT)
            rm_fail(st, errno);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *p = fs_join(path, e->d_name);
        struct stat sb;
        bool is_dir = e->d_type == DT_DIR ||
                      (e->d_type == DT_UNKNOWN && lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode));
        if (is_dir)
            rm_walk(st, p, depth + 1);
        else
            VEC_PUSH(st->files, st->nfiles, st->fcap, 64, ((rm_dir){ p, depth + 1 }));
    }
    closedir(d);
}

/* A batch of paths none of which contains another, shared by the
 * removing threads; `remove` is unlink or rmdir. */
typedef struct rm_level {
    rm_dir *dirs;
    size_t n;
    int (*remove)(const char *path);
    _Atomic size_t next;
    _Atomic int err;
} rm_level;

static void *rm_level_main(void *arg)
{
    rm_level *l = arg;
    for (size_t i; (i = atomic_fetch_add(&l->next, 1)) < l->n;)
        if (l->remove(l->dirs[i].path) != 0 && errno != ENOENT) {
            int zero = 0;
            atomic_compare_exchange_strong(&l->err, &zero, errno);
        }
    return NULL;
}

enum { RM_THREADS = 16, RM_SERIAL_BELOW = 64 };

static int cmp_deeper_first(const void *x, const void *y)
{
    const rm_dir *a = x, *b = y;
    return (a->depth < b->depth) - (a->depth > b->depth);
}

/* Removes a batch, with threads when it is big. */
static void rm_level_run(rm_state *st, rm_dir *dirs, size_t n, int (*remove)(const char *))
{
    rm_level l = { dirs, n, remove, 0, 0 };
    pthread_t t[RM_THREADS];
    size_t started = 0;
    if (n >= RM_SERIAL_BELOW)
        for (; started < RM_THREADS - 1; started++)
            if (pthread_create(&t[started], NULL, rm_level_main, &l) != 0)
                break; /* fewer threads: the rest is done here */
    rm_level_main(&l);
    for (size_t i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    if (l.err)
        rm_fail(st, l.err);
}

bool fs_rmtree(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return errno == ENOENT;
    if (!S_ISDIR(sb.st_mode))
        return unlink(path) == 0 || errno == ENOENT;
    rm_state st = { 0 };
    rm_walk(&st, xstrdup(path), 0);
    rm_level_run(&st, st.files, st.nfiles, unlink);
    vec_sort(st.dirs, st.n, sizeof *st.dirs, cmp_deeper_first);
    for (size_t i = 0, j; i < st.n; i = j) {
        for (j = i; j < st.n && st.dirs[j].depth == st.dirs[i].depth;)
            j++;
        rm_level_run(&st, st.dirs + i, j - i, rmdir);
    }
    for (size_t i = 0; i < st.nfiles; i++)
        free(st.files[i].path);
    for (size_t i = 0; i < st.n; i++)
        free(st.dirs[i].path);
    free(st.files);
    free(st.dirs);
    errno = st.err;
    return st.err == 0;
}

/* Writes all len bytes, going on after a short write (which is how a
 * full disk first shows: the next write then fails with ENOSPC). */
static bool write_all(int fd, const char *p, size_t len)
{
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        if (n == 0) {
            errno = ENOSPC;
            return false;
        }
        p += n;
        len -= (size_t)n;
    }
    return true;
}

bool fs_copy_fd(int in, int out, bool *write_failed)
{
    if (write_failed)
        *write_failed = false;
    struct stat st;
    if (fstat(in, &st) != 0)
        return false;
    off_t left = st.st_size;
    while (left > 0) {
        ssize_t n = copy_file_range(in, NULL, out, NULL, (size_t)left, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP))
            break; /* the kernel cannot here: read and write what is left */
        if (n < 0) {
            if (write_failed)
                *write_failed = true;
            return false;
        }
        if (n == 0)
            return true; /* the file shrank meanwhile */
        left -= n;
    }
    if (left <= 0)
        return true;
    char chunk[65536];
    for (;;) {
        ssize_t r = read(in, chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r == 0;
        if (!write_all(out, chunk, (size_t)r)) {
            if (write_failed)
                *write_failed = true;
            return false;
        }
    }
}

bool fs_copy_file(const char *src, const char *dst)
{
    int in = open(src, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (in < 0)
        return false;
    struct stat st;
    bool stat_ok = fstat(in, &st) == 0;
    if (!stat_ok || !S_ISREG(st.st_mode)) {
        int e = !stat_ok ? errno : S_ISDIR(st.st_mode) ? EISDIR : FS_ENOTREG;
        close(in);
        errno = e;
        return false;
    }
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
        int e = errno;
        close(in);
        errno = e;
        return false;
    }
    bool ok = fs_copy_fd(in, out, NULL);
    int e = errno;
    close(in);
    if (close(out) != 0)
        ok = false;
    errno = e;
    return ok;
}

bool fs_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *fs_join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *r = xmalloc(la + lb + 2);
    memcpy(r, a, la);
    size_t k = la;
    if (la && a[la - 1] != '/')
        r[k++] = '/';
    memcpy(r + k, b, lb + 1);
    return r;
}

bool fs_left_out(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || name[0] == '.')
        return true; /* hidden, and .#lock files, .swp */
    if (name[n - 1] == '~')
        return true;
    if (name[0] == '#' && n > 1 && name[n - 1] == '#')
        return true;
    if (!strcmp(name, "4913"))
        return true; /* vim's probe for a writable folder */
    static const char *const ext[] = { ".swp", ".swx", ".swpx", ".swo" };
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        size_t e = strlen(ext[i]);
        if (n > e && !strcmp(name + n - e, ext[i]))
            return true;
    }
    return false;
}

/* A folder's entry as readdir gave it: its name and d_type (DT_UNKNOWN
 * where the file system does not say). */
typedef struct dir_entry {
    char *name;
    unsigned char type;
} dir_entry;

static int cmp_entries(const void *x, const void *y)
{
    return strcmp(((const dir_entry *)x)->name, ((const dir_entry *)y)->name);
}

/* What full is, as an lstat mode's file type: from readdir's d_type when
 * it says (a site of n files is then not stat-ed twice: its readers stat
 * each file they read anyway), else from lstat — for file systems that
 * leave d_type unknown, and for paths too long to open, which lstat
 * reports. 0 with errno when lstat fails. */
static mode_t entry_kind(const char *full, unsigned char type)
{
    if (strlen(full) < PATH_MAX) {
        switch (type) {
        case DT_REG: return S_IFREG;
        case DT_DIR: return S_IFDIR;
        case DT_LNK: return S_IFLNK;
        case DT_UNKNOWN: break;
        default: return S_IFIFO; /* a device, pipe or socket: left out */
        }
    }
    struct stat st;
    return lstat(full, &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

/* fs_visit's recursion: visits the folder root/rel (rel "" for root
 * itself) in name order — files as FS_FILE, symbolic links as FS_LINK
 * (never followed), subfolders by recursing — and reports what cannot be
 * read as FS_UNREADABLE with its errno. Hidden names and editors'
 * droppings (fs_left_out) are left out when skip_hidden. Returns false when anything was unreadable;
 * the rest is still visited. */
static bool walk(const char *root, const char *rel, bool skip_hidden, fs_visit_fn fn, void *ctx)
{
    char *dir = rel[0] ? fs_join(root, rel) : xstrdup(root);
    DIR *d = opendir(dir);
    if (!d) {
        int e = errno;
        free(dir);
        if (rel[0])
            fn(ctx, rel, FS_UNREADABLE, e);
        errno = e;
        return false;
    }
    /* the names in one block (a folder of 10,000 posts is not 10,000
     * allocations), each entry's name an offset into it until sorted */
    dir_entry *ents = NULL;
    size_t n = 0, cap = 0;
    buf names = BUF_INIT;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (skip_hidden && fs_left_out(e->d_name))
            continue;
        VEC_PUSH(ents, n, cap, 32, ((dir_entry){ (char *)(uintptr_t)names.len, e->d_type }));
        buf_put(&names, e->d_name, strlen(e->d_name) + 1);
    }
    closedir(d);
    for (size_t i = 0; i < n; i++)
        ents[i].name = names.data + (uintptr_t)ents[i].name;
    if (n) /* ents is NULL in an empty folder: vec_sort(NULL, 0, …) is undefined */
        vec_sort(ents, n, sizeof *ents, cmp_entries);
    bool ok = true;
    /* each entry's path below root and its full path, in two buffers
     * kept for the folder: the prefix is written once */
    buf r = BUF_INIT, full = BUF_INIT;
    if (rel[0])
        buf_printf(&r, "%s/", rel);
    buf_puts(&full, dir); /* as fs_join(dir, name) */
    if (full.len && full.data[full.len - 1] != '/')
        buf_putc(&full, '/');
    size_t rn = r.len, fulln = full.len;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(ents[i].name);
        r.len = rn;
        buf_put(&r, ents[i].name, len);
        full.len = fulln;
        buf_put(&full, ents[i].name, len);
        mode_t kind = entry_kind(full.data, ents[i].type);
        if (kind == S_IFLNK)
            fn(ctx, r.data, FS_LINK, 0);
        else if (kind == S_IFDIR)
            ok &= walk(root, r.data, skip_hidden, fn, ctx);
        else if (kind == S_IFREG)
            fn(ctx, r.data, FS_FILE, 0);
        else if (kind == 0 && errno != ENOENT) { /* ENOENT: removed since readdir */
            fn(ctx, r.data, FS_UNREADABLE, errno); /* e.g. a path too long */
            ok = false;
        }
    }
    buf_release(&r);
    buf_release(&full);
    buf_release(&names);
    free(ents);
    free(dir);
    return ok;
}

bool fs_visit(const char *root, bool skip_hidden, fs_visit_fn fn, void *ctx)
{
    return walk(root, "", skip_hidden, fn, ctx);
}

typedef struct walk_adapter {
    const char *root;
    fs_walk_fn fn;
    void *ctx;
    int err;
} walk_adapter;

static void adapt(void *vctx, const char *rel, fs_kind kind, int err)
{
    walk_adapter *w = vctx;
    if (kind == FS_UNREADABLE) {
        w->err = err;
        return;
    }
    if (kind == FS_LINK) {
        /* a link to a file, or to nowhere (its reader says so); not a
         * linked folder */
        char *full = fs_join(w->root, rel);
        struct stat st;
        bool pass = stat(full, &st) != 0 || S_ISREG(st.st_mode);
        free(full);
        if (!pass)
            return;
    }
    w->fn(w->ctx, rel);
}

bool fs_walk(const char *root, bool skip_hidden, fs_walk_fn fn, void *ctx)
{
    walk_adapter w = { root, fn, ctx, 0 };
    bool ok = walk(root, "", skip_hidden, adapt, &w);
    if (!ok && w.err)
        errno = w.err;
    return ok;
}

/* Appends the '/'-separated components of s to the absolute path in out,
 * handling "." and ".." lexically. */
static void path_push(buf *out, const char *s)
{
    while (*s) {
        while (*s == '/')
            s++;
        const char *e = s;
        while (*e && *e != '/')
            e++;
        size_t n = (size_t)(e - s);
        if (n == 0)
            break;
        if (n == 1 && s[0] == '.') {
        } else if (n == 2 && s[0] == '.' && s[1] == '.') {
            char *slash = strrchr(out->data, '/');
            buf_truncate(out, slash && slash != out->data ? (size_t)(slash - out->data) : 1);
        } else {
            if (out->len > 1)
                buf_putc(out, '/');
            buf_put(out, s, n);
        }
        s = e;
    }
}

/* The resolved path of an existing file, as the kernel names what it
 * opened: one open with O_PATH (nothing is read, a FIFO does not wait, no
 * device is opened) and the name /proc gives the descriptor. realpath
 * walks every component instead (a readlink and a stat each: ~20 calls a
 * page of a site in /home/u/site/content/posts/). NULL when the path does
 * not exist or /proc cannot say: fs_resolve answers then. Caller frees. */
static char *resolve_existing(const char *path)
{
#ifdef O_PATH
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char proc[48], real[PATH_MAX];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(proc, real, sizeof real);
    int e = errno;
    close(fd);
    errno = e;
    static const char deleted[] = " (deleted)"; /* gone since: ask realpath */
    size_t nd = sizeof deleted - 1;
    if (n <= 0 || (size_t)n >= sizeof real || real[0] != '/' ||
        ((size_t)n >= nd && !memcmp(real + n - nd, deleted, nd)))
        return NULL;
    return xstrndup(real, (size_t)n);
#else
    (void)path;
    return NULL;
#endif
}

char *fs_resolve(const char *path)
{
    buf abs = BUF_INIT;
    buf_putc(&abs, '/');
    if (path[0] != '/') {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof cwd))
            path_push(&abs, cwd);
    }
    path_push(&abs, path);
    /* "." and ".." are gone (lexically): the kernel resolves the rest as
     * realpath would */
    char *known = resolve_existing(abs.data);
    if (known) {
        buf_release(&abs);
        return known;
    }
    /* Find the longest prefix that exists. */
    size_t cut = abs.len;
    char *real = NULL;
    for (;;) {
        char save = abs.data[cut];
        abs.data[cut] = '\0';
        real = realpath(cut ? abs.data : "/", NULL);
        abs.data[cut] = save;
        if (real || cut <= 1)
            break;
        while (cut > 1 && abs.data[cut - 1] != '/')
            cut--;
        if (cut > 1)
            cut--; /* drop the '/' too */
    }
    buf out = BUF_INIT;
    buf_puts(&out, real ? real : "/");
    free(real);
    if (cut < abs.len)
        path_push(&out, abs.data + cut);
    buf_release(&abs);
    return buf_detach(&out, NULL);
}

bool fs_inside(const char *a, const char *b)
{
    size_t n = strlen(b);
    if (n == 1 && b[0] == '/')
        return true;
    return !strncmp(a, b, n) && (a[n] == '\0' || a[n] == '/');
}

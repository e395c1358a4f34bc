/* output: temporary folder, write-if-changed via hard links, swap. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/output.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/xalloc.h"

bool output_begin(output *o, const char *target, bool write, diag_list *d)
{
    memset(o, 0, sizeof *o);
    o->target = xstrdup(target);
    o->write = write;
    atomic_init(&o->written, 0);
    atomic_init(&o->unchanged, 0);
    atomic_init(&o->removed, 0);
    atomic_init(&o->copied, 0);
    if (!write)
        return true;
    size_t n = strlen(target);
    while (n > 1 && target[n - 1] == '/')
        n--;
    char *t = xstrndup(target, n);
    char *slash = strrchr(t, '/');
    buf b = BUF_INIT;
    if (slash)
        buf_printf(&b, "%.*s/.%s.tmp-%ld", (int)(slash - t), t, slash + 1, (long)getpid());
    else
        buf_printf(&b, ".%s.tmp-%ld", t, (long)getpid());
    free(o->target);
    o->target = t;
    o->tmp = buf_detach(&b, NULL);
    fs_rmtree(o->tmp);
    if (slash) {
        *slash = 0;
        bool ok = fs_mkdirs(t);
        *slash = '/';
        if (!ok) {
            diag_error(d, NULL, 0, 0, "cannot create the output folder's parent for %s: %s", t,
                       strerror(errno));
            return false;
        }
    }
    if (!fs_mkdirs(o->tmp)) {
        diag_error(d, NULL, 0, 0, "cannot create %s: %s", o->tmp, strerror(errno));
        return false;
    }
    return true;
}

static bool ensure_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return true;
    char *dir = xstrndup(path, (size_t)(slash - path));
    bool ok = fs_mkdirs(dir);
    free(dir);
    return ok;
}

/* Is the old file at `old` byte-identical to data? */
static bool same_as(const char *old, const void *data, size_t len)
{
    struct stat st;
    if (stat(old, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != len)
        return false;
    buf b = BUF_INIT;
    bool same = fs_read_file(old, &b) && b.len == len && memcmp(b.data, data, len) == 0;
    buf_release(&b);
    return same;
}

bool output_put(output *o, const char *rel, const void *data, size_t len, diag_list *d)
{
    if (!o->write)
        return true;
    char *dst = fs_join(o->tmp, rel);
    char *old = fs_join(o->target, rel);
    bool ok = ensure_parent(dst);
    if (ok && same_as(old, data, len) && link(old, dst) == 0) {
        atomic_fetch_add(&o->unchanged, 1);
    } else if (ok) {
        ok = fs_write_file(dst, data, len);
        if (ok)
            atomic_fetch_add(&o->written, 1);
    }
    if (!ok)
        diag_error(d, NULL, 0, 0, "cannot write %s: %s", dst, strerror(errno));
    free(dst);
    free(old);
    return ok;
}

static bool same_file_content(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0 || sa.st_size != sb.st_size || !S_ISREG(sb.st_mode))
        return false;
    buf x = BUF_INIT, y = BUF_INIT;
    bool same = fs_read_file(a, &x) && fs_read_file(b, &y) && x.len == y.len &&
                memcmp(x.data, y.data, x.len) == 0;
    buf_release(&x);
    buf_release(&y);
    return same;
}

static bool copy_fd(const char *src, const char *dst)
{
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return false;
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
        int e = errno;
        close(in);
        errno = e;
        return false;
    }
    struct stat st;
    bool ok = fstat(in, &st) == 0;
    off_t left = ok ? st.st_size : 0;
    while (ok && left > 0) {
        ssize_t n = copy_file_range(in, NULL, out, NULL, (size_t)left, 0);
        if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) {
            /* fall back to read/write */
            char chunk[65536];
            ssize_t r;
            while ((r = read(in, chunk, sizeof chunk)) > 0)
                if (write(out, chunk, (size_t)r) != r) {
                    ok = false;
                    break;
                }
            ok = ok && r == 0;
            break;
        }
        if (n <= 0) {
            ok = n == 0;
            break;
        }
        left -= n;
    }
    int e = errno;
    close(in);
    if (close(out) != 0)
        ok = false;
    errno = e;
    return ok;
}

bool output_copy(output *o, const char *rel, const char *src, const void *data, size_t len,
                 diag_list *d)
{
    if (data)
        return output_put(o, rel, data, len, d);
    if (!o->write)
        return true;
    char *dst = fs_join(o->tmp, rel);
    char *old = fs_join(o->target, rel);
    bool ok = ensure_parent(dst);
    if (ok && same_file_content(src, old) && link(old, dst) == 0) {
        atomic_fetch_add(&o->unchanged, 1);
    } else if (ok) {
        ok = copy_fd(src, dst);
        if (ok)
            atomic_fetch_add(&o->copied, 1);
    }
    if (!ok)
        diag_error(d, NULL, 0, 0, "cannot copy %s to %s: %s", src, dst, strerror(errno));
    free(dst);
    free(old);
    return ok;
}

typedef struct removed_ctx {
    output *o;
} removed_ctx;

static void count_removed(void *vctx, const char *rel)
{
    removed_ctx *c = vctx;
    char *p = fs_join(c->o->tmp, rel);
    struct stat st;
    if (lstat(p, &st) != 0)
        atomic_fetch_add(&c->o->removed, 1);
    free(p);
}

bool output_end(output *o, bool ok, diag_list *d)
{
    if (!o->write)
        return ok;
    if (!ok) {
        fs_rmtree(o->tmp);
        return false;
    }
    bool had_old = fs_is_dir(o->target);
    if (had_old) {
        removed_ctx c = { o };
        fs_walk(o->target, false, count_removed, &c);
        buf old = BUF_INIT;
        buf_printf(&old, "%s.old-%ld", o->tmp, (long)getpid());
        if (rename(o->target, old.data) != 0) {
            diag_error(d, NULL, 0, 0, "cannot move the old output %s aside: %s", o->target,
                       strerror(errno));
            buf_release(&old);
            fs_rmtree(o->tmp);
            return false;
        }
        if (rename(o->tmp, o->target) != 0) {
            int e = errno;
            rename(old.data, o->target);
            diag_error(d, NULL, 0, 0, "cannot move the new output into %s: %s", o->target, strerror(e));
            buf_release(&old);
            fs_rmtree(o->tmp);
            return false;
        }
        fs_rmtree(old.data);
        buf_release(&old);
    } else {
        struct stat st;
        if (lstat(o->target, &st) == 0) {
            diag_error(d, NULL, 0, 0, "%s exists and is not a folder: not replacing it", o->target);
            fs_rmtree(o->tmp);
            return false;
        }
        if (rename(o->tmp, o->target) != 0) {
            diag_error(d, NULL, 0, 0, "cannot move the new output into %s: %s", o->target,
                       strerror(errno));
            fs_rmtree(o->tmp);
            return false;
        }
    }
    return true;
}

void output_free(output *o)
{
    free(o->target);
    free(o->tmp);
    o->target = o->tmp = NULL;
}

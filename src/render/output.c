/* output: stage changed files, commit them by rename (see output.h). */
#include <dirent.h>
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
#include "util/strmap.h"
#include "util/xalloc.h"

struct output_memory {
    bool valid;      /* filled by a build that committed; else compare on disk */
    strmap *idx;     /* path → slot */
    char **keys;
    uint64_t *hashes;
    size_t *lens;
    size_t n;
};

output_memory *output_memory_new(void) { return xcalloc(1, sizeof(output_memory)); }

static void memory_clear(output_memory *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->hashes);
    free(m->lens);
    strmap_free(m->idx);
    memset(m, 0, sizeof *m);
}

void output_memory_free(output_memory *m)
{
    if (!m)
        return;
    memory_clear(m);
    free(m);
}

/* A fast 64-bit hash of the bytes (8 at a time, multiply-xorshift mixing);
 * with the length it tells an unchanged output from a changed one. */
static uint64_t hash_bytes(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 0x9E3779B97F4A7C15u ^ (uint64_t)len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9u;
        h ^= h >> 31;
    }
    uint64_t w = 0;
    memcpy(&w, p + i, len - i);
    h = (h ^ w) * 0x94D049BB133111EBu;
    return h ^ (h >> 29);
}

bool output_begin(output *o, const char *target, bool write, output_memory *mem, diag_list *d)
{
    memset(o, 0, sizeof *o);
    o->target = xstrdup(target);
    o->write = write;
    o->mem = write ? mem : NULL;
    o->known = o->mem && o->mem->valid;
    atomic_init(&o->written, 0);
    atomic_init(&o->unchanged, 0);
    atomic_init(&o->removed, 0);
    atomic_init(&o->copied, 0);
    pthread_mutex_init(&o->mu, NULL);
    o->produced = strmap_new(1024);
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
    o->fresh = !fs_is_dir(o->target);
    return true;
}

/* Records rel as produced (and staged when `staged`), with its bytes' hash
 * and length (SIZE_MAX: not known). */
static void record(output *o, const char *rel, bool staged, uint64_t hash, size_t len)
{
    pthread_mutex_lock(&o->mu);
    char *k = xstrdup(rel);
    if (o->nkeys == o->capkeys) {
        o->capkeys = o->capkeys ? o->capkeys * 2 : 1024;
        o->keys = xrealloc(o->keys, o->capkeys * sizeof *o->keys);
        o->hashes = xrealloc(o->hashes, o->capkeys * sizeof *o->hashes);
        o->lens = xrealloc(o->lens, o->capkeys * sizeof *o->lens);
    }
    o->hashes[o->nkeys] = hash;
    o->lens[o->nkeys] = len;
    o->keys[o->nkeys++] = k;
    strmap_put(o->produced, k, 1);
    if (staged) {
        if (o->nstaged == o->capstaged) {
            o->capstaged = o->capstaged ? o->capstaged * 2 : 1024;
            o->staged = xrealloc(o->staged, o->capstaged * sizeof *o->staged);
        }
        o->staged[o->nstaged++] = k;
    }
    pthread_mutex_unlock(&o->mu);
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
    bool ok = true;
    uint64_t h = o->mem ? hash_bytes(data, len) : 0;
    bool same;
    if (o->fresh) {
        same = false;
    } else if (o->known) {
        long i = strmap_get(o->mem->idx, rel);
        same = i >= 0 && o->mem->lens[i] == len && o->mem->hashes[i] == h;
    } else {
        same = same_as(old, data, len);
    }
    if (same) {
        atomic_fetch_add(&o->unchanged, 1);
        record(o, rel, false, h, len);
    } else {
        ok = ensure_parent(dst) && fs_write_file(dst, data, len);
        if (ok) {
            atomic_fetch_add(&o->written, 1);
            record(o, rel, true, h, len);
        }
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

bool output_copy(output *o, const char *rel, const char *src, const void *data, size_t len,
                 diag_list *d)
{
    if (data)
        return output_put(o, rel, data, len, d);
    if (!o->write)
        return true;
    char *dst = fs_join(o->tmp, rel);
    char *old = fs_join(o->target, rel);
    bool ok = true;
    if (!o->fresh && same_file_content(src, old)) {
        atomic_fetch_add(&o->unchanged, 1);
        record(o, rel, false, 0, SIZE_MAX);
    } else {
        ok = ensure_parent(dst) && fs_copy_file(src, dst);
        if (ok) {
            atomic_fetch_add(&o->copied, 1);
            record(o, rel, true, 0, SIZE_MAX);
        }
    }
    if (!ok)
        diag_error(d, NULL, 0, 0, "cannot copy %s to %s: %s", src, dst, strerror(errno));
    free(dst);
    free(old);
    return ok;
}

typedef struct stale_ctx {
    output *o;
    char **v;
    size_t n, cap;
} stale_ctx;

static void find_stale(void *vctx, const char *rel)
{
    stale_ctx *c = vctx;
    if (strmap_get(c->o->produced, rel) >= 0)
        return;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->v = xrealloc(c->v, c->cap * sizeof *c->v);
    }
    c->v[c->n++] = xstrdup(rel);
}

/* Removes now-empty folders below root (not root itself). */
static bool prune_empty(const char *path, bool is_root)
{
    DIR *d = opendir(path);
    if (!d)
        return false;
    bool empty = true;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *p = fs_join(path, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (!prune_empty(p, false))
                empty = false;
        } else {
            empty = false;
        }
        free(p);
    }
    closedir(d);
    if (empty && !is_root)
        return rmdir(path) == 0;
    return empty;
}

/* Removes the folders of path that became empty, up to (not) root. */
static void prune_parents(const char *root, char *path)
{
    size_t rootlen = strlen(root);
    char *slash;
    while ((slash = strrchr(path, '/')) != NULL && (size_t)(slash - path) > rootlen) {
        *slash = '\0';
        if (rmdir(path) != 0)
            break;
    }
}

/* The memory takes this build's outputs: all of them (`whole`: whatever the
 * last run left is forgotten), or just those a partial build produced (the
 * others stay as they were). */
static void remember(output *o, bool whole)
{
    output_memory *m = o->mem;
    if (whole) {
        memory_clear(m);
        m->idx = strmap_new(o->nkeys + 1);
    }
    size_t room = m->n + o->nkeys + 1;
    m->keys = xrealloc(m->keys, room * sizeof *m->keys);
    m->hashes = xrealloc(m->hashes, room * sizeof *m->hashes);
    m->lens = xrealloc(m->lens, room * sizeof *m->lens);
    for (size_t i = 0; i < o->nkeys; i++) {
        long at = whole ? -1 : strmap_get(m->idx, o->keys[i]);
        if (at < 0) {
            at = (long)m->n++;
            m->keys[at] = xstrdup(o->keys[i]);
            strmap_put(m->idx, m->keys[at], at);
        }
        m->hashes[at] = o->hashes[i];
        m->lens[at] = o->lens[i];
    }
    m->valid = true;
}

/* Moves one staged file into the target, replacing whatever is in the way
 * (a folder where a file now goes, or a file where a folder now goes). */
static bool commit_one(output *o, const char *rel)
{
    char *src = fs_join(o->tmp, rel), *dst = fs_join(o->target, rel);
    bool ok = ensure_parent(dst);
    if (!ok && errno == ENOTDIR) {
        /* a file sits where a folder must be: remove it */
        for (char *p = strchr(dst + strlen(o->target) + 1, '/'); p; p = strchr(p + 1, '/')) {
            *p = 0;
            struct stat st;
            if (lstat(dst, &st) == 0 && !S_ISDIR(st.st_mode))
                unlink(dst);
            *p = '/';
        }
        ok = ensure_parent(dst);
    }
    if (ok && rename(src, dst) != 0) {
        if (errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST) {
            fs_rmtree(dst);
            ok = rename(src, dst) == 0;
        } else {
            ok = false;
        }
    }
    free(src);
    free(dst);
    return ok;
}

bool output_end(output *o, bool ok, diag_list *d)
{
    if (!o->write)
        return ok;
    if (!ok) {
        fs_rmtree(o->tmp);
        return false;
    }
    if (o->fresh) {
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
        if (o->mem)
            remember(o, true);
        return true;
    }
    bool all = true;
    for (size_t i = 0; i < o->nstaged; i++) {
        if (!commit_one(o, o->staged[i])) {
            diag_error(d, NULL, 0, 0, "cannot move %s into %s: %s", o->staged[i], o->target,
                       strerror(errno));
            all = false;
        }
    }
    if (o->partial) {
        /* a build session's rebuild of a few outputs: the rest stays */
        fs_rmtree(o->tmp);
        if (!all)
            memory_clear(o->mem);
        else if (o->known)
            remember(o, false);
        return all;
    }
    stale_ctx c = { o, NULL, 0, 0 };
    if (o->known) {
        /* what the last run wrote and this one did not */
        for (size_t i = 0; i < o->mem->n; i++)
            find_stale(&c, o->mem->keys[i]);
    } else {
        fs_walk(o->target, false, find_stale, &c);
    }
    for (size_t i = 0; i < c.n; i++) {
        char *p = fs_join(o->target, c.v[i]);
        if (unlink(p) == 0)
            atomic_fetch_add(&o->removed, 1);
        if (o->known)
            prune_parents(o->target, p);
        free(p);
        free(c.v[i]);
    }
    free(c.v);
    if (!o->known)
        prune_empty(o->target, true);
    fs_rmtree(o->tmp);
    if (o->mem) {
        if (all)
            remember(o, true);
        else
            memory_clear(o->mem); /* not sure what is there now: compare with the disk */
    }
    return all;
}

void output_free(output *o)
{
    free(o->target);
    free(o->tmp);
    o->target = o->tmp = NULL;
    for (size_t i = 0; i < o->nkeys; i++)
        free(o->keys[i]);
    free(o->keys);
    free(o->hashes);
    free(o->lens);
    free(o->staged);
    strmap_free(o->produced);
    o->produced = NULL;
    pthread_mutex_destroy(&o->mu);
}

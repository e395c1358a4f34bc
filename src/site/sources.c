/* sources: the bytes of content files kept between the runs of a build
 * session (`sheaf serve`), so a rebuild reads only the files that changed.
 *
 * An entry remembers the file's size, mtime and inode; a lookup stats the
 * file and uses the entry only when all three still match, so a change the
 * watcher did not report is still seen. Lookups and stores come from the
 * loader's worker threads, hence the lock. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "site/sources.h"
#include "util/fs.h"
#include "util/strmap.h"
#include "util/vec.h"
#include "util/xalloc.h"

typedef struct source_entry {
    char *key;  /* path relative to the site folder */
    char *data; /* NUL-terminated */
    size_t len;
    struct stat st;
    bool live;
} source_entry;

struct site_source_cache {
    pthread_mutex_t mu;
    strmap *index; /* key → entry number */
    source_entry *v;
    size_t n, cap;
};

site_source_cache *site_source_cache_new(void)
{
    site_source_cache *c = xcalloc(1, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    c->index = strmap_new(256);
    return c;
}

void site_source_cache_free(site_source_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].key);
        free(c->v[i].data);
    }
    free(c->v);
    strmap_free(c->index);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

static void drop(source_entry *e)
{
    free(e->data);
    e->data = NULL;
    e->len = 0;
    e->live = false;
}

void site_source_cache_forget(site_source_cache *c, const char *src)
{
    pthread_mutex_lock(&c->mu);
    long i = strmap_get(c->index, src);
    if (i >= 0)
        drop(&c->v[i]);
    pthread_mutex_unlock(&c->mu);
}

void site_source_cache_clear(site_source_cache *c)
{
    pthread_mutex_lock(&c->mu);
    for (size_t i = 0; i < c->n; i++)
        drop(&c->v[i]);
    pthread_mutex_unlock(&c->mu);
}

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* dir/src by the containment rule: below root, or below dir resolved and
 * opened here when root is zeroed; who as fs_read_file_below's. */
static bool read_contained(const char *dir, const fs_root *root, const char *src, buf *b, struct stat *who)
{
    if (root->real)
        return fs_read_file_below(root, src, FS_READ_MAX, b, who);
    fs_root own;
    fs_root_open(&own, dir);
    bool ok = fs_read_file_below(&own, src, FS_READ_MAX, b, who);
    int e = errno;
    fs_root_close(&own);
    errno = e;
    return ok;
}

bool site_source_read(site_source_cache *c, const char *dir, const fs_root *root, const char *src,
                      char **data, size_t *len)
{
    /* only a session's cache asks who the file is: by the resolved folder
     * when it is given (the path is then whole, and resolving it asks for
     * no working directory) */
    const char *base = root->real ? root->real : dir;
    char *full = c ? fs_join(base, src) : NULL;
    struct stat st;
    bool have_st = c && stat(full, &st) == 0;
    if (have_st) {
        pthread_mutex_lock(&c->mu);
        long i = strmap_get(c->index, src);
        if (i >= 0 && c->v[i].live && same_file(&c->v[i].st, &st)) {
            *data = xstrndup(c->v[i].data, c->v[i].len);
            *len = c->v[i].len;
            pthread_mutex_unlock(&c->mu);
            free(full);
            return true;
        }
        pthread_mutex_unlock(&c->mu);
    }
    buf b = BUF_INIT;
    if (!read_contained(dir, root, src, &b, NULL)) {
        int e = errno;
        free(full);
        buf_release(&b);
        errno = e;
        return false;
    }
    *data = buf_detach(&b, len);
    if (have_st) {
        /* a file written while it was read keeps no entry: its stat may
         * describe the older bytes */
        struct stat after;
        bool stable = stat(full, &after) == 0 && same_file(&st, &after);
        pthread_mutex_lock(&c->mu);
        long i = strmap_get(c->index, src);
        if (i < 0) {
            memset(VEC_ADD(c->v, c->n, c->cap, 256), 0, sizeof *c->v);
            i = (long)c->n - 1;
            c->v[i].key = xstrdup(src);
            strmap_put(c->index, c->v[i].key, i);
        }
        drop(&c->v[i]);
        if (stable) {
            c->v[i].data = xstrndup(*data, *len);
            c->v[i].len = *len;
            c->v[i].st = st;
            c->v[i].live = true;
        }
        pthread_mutex_unlock(&c->mu);
    }
    free(full);
    return true;
}

static site_source_stamp stamp_from(const struct stat *b)
{
    return (site_source_stamp){ (unsigned long long)b->st_dev, (unsigned long long)b->st_ino,
                                (long long)b->st_size, (long long)b->st_mtim.tv_sec,
                                (long long)b->st_mtim.tv_nsec };
}

bool site_source_stamp_of(const char *dir, const char *src, site_source_stamp *st)
{
    char *full = fs_join(dir, src);
    struct stat b;
    bool ok = stat(full, &b) == 0;
    free(full);
    if (ok)
        *st = stamp_from(&b);
    return ok;
}

bool site_source_reread(const site *s, page *p, diag_list *d)
{
    /* the file is who it was when its front matter was read: the stat of
     * the file read, and all its bytes read */
    buf b = BUF_INIT;
    struct stat who;
    bool ok = read_contained(s->dir, &s->root, p->src, &b, &who);
    if (ok) {
        site_source_stamp now = stamp_from(&who);
        ok = !memcmp(&now, &p->stamp, sizeof now) && (long long)b.len == p->stamp.size;
    }
    if (!ok) {
        buf_release(&b);
        diag_error(d, p->src, 0, 0, "changed while sheaf was building the site: build again");
        return false;
    }
    p->text = buf_detach(&b, &p->text_len);
    p->body = str_make(p->text + p->body_off, p->body.len);
    p->text_dropped = false;
    return true;
}

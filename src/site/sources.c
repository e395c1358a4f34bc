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

bool site_source_read(site_source_cache *c, const char *dir, const fs_root *root, const char *src,
                      char **data, size_t *len)
{
    /* by the resolved folder when it is given: the path is then whole, and
     * resolving it asks for no working directory (two calls a read fewer) */
    const char *base = root->real ? root->real : dir;
    char *full = fs_join(base, src);
    struct stat st;
    bool have_st = c && stat(full, &st) == 0; /* (only a session's cache asks who the file is) */
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
    /* the containment rule: nothing from outside the site */
    bool ok;
    if (root->real) {
        ok = fs_read_file_below(root, src, FS_READ_MAX, &b);
    } else {
        char *resolved = fs_resolve(dir);
        ok = fs_read_file_within(resolved, full, FS_READ_MAX, &b);
        free(resolved);
    }
    int e = errno;
    free(full);
    errno = e;
    if (!ok) {
        buf_release(&b);
        return false;
    }
    *data = buf_detach(&b, len);
    if (have_st) {
        /* a file written while it was read keeps no entry: its stat may
         * describe the older bytes */
        struct stat after;
        char *again = fs_join(base, src);
        bool stable = stat(again, &after) == 0 && same_file(&st, &after);
        free(again);
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
    return true;
}

bool site_source_stamp_of(const char *dir, const char *src, site_source_stamp *st)
{
    char *full = fs_join(dir, src);
    struct stat b;
    bool ok = stat(full, &b) == 0;
    free(full);
    if (!ok)
        return false;
    *st = (site_source_stamp){ (unsigned long long)b.st_dev, (unsigned long long)b.st_ino,
                               (long long)b.st_size, (long long)b.st_mtim.tv_sec,
                               (long long)b.st_mtim.tv_nsec };
    return true;
}

bool site_source_reread(const site *s, page *p, diag_list *d)
{
    site_source_stamp now;
    bool ok = site_source_stamp_of(s->dir, p->src, &now) && !memcmp(&now, &p->stamp, sizeof now) &&
              site_source_read(NULL, s->dir, &s->root, p->src, &p->text, &p->text_len);
    if (ok && (long long)p->text_len != p->stamp.size) {
        free(p->text);
        p->text = NULL;
        ok = false;
    }
    if (!ok) {
        diag_error(d, p->src, 0, 0, "changed while sheaf was building the site: build again");
        return false;
    }
    p->body = str_make(p->text + p->body_off, p->body.len);
    p->text_dropped = false;
    return true;
}

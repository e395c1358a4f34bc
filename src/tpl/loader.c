/* loader: finds templates by name, parses each once, caches it.
 *
 * Lookup order: templates added from memory, then each folder given (the
 * site's templates/, then the theme's), then the default theme embedded in
 * the binary. Loading a template also loads, once, every template it names
 * with a string literal in extends/include/import/from, so a render never
 * parses; cycles among those are errors naming the chain. One mutex guards
 * the cache; parsed templates are immutable. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "embed/embed.h"
#include "tpl/internal.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/xalloc.h"

typedef struct entry {
    char *name;
    tpl_template *t; /* NULL: failed (already reported) */
    bool failed;
} entry;

typedef struct mem_tpl {
    char *name;
    char *text;
    size_t len;
} mem_tpl;

struct tpl_loader {
    char **dirs;
    size_t ndirs;
    char *root; /* resolved; NULL: no containment rule */
    bool embedded;
    pthread_mutex_t mu;
    entry *v;
    size_t n, cap;
    mem_tpl *mem;
    size_t nmem;
    tpl_names *names; /* shared by its templates */
};

tpl_loader *tpl_loader_new(const char *const *dirs, size_t ndirs, bool embedded)
{
    tpl_loader *l = xcalloc(1, sizeof *l);
    l->dirs = xcalloc(ndirs + 1, sizeof *l->dirs);
    for (size_t i = 0; i < ndirs; i++)
        l->dirs[i] = xstrdup(dirs[i]);
    l->ndirs = ndirs;
    l->embedded = embedded;
    l->names = tpl_names_new();
    pthread_mutex_init(&l->mu, NULL);
    return l;
}

void tpl_loader_set_root(tpl_loader *l, const char *root)
{
    free(l->root);
    l->root = fs_resolve(root);
}

void tpl_loader_free(tpl_loader *l)
{
    if (!l)
        return;
    free(l->root);
    for (size_t i = 0; i < l->ndirs; i++)
        free(l->dirs[i]);
    free(l->dirs);
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].name);
        tpl_template_free(l->v[i].t);
    }
    free(l->v);
    for (size_t i = 0; i < l->nmem; i++) {
        free(l->mem[i].name);
        free(l->mem[i].text);
    }
    free(l->mem);
    tpl_names_free(l->names);
    pthread_mutex_destroy(&l->mu);
    free(l);
}

void tpl_loader_add(tpl_loader *l, const char *name, const char *text, size_t len)
{
    pthread_mutex_lock(&l->mu);
    l->mem = xrealloc(l->mem, (l->nmem + 1) * sizeof *l->mem);
    l->mem[l->nmem].name = xstrdup(name);
    l->mem[l->nmem].text = xmalloc(len + 1);
    memcpy(l->mem[l->nmem].text, text, len);
    l->mem[l->nmem].text[len] = 0;
    l->mem[l->nmem].len = len;
    l->nmem++;
    pthread_mutex_unlock(&l->mu);
}

static bool bad_name(const char *name)
{
    if (!*name || name[0] == '/')
        return true;
    for (const char *p = name; *p;) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if ((n == 2 && !memcmp(p, "..", 2)) || n == 0)
            return true;
        if (!e)
            break;
        p = e + 1;
    }
    return false;
}

/* The text of a template file (caller frees), or NULL when path is not a
 * regular file that can be read (the caller then looks in the next place). */
static char *read_all(const tpl_loader *l, const char *path, size_t *len)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return NULL;
    buf b = BUF_INIT;
    if (!fs_read_file_within(l->root, path, FS_READ_MAX, &b)) {
        buf_release(&b);
        return NULL;
    }
    return buf_detach(&b, len);
}

/* Finds the source of `name`. Returns the text (caller frees) and its display
 * path, or NULL with `tried` listing the places looked at — or, when a
 * place holds something by that name that is not a readable file (a
 * folder templates/post.html), NULL with `bad` (when not NULL) saying so:
 * that is an error, not a reason to fall back to the theme's. */
static char *find_source(tpl_loader *l, const char *name, size_t *len, char **path, buf *tried, buf *bad)
{
    for (size_t i = 0; i < l->nmem; i++)
        if (!strcmp(l->mem[i].name, name)) {
            *len = l->mem[i].len;
            *path = xstrdup(name);
            char *c = xmalloc(*len + 1);
            memcpy(c, l->mem[i].text, *len + 1);
            return c;
        }
    for (size_t i = 0; i < l->ndirs; i++) {
        buf p = BUF_INIT;
        buf_printf(&p, "%s/%s", l->dirs[i], name);
        char *text = read_all(l, p.data, len);
        if (text) {
            *path = buf_detach(&p, NULL);
            return text;
        }
        int why = errno;
        struct stat st = { 0 };
        if (stat(p.data, &st) == 0 || errno != ENOENT) {
            int e = errno;
            if (bad && S_ISDIR(st.st_mode))
                buf_printf(bad, "%s is a folder, not a template file", p.data);
            else if (bad)
                buf_printf(bad, "cannot read %s: %s", p.data,
                           fs_strerror(S_ISREG(st.st_mode) ? (why == FS_EOUTSIDE || why == FS_ETOOBIG ? why : EACCES)
                                                           : S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) ||
                                                                     S_ISSOCK(st.st_mode) || S_ISBLK(st.st_mode)
                                                                 ? FS_ENOTREG
                                                                 : e));
            buf_release(&p);
            return NULL;
        }
        if (tried) {
            if (tried->len)
                buf_puts(tried, ", ");
            buf_puts(tried, p.data);
        }
        buf_release(&p);
    }
    if (l->embedded) {
        buf p = BUF_INIT;
        buf_printf(&p, "templates/%s", name);
        const embed_file *e = embed_find(p.data);
        buf_release(&p);
        if (e) {
            *len = e->len;
            buf q = BUF_INIT;
            buf_printf(&q, "(built-in)/templates/%s", name);
            *path = buf_detach(&q, NULL);
            char *c = xmalloc(e->len + 1);
            memcpy(c, e->data, e->len);
            c[e->len] = 0;
            return c;
        }
        if (tried) {
            if (tried->len)
                buf_puts(tried, ", ");
            buf_puts(tried, "the built-in default theme");
        }
    }
    return NULL;
}

bool tpl_loader_exists(tpl_loader *l, const char *name)
{
    if (bad_name(name))
        return false;
    pthread_mutex_lock(&l->mu);
    size_t len;
    char *path = NULL;
    buf bad = BUF_INIT;
    char *text = find_source(l, name, &len, &path, NULL, &bad);
    pthread_mutex_unlock(&l->mu);
    free(text);
    free(path);
    bool there = text != NULL || bad.len; /* a folder by that name: tpl_load says so */
    buf_release(&bad);
    return there;
}

static entry *find_entry(tpl_loader *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i].name, name))
            return &l->v[i];
    return NULL;
}

char *tpl_loader_source(tpl_loader *l, const char *name, size_t *len)
{
    if (bad_name(name))
        return NULL;
    pthread_mutex_lock(&l->mu);
    char *path = NULL;
    char *text = find_source(l, name, len, &path, NULL, NULL);
    pthread_mutex_unlock(&l->mu);
    free(path);
    return text;
}

/* Adds name's text and its references' to h; with the mutex held. */
static bool fingerprint_locked(tpl_loader *l, const char *name, int depth, uint64_t *h)
{
    size_t len;
    char *path = NULL;
    char *text = bad_name(name) ? NULL : find_source(l, name, &len, &path, NULL, NULL);
    *h = hash_add(*h, name, strlen(name) + 1);
    if (!text) {
        *h = hash_add(*h, "\x01", 1);
        return false;
    }
    *h = hash_add(*h, text, len);
    *h = hash_add(*h, path, strlen(path) + 1);
    free(text);
    free(path);
    entry *e = find_entry(l, name);
    if (e && e->t && depth < 64)
        for (size_t i = 0; i < e->t->nrefs; i++)
            fingerprint_locked(l, e->t->refs[i].name, depth + 1, h);
    return true;
}

uint64_t tpl_loader_fingerprint(tpl_loader *l, const char *name)
{
    uint64_t h = HASH_SEED;
    pthread_mutex_lock(&l->mu);
    bool there = fingerprint_locked(l, name, 0, &h);
    pthread_mutex_unlock(&l->mu);
    return there ? h | 1 : 0;
}

typedef struct chain {
    const char *names[64];
    bool extends[64];
    size_t n;
} chain;

/* Parses `name` (if not cached) and, recursively, its static references.
 * Called with the mutex held. `at_*` is where the reference was written (for
 * errors), NULL for the top. Returns NULL when missing (missing set) or
 * failed (reported). */
static tpl_template *load_locked(tpl_loader *l, const char *name, const char *at_path, int at_line,
                                 int at_col, bool optional, chain *ch, bool *missing,
                                 diag_list *d, buf *tried_out)
{
    *missing = false;
    for (size_t i = 0; i < ch->n; i++) {
        if (strcmp(ch->names[i], name))
            continue;
        buf b = BUF_INIT;
        for (size_t k = i; k < ch->n; k++)
            buf_printf(&b, "%s %s ", ch->names[k], ch->extends[k] ? "extends" : "includes");
        buf_puts(&b, name);
        diag_error(d, at_path, at_line, at_col, "template cycle: %s", b.data);
        buf_release(&b);
        return NULL;
    }
    if (bad_name(name)) {
        diag_error(d, at_path, at_line, at_col,
                   "bad template name '%s' (names are relative paths without '..')", name);
        return NULL;
    }
    entry *e = find_entry(l, name);
    if (e && (e->failed || !ch->n))
        return e->t;
    tpl_template *t = e ? e->t : NULL;
    if (!e) {
        size_t len;
        char *path = NULL;
        buf tried = BUF_INIT, bad = BUF_INIT;
        char *text = find_source(l, name, &len, &path, &tried, &bad);
        if (!text && bad.len) {
            diag_error(d, at_path, at_line, at_col, "template '%s': %s", name, bad.data);
            buf_release(&bad);
            buf_release(&tried);
            return NULL;
        }
        buf_release(&bad);
        if (!text) {
            *missing = true;
            if (!optional) {
                if (at_path)
                    diag_error(d, at_path, at_line, at_col,
                               "template '%s' not found (looked in: %s)", name, tried.data);
                else
                    diag_error(d, NULL, 0, 0, "template '%s' not found (looked in: %s)", name,
                               tried.data);
            }
            if (tried_out)
                buf_puts(tried_out, tried.data);
            buf_release(&tried);
            return NULL;
        }
        buf_release(&tried);
        t = tpl_parse(name, path, text, len, l->names, d);
        free(text);
        free(path);
        if (l->n == l->cap) {
            l->cap = l->cap ? l->cap * 2 : 16;
            l->v = xrealloc(l->v, l->cap * sizeof *l->v);
        }
        e = &l->v[l->n++];
        e->name = xstrdup(name);
        e->t = t;
        e->failed = t == NULL;
        if (!t)
            return NULL;
    }
    if (ch->n == 64) {
        diag_error(d, at_path, at_line, at_col, "templates nest too deeply");
        return NULL;
    }
    /* references: checked each time the chain differs; cheap (few templates) */
    ch->names[ch->n] = name;
    for (size_t i = 0; i < t->nrefs; i++) {
        const tpl_ref *r = &t->refs[i];
        ch->extends[ch->n] = r->extends;
        ch->n++;
        bool miss;
        size_t before = diag_error_count(d);
        load_locked(l, r->name, t->path, r->line, r->col, r->optional, ch, &miss, d, NULL);
        ch->n--;
        if (diag_error_count(d) > before) {
            /* a broken dependency makes this template unusable */
            entry *self = find_entry(l, name);
            (void)self;
            return NULL;
        }
    }
    return t;
}

const tpl_template *tpl_load(tpl_loader *l, const char *name, diag_list *d)
{
    pthread_mutex_lock(&l->mu);
    chain ch = { .n = 0 };
    bool missing;
    entry *e = find_entry(l, name);
    tpl_template *t;
    if (e && (e->failed || e->t))
        t = e->t;
    else
        t = NULL;
    if (!e) {
        t = load_locked(l, name, NULL, 0, 0, false, &ch, &missing, d, NULL);
        if (!t) {
            /* remember the failure so it is reported once */
            entry *f = find_entry(l, name);
            if (f) {
                f->failed = true;
            } else {
                if (l->n == l->cap) {
                    l->cap = l->cap ? l->cap * 2 : 16;
                    l->v = xrealloc(l->v, l->cap * sizeof *l->v);
                }
                l->v[l->n].name = xstrdup(name);
                l->v[l->n].t = NULL;
                l->v[l->n].failed = true;
                l->n++;
            }
        }
    } else if (e->failed) {
        t = NULL;
    }
    pthread_mutex_unlock(&l->mu);
    return t;
}

const tpl_template *tpl_loader_get(tpl_loader *l, const char *name, buf *tried, diag_list *d)
{
    pthread_mutex_lock(&l->mu);
    entry *e = find_entry(l, name);
    tpl_template *t = NULL;
    if (e) {
        t = e->t;
        if (e->failed)
            diag_error(d, NULL, 0, 0, "template '%s' could not be loaded (see above)", name);
    } else {
        chain ch = { .n = 0 };
        bool missing;
        t = load_locked(l, name, NULL, 0, 0, true, &ch, &missing, d, tried);
        if (!t && !missing) {
            entry *f = find_entry(l, name);
            if (f)
                f->failed = true;
        }
    }
    pthread_mutex_unlock(&l->mu);
    return t;
}

/* check: SHEAF_CHECK_INCREMENTAL=1's comparison (see internal.h).
 *
 * A fast rebuild renders only what it decided a change touched, on a model
 * it updated in place; a build with the build cache renders only what
 * read something that changed. With this set, each is followed by a full
 * build of the same site in memory (a fresh one, every file read and
 * parsed again, the cache not read), and every output is compared with
 * the output folder: any difference — bytes, a missing or a stale file, a
 * diagnostic one of the two gave and the other did not — is a bug in the
 * fast path, reported on stderr with the first differing lines, and sheaf
 * aborts, as a failed assertion does. The serve and cache tests run with
 * it. */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cache.h"
#include "render/internal.h"
#include "util/fs.h"
#include "util/manifest.h"
#include "util/strmap.h"
#include "util/vec.h"
#include "util/xalloc.h"

struct check_outputs {
    pthread_mutex_t mu;
    strmap *index; /* path → its entry */
    struct output_copy {
        char *path;
        buf bytes;
    } *v;
    size_t n, cap;
};

void check_collect(void *ctx, const char *rel, const void *data, size_t len)
{
    check_outputs *c = ctx;
    pthread_mutex_lock(&c->mu);
    struct output_copy *e = VEC_ADD(c->v, c->n, c->cap, 256);
    e->path = xstrdup(rel);
    e->bytes = (buf)BUF_INIT;
    buf_put(&e->bytes, data, len);
    strmap_put(c->index, e->path, (long)c->n - 1);
    pthread_mutex_unlock(&c->mu);
}

typedef struct stale_ctx {
    const check_outputs *full;
    buf *report;
    const char *what; /* "fast rebuild", "cached build" */
    const manifest *ours; /* the output folder's manifest, or NULL (none: every file is sheaf's) */
} stale_ctx;

/* A file in the output folder that the full build did not make: stale,
 * unless it is someone else's (not in the folder's manifest), which every
 * build carries over. */
static void find_extra(void *vctx, const char *rel)
{
    stale_ctx *c = vctx;
    if (strcmp(rel, OUTPUT_MANIFEST) != 0 && strmap_get(c->full->index, rel) < 0 &&
        (!c->ours || manifest_has(c->ours, rel)))
        buf_printf(c->report, "%s: written by the %s, not by a full build\n", rel, c->what);
}

/* The line of `s` that starts at or before offset i, at most 200 bytes. */
static void show_line(buf *out, const char *sign, const char *s, size_t n, size_t i)
{
    size_t a = i, e = i;
    while (a > 0 && s[a - 1] != '\n')
        a--;
    while (e < n && s[e] != '\n' && e - a < 200)
        e++;
    buf_printf(out, "%s %.*s\n", sign, (int)(e - a), s + a);
}

/* Appends where `was` (the output folder's bytes) and `want` (the full
 * build's) first differ. */
static void first_difference(buf *out, const char *what, const char *rel, const buf *was,
                             const buf *want)
{
    size_t i = 0;
    while (i < was->len && i < want->len && was->data[i] == want->data[i])
        i++;
    size_t line = 1;
    for (size_t k = 0; k < i; k++)
        line += want->data[k] == '\n';
    buf_printf(out, "%s: differs from a full build at line %zu (- %s, + full build):\n", rel, line,
               what);
    show_line(out, "-", was->data, was->len, i);
    show_line(out, "+", want->data, want->len, i);
}

check_outputs *check_outputs_new(void)
{
    check_outputs *c = xcalloc(1, sizeof *c);
    c->index = strmap_new(1024);
    pthread_mutex_init(&c->mu, NULL);
    return c;
}

void check_outputs_free(check_outputs *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].path);
        buf_release(&c->v[i].bytes);
    }
    free(c->v);
    strmap_free(c->index);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* Diagnostics d[from…) as formatted lines, sorted; those about the build
 * cache left out (a build that reads it may say why it used none of it,
 * one that does not read it cannot). */
static char **said_lines(const diag_list *d, size_t from, size_t *n)
{
    size_t k = 0, all = diag_count(d), cl = strlen(CACHE_DIR);
    char **v = xcalloc(all + 1, sizeof *v);
    buf b = BUF_INIT;
    for (size_t i = from; i < all; i++) {
        const diag *e = diag_get(d, i);
        if (e->path && !strncmp(e->path, CACHE_DIR, cl) && (!e->path[cl] || e->path[cl] == '/'))
            continue;
        buf_reset(&b);
        diag_format(e, &b);
        v[k++] = xstrdup(b.data ? b.data : "");
    }
    buf_release(&b);
    vec_sort(v, k, sizeof *v, vec_cmp_str);
    *n = k;
    return v;
}

/* What one side said that the other did not (both sorted; a line said
 * twice on one side and once on the other counts once). */
static void said_difference(buf *report, char **full, size_t nf, char **own, size_t no, const char *what)
{
    size_t i = 0, j = 0;
    while (i < nf || j < no) {
        int c = i == nf ? 1 : j == no ? -1 : strcmp(full[i], own[j]);
        if (c < 0)
            buf_printf(report, "a full build says, the %s does not: %s\n", what, full[i++]);
        else if (c > 0)
            buf_printf(report, "the %s says, a full build does not: %s\n", what, own[j++]);
        else
            i++, j++;
    }
}

void check_compare(const check_outputs *c, const diag_list *d, const diag_list *said, size_t said_from,
                   const char *out_dir, const char *what)
{
    buf report = BUF_INIT;
    size_t nf = 0, no = 0;
    char **full = said_lines(d, 0, &nf), **own = said ? said_lines(said, said_from, &no) : NULL;
    said_difference(&report, full, nf, own, no, what);
    for (size_t i = 0; i < nf; i++)
        free(full[i]);
    for (size_t i = 0; i < no; i++)
        free(own[i]);
    free(full);
    free(own);
    buf was = BUF_INIT;
    for (size_t i = 0; i < c->n; i++) {
        const struct output_copy *e = &c->v[i];
        char *path = fs_join(out_dir, e->path);
        buf_reset(&was);
        if (!fs_read_file(path, &was))
            buf_printf(&report, "%s: made by a full build, missing after the %s\n", e->path, what);
        else if (was.len != e->bytes.len || memcmp(was.data, e->bytes.data, was.len) != 0)
            first_difference(&report, what, e->path, &was, &e->bytes);
        free(path);
    }
    buf_release(&was);
    manifest m = { 0 };
    bool listed = manifest_read(out_dir, &m);
    stale_ctx sc = { c, &report, what, listed ? &m : NULL };
    fs_walk(out_dir, false, find_extra, &sc);
    manifest_free(&m);
    if (report.len) {
        fprintf(stderr, "sheaf: SHEAF_CHECK_INCREMENTAL: the %s's output is not a full build's:\n%s",
                what, report.data);
        abort();
    }
    buf_release(&report);
}

/* session: a build that keeps the parsed site in memory between runs
 * (`sheaf serve`, see build.h): a full run of the pipeline (build.c) with
 * the session's caches, or, after edits that leave every page where it
 * was, a rebuild on the last run's model that renders only the outputs
 * that read a changed value. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "js/katex.h"
#include "render/internal.h"
#include "util/fs.h"
#include "util/strmap.h"
#include "util/vec.h"
#include "util/text.h"
#include "util/vec.h"
#include "util/xalloc.h"

void render_last_run_free(last_run *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->c.njobs; i++)
        tpl_deps_release(&r->c.deps[i]);
    free(r->c.deps);
    free(r->c.jobs);
    render_shortcodes_free(r->sc);
    tpl_loader_free(r->l);
    free(r->tdir);
    free(r->thdir);
    site_free(&r->s);
    free(r);
}

build_session *build_session_new(const build_options *o)
{
    build_session *s = xcalloc(1, sizeof *s);
    s->o = *o;
    s->site_dir = xstrdup(o->site_dir ? o->site_dir : ".");
    s->out_dir = o->out_dir ? xstrdup(o->out_dir) : fs_join(s->site_dir, "public");
    s->base_url = o->base_url ? xstrdup(o->base_url) : NULL;
    s->o.site_dir = s->site_dir;
    s->o.out_dir = s->out_dir;
    s->o.base_url = s->base_url;
    if (!o->no_cache) {
        s->cache = cache_open(s->site_dir, 0);
        if (!o->write)
            cache_read_only(s->cache);
    }
    s->math.cache = s->cache;
    s->math.engines = js_pool_new();
    s->diagram.cache = s->cache;
    const char *check = getenv("SHEAF_CHECK_INCREMENTAL");
    s->check = check && !strcmp(check, "1");
    return s;
}

void build_session_free(build_session *s)
{
    if (!s)
        return;
    free(s->site_dir);
    free(s->out_dir);
    free(s->base_url);
    site_source_cache_free(s->sources);
    site_page_cache_free(s->pages);
    js_pool_free(s->math.engines);
    cache_free(s->cache);
    output_memory_free(s->outputs);
    render_last_run_free(s->last);
    free(s->deferred);
    free(s);
}

static bool same_str(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* Do two renderings of a page link to the same places with the same words
 * (positions aside)? Then every link check and backlink stays as it was. */
static bool same_links(const page *p, const link_rec *v, size_t n)
{
    if (p->nlinks != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        const link_rec *a = &p->links[i], *b = &v[i];
        if (a->kind != b->kind || a->target != b->target || !same_str(a->dest, b->dest) ||
            !same_str(a->text, b->text) || !same_str(a->anchor, b->anchor) ||
            !same_str(a->missing_path, b->missing_path))
            return false;
    }
    return true;
}

/* The same heading ids and other ids (what links from other pages may
 * target), and nothing to report (problems need the full rebuild). */
static bool same_ids(const md_result *a, const md_result *b)
{
    if (a->nheadings != b->nheadings || a->nanchors != b->nanchors || b->nproblems)
        return false;
    for (size_t i = 0; i < a->nheadings; i++)
        if (strcmp(a->headings[i].id, b->headings[i].id) != 0)
            return false;
    for (size_t i = 0; i < a->nanchors; i++)
        if (strcmp(a->anchors[i], b->anchors[i]) != 0)
            return false;
    /* other pages' `[](this.md#fig-a)` show the labels' numbers and titles */
    if (a->nlabels != b->nlabels)
        return false;
    for (size_t i = 0; i < a->nlabels; i++)
        if (strcmp(a->labels[i].id, b->labels[i].id) || strcmp(a->labels[i].number, b->labels[i].number)
            || strcmp(a->labels[i].text, b->labels[i].text))
            return false;
    return true;
}

/* Does another page link to a label of p with no text of its own (its
 * text then holds p's title)? */
static bool xlink_target(const site *s, const page *p)
{
    for (size_t i = 0; i < s->npages; i++) {
        const page *o = &s->pages[i];
        for (size_t k = 0; k < o->md.nxlinks; k++) {
            size_t l = o->md.xlinks[k].link;
            if (l < o->nlinks && o->links[l].kind == LINK_PAGE && o->links[l].target >= 0
                && &s->pages[o->links[l].target] == p)
                return true;
        }
    }
    return false;
}

/* The same citations, in the same groups and sentences: then every
 * bibliography and paper page stays as it was. */
static bool same_cites(const md_result *a, const md_result *b)
{
    if (a->ncites != b->ncites)
        return false;
    for (size_t i = 0; i < a->ncites; i++) {
        const md_cite *x = &a->cites[i], *y = &b->cites[i];
        if (strcmp(x->key, y->key) || x->group != y->group || strcmp(x->context, y->context))
            return false;
    }
    return true;
}

/* Does job j (by what it read in its last render) depend on any of the
 * given entries of the map owned by `owner`? */
static bool job_reads(const tpl_deps *dp, uint32_t owner, const long *idx, size_t n)
{
    uint64_t lo = (uint64_t)owner << 16, hi = lo | 0xffff;
    size_t a = 0, b = dp->n;
    while (a < b) { /* first entry >= lo */
        size_t m = (a + b) / 2;
        if (dp->v[m] < lo)
            a = m + 1;
        else
            b = m;
    }
    for (; a < dp->n && dp->v[a] <= hi; a++) {
        uint64_t k = dp->v[a] & 0xffff;
        if (k == TPL_DEPS_ALL)
            return true;
        for (size_t i = 0; i < n; i++)
            if ((uint64_t)idx[i] == k)
                return true;
    }
    return false;
}

/* A fast rebuild puts the edited pages' new text, Markdown and values in
 * the model's arena, and the old ones stay there unused until the model
 * goes: without a limit, every save of a 200 KB post would keep ~1 MB for
 * good. So once what fast rebuilds added passes half of what the full run
 * left there (and at least GARBAGE_MIN), the next rebuild is a full one,
 * which makes a new model (reading only the changed files) and frees the
 * old one: the model's memory stays under 1.5 times its size (+ GARBAGE_MIN)
 * over any number of edits. */
#define GARBAGE_MIN ((size_t)8 << 20)

static bool too_much_garbage(const last_run *L)
{
    size_t limit = L->live / 2 > GARBAGE_MIN ? L->live / 2 : GARBAGE_MIN;
    return L->garbage > limit;
}

/* Is job j one that no page shows, made from every page — the search
 * index — so that a fast rebuild may write it after the rest? */
static bool deferrable(const job *j)
{
    return j->kind == J_GENERATED && j->a == SITE_GEN_SEARCH_INDEX;
}

/* Renders jobs pick[0..n) of the last run on its model and commits them
 * (a partial output). False (and the last run forgotten) on any problem:
 * a full run then says what went wrong, in order. */
static bool render_picked(build_session *bs, size_t *pick, size_t n, bool lock, diag_list *d,
                          size_t *written, size_t *unchanged)
{
    last_run *L = bs->last;
    int jobs = site_jobs(bs->o.jobs);
    output out;
    if (!output_begin(&out, bs->out_dir, true, bs->o.force, bs->outputs, d) || !out.known) {
        output_end(&out, false, d);
        output_free(&out);
        render_last_run_free(L);
        bs->last = NULL;
        return false;
    }
    out.partial = true;
    render_ctx *c = &L->c;
    c->out = &out;
    c->pick = pick;
    render_workers_new(c, jobs);
    site_parallel(n, jobs, render_job, c);
    size_t ndiags = render_workers_free(c, jobs);
    c->pick = NULL;
    c->out = NULL;
    lock = lock && bs->commit_lock;
    if (lock)
        bs->commit_lock(bs->commit_lock_ctx, true);
    bool ok = output_end(&out, ndiags == 0, d) && ndiags == 0;
    if (lock)
        bs->commit_lock(bs->commit_lock_ctx, false);
    *written = atomic_load(&out.written);
    *unchanged = atomic_load(&out.unchanged);
    output_free(&out);
    if (!ok) {
        render_last_run_free(L);
        bs->last = NULL;
    }
    return ok;
}

/* A rebuild after edits of existing pages that leave every page where it
 * was — the same dates, tags, slug, draft state (a new title or params are
 * fine), the same heading ids, the same links — done on the last run's
 * model: each such page is parsed and its Markdown rendered again, its
 * value (and the references to it) updated in place, and only the outputs
 * whose last render read a field that changed are rendered again.
 * Anything else (or any diagnostic) makes it return false without writing,
 * and the caller runs a full build. */
static bool fast_rebuild(build_session *bs, const char *const *changed, size_t n, diag_list *d,
                         build_stats *st)
{
    last_run *L = bs->last;
    if (!L || !n)
        return false;
    if (too_much_garbage(L)) {
        render_last_run_free(L);
        bs->last = NULL;
        return false;
    }
    site *s = &L->s;
    if (s->next_change && (int64_t)time(NULL) >= s->next_change)
        return false; /* a post came due or a page expired since: a full run */
    double t0 = render_now_ms();
    size_t used_before = arena_used(s->a);
    size_t npick = 0, cap_deferred = 0;
    size_t *pick = xcalloc(L->c.njobs + 1, sizeof *pick);
    bool *picked = xcalloc(L->c.njobs + 1, sizeof *picked);
    bool ok = true;
    size_t i;
    for (i = 0; i < n && ok; i++) {
        const char *rel = changed[i];
        size_t len = strlen(rel);
        bool in_content = !strncmp(rel, "content/", 8);
        int file = -1;
        int pi = in_content ? site_lookup(s, rel + 8, &file) : -1;
        if (in_content && pi < 0 && file < 0) {
            /* not part of the site, and gone (an editor's temporary file,
             * `sed -i`'s): nothing to do */
            char *gone = fs_join(bs->site_dir, rel);
            bool exists = access(gone, F_OK) == 0 || errno != ENOENT;
            free(gone);
            if (!exists)
                continue;
        }
        ok = pi >= 0 && len > 8 && site_markdown_ext(rel + 8);
        page *p = ok ? &s->pages[pi] : NULL;
        /* an _index.md is read by its section's (or the home page's) list,
         * feed and posts: a full run */
        ok = ok && !p->failed && !p->excluded && !p->is_index && p->path && p->value;
        buf text = BUF_INIT;
        char *path = ok ? fs_join(bs->site_dir, rel) : NULL;
        char *root = ok ? fs_resolve(bs->site_dir) : NULL; /* the containment rule, as a full run */
        ok = ok && fs_read_file_within(root, path, FS_READ_MAX, &text) &&
             text_utf8_check(text.data, text.len) == (size_t)-1;
        free(root);
        free(path);
        if (ok) {
            /* the new bytes live as long as the model: in its arena */
            char *copy = arena_strndup(s->a, text.data, text.len);
            page q = *p;
            str body;
            int body_line;
            if (site_page_body_edit(p, copy, text.len, &body, &body_line)) {
                q.body = body;
                q.body_line = body_line;
            } else {
                /* the front matter changed: fine while the page stays where
                 * it is, dated, tagged and published as before */
                diag_list *pd = diag_list_new();
                ok = site_reparse_page(s, &q, copy, text.len, s->a, pd) && site_page_same_place(p, &q);
                diag_list_free(pd);
            }
            /* another page shows this one's title in a link to its label
             * ("Figure 2 in <em>Title</em>"): a full run */
            ok = ok && !xlink_target(s, p);
            if (ok) {
                site_page_markdown(s, &q, q.body, q.body_line, s->a);
                ok = same_ids(&p->md, &q.md) && same_links(p, q.links, q.nlinks) &&
                     same_cites(&p->md, &q.md);
            }
            if (ok) {
                p->md = q.md;
                p->links = q.links;
                p->search_keys = q.search_keys;
                p->search_keys_len = q.search_keys_len;
                site_page_copy_head(p, &q, true);
                long idx[SITE_BODY_FIELDS + 2];
                bool ref_changed;
                size_t nidx = site_update_body_fields(s, p, idx);
                nidx += site_update_head_fields(s, p, idx + nidx, &ref_changed);
                const long ref_title[1] = { 0 }; /* page_ref() sets title first */
                uint32_t owner = site_page_owner(p);
                for (size_t j = 0; (nidx || ref_changed) && j < L->nrender; j++)
                    picked[j] = picked[j] ||
                                (nidx && job_reads(&L->c.deps[j], owner, idx, nidx)) ||
                                (ref_changed &&
                                 job_reads(&L->c.deps[j], SITE_REF_OWNER | owner, ref_title, 1));
            }
        }
        buf_release(&text);
    }
    /* render what read a changed field, in job order; what no page shows
     * (the search index) later, when the session says so */
    free(bs->deferred);
    bs->deferred = NULL;
    bs->ndeferred = 0;
    for (size_t j = 0; ok && j < L->nrender; j++) {
        if (!picked[j])
            continue;
        if (bs->o.defer_index && deferrable(&L->c.jobs[j]))
            VEC_PUSH(bs->deferred, bs->ndeferred, cap_deferred, 1, j);
        else
            pick[npick++] = j;
    }
    free(picked);
    if (!ok) {
        /* the model may be half updated: it is no use any more */
        free(pick);
        render_last_run_free(L);
        bs->last = NULL;
        return false;
    }
    double t_md = render_now_ms();
    size_t written, unchanged;
    bool rendered = render_picked(bs, pick, npick, false, d, &written, &unchanged);
    free(pick);
    if (!rendered) {
        free(bs->deferred);
        bs->deferred = NULL;
        bs->ndeferred = 0;
        return false;
    }
    build_stats local = { 0 };
    local.written = written;
    local.unchanged = unchanged;
    double t_render = render_now_ms();
    L->garbage += arena_used(s->a) - used_before;
    local.posts = s->nposts;
    local.pages = s->nposts + s->nplain;
    local.tags = s->ntags;
    local.scheduled = s->nscheduled;
    local.expired = s->nexpired;
    local.next_change = s->next_change;
    local.rendered = npick;
    local.ms_markdown = t_md - t0;
    local.ms_render = t_render - t_md;
    local.ms_write = render_now_ms() - t_render;
    local.ms_total = render_now_ms() - t0;
    if (st)
        *st = local;
    return true;
}

/* ---- SHEAF_CHECK_INCREMENTAL=1 ---------------------------------------------
 * A fast rebuild renders only what it decided a change touched, on a model
 * it updated in place. With this set, every fast rebuild is followed by a
 * full build of the same site in memory (a fresh session, every file read
 * and parsed again), and every output is compared with the output folder:
 * any difference — bytes, a missing or a stale file, a diagnostic the fast
 * rebuild did not give — is a bug in the fast path, reported on stderr with
 * the first differing lines, and sheaf aborts, as a failed assertion does.
 * The serve tests run with it. */

typedef struct collected {
    pthread_mutex_t mu;
    strmap *index; /* path → its entry */
    struct output_copy {
        char *path;
        buf bytes;
    } *v;
    size_t n, cap;
} collected;

static void collect(void *ctx, const char *rel, const void *data, size_t len)
{
    collected *c = ctx;
    pthread_mutex_lock(&c->mu);
    struct output_copy *e = VEC_ADD(c->v, c->n, c->cap, 256);
    e->path = xstrdup(rel);
    e->bytes = (buf)BUF_INIT;
    buf_put(&e->bytes, data, len);
    strmap_put(c->index, e->path, (long)c->n - 1);
    pthread_mutex_unlock(&c->mu);
}

typedef struct stale_ctx {
    const collected *full;
    buf *report;
    const char *what; /* "fast rebuild", "cached build" */
} stale_ctx;

static void find_extra(void *vctx, const char *rel)
{
    stale_ctx *c = vctx;
    if (strcmp(rel, OUTPUT_MANIFEST) != 0 && strmap_get(c->full->index, rel) < 0)
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

void render_check_incremental(build_session *bs, bool no_cache)
{
    build_options o = bs->o;
    o.write = false;
    o.no_cache = o.no_cache || no_cache;
    const char *what = no_cache ? "cached build" : "fast rebuild";
    o.progress = NULL;
    build_session *full = build_session_new(&o);
    collected c = { .index = strmap_new(1024) };
    pthread_mutex_init(&c.mu, NULL);
    full->sink = collect;
    full->sink_ctx = &c;
    diag_list *d = diag_list_new();
    render_run(full, d, NULL);
    build_session_free(full);

    buf report = BUF_INIT;
    for (size_t i = 0; i < diag_count(d); i++) {
        buf_puts(&report, "a full build says: ");
        diag_format(diag_get(d, i), &report);
        buf_putc(&report, '\n');
    }
    buf was = BUF_INIT;
    for (size_t i = 0; i < c.n; i++) {
        const struct output_copy *e = &c.v[i];
        char *path = fs_join(bs->out_dir, e->path);
        buf_reset(&was);
        if (!fs_read_file(path, &was))
            buf_printf(&report, "%s: made by a full build, missing after the %s\n", e->path, what);
        else if (was.len != e->bytes.len || memcmp(was.data, e->bytes.data, was.len) != 0)
            first_difference(&report, what, e->path, &was, &e->bytes);
        free(path);
    }
    buf_release(&was);
    stale_ctx sc = { &c, &report, what };
    fs_walk(bs->out_dir, false, find_extra, &sc);
    if (report.len) {
        fprintf(stderr, "sheaf: SHEAF_CHECK_INCREMENTAL: the %s's output is not a full build's:\n%s",
                what, report.data);
        abort();
    }
    buf_release(&report);
    diag_list_free(d);
    for (size_t i = 0; i < c.n; i++) {
        free(c.v[i].path);
        buf_release(&c.v[i].bytes);
    }
    free(c.v);
    strmap_free(c.index);
    pthread_mutex_destroy(&c.mu);
}

static bool session_run(build_session *s, const char *const *changed, size_t nchanged,
                        diag_list *d, build_stats *st);

void render_math_stats(build_session *s, bool begin, build_stats *st)
{
    double ms;
    size_t f = atomic_load(&s->math.formulas), r = atomic_load(&s->math.rendered);
    size_t e = js_pool_started(s->math.engines, &ms);
    size_t df = atomic_load(&s->diagram.diagrams), dr = atomic_load(&s->diagram.rendered);
    if (begin) {
        s->stats0[0] = f, s->stats0[1] = r, s->stats0[2] = e, s->ms0 = ms;
        s->stats0[3] = df, s->stats0[4] = dr;
    } else if (st) {
        st->diagrams = df - s->stats0[3];
        st->diagrams_rendered = dr - s->stats0[4];
        st->formulas = f - s->stats0[0];
        st->formulas_rendered = r - s->stats0[1];
        st->engines = e - s->stats0[2];
        st->ms_engines = ms - s->ms0;
    }
}

bool build_session_rerun(build_session *s, diag_list *d, build_stats *st)
{
    if (!s->sources)
        return build_session_run(s, NULL, 0, d, st);
    render_math_stats(s, true, NULL);
    bool ok = render_run(s, d, st);
    render_math_stats(s, false, st);
    return ok;
}

bool build_session_run(build_session *s, const char *const *changed, size_t nchanged, diag_list *d,
                       build_stats *st)
{
    render_math_stats(s, true, NULL);
    bool ok = session_run(s, changed, nchanged, d, st);
    render_math_stats(s, false, st);
    return ok;
}

static bool session_run(build_session *s, const char *const *changed, size_t nchanged,
                        diag_list *d, build_stats *st)
{
    /* Every run rebuilds the site model and renders every output in
     * memory, which keeps the output exactly build_site's (and unchanged
     * outputs are never rewritten). What carries over: the bytes of sources
     * that did not change, and each unchanged page's front matter and
     * Markdown (see site/pagecache.c for when those are still valid). A full
     * run (changed == NULL) forgets everything. */
    if (!s->sources) {
        s->sources = site_source_cache_new();
        s->pages = site_page_cache_new();
        s->outputs = output_memory_new();
    }
    if (!changed || !nchanged) {
        site_source_cache_clear(s->sources);
        site_page_cache_clear(s->pages);
    }
    for (size_t i = 0; changed && i < nchanged; i++)
        site_source_cache_forget(s->sources, changed[i]);
    free(s->deferred); /* build_session_finish was not called: a full run writes it all */
    s->deferred = NULL;
    s->ndeferred = 0;
    if (changed && nchanged && fast_rebuild(s, changed, nchanged, d, st)) {
        if (s->check && !s->ndeferred)
            render_check_incremental(s, false);
        return true;
    }
    return render_run(s, d, st);
}

void build_session_set_commit_lock(build_session *s, void (*lock)(void *ctx, bool take), void *ctx)
{
    s->commit_lock = lock;
    s->commit_lock_ctx = ctx;
}

bool build_session_finish(build_session *s, diag_list *d)
{
    if (!s->ndeferred)
        return true;
    size_t written, unchanged;
    bool ok = s->last && render_picked(s, s->deferred, s->ndeferred, true, d, &written, &unchanged);
    free(s->deferred);
    s->deferred = NULL;
    s->ndeferred = 0;
    if (ok && s->check)
        render_check_incremental(s, false);
    return ok;
}

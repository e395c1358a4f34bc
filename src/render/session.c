/* session: a build that keeps the parsed site in memory between runs
 * (`sheaf serve`, see build.h): a full run of the pipeline (build.c) with
 * the session's caches, or, after edits that leave every page where it
 * was, a rebuild on the last run's model that renders only the outputs
 * that read a changed value. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render/internal.h"
#include "util/fs.h"
#include "util/vec.h"
#include "util/text.h"
#include "util/xalloc.h"

build_session *build_session_new(const build_options *o)
{
    build_session *s = xcalloc(1, sizeof *s);
    build_env_init(&s->env, o);
    return s;
}

void build_session_free(build_session *s)
{
    if (!s)
        return;
    build_env_release(&s->env);
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
    int jobs = site_jobs(bs->env.o.jobs);
    output out;
    if (!output_begin(&out, bs->env.out_dir, true, bs->env.o.force, bs->env.outputs, NULL, d) || !out.known) {
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
            char *gone = fs_join(bs->env.site_dir, rel);
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
        char *path = ok ? fs_join(bs->env.site_dir, rel) : NULL;
        char *root = ok ? fs_resolve(bs->env.site_dir) : NULL; /* the containment rule, as a full run */
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
                ok = site_reparse_page(s, &q, copy, text.len, s->a, pd) && site_page_same_place(p, &q) &&
                     site_csl_page_known(s, &q); /* a citation style it did not name before: read in a full run */
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
        if (bs->env.o.defer_index && deferrable(&L->c.jobs[j]))
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

/* A full run of the pipeline with the session's caches; a good and quiet
 * one is kept for fast rebuilds. */
static bool full_run(build_session *s, diag_list *d, build_stats *st)
{
    render_last_run_free(s->last); /* this run replaces it, or leaves none */
    s->last = NULL;
    return render_run(&s->env, &s->last, d, st);
}

static bool session_run(build_session *s, const char *const *changed, size_t nchanged,
                        diag_list *d, build_stats *st);

bool build_session_rerun(build_session *s, diag_list *d, build_stats *st)
{
    if (!s->env.sources)
        return build_session_run(s, NULL, 0, d, st);
    render_math_stats(&s->env, true, NULL);
    bool ok = full_run(s, d, st);
    render_math_stats(&s->env, false, st);
    return ok;
}

bool build_session_run(build_session *s, const char *const *changed, size_t nchanged, diag_list *d,
                       build_stats *st)
{
    render_math_stats(&s->env, true, NULL);
    bool ok = session_run(s, changed, nchanged, d, st);
    render_math_stats(&s->env, false, st);
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
    build_env *e = &s->env;
    if (!e->sources) {
        e->sources = site_source_cache_new();
        e->pages = site_page_cache_new();
        e->outputs = output_memory_new();
    }
    if (!changed || !nchanged) {
        site_source_cache_clear(e->sources);
        site_page_cache_clear(e->pages);
    }
    for (size_t i = 0; changed && i < nchanged; i++)
        site_source_cache_forget(e->sources, changed[i]);
    free(s->deferred); /* build_session_finish was not called: a full run writes it all */
    s->deferred = NULL;
    s->ndeferred = 0;
    if (changed && nchanged && fast_rebuild(s, changed, nchanged, d, st)) {
        if (e->check && !s->ndeferred)
            render_check_incremental(e, false, NULL, 0);
        return true;
    }
    return full_run(s, d, st);
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
    if (ok && s->env.check)
        render_check_incremental(&s->env, false, NULL, 0);
    return ok;
}

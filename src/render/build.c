/* build: the pipeline, stage by stage (see build.h and DESIGN.md):
 *   config → load + front matter (parallel) → output paths → markdown with
 *   link resolution (parallel) → link checks, backlinks → model → render
 *   every output (parallel) → swap the new output folder in.
 * Rendering is a list of independent jobs over the finished, immutable
 * model; each worker has its own scratch arena. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "render/build.h"
#include "render/output.h"
#include "site/site.h"
#include "tpl/tpl.h"
#include "util/fs.h"
#include "util/text.h"
#include "util/strmap.h"
#include "util/xalloc.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- render jobs ----------------------------------------------------------- */

typedef enum job_kind { J_PAGE, J_INDEX, J_TAG, J_TAGS, J_ARCHIVE, J_FEED, J_SITEMAP, J_ROBOTS,
                        J_404, J_ALIAS, J_FILE } job_kind;

typedef struct job {
    job_kind kind;
    int a, b; /* page / tag / index page number / file; alias number */
    int worker;      /* who ran it, and where its diagnostics are in */
    size_t d0, d1;   /* that worker's list: [d0, d1) */
} job;

typedef struct render_ctx {
    site *s;
    tpl_loader *l;
    tpl_options opt;
    output *out;
    job *jobs;
    size_t njobs;
    arena **scratch;
    diag_list **diags; /* one per worker: merged and de-duplicated after */
    tpl_value years;
    size_t index_pages;
    tpl_deps *deps;    /* a build session: what each job read of the pages, or NULL */
    const size_t *pick; /* a build session's partial rebuild: the jobs to run, or NULL */
} render_ctx;

static tpl_map *list_page(render_ctx *c, arena *a, const char *kind, const char *title, const char *path)
{
    tpl_map *m = tpl_map_new(a, 4);
    tpl_map_set_str(a, m, "kind", tpl_str(kind));
    tpl_map_set_str(a, m, "title", tpl_str(title));
    tpl_map_set_str(a, m, "url", tpl_str(arena_printf(a, "%s%s", c->s->cfg.base_path, path)));
    tpl_map_set_str(a, m, "permalink", tpl_str(arena_printf(a, "%s%s", c->s->cfg.base_url, path)));
    return m;
}

static const char *index_path(arena *a, size_t n)
{
    return n <= 1 ? "" : arena_printf(a, "page/%zu/", n);
}

static void render_one(render_ctx *c, const job *j, arena *a, diag_list *d)
{
    site *s = c->s;
    tpl_map *vars = tpl_map_new(a, 6);
    tpl_map_set_str(a, vars, "site", s->site_value);
    const char *tname = NULL, *out_rel = NULL, *context = NULL;
    switch (j->kind) {
    case J_PAGE: {
        page *p = &s->pages[j->a];
        tname = p->template_name ? p->template_name : p->is_post ? "post.html" : "page.html";
        out_rel = arena_printf(a, "%sindex.html", p->path);
        context = p->src;
        tpl_map_set_str(a, vars, "page", tpl_map_value(p->value));
        if (p->template_name && !tpl_loader_exists(c->l, p->template_name)) {
            diag_error(d, p->src, 1, 1, "template '%s' (from 'template:' in the front matter) not found",
                       p->template_name);
            return;
        }
        break;
    }
    case J_INDEX: {
        size_t k = (size_t)j->a, per = (size_t)s->cfg.paginate, total = c->index_pages;
        size_t from = (k - 1) * per, to = from + per < s->nposts ? from + per : s->nposts;
        tpl_list *pl = tpl_list_new(a, to - from);
        for (size_t i = from; i < to; i++)
            pl->items[i - from] = tpl_map_value(s->pages[s->posts[i]].value);
        tpl_map *pg = tpl_map_new(a, 8);
        tpl_map_set_str(a, pg, "pages", tpl_list_value(pl));
        tpl_map_set_str(a, pg, "current", tpl_int((int64_t)k));
        tpl_map_set_str(a, pg, "total", tpl_int((int64_t)total));
        const char *bp = s->cfg.base_path;
        if (k > 1)
            tpl_map_set_str(a, pg, "prev_url", tpl_str(arena_printf(a, "%s%s", bp, index_path(a, k - 1))));
        if (k < total)
            tpl_map_set_str(a, pg, "next_url", tpl_str(arena_printf(a, "%s%s", bp, index_path(a, k + 1))));
        tpl_map_set_str(a, pg, "first_url", tpl_str(bp));
        tpl_map_set_str(a, pg, "last_url", tpl_str(arena_printf(a, "%s%s", bp, index_path(a, total))));
        tpl_map_set_str(a, vars, "paginator", tpl_map_value(pg));
        const char *path = index_path(a, k);
        tpl_map_set_str(a, vars, "page", tpl_map_value(list_page(c, a, "index", s->cfg.title, path)));
        tname = "index.html";
        out_rel = arena_printf(a, "%sindex.html", path);
        context = k > 1 ? arena_printf(a, "the home page, page %zu", k) : "the home page";
        break;
    }
    case J_TAG: {
        tag_info *t = &s->tags[j->a];
        tpl_map_set_str(a, vars, "tag", tpl_map_value(t->value));
        tpl_map_set_str(a, vars, "page", tpl_map_value(list_page(c, a, "tag", t->name, t->path)));
        tname = "tag.html";
        out_rel = arena_printf(a, "%sindex.html", t->path);
        context = arena_printf(a, "the page of tag '%s'", t->name);
        break;
    }
    case J_TAGS:
        tpl_map_set_str(a, vars, "page", tpl_map_value(list_page(c, a, "tags", "Tags", "tags/")));
        tname = "tags.html";
        out_rel = "tags/index.html";
        context = "the tags index";
        break;
    case J_ARCHIVE:
        tpl_map_set_str(a, vars, "page", tpl_map_value(list_page(c, a, "archive", "Archive", "archive/")));
        tpl_map_set_str(a, vars, "years", c->years);
        tname = "archive.html";
        out_rel = "archive/index.html";
        context = "the archive";
        break;
    case J_FEED:
    case J_SITEMAP:
    case J_ROBOTS:
    case J_404: {
        static const char *const names[] = { "atom.xml", "sitemap.xml", "robots.txt", "404.html" };
        static const char *const kinds[] = { "feed", "sitemap", "robots", "404" };
        int k = j->kind - J_FEED;
        tname = names[k];
        out_rel = names[k];
        context = names[k];
        tpl_map_set_str(a, vars, "page", tpl_map_value(list_page(c, a, kinds[k], k == 3 ? "Page not found" : s->cfg.title,
                                                                 k == 3 ? "404.html" : names[k])));
        break;
    }
    case J_ALIAS: {
        page *p = &s->pages[j->a];
        out_rel = site_alias_output(a, p->aliases[j->b]);
        const char *url = site_permalink(s, p->path);
        buf b = BUF_INIT;
        buf_printf(&b, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n"
                       "<title>Redirecting…</title>\n<link rel=\"canonical\" href=\"%s\">\n"
                       "<meta http-equiv=\"refresh\" content=\"0; url=%s\">\n</head>\n<body>\n"
                       "<p>This page has moved to <a href=\"%s\">%s</a>.</p>\n</body>\n</html>\n",
                   s->cfg.language, url, url, url, url);
        output_put(c->out, out_rel, b.data, b.len, d);
        buf_release(&b);
        return;
    }
    case J_FILE: {
        const site_file *f = &s->files[j->a];
        char *src = f->data ? NULL : fs_join(s->dir, f->src);
        output_copy(c->out, f->path, src, f->data, f->len, d);
        free(src);
        return;
    }
    }
    tpl_map_seal(a, vars);
    diag_list *td = diag_list_new();
    const tpl_template *t = tpl_load(c->l, tname, td);
    buf out = BUF_INIT;
    if (t && tpl_render(t, c->l, vars, &c->opt, context, a, &out, td))
        output_put(c->out, out_rel, out.data, out.len, d);
    diag_move(d, td);
    diag_list_free(td);
    buf_release(&out);
}

static void render_job(void *vctx, size_t i, int worker)
{
    render_ctx *c = vctx;
    if (c->pick)
        i = c->pick[i];
    job *j = &c->jobs[i];
    j->worker = worker;
    j->d0 = diag_count(c->diags[worker]);
    tpl_deps *old = NULL;
    if (c->deps) {
        c->deps[i].n = 0;
        old = tpl_deps_use(&c->deps[i]);
    }
    render_one(c, j, c->scratch[worker], c->diags[worker]);
    if (c->deps) {
        tpl_deps_use(old);
        tpl_deps_finish(&c->deps[i]);
    }
    j->d1 = diag_count(c->diags[worker]);
    arena_reset(c->scratch[worker]);
}

/* Each worker's scratch arena and diagnostics list, for one round of jobs. */
static void workers_new(render_ctx *c, int jobs)
{
    c->scratch = xcalloc((size_t)jobs, sizeof *c->scratch);
    c->diags = xcalloc((size_t)jobs, sizeof *c->diags);
    for (int w = 0; w < jobs; w++) {
        c->scratch[w] = arena_new();
        c->diags[w] = diag_list_new();
    }
}

/* Frees them; returns how many diagnostics they held. */
static size_t workers_free(render_ctx *c, int jobs)
{
    size_t n = 0;
    for (int w = 0; w < jobs; w++) {
        n += diag_count(c->diags[w]);
        arena_free(c->scratch[w]);
        diag_list_free(c->diags[w]);
    }
    free(c->scratch);
    free(c->diags);
    c->scratch = NULL;
    c->diags = NULL;
    return n;
}

static void add_job(job **v, size_t *n, size_t *cap, job_kind k, int a, int b)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 256;
        *v = xrealloc(*v, *cap * sizeof **v);
    }
    (*v)[(*n)++] = (job){ k, a, b, 0, 0, 0 };
}

/* Diagnostics in job order (not in the order threads happened to finish),
 * so the output is the same for any -j. The same template error on many
 * pages is reported once, for the first page, with a note counting the
 * others. */
static void merge_diags(diag_list *d, diag_list **parts, const job *jobs, size_t njobs)
{
    /* pass 1: how often each error (formatted) came up */
    strmap *seen = strmap_new(64);
    char **keys = NULL;
    size_t nkeys = 0, *dups = NULL;
    for (size_t ji = 0; ji < njobs; ji++)
        for (size_t i = jobs[ji].d0; i < jobs[ji].d1; i++) {
            const diag *e = diag_get(parts[jobs[ji].worker], i);
            if (e->level == DIAG_NOTE)
                continue;
            buf k = BUF_INIT;
            diag_format(e, &k);
            char *key = buf_detach(&k, NULL);
            long idx = strmap_put(seen, key, (long)nkeys);
            if (idx != (long)nkeys) {
                free(key);
                dups[idx]++;
                continue;
            }
            keys = xrealloc(keys, (nkeys + 1) * sizeof *keys);
            dups = xrealloc(dups, (nkeys + 1) * sizeof *dups);
            keys[nkeys] = key;
            dups[nkeys++] = 0;
        }
    /* pass 2: each error once, with its notes, then the count */
    bool *done = xcalloc(nkeys + 1, sizeof *done);
    for (size_t ji = 0; ji < njobs; ji++) {
        const job *jb = &jobs[ji];
        for (size_t i = jb->d0; i < jb->d1; i++) {
            const diag *e = diag_get(parts[jb->worker], i);
            if (e->level == DIAG_NOTE)
                continue; /* emitted with its error */
            buf k = BUF_INIT;
            diag_format(e, &k);
            long idx = strmap_get(seen, k.data);
            buf_release(&k);
            if (idx < 0 || done[idx])
                continue;
            done[idx] = true;
            diag_add(d, e->level, e->path, e->line, e->col, "%s", e->message);
            size_t n = i + 1;
            for (; n < jb->d1; n++) {
                const diag *note = diag_get(parts[jb->worker], n);
                if (note->level != DIAG_NOTE)
                    break;
                diag_add(d, note->level, note->path, note->line, note->col, "%s", note->message);
            }
            if (dups[idx])
                diag_note(d, e->path, e->line, e->col, "the same error came up %zu more time%s, on other pages",
                          dups[idx], dups[idx] == 1 ? "" : "s");
        }
    }
    for (size_t i = 0; i < nkeys; i++)
        free(keys[i]);
    free(keys);
    free(dups);
    free(done);
    strmap_free(seen);
}

/* ---- the whole build --------------------------------------------------- */

/* What a build session keeps of its last good run, for rebuilding only
 * what an edit of a page's body touches: the site model, the loaded
 * templates, the render jobs and what each read of the pages. */
typedef struct last_run {
    site s;
    tpl_loader *l;
    char *tdir, *thdir;
    render_ctx c;      /* jobs, years, options; scratch and diags are per run */
    size_t nrender;    /* jobs that render a template (the rest copy files) */
} last_run;

struct build_session {
    build_options o;
    char *site_dir, *out_dir, *base_url;
    site_source_cache *sources; /* NULL for a one-shot build */
    site_page_cache *pages;     /* likewise */
    output_memory *outputs;     /* what the last run committed; likewise */
    last_run *last;             /* the last run, when it was good and said nothing */
};

static void last_run_free(last_run *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->c.njobs; i++)
        tpl_deps_release(&r->c.deps[i]);
    free(r->c.deps);
    free(r->c.jobs);
    tpl_loader_free(r->l);
    free(r->tdir);
    free(r->thdir);
    site_free(&r->s);
    free(r);
}

static bool out_dir_is_safe(const char *site_dir, const char *out_dir, diag_list *d)
{
    char rs[PATH_MAX], ro[PATH_MAX];
    if (!realpath(site_dir, rs))
        return true;
    if (!realpath(out_dir, ro))
        return true; /* does not exist yet */
    static const char *const keep[] = { "", "/content", "/static", "/templates", "/themes", NULL };
    for (size_t i = 0; keep[i]; i++) {
        buf b = BUF_INIT;
        buf_printf(&b, "%s%s", rs, keep[i]);
        bool same = !strcmp(b.data, ro);
        buf_release(&b);
        if (same) {
            diag_error(d, NULL, 0, 0, "refusing to use %s as the output folder: it holds the site's "
                                      "sources and would be replaced", out_dir);
            return false;
        }
    }
    return true;
}

static bool run_build(build_session *bs, diag_list *d, build_stats *st)
{
    const build_options *o = &bs->o;
    double t0 = now_ms(), t;
    build_stats local = { 0 };
    size_t errors_before = diag_error_count(d), diags_before = diag_count(d);
    int jobs = site_jobs(o->jobs);
    last_run_free(bs->last); /* this run replaces it, or leaves none */
    bs->last = NULL;

    site s = { 0 };
    s.dir = bs->site_dir;
    s.sources = bs->sources;
    s.page_cache = bs->pages;
    s.a = arena_new();
    s.drafts = o->drafts;
    s.nwa = jobs;
    s.wa = xcalloc((size_t)jobs, sizeof *s.wa);
    for (int i = 0; i < jobs; i++)
        s.wa[i] = arena_new();

    bool ok = site_config_load(s.dir, bs->base_url, s.a, &s.cfg, d);
    local.ms_config = now_ms() - t0;
    if (!ok)
        goto done;
    t = now_ms();
    site_load(&s, jobs, d);
    site_assign_paths(&s, d);
    local.ms_load = now_ms() - t;
    t = now_ms();
    site_render_markdown(&s, jobs, d);
    local.ms_markdown = now_ms() - t;
    t = now_ms();
    site_check_links(&s, d);
    site_build_model(&s);
    local.ms_model = now_ms() - t;
    site_check_generated_paths(&s, s.nposts ? (s.nposts + (size_t)s.cfg.paginate - 1) / (size_t)s.cfg.paginate : 1, d);
    if (diag_error_count(d) > errors_before) {
        ok = false;
        goto done;
    }

    /* render */
    t = now_ms();
    char *tdir = fs_join(s.dir, "templates");
    buf theme_t = BUF_INIT;
    buf_printf(&theme_t, "themes/%s/templates", s.cfg.theme);
    char *thdir = fs_join(s.dir, theme_t.data);
    const char *dirs[2] = { tdir, thdir };
    tpl_loader *l = tpl_loader_new(dirs, 2, true);
    output out;
    if (!out_dir_is_safe(s.dir, bs->out_dir, d) || !output_begin(&out, bs->out_dir, o->write, bs->outputs, d)) {
        ok = false;
        tpl_loader_free(l);
        free(tdir);
        free(thdir);
        buf_release(&theme_t);
        goto done;
    }
    render_ctx c = { .s = &s, .l = l, .out = &out };
    c.opt.base_url = s.cfg.base_url;
    job *jv = NULL;
    size_t nj = 0, cj = 0;
    for (size_t i = 0; i < s.nposts; i++)
        add_job(&jv, &nj, &cj, J_PAGE, s.posts[i], 0);
    for (size_t i = 0; i < s.nplain; i++)
        add_job(&jv, &nj, &cj, J_PAGE, s.plain[i], 0);
    c.index_pages = s.nposts ? (s.nposts + (size_t)s.cfg.paginate - 1) / (size_t)s.cfg.paginate : 1;
    for (size_t k = 1; k <= c.index_pages; k++)
        add_job(&jv, &nj, &cj, J_INDEX, (int)k, 0);
    for (size_t i = 0; i < s.ntags; i++)
        add_job(&jv, &nj, &cj, J_TAG, (int)i, 0);
    add_job(&jv, &nj, &cj, J_TAGS, 0, 0);
    add_job(&jv, &nj, &cj, J_ARCHIVE, 0, 0);
    add_job(&jv, &nj, &cj, J_FEED, 0, 0);
    add_job(&jv, &nj, &cj, J_SITEMAP, 0, 0);
    add_job(&jv, &nj, &cj, J_ROBOTS, 0, 0);
    add_job(&jv, &nj, &cj, J_404, 0, 0);
    for (size_t i = 0; i < s.npages; i++) {
        page *p = &s.pages[i];
        if (p->failed || p->excluded || !p->path)
            continue;
        for (size_t k = 0; k < p->naliases; k++)
            add_job(&jv, &nj, &cj, J_ALIAS, (int)i, (int)k);
    }
    size_t nrender = nj;
    for (size_t i = 0; i < s.nfiles; i++)
        add_job(&jv, &nj, &cj, J_FILE, (int)i, 0);
    c.jobs = jv;
    c.njobs = nj;
    c.years = site_archive_years(&s);
    if (bs->sources && o->write)
        c.deps = xcalloc(nj + 1, sizeof *c.deps);
    workers_new(&c, jobs);
    site_parallel(nj, jobs, render_job, &c);
    merge_diags(d, c.diags, jv, nj);
    workers_free(&c, jobs);
    local.ms_render = now_ms() - t;
    t = now_ms();
    ok = diag_error_count(d) == errors_before;
    ok = output_end(&out, ok, d) && ok;
    local.ms_write = now_ms() - t;
    local.written = atomic_load(&out.written);
    local.unchanged = atomic_load(&out.unchanged);
    local.removed = atomic_load(&out.removed);
    local.copied = atomic_load(&out.copied);
    local.rendered = nrender;
    output_free(&out);
    buf_release(&theme_t);
    if (ok && c.deps && diag_count(d) == diags_before) {
        /* a good, quiet session run: keep it for rebuilding body edits */
        last_run *r = xcalloc(1, sizeof *r);
        r->s = s;
        r->l = l;
        r->tdir = tdir;
        r->thdir = thdir;
        r->c = c;
        r->c.s = &r->s;
        r->c.l = l;
        r->c.out = NULL;
        r->nrender = nrender;
        bs->last = r;
        memset(&s, 0, sizeof s);
    } else {
        for (size_t i = 0; c.deps && i < nj; i++)
            tpl_deps_release(&c.deps[i]);
        free(c.deps);
        free(jv);
        tpl_loader_free(l);
        free(tdir);
        free(thdir);
    }
done:;
    const site *ks = s.a ? &s : &bs->last->s; /* kept for the next run? */
    local.posts = ks->nposts;
    local.pages = ks->nposts + ks->nplain;
    local.tags = ks->ntags;
    local.ms_total = now_ms() - t0;
    if (st)
        *st = local;
    if (s.a)
        site_free(&s);
    return ok && diag_error_count(d) == errors_before;
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
    output_memory_free(s->outputs);
    last_run_free(s->last);
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

static bool same_date(bool ha, const sheaf_date *a, bool hb, const sheaf_date *b)
{
    return ha == hb && (!ha || (a->t == b->t && a->offset_min == b->offset_min &&
                                a->has_time == b->has_time && a->has_zone == b->has_zone));
}

static bool same_strs(const char **a, size_t na, const char **b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (strcmp(a[i], b[i]) != 0)
            return false;
    return true;
}

/* After a front-matter edit: is the page where it was — the same dates,
 * slug, template, summary, tags, aliases and draft state? Then only its
 * title and params can differ, and no list changes order or membership. */
static bool same_place(const page *a, const page *b)
{
    return !b->failed && a->draft == b->draft && a->excluded == b->excluded &&
           same_date(a->has_date, &a->date, b->has_date, &b->date) &&
           same_date(a->has_updated, &a->updated, b->has_updated, &b->updated) &&
           same_str(a->slug, b->slug) && same_str(a->template_name, b->template_name) &&
           same_str(a->summary_text, b->summary_text) &&
           same_strs(a->tags, a->ntags, b->tags, b->ntags) &&
           same_strs(a->aliases, a->naliases, b->aliases, b->naliases);
}

static bool same_ids(const md_result *a, const md_result *b)
{
    if (a->nheadings != b->nheadings)
        return false;
    for (size_t i = 0; i < a->nheadings; i++)
        if (strcmp(a->headings[i].id, b->headings[i].id) != 0)
            return false;
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
    double t0 = now_ms();
    site *s = &L->s;
    size_t npick = 0;
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
        ok = pi >= 0 && len > 11 && !strcmp(rel + len - 3, ".md");
        page *p = ok ? &s->pages[pi] : NULL;
        ok = ok && !p->failed && !p->excluded && p->path && p->value;
        buf text = BUF_INIT;
        char *path = ok ? fs_join(bs->site_dir, rel) : NULL;
        ok = ok && fs_read_file(path, &text) && text_utf8_check(text.data, text.len) == (size_t)-1;
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
                ok = site_reparse_page(s, &q, copy, text.len, s->a, pd) && same_place(p, &q);
                diag_list_free(pd);
            }
            if (ok) {
                site_page_markdown(s, &q, q.body, q.body_line, s->a);
                ok = same_ids(&p->md, &q.md) && same_links(p, q.links, q.nlinks);
            }
            if (ok) {
                p->md = q.md;
                p->links = q.links;
                p->title = q.title;
                p->fm = q.fm;
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
    /* render what read a changed field, in job order */
    for (size_t j = 0; ok && j < L->nrender; j++)
        if (picked[j])
            pick[npick++] = j;
    free(picked);
    if (!ok) {
        /* the model may be half updated: it is no use any more */
        free(pick);
        last_run_free(L);
        bs->last = NULL;
        return false;
    }
    double t_md = now_ms();
    int jobs = site_jobs(bs->o.jobs);
    output out;
    if (!output_begin(&out, bs->out_dir, true, bs->outputs, d) || !out.known) {
        output_end(&out, false, d);
        output_free(&out);
        free(pick);
        last_run_free(L);
        bs->last = NULL;
        return false;
    }
    out.partial = true;
    render_ctx *c = &L->c;
    c->out = &out;
    c->pick = pick;
    workers_new(c, jobs);
    site_parallel(npick, jobs, render_job, c);
    size_t ndiags = workers_free(c, jobs);
    c->pick = NULL;
    c->out = NULL;
    free(pick);
    double t_render = now_ms();
    ok = output_end(&out, ndiags == 0, d) && ndiags == 0;
    build_stats local = { 0 };
    local.written = atomic_load(&out.written);
    local.unchanged = atomic_load(&out.unchanged);
    output_free(&out);
    if (!ok) {
        /* a full build says what went wrong, in order */
        last_run_free(L);
        bs->last = NULL;
        return false;
    }
    local.posts = s->nposts;
    local.pages = s->nposts + s->nplain;
    local.tags = s->ntags;
    local.rendered = npick;
    local.ms_markdown = t_md - t0;
    local.ms_render = t_render - t_md;
    local.ms_write = now_ms() - t_render;
    local.ms_total = now_ms() - t0;
    if (st)
        *st = local;
    return true;
}

bool build_session_run(build_session *s, const char *const *changed, size_t nchanged, diag_list *d,
                       build_stats *st)
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
    if (changed && nchanged && fast_rebuild(s, changed, nchanged, d, st))
        return true;
    return run_build(s, d, st);
}

bool build_site(const build_options *o, diag_list *d, build_stats *st)
{
    build_session *s = build_session_new(o);
    bool ok = run_build(s, d, st);
    build_session_free(s);
    return ok;
}

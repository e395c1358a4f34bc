/* build: the pipeline, stage by stage (see build.h and DESIGN.md):
 *   config → load + front matter (parallel) → output paths → markdown with
 *   link resolution (parallel) → link checks, backlinks → model → render
 *   every output (parallel) → swap the new output folder in.
 * Rendering is a list of independent jobs over the finished, immutable
 * model (jobs.c); each worker has its own scratch arena. A build session
 * (session.c) runs this pipeline, or rebuilds on its last run's model. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "js/katex.h"
#include "render/internal.h"
#include "site/mdcache.h"
#include "util/fs.h"
#include "util/xalloc.h"

/* Refuses an output folder that holds the site or lies in its sources:
 * replacing it, or the next build reading it, would destroy the site.
 * Every path is compared resolved (fs_resolve): the output's, the site's
 * and each source folder's own — content/ may be a link to a folder
 * elsewhere in the site, and an output there is inside the sources. */
static bool out_dir_is_safe(const char *site_dir, const char *out_dir, diag_list *d)
{
    char *real = output_real_target(out_dir);
    char *rs = fs_resolve(site_dir), *ro = fs_resolve(real);
    free(real);
    static const char *const sources[] = { "content", "static", "templates", "themes", "data", ".git",
                                           NULL };
    bool ok = true;
    if (fs_inside(rs, ro)) {
        diag_error(d, out_dir, 0, 0,
                   "refusing this output folder: it is %s, and the output folder is replaced "
                   "as a whole by each build; choose a folder of its own, e.g. public/ in the site",
                   strcmp(rs, ro) ? "a folder above the site" : "the site folder itself");
        ok = false;
    }
    for (size_t i = 0; ok && sources[i]; i++) {
        char *named = fs_join(site_dir, sources[i]), *src = fs_resolve(named);
        free(named);
        if (fs_inside(ro, src)) {
            diag_error(d, out_dir, 0, 0,
                       "refusing this output folder: it is inside the site's %s/, which the "
                       "build reads; choose a folder outside the site's sources, e.g. public/",
                       sources[i]);
            ok = false;
        }
        free(src);
    }
    free(rs);
    free(ro);
    return ok;
}

/* After a run: keeps the cache within its bound, and says once per
 * session when it could not be written (a warning: the build itself is
 * fine, only slower next time). */
static void finish_cache(build_session *bs, diag_list *d)
{
    if (!bs->cache)
        return;
    if (bs->o.write)
        cache_trim(bs->cache);
    cache_stats cs = cache_get_stats(bs->cache);
    if (cs.damaged > bs->damaged_seen) /* a miss each: made again, and replaced */
        diag_warning(d, CACHE_DIR, 0, 0,
                     "%zu %s could not be read back (cut short or changed since written): "
                     "ignored and made again",
                     cs.damaged - bs->damaged_seen, cs.damaged - bs->damaged_seen == 1 ? "entry" : "entries");
    bs->damaged_seen = cs.damaged;
    const char *p = cache_problem(bs->cache);
    if (p && !bs->cache_warned) {
        bs->cache_warned = true;
        diag_warning(d, NULL, 0, 0, "build cache: %s (building without it; --no-cache turns it off)", p);
    }
}

struct build_kept {
    tpl_loader *l;     /* the templates parsed so far, or NULL */
    arena *a;          /* the strings' */
    bool strings;      /* loaded: */
    tpl_map *strings_tab, *strings_en;
    const char *strings_lang;
    js_pool *engines;  /* KaTeX engines, started by the builds that need one */
};

build_kept *build_kept_new(void)
{
    build_kept *k = xcalloc(1, sizeof *k);
    k->engines = js_pool_new();
    return k;
}

void build_kept_free(build_kept *k)
{
    if (!k)
        return;
    tpl_loader_free(k->l);
    arena_free(k->a);
    js_pool_free(k->engines);
    free(k);
}

/* The theme strings into s: loaded, or the ones a build_kept keeps. */
static void load_strings(build_session *bs, site *s, diag_list *d)
{
    build_kept *k = bs->kept;
    if (!k) {
        site_load_strings(s, &bs->strings_warned, d);
        return;
    }
    if (!k->strings) { /* loaded into the kept arena */
        arena *run = s->a;
        k->a = s->a = arena_new();
        site_load_strings(s, &bs->strings_warned, d);
        s->a = run;
        k->strings = true;
        k->strings_tab = s->strings;
        k->strings_en = s->strings_en;
        k->strings_lang = arena_strdup(k->a, s->strings_lang);
    }
    s->strings = k->strings_tab;
    s->strings_en = k->strings_en;
    s->strings_lang = k->strings_lang;
}

/* The progress line's stage (o->progress, when a caller shows one). */
static void stage(const build_options *o, const char *name)
{
    if (o->progress)
        atomic_store(&o->progress->stage, name);
}

/* A one-shot build keeps its pages' bodies in a file (site/spill.h, "bodies on
 * disk") beside the output, on the disk the output goes to, else in the
 * site's folder; in memory when neither can hold one. */
static void spill_bodies(site *s, const char *out_dir)
{
    char *parent = xstrdup(out_dir);
    size_t n = strlen(parent);
    while (n > 1 && parent[n - 1] == '/')
        parent[--n] = '\0';
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent)
        *slash = '\0';
    else if (slash)
        slash[1] = '\0';
    else
        strcpy(parent, ".");
    if (!site_spill_open(s, parent))
        site_spill_open(s, s->dir);
    free(parent);
}

bool render_run(build_session *bs, diag_list *d, build_stats *st)
{
    const build_options *o = &bs->o;
    double t0 = render_now_ms(), t;
    build_stats local = { 0 };
    size_t errors_before = diag_error_count(d), diags_before = diag_count(d);
    int jobs = site_jobs(o->jobs);
    render_last_run_free(bs->last); /* this run replaces it, or leaves none */
    bs->last = NULL;

    site s = { 0 };
    s.dir = bs->site_dir;
    s.sources = bs->sources;
    s.page_cache = bs->pages;
    s.cache = bs->cache;
    s.a = arena_new();
    s.drafts = o->drafts;
    s.future = o->future;
    s.now = o->now ? (int64_t)o->now : (int64_t)time(NULL);
    s.nwa = jobs;
    s.wa = xcalloc((size_t)jobs, sizeof *s.wa);
    for (int i = 0; i < jobs; i++)
        s.wa[i] = arena_new();

    bool ok = site_config_load(s.dir, bs->base_url, s.a, &s.cfg, d);
    local.ms_config = render_now_ms() - t0;
    if (!ok)
        goto done;
    s.cfg.markdown.math = site_math_render;
    s.cfg.markdown.math_ctx = &bs->math;
    s.cfg.markdown.diagram = site_diagram_render;
    s.cfg.markdown.diagram_ctx = &bs->diagram;
    load_strings(bs, &s, d);
    s.cfg.markdown.label_table = site_string(&s, "table");
    s.cfg.markdown.label_math = site_string(&s, "formula");
    s.cfg.markdown.words = site_md_words(&s);
    s.cfg.markdown.label_diagram = site_string(&s, "diagram");
    /* the templates: shortcodes render while the Markdown is written */
    char *tdir = fs_join(s.dir, "templates");
    buf theme_t = BUF_INIT;
    buf_printf(&theme_t, "themes/%s/templates", s.cfg.theme);
    char *thdir = fs_join(s.dir, theme_t.data);
    buf_release(&theme_t);
    const char *dirs[2] = { tdir, thdir };
    /* a caller that builds one site again and again keeps the parsed
     * templates (build_site_kept) */
    build_kept *k = bs->kept;
    tpl_loader *l = k && k->l ? k->l : tpl_loader_new(dirs, 2, true);
    if (!(k && k->l))
        tpl_loader_set_root(l, s.dir);
    if (k)
        k->l = l;
    site_load_data(&s, d);
    render_shortcodes *sc = render_shortcodes_new(&s, l, s.data);
    s.shortcodes = render_shortcodes_hooks(sc);
    t = render_now_ms();
    stage(o, "reading");
    site_load_site_bibliography(&s, d);
    site_load(&s, jobs, d);
    site_favicon(&s, d);
    site_load_bibliography(&s, d);
    site_assign_paths(&s, d);
    if (!bs->pages && !bs->kept && !bs->sink && o->write)
        spill_bodies(&s, bs->out_dir);
    /* a one-shot build takes each unchanged page's Markdown from the cache */
    if (!bs->pages && !bs->kept && s.cache)
        s.md_disk = site_md_disk_open(&s, o->write, d);
    local.ms_load = render_now_ms() - t;
    t = render_now_ms();
    stage(o, "markdown");
    site_render_markdown(&s, jobs, d);
    local.markdown = atomic_load(&s.markdown_runs);
    local.ms_markdown = render_now_ms() - t;
    t = render_now_ms();
    stage(o, "model");
    site_check_links(&s, d);
    site_image_variants(&s, d);
    site_check_citations(&s, d);
    site_build_model(&s);
    if (o->on_model)
        o->on_model(o->on_model_ctx, &s.site_value);
    local.ms_model = render_now_ms() - t;
    site_check_generated_paths(&s, site_index_pages(&s), d);
    if (diag_error_count(d) > errors_before) {
        ok = false;
        goto drop_templates;
    }

    /* render */
    t = render_now_ms();
    output out;
    bool safe = !o->write || out_dir_is_safe(s.dir, bs->out_dir, d);
    if (!safe || !output_begin(&out, bs->out_dir, o->write, o->force, bs->outputs, d)) {
        if (safe)
            output_free(&out);
        ok = false;
        goto drop_templates;
    }
    render_ctx c = { .s = &s, .l = l, .out = &out, .sink = bs->sink, .sink_ctx = bs->sink_ctx };
    c.opt.base_url = s.cfg.base_url;
    c.opt.strings = s.strings;
    c.opt.strings_fallback = s.strings_en;
    c.opt.language = s.strings_lang;
    job *jv = NULL;
    size_t nj = 0, cj = 0;
    /* the search index first: one job over every page (it merges their
     * keys, ≈ 0.1 s at 10,000 posts), so it runs beside the others, not
     * after them */
    if (site_generated_on(&s, SITE_GEN_SEARCH_INDEX))
        render_add_job(&jv, &nj, &cj, J_GENERATED, SITE_GEN_SEARCH_INDEX, 0);
    /* image variants next: the longest jobs (libvips, unless cached), one
     * per image (all its widths) however many pages show it; `sheaf check`
     * writes nothing and makes none */
    if (o->write || bs->sink)
        for (size_t i = 0; i < s.nvariants; i++)
            if (!i || s.variants[i].file != s.variants[i - 1].file) /* one job an image */
                render_add_job(&jv, &nj, &cj, J_VARIANT, (int)i, 0);
    for (size_t i = 0; i < s.nposts; i++)
        render_add_job(&jv, &nj, &cj, J_PAGE, s.posts[i], 0);
    for (size_t i = 0; i < s.nplain; i++)
        render_add_job(&jv, &nj, &cj, J_PAGE, s.plain[i], 0);
    c.index_pages = site_index_pages(&s);
    for (size_t k = 1; k <= c.index_pages; k++)
        render_add_job(&jv, &nj, &cj, J_INDEX, (int)k, 0);
    for (size_t i = 0; i < s.nsections; i++) {
        size_t np = site_list_pages(&s, s.sections[i].nposts);
        for (size_t k = 1; k <= np; k++)
            render_add_job(&jv, &nj, &cj, J_SECTION, (int)i, (int)k);
        render_add_job(&jv, &nj, &cj, J_SECTION_FEED, (int)i, 0);
    }
    for (size_t i = 0; i < s.nterms; i++) {
        size_t np = site_list_pages(&s, s.terms[i].nposts);
        for (size_t k = 1; k <= np; k++)
            render_add_job(&jv, &nj, &cj, J_TAG, (int)i, (int)k);
        render_add_job(&jv, &nj, &cj, J_TERM_FEED, (int)i, 0);
    }
    for (size_t t = 0; t < s.ntaxonomies; t++) {
        if (strcmp(s.taxonomies[t].name, "tags") && s.taxonomies[t].n)
            render_add_job(&jv, &nj, &cj, J_TERMS, (int)t, 0);
        if (s.taxonomies[t].n)
            render_add_job(&jv, &nj, &cj, J_TERMS_FEED, (int)t, 0);
    }
    for (int g = SITE_GEN_INDEX + 1; g < SITE_NGENERATED; g++)
        if (g != SITE_GEN_SEARCH_INDEX && (g != SITE_GEN_PAPERS || s.npapers) &&
            site_generated_on(&s, (size_t)g))
            render_add_job(&jv, &nj, &cj, J_GENERATED, g, 0);
    for (size_t i = 0; i < s.npapers; i++)
        render_add_job(&jv, &nj, &cj, J_PAPER, (int)i, 0);
    for (size_t i = 0; i < s.cfg.noutputs; i++)
        render_add_job(&jv, &nj, &cj, J_OUTPUT, (int)i, 0);
    for (size_t i = 0; i < s.npages; i++) {
        page *p = &s.pages[i];
        if (p->failed || p->excluded || !p->path)
            continue;
        for (size_t k = 0; k < p->naliases; k++) /* an _index page's too */
            render_add_job(&jv, &nj, &cj, J_ALIAS, (int)i, (int)k);
    }
    size_t nrender = nj;
    for (size_t i = 0; i < s.nfiles; i++)
        render_add_job(&jv, &nj, &cj, J_FILE, (int)i, 0);
    c.jobs = jv;
    c.njobs = nj;
    c.years = site_archive_years(&s);
    if (bs->sources && o->write)
        c.deps = xcalloc(nj + 1, sizeof *c.deps);
    render_references(&c, jobs, d);
    render_workers_new(&c, jobs);
    if (o->progress) {
        c.progress = o->progress;
        atomic_store(&o->progress->done, 0);
        atomic_store(&o->progress->total, nj);
        stage(o, "rendering");
    }
    site_parallel(nj, jobs, render_job, &c);
    /* the cache keeps this build's variants and pages beyond its limit */
    if (s.nvariants || s.md_disk)
        cache_keep_extra(s.cache, atomic_load(&s.variant_bytes) + site_md_disk_bytes(s.md_disk));
    stage(o, "writing");
    render_merge_diags(d, c.diags, jv, nj);
    render_workers_free(&c, jobs);
    if (!o->write && !bs->sink) /* sheaf check */
        site_check_root_links(&s, out.produced, d);
    local.ms_render = render_now_ms() - t;
    t = render_now_ms();
    ok = diag_error_count(d) == errors_before;
    ok = output_end(&out, ok, d) && ok;
    local.ms_write = render_now_ms() - t;
    local.written = atomic_load(&out.written);
    local.unchanged = atomic_load(&out.unchanged);
    local.removed = atomic_load(&out.removed);
    local.copied = atomic_load(&out.copied);
    local.rendered = nrender;
    output_free(&out);
    if (ok && c.deps && diag_count(d) == diags_before) {
        /* a good, quiet session run: keep it for rebuilding body edits */
        last_run *r = xcalloc(1, sizeof *r);
        r->s = s;
        r->l = l;
        r->sc = sc;
        render_shortcodes_move(sc, &r->s);
        r->tdir = tdir;
        r->thdir = thdir;
        r->c = c;
        r->c.s = &r->s;
        r->c.l = l;
        r->c.out = NULL;
        r->nrender = nrender;
        r->live = arena_used(r->s.a); /* the model: the site's arena and the workers' (page values) */
        for (int i = 0; i < r->s.nwa; i++)
            r->live += arena_used(r->s.wa[i]);
        bs->last = r;
        memset(&s, 0, sizeof s);
    } else {
        for (size_t i = 0; c.deps && i < nj; i++)
            tpl_deps_release(&c.deps[i]);
        free(c.deps);
        free(jv);
        render_shortcodes_free(sc);
        if (!k)
            tpl_loader_free(l);
        free(tdir);
        free(thdir);
    }
    goto done;
drop_templates:
    render_shortcodes_free(sc);
    if (!k)
        tpl_loader_free(l);
    free(tdir);
    free(thdir);
done:
    local.markdown_cached = site_md_disk_hits(s.md_disk);
    site_md_disk_close(s.md_disk, d);
    s.md_disk = NULL;
    finish_cache(bs, d);
    const site *ks = s.a ? &s : &bs->last->s; /* kept for the next run? */
    site_notebook_places(ks, d, diags_before);
    local.posts = ks->nposts;
    local.pages = ks->nposts + ks->nplain;
    local.tags = ks->ntags;
    local.scheduled = ks->nscheduled;
    local.expired = ks->nexpired;
    local.next_change = ks->next_change;
    site_csl_counts(ks, &local.citation_docs, &local.citation_docs_twice, &local.citation_docs_rendered,
                    &local.citation_engines);
    local.ms_total = render_now_ms() - t0;
    if (st)
        *st = local;
    if (s.a)
        site_free(&s);
    return ok && diag_error_count(d) == errors_before;
}

bool build_site(const build_options *o, diag_list *d, build_stats *st)
{
    build_session *s = build_session_new(o);
    render_math_stats(s, true, NULL);
    bool ok = render_run(s, d, st);
    render_math_stats(s, false, st);
    /* SHEAF_CHECK_INCREMENTAL=1: what the cache gave is a clean build's */
    if (ok && s->check && s->cache && o->write)
        render_check_incremental(s, true);
    build_session_free(s);
    return ok;
}

bool build_site_kept(const build_options *o, build_kept *k, diag_list *d, build_stats *st)
{
    build_session *s = build_session_new(o);
    s->kept = k; /* a one-shot build keeps no model: only k holds its templates */
    js_pool_free(s->math.engines);
    s->math.engines = k->engines; /* loading KaTeX is most of a small build with a formula */
    render_math_stats(s, true, NULL);
    bool ok = render_run(s, d, st);
    render_math_stats(s, false, st);
    /* A build that ran KaTeX leaves garbage in the kept engines; collected
     * now, the build has freed what it allocated. (libFuzzer takes a run
     * with more mallocs than frees for a possible leak and scans the whole
     * heap, KaTeX's included: that was three quarters of fuzz_page.) */
    if (atomic_load(&s->math.rendered))
        js_pool_collect(k->engines);
    s->math.engines = NULL; /* k's */
    build_session_free(s);
    return ok;
}

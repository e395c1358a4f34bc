/* build: the pipeline, stage by stage (see build.h and DESIGN.md):
 *   config → load + front matter (parallel) → output paths → markdown with
 *   link resolution (parallel) → link checks, backlinks → model → render
 *   every output (parallel) → swap the new output folder in.
 * Rendering is a list of independent jobs over the finished, immutable
 * model (jobs.c); each worker has its own scratch arena. A build session
 * (session.c) runs this pipeline, or rebuilds on its last run's model;
 * this file knows nothing of sessions. */
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "js/katex.h"
#include "render/internal.h"
#include "site/imgrec.h"
#include "site/mdcache.h"
#include "util/fs.h"
#include "util/xalloc.h"

void build_env_init(build_env *e, const build_options *o)
{
    memset(e, 0, sizeof *e);
    e->o = *o;
    e->site_dir = xstrdup(o->site_dir ? o->site_dir : ".");
    e->out_dir = o->out_dir ? xstrdup(o->out_dir) : fs_join(e->site_dir, "public");
    e->base_url = o->base_url ? xstrdup(o->base_url) : NULL;
    e->o.site_dir = e->site_dir;
    e->o.out_dir = e->out_dir;
    e->o.base_url = e->base_url;
    if (!o->no_cache) {
        e->cache = cache_open(e->site_dir, 0);
        if (!o->write)
            cache_read_only(e->cache);
    }
    e->math.cache = e->cache;
    e->math.engines = js_pool_new();
    e->diagram.cache = e->cache;
    const char *check = getenv("SHEAF_CHECK_INCREMENTAL");
    e->check = check && !strcmp(check, "1");
}

void build_env_release(build_env *e)
{
    free(e->site_dir);
    free(e->out_dir);
    free(e->base_url);
    site_source_cache_free(e->sources);
    site_page_cache_free(e->pages);
    js_pool_free(e->math.engines);
    cache_free(e->cache);
    output_memory_free(e->outputs);
}

void render_math_stats(build_env *s, bool begin, build_stats *st)
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
static void finish_cache(build_env *bs, diag_list *d)
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
static void load_strings(build_env *bs, site *s, diag_list *d)
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

/* ---- one run of the pipeline ------------------------------------------- */

/* What one run holds while its stages run: the site, the templates, the
 * staged output and the render jobs. */
typedef struct run {
    build_env *e;
    const build_options *o;
    int jobs;
    size_t errors_before, diags_before;
    build_stats st;
    site s;
    tpl_loader *l;         /* e->kept's when it keeps them, else the run's */
    render_shortcodes *sc;
    char *tdir, *thdir;
    output out;
    bool staging;          /* out was begun: write ends it */
    render_ctx c;
    size_t nrender;        /* jobs that render a template (the rest copy files) */
    output_prefetch *pre;  /* the output's manifests, read while the sources are */
    bool keep;             /* a session keeps the run (render_run's keep) */
    render_record *rec;    /* what each output read (record.c): read before the model */
} run;

static bool new_errors(const run *r, diag_list *d) { return diag_error_count(d) > r->errors_before; }

/* Timed into *ms: a stage's wall time for --stats. */
#define TIMED(ms, call) \
    do { \
        double t_ = render_now_ms(); \
        call; \
        *(ms) = render_now_ms() - t_; \
    } while (0)

static void run_begin(run *r, build_env *e, diag_list *d)
{
    memset(r, 0, sizeof *r);
    r->e = e;
    r->o = &e->o;
    r->jobs = site_jobs(e->o.jobs);
    r->errors_before = diag_error_count(d);
    r->diags_before = diag_count(d);
    site *s = &r->s;
    s->dir = e->site_dir;
    s->sources = e->sources;
    s->page_cache = e->pages;
    s->cache = e->cache;
    s->a = arena_new();
    fs_root_open(&s->root, s->dir); /* the containment rule's root, for every source read */
    s->drafts = e->o.drafts;
    s->future = e->o.future;
    s->now = e->o.now ? (int64_t)e->o.now : (int64_t)time(NULL);
    s->nwa = r->jobs;
    s->wa = xcalloc((size_t)r->jobs, sizeof *s->wa);
    for (int i = 0; i < r->jobs; i++)
        s->wa[i] = arena_new();
}

/* 1. config: site.yaml, the theme strings, the templates (shortcodes
 * render while the Markdown is written) and the data files. False when
 * site.yaml is unusable: nothing else can run. */
static bool config(run *r, diag_list *d)
{
    site *s = &r->s;
    if (!site_config_load(s->dir, r->e->base_url, s->a, &s->cfg, d))
        return false;
    s->cfg.markdown.math = site_math_render;
    s->cfg.markdown.math_ctx = &r->e->math;
    s->cfg.markdown.diagram = site_diagram_render;
    s->cfg.markdown.diagram_ctx = &r->e->diagram;
    load_strings(r->e, s, d);
    s->cfg.markdown.label_table = site_string(s, "table");
    s->cfg.markdown.label_math = site_string(s, "formula");
    s->cfg.markdown.words = site_md_words(s);
    s->cfg.markdown.label_diagram = site_string(s, "diagram");
    r->tdir = fs_join(s->dir, "templates");
    buf theme_t = BUF_INIT;
    buf_printf(&theme_t, "themes/%s/templates", s->cfg.theme);
    r->thdir = fs_join(s->dir, theme_t.data);
    buf_release(&theme_t);
    /* a caller that builds one site again and again keeps the parsed
     * templates (build_site_kept) */
    build_kept *k = r->e->kept;
    if (k && k->l)
        r->l = k->l;
    else {
        const char *dirs[2] = { r->tdir, r->thdir };
        r->l = tpl_loader_new(dirs, 2, true);
        tpl_loader_set_root(r->l, s->dir);
        if (k)
            k->l = r->l;
    }
    site_load_data(s, d);
    r->sc = render_shortcodes_new(s, r->l, s->data);
    s->shortcodes = render_shortcodes_hooks(r->sc);
    return true;
}

/* 2. load (and 3. paths): the bibliographies, every source and its front
 * matter, the output paths. Goes on after errors, so one run reports as
 * many as it can. */
static void load(run *r, diag_list *d)
{
    site *s = &r->s;
    build_env *e = r->e;
    stage(r->o, "reading");
    /* the second core reads the output folder's manifests meanwhile */
    if (r->o->write && !e->sink)
        r->pre = output_prefetch_start(e->out_dir);
    site_load_site_bibliography(s, d);
    site_load(s, r->jobs, d);
    site_favicon(s, d);
    site_load_bibliography(s, d);
    site_assign_paths(s, d);
    if (!e->pages && !e->kept && !e->sink && r->o->write)
        spill_bodies(s, e->out_dir);
    /* a one-shot build takes each unchanged page's Markdown from the cache */
    if (!e->pages && !e->kept && s->cache)
        s->md_disk = site_md_disk_open(s, r->o->write, d);
}

/* 4. markdown: every page's body, in parallel. */
static void markdown(run *r, diag_list *d)
{
    stage(r->o, "markdown");
    site_render_markdown(&r->s, r->jobs, d);
    r->st.markdown = atomic_load(&r->s.markdown_runs);
}

/* Whether the run is a one-shot build with the cache that renders only
 * the outputs that read a value that changed since the last (record.c). */
static bool records(const run *r)
{
    const build_env *e = r->e;
    return !r->keep && r->o->write && r->s.cache && !e->pages && !e->kept && !e->sink;
}

/* 5. links and 6. model: the checks that need every page, then the
 * template values, then the generated paths checked against the rest. */
static void model(run *r, diag_list *d)
{
    site *s = &r->s;
    stage(r->o, "model");
    TIMED(&r->st.ms_links, site_check_links(s, d));
    site_image_variants(s, d);
    site_check_citations(s, d);
    /* the last build's pages first: the maps of those whose inputs are
     * the same are made only if an output reads them */
    if (records(r)) {
        TIMED(&r->st.ms_record, r->rec = render_record_read(s, s->cache, s->dir, r->e->out_dir, r->jobs, d));
        s->known_inputs = render_record_old_inputs(r->rec);
    }
    TIMED(&r->st.ms_values, site_build_model(s, d));
    s->known_inputs = NULL;
    if (r->o->on_model)
        r->o->on_model(r->o->on_model_ctx, &s->site_value);
    site_check_generated_paths(s, site_index_pages(s), d);
}

/* The render jobs of a finished model, in the order they are run: one
 * per output, then one per copied file. */
static void list_jobs(run *r)
{
    site *s = &r->s;
    job *jv = NULL;
    size_t nj = 0, cj = 0;
    /* the search index first: one job over every page (it merges their
     * keys, ≈ 0.1 s at 10,000 posts), so it runs beside the others, not
     * after them */
    if (site_generated_on(s, SITE_GEN_SEARCH_INDEX))
        render_add_job(&jv, &nj, &cj, J_GENERATED, SITE_GEN_SEARCH_INDEX, 0);
    /* image variants next: the longest jobs (libvips, unless cached), one
     * per image (all its widths) however many pages show it; `sheaf check`
     * writes nothing and makes none */
    if (r->o->write || r->e->sink)
        for (size_t i = 0; i < s->nvariants; i++)
            if (!i || s->variants[i].file != s->variants[i - 1].file) /* one job an image */
                render_add_job(&jv, &nj, &cj, J_VARIANT, (int)i, 0);
    /* then the outputs that list every post (the archive, the sitemap,
     * feeds, site.yaml's outputs): each holds its whole text and the
     * values it formats while it renders (≈ 70 MB together at 100,000
     * posts), which now meets the smallest heap of the stage; last, it met
     * every other job's record and every file's name (BENCHMARKS.md,
     * "Memory") */
    for (int g = SITE_GEN_INDEX + 1; g < SITE_NGENERATED; g++)
        if (g != SITE_GEN_SEARCH_INDEX && (g != SITE_GEN_PAPERS || s->npapers) &&
            site_generated_on(s, (size_t)g))
            render_add_job(&jv, &nj, &cj, J_GENERATED, g, 0);
    for (size_t i = 0; i < s->cfg.noutputs; i++)
        render_add_job(&jv, &nj, &cj, J_OUTPUT, (int)i, 0);
    for (size_t i = 0; i < s->nposts; i++)
        render_add_job(&jv, &nj, &cj, J_PAGE, s->posts[i], 0);
    for (size_t i = 0; i < s->nplain; i++)
        render_add_job(&jv, &nj, &cj, J_PAGE, s->plain[i], 0);
    for (size_t k = 1; k <= r->c.index_pages; k++)
        render_add_job(&jv, &nj, &cj, J_INDEX, (int)k, 0);
    for (size_t i = 0; i < s->nsections; i++) {
        size_t np = site_list_pages(s, s->sections[i].nposts);
        for (size_t k = 1; k <= np; k++)
            render_add_job(&jv, &nj, &cj, J_SECTION, (int)i, (int)k);
        render_add_job(&jv, &nj, &cj, J_SECTION_FEED, (int)i, 0);
    }
    for (size_t i = 0; i < s->nterms; i++) {
        size_t np = site_list_pages(s, s->terms[i].nposts);
        for (size_t k = 1; k <= np; k++)
            render_add_job(&jv, &nj, &cj, J_TAG, (int)i, (int)k);
        render_add_job(&jv, &nj, &cj, J_TERM_FEED, (int)i, 0);
    }
    for (size_t t = 0; t < s->ntaxonomies; t++) {
        if (strcmp(s->taxonomies[t].name, "tags") && s->taxonomies[t].n)
            render_add_job(&jv, &nj, &cj, J_TERMS, (int)t, 0);
        if (s->taxonomies[t].n)
            render_add_job(&jv, &nj, &cj, J_TERMS_FEED, (int)t, 0);
    }
    for (size_t i = 0; i < s->npapers; i++)
        render_add_job(&jv, &nj, &cj, J_PAPER, (int)i, 0);
    for (size_t i = 0; i < s->npages; i++) {
        page *p = &s->pages[i];
        if (p->failed || p->excluded || !p->path)
            continue;
        for (size_t k = 0; k < p->naliases; k++) /* an _index page's too */
            render_add_job(&jv, &nj, &cj, J_ALIAS, (int)i, (int)k);
    }
    r->nrender = nj;
    for (size_t i = 0; i < s->nfiles; i++)
        render_add_job(&jv, &nj, &cj, J_FILE, (int)i, 0);
    r->c.jobs = jv;
    r->c.njobs = nj;
}

/* 7. render: every output of the model, in parallel, staged (or, with a
 * sink, handed to it). With r->keep, what each job read is recorded, for
 * a session's fast rebuilds. False on an error (the staged output is
 * then dropped by commit). */
static bool render(run *r, diag_list *d)
{
    site *s = &r->s;
    build_env *e = r->e;
    const build_options *o = r->o;
    bool safe = !o->write || out_dir_is_safe(s->dir, e->out_dir, d);
    if (!safe)
        return false;
    bool begun = output_begin(&r->out, e->out_dir, o->write, o->force, e->outputs, r->pre, d);
    output_prefetch_free(r->pre);
    r->pre = NULL;
    if (!begun) {
        output_free(&r->out);
        return false;
    }
    r->staging = true;
    render_ctx *c = &r->c;
    *c = (render_ctx){ .s = s, .l = r->l, .out = &r->out, .sink = e->sink, .sink_ctx = e->sink_ctx };
    c->opt.base_url = s->cfg.base_url;
    c->opt.strings = s->strings;
    c->opt.strings_fallback = s->strings_en;
    c->opt.language = s->strings_lang;
    c->index_pages = site_index_pages(s);
    list_jobs(r);
    c->years = site_archive_years(s);
    /* a one-shot build with the cache renders only the outputs that read
     * a value that changed since the last (record.c) */
    bool record = r->rec != NULL;
    if ((r->keep && o->write) || record)
        c->deps = xcalloc(c->njobs + 1, sizeof *c->deps);
    render_references(c, r->jobs, d);
    if (record) {
        const char *tdirs[2] = { r->tdir, r->thdir };
        double ms_read = r->st.ms_record;
        c->rec = r->rec;
        TIMED(&r->st.ms_record, render_record_open(c->rec, c, tdirs, 2, r->jobs, d));
        r->st.ms_record += ms_read;
    }
    render_workers_new(c, r->jobs);
    if (o->progress) {
        c->progress = o->progress;
        atomic_store(&o->progress->done, 0);
        atomic_store(&o->progress->total, c->njobs);
        stage(o, "rendering");
    }
    TIMED(&r->st.ms_jobs, site_parallel(c->njobs, r->jobs, render_job, c));
    /* the cache keeps this build's variants and pages beyond its limit */
    if (s->nvariants || s->md_disk || c->rec)
        cache_keep_extra(s->cache, atomic_load(&s->variant_bytes) + site_md_disk_bytes(s->md_disk) +
                                       render_record_bytes(c->rec));
    stage(o, "writing");
    render_merge_diags(d, c->diags, c->jobs, c->njobs);
    render_workers_free(c, r->jobs);
#ifdef __GLIBC__
    /* what the jobs freed (their scratch arenas, the search index's
     * buffers, the tables of contents let go) leaves the process before
     * the commit allocates its lists of paths: the peak of a full render
     * of 100,000 posts is there */
    if (!r->keep)
        malloc_trim(0);
#endif
    if (!o->write && !e->sink) /* sheaf check */
        site_check_root_links(s, r->out.produced, d);
    r->st.search_segments = c->search.segments;
    r->st.search_made = c->search.made;
    r->st.search_texts = c->search.texts;
    r->st.search_texts_written = c->search.texts_written;
    r->st.ms_search = c->search.ms;
    r->st.ms_search_cpu = c->search.cpu_ms;
    r->st.outputs_kept = render_record_kept(c->rec);
    r->st.pages_known = render_record_pages_known(c->rec);
    r->st.pages_hashed = c->rec ? s->npages : 0;
    r->st.rendered = r->nrender - r->st.outputs_kept;
    return !new_errors(r, d);
}

/* 8. commit: commits the staged output when the run is good, else drops
 * it (a failed build leaves the previous output). */
static bool commit(run *r, bool ok, diag_list *d)
{
    if (!r->staging)
        return false;
    ok = output_end(&r->out, ok, d) && ok;
    /* the files the record names are the output folder's now */
    if (ok) {
        render_record_save(r->c.rec);
        site_img_records_save(site_image_records(&r->s), &r->s, r->out.target);
    }
    render_search_save(&r->c, ok);
    r->st.ms_folders = r->out.ms_folders;
    r->st.ms_walk = r->out.ms_walk;
    r->st.ms_manifest = r->out.ms_manifest;
    r->st.written = atomic_load(&r->out.written);
    r->st.unchanged = atomic_load(&r->out.unchanged);
    r->st.removed = atomic_load(&r->out.removed);
    r->st.copied = atomic_load(&r->out.copied);
    output_free(&r->out);
    r->staging = false;
    return ok;
}

/* The run's model, templates and jobs as a last_run (the run gives them
 * up): a session rebuilds body edits on it. */
static last_run *keep_run(run *r)
{
    last_run *L = xcalloc(1, sizeof *L);
    L->s = r->s;
    L->l = r->l;
    L->sc = r->sc;
    render_shortcodes_move(r->sc, &L->s);
    L->tdir = r->tdir;
    L->thdir = r->thdir;
    L->c = r->c;
    L->c.s = &L->s;
    L->c.out = NULL;
    L->nrender = r->nrender;
    L->live = arena_used(L->s.a); /* the model: the site's arena and the workers' (page values) */
    for (int i = 0; i < L->s.nwa; i++)
        L->live += arena_used(L->s.wa[i]);
    return L;
}

/* Frees what the run holds (not what it gave to a last_run). */
static void drop_run(run *r)
{
    for (size_t i = 0; r->c.deps && i < r->c.njobs; i++)
        tpl_deps_release(&r->c.deps[i]);
    free(r->c.deps);
    free(r->c.jobs);
    render_record_free(r->rec);
    render_shortcodes_free(r->sc);
    if (!r->e->kept)
        tpl_loader_free(r->l);
    free(r->tdir);
    free(r->thdir);
    site_free(&r->s);
}

/* The run's counts into r->st, the build cache's bookkeeping, and the run
 * kept in *keep (when keep is not NULL and the run was good and quiet) or
 * freed. */
static bool run_end(run *r, bool ok, last_run **keep, diag_list *d)
{
    const site *s = &r->s;
    /* good and quiet so far: what the cache's bookkeeping says after does
     * not count */
    bool keepable = keep && ok && r->c.deps && diag_count(d) == r->diags_before;
    output_prefetch_free(r->pre); /* (the render stage did not run) */
    r->pre = NULL;
    r->st.markdown_cached = site_md_disk_hits(s->md_disk);
    site_md_disk_close(s->md_disk, d);
    r->s.md_disk = NULL;
    finish_cache(r->e, d);
    site_notebook_places(s, d, r->diags_before);
    r->st.posts = s->nposts;
    r->st.pages = s->nposts + s->nplain;
    r->st.tags = s->ntags;
    r->st.scheduled = s->nscheduled;
    r->st.expired = s->nexpired;
    r->st.next_change = s->next_change;
    site_csl_counts(s, &r->st.citation_docs, &r->st.citation_docs_twice, &r->st.citation_docs_rendered,
                    &r->st.citation_engines);
    ok = ok && !new_errors(r, d);
    if (keep)
        *keep = keepable ? keep_run(r) : NULL;
    if (!keepable)
        drop_run(r);
    return ok;
}

/* One run of the pipeline, stage by stage as docs/internals.md lists them. */
bool render_run(build_env *e, last_run **keep, diag_list *d, build_stats *st)
{
    double t0 = render_now_ms();
    run r;
    run_begin(&r, e, d);
    r.keep = keep != NULL;
    bool ok;
    TIMED(&r.st.ms_config, ok = config(&r, d));
    if (ok) {
        TIMED(&r.st.ms_load, load(&r, d));
        TIMED(&r.st.ms_markdown, markdown(&r, d));
        TIMED(&r.st.ms_model, model(&r, d));
        TIMED(&r.st.ms_render, ok = !new_errors(&r, d) && render(&r, d));
        TIMED(&r.st.ms_write, ok = commit(&r, ok, d) && ok);
    }
    ok = run_end(&r, ok, keep, d);
    r.st.ms_total = render_now_ms() - t0;
    if (st)
        *st = r.st;
    return ok;
}

/* SHEAF_CHECK_INCREMENTAL=1: a full build of e's site beside the output
 * folder, its outputs compared with the folder's (check.c). */
void render_check_incremental(const build_env *e, bool no_cache, const diag_list *said, size_t said_from)
{
    build_options o = e->o;
    o.write = false;
    o.no_cache = o.no_cache || no_cache;
    o.progress = NULL;
    build_env full;
    build_env_init(&full, &o);
    check_outputs *c = check_outputs_new();
    full.sink = check_collect;
    full.sink_ctx = c;
    diag_list *d = diag_list_new();
    render_run(&full, NULL, d, NULL);
    build_env_release(&full);
    check_compare(c, d, said, said_from, e->out_dir, no_cache ? "cached build" : "fast rebuild");
    diag_list_free(d);
    check_outputs_free(c);
}

/* ---- one-shot builds ------------------------------------------------------ */

bool build_site(const build_options *o, diag_list *d, build_stats *st)
{
    build_env e;
    build_env_init(&e, o);
    render_math_stats(&e, true, NULL);
    size_t before = diag_count(d); /* (what the caller said already is not the build's) */
    bool ok = render_run(&e, NULL, d, st);
    render_math_stats(&e, false, st);
    /* SHEAF_CHECK_INCREMENTAL=1: what the cache gave (and what the build
     * said) is a clean build's */
    if (ok && e.check && e.cache && o->write)
        render_check_incremental(&e, true, d, before);
    build_env_release(&e);
    return ok;
}

bool build_site_kept(const build_options *o, build_kept *k, diag_list *d, build_stats *st)
{
    build_env e;
    build_env_init(&e, o);
    e.kept = k; /* a one-shot build keeps no model: only k holds its templates */
    js_pool_free(e.math.engines);
    e.math.engines = k->engines; /* loading KaTeX is most of a small build with a formula */
    render_math_stats(&e, true, NULL);
    bool ok = render_run(&e, NULL, d, st);
    render_math_stats(&e, false, st);
    /* A build that ran KaTeX leaves garbage in the kept engines; collected
     * now, the build has freed what it allocated. (libFuzzer takes a run
     * with more mallocs than frees for a possible leak and scans the whole
     * heap, KaTeX's included: that was three quarters of fuzz_page.) */
    if (atomic_load(&e.math.rendered))
        js_pool_collect(k->engines);
    e.math.engines = NULL; /* k's */
    build_env_release(&e);
    return ok;
}

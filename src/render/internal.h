/* render internals shared by the pipeline (build.c), the render jobs
 * (jobs.c) and the build session (session.c). Nothing outside src/render/
 * includes this file. */
#ifndef SHEAF_RENDER_INTERNAL_H
#define SHEAF_RENDER_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "cache/cache.h"
#include "diag/diag.h"
#include "render/build.h"
#include "render/output.h"
#include "site/site.h"
#include "tpl/tpl.h"

static inline double render_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- render jobs (jobs.c) ---------------------------------------------- */

/* J_INDEX renders the home page's page a; J_SECTION page b of section a,
 * J_SECTION_FEED its feed; J_TAG page b of term a (s->terms, any
 * taxonomy), J_TERM_FEED its feed; J_TERMS the index of taxonomy a (but
 * tags, whose is SITE_GEN_TAGS), J_TERMS_FEED the feed of its terms (tags'
 * too); J_GENERATED the rest of site_generated_outputs (a: its
 * site_gen_kind). */
typedef enum job_kind {
    J_PAGE, J_INDEX, J_SECTION, J_SECTION_FEED, J_TAG, J_TERM_FEED, J_TERMS, J_TERMS_FEED, J_PAPER,
    J_GENERATED,
    J_OUTPUT, /* a: its index in site.yaml's outputs */
    J_ALIAS, J_FILE,
    J_VARIANT, /* a: the first of an image's variants in s->variants (all its widths) */
    J_REFERENCE /* a: a bibliography entry; run before the others (render_references) */
} job_kind;

typedef struct job {
    job_kind kind;
    int a, b; /* page / tag / index page number / generated output / file; alias number */
    int worker;      /* who ran it, and where its diagnostics are in */
    size_t d0, d1;   /* that worker's list: [d0, d1) */
} job;

/* Where a run's outputs go instead of the output folder (the incremental
 * check's full run): each output's path and bytes, from any worker. */
typedef void (*render_sink)(void *ctx, const char *rel, const void *data, size_t len);

/* What the search index's job did (search.c), for --stats, and the
 * record it leaves for the next build (head, malloc'd; NULL: none). */
typedef struct render_search {
    size_t segments, made;      /* segments, and those made (not kept) */
    size_t texts, texts_written; /* text files, and those made */
    double ms, cpu_ms;          /* the job's time, and its thread's CPU time */
    char *head_key, *head;
    size_t head_key_len, head_len;
} render_search;

typedef struct render_record render_record;

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
    render_sink sink;  /* not NULL: outputs go here, not to `out` */
    void *sink_ctx;
    render_record *rec; /* a one-shot build with the cache: what each job read (record.c), or NULL */
    build_progress *progress; /* counts the jobs done, or NULL */
    tpl_budget budget; /* the steps of this run's renders (opt.budget points here
                        * from render_workers_new on; zeroed there) */
    atomic_size_t ran; /* jobs finished: every RENDER_TRIM_EVERY, the bodies read
                        * so far leave memory (site_spill_trim) */
    render_search search; /* written by the search index's job alone */
} render_ctx;
#define RENDER_TRIM_EVERY 64

/* Writes the search index of c's site (search/index.json, its segments and
 * its texts; docs/search.md): in a one-shot build with the cache only the
 * segments and text files whose documents changed, the others kept. What
 * it did goes to c->search. Problems go to d. */
void render_search_index(render_ctx *c, diag_list *d);
/* Once the build's output is committed (ok) keeps c->search's record in
 * the cache for the next build; frees it either way. */
void render_search_save(render_ctx *c, bool ok);
/* One output's bytes, as every generated file goes (made fit for its
 * format, to the sink or the output folder); *id is who the file staged
 * is (zeroed when none: a sink, `sheaf check`, an error). */
bool render_emit_id(render_ctx *c, const char *rel, const void *data, size_t len, diag_list *d,
                    output_file_id *id);

/* Runs job i (or pick[i]) of a render_ctx: site_parallel's callback. */
void render_job(void *vctx, size_t i, int worker);
void render_workers_new(render_ctx *c, int jobs);
size_t render_workers_free(render_ctx *c, int jobs);
void render_add_job(job **v, size_t *n, size_t *cap, job_kind k, int a, int b);
void render_merge_diags(diag_list *d, diag_list **parts, const job *jobs, size_t njobs);
/* Every bibliography entry's `reference` (see jobs.c), rendered in
 * parallel before the jobs that show them; problems go to d. */
void render_references(render_ctx *c, int jobs, diag_list *d);

/* ---- what each output read, between processes (record.c) --------------- */

/* Before the model of s (loaded: its pages known), whose output goes to
 * out_dir: the last build's record of its pages from the cache k, when it
 * had as many (a record that does not read back whole: a warning in d).
 * Free with render_record_free. */
render_record *render_record_read(const site *s, cache *k, const char *site_dir, const char *out_dir,
                                  int jobs, diag_list *d);
/* Each page's inputs in the last build (p->inputs), for the model
 * (site->known_inputs): while r lives, until render_record_open; NULL
 * when none were read. */
const uint64_t *render_record_old_inputs(const render_record *r);
/* After the render references and before the jobs of c run: the global
 * fingerprint and every page entry's hash of c's model (tdirs: the
 * template folders), and the rest of the last build's record when it was
 * made with the same global fingerprint and jobs. A page map the model
 * left to be made (page->value_known) keeps the last build's hashes; all
 * are made (site_make_values) when the fingerprint is another. */
void render_record_open(render_record *r, const render_ctx *c, const char *const *tdirs, size_t ntdirs,
                        int jobs, diag_list *d);
/* Around job i on its worker's thread: begin, then (template jobs only)
 * frame, then end. */
void render_record_begin(render_record *r, size_t i);
/* The job's variables (all but `site`), template, output path and
 * context: true when nothing it read changed and every file it left was
 * kept from the old output (output_keep): the job is done. */
bool render_record_frame(render_ctx *c, size_t i, const tpl_map *vars, const char *tname, const char *out_rel,
                         const char *context);
/* Whether the current job's outputs are to be told (render_record_output). */
bool render_record_collecting(void);
/* An output of the current job and who its file is (known false: not
 * known, so the job is not recorded). */
void render_record_output(const char *rel, const output_file_id *id, bool known);
/* deps: what job i read; quiet: it reported nothing. */
void render_record_end(render_record *r, size_t i, const tpl_deps *deps, bool quiet);
/* Jobs done by keeping their old files; the bytes the record takes in the
 * cache (an estimate, for cache_keep_extra). 0 for NULL. */
size_t render_record_kept(const render_record *r);
/* How many pages' entries had the last build's hashes without being read
 * again (their inputs and places were the last build's, and so was the
 * global fingerprint). */
size_t render_record_pages_known(const render_record *r);
size_t render_record_bytes(const render_record *r);
/* After a good commit: writes the record (its parts, then its head) unless
 * it is the one read. */
void render_record_save(render_record *r);
/* render_record_free(NULL) does nothing. */
void render_record_free(render_record *r);

/* ---- shortcodes (shortcode.c) ------------------------------------------ */

typedef struct render_shortcodes render_shortcodes;
/* Renders shortcodes of site s with templates from l (both outlive it);
 * `data` is site.data. Free with render_shortcodes_free. */
render_shortcodes *render_shortcodes_new(const site *s, tpl_loader *l, tpl_value data);
/* The hooks for s->shortcodes (owned by r). */
const site_shortcodes *render_shortcodes_hooks(const render_shortcodes *r);
/* The site moved (a build session keeps a copy of it): r reads that one. */
void render_shortcodes_move(render_shortcodes *r, const site *s);
void render_shortcodes_free(render_shortcodes *r);

/* ---- the pipeline (build.c) and the build session (session.c) ---------- */

/* What a build session keeps of its last good run, for rebuilding only
 * what an edit of a page's body touches: the site model, the loaded
 * templates, the render jobs and what each read of the pages. */
typedef struct last_run {
    site s;
    tpl_loader *l;
    render_shortcodes *sc; /* s.shortcodes */
    char *tdir, *thdir;
    render_ctx c;      /* jobs, years, options; scratch and diags are per run */
    size_t nrender;    /* jobs that render a template (the rest copy files) */
    size_t live;       /* bytes of the model's arena when the full run made it */
    size_t garbage;    /* bytes fast rebuilds added to it since (see session.c) */
} last_run;

/* What outlives one run of the pipeline: the options and the caches — a
 * build session's, or none for a one-shot build (build.c). */
typedef struct build_env {
    build_options o;            /* site_dir, out_dir, base_url: the fields below */
    char *site_dir, *out_dir, *base_url;
    site_source_cache *sources; /* a session's (session.c makes them); NULL for a one-shot build */
    site_page_cache *pages;     /* likewise */
    output_memory *outputs;     /* what the last run committed; likewise */
    bool check;                 /* SHEAF_CHECK_INCREMENTAL=1 */
    cache *cache;               /* .sheaf-cache/, or NULL with --no-cache */
    site_math math;             /* formulas: the cache and KaTeX engines */
    site_diagram diagram;       /* ```dot diagrams: the cache */
    size_t stats0[5];           /* render_math_stats: the counts at a run's start */
    double ms0;
    bool cache_warned;          /* its problem was reported once */
    size_t damaged_seen;        /* damaged entries reported so far */
    bool strings_warned;        /* "no theme strings for language" was said once */
    render_sink sink;           /* a run for the check: its outputs go here */
    void *sink_ctx;
    build_kept *kept;           /* build_site_kept: the caller's, or NULL */
} build_env;

/* Copies the options, opens the build cache (unless no_cache) and reads
 * SHEAF_CHECK_INCREMENTAL; build_env_release frees what it holds. */
void build_env_init(build_env *e, const build_options *o);
void build_env_release(build_env *e);

/* One full run of the pipeline with e's caches. With keep, a good and
 * quiet run that wrote its output is kept in *keep (else *keep is NULL);
 * free it with render_last_run_free. */
bool render_run(build_env *e, last_run **keep, diag_list *d, build_stats *st);
void render_last_run_free(last_run *r);
/* Notes the formula counts at a run's start (begin), or puts what the run
 * added into st. */
void render_math_stats(build_env *e, bool begin, build_stats *st);
/* SHEAF_CHECK_INCREMENTAL=1 (e->check), after a fast rebuild or a build
 * that took pages from the build cache: runs a full build of the same
 * options in memory (its outputs collected, nothing written; with no_cache
 * not reading the build cache either) and compares every output with what
 * is in the output folder — missing, different or extra files — and its
 * diagnostics with what the checked run said: said[said_from…) (NULL: it
 * said nothing, as a fast rebuild does); any difference is printed with
 * its first differing line and the process aborts. */
void render_check_incremental(const build_env *e, bool no_cache, const diag_list *said, size_t said_from);

/* ---- the check's collector and comparison (check.c) -------------------- */

typedef struct check_outputs check_outputs;
check_outputs *check_outputs_new(void);
void check_outputs_free(check_outputs *c);
/* A render_sink (ctx: a check_outputs): keeps a copy of each output. */
void check_collect(void *ctx, const char *rel, const void *data, size_t len);
/* Compares the collected outputs with out_dir, and the diagnostics d of
 * the run that made them with said[said_from…) (NULL: none); on any
 * difference prints what differs, naming the other build `what`, and
 * aborts. */
void check_compare(const check_outputs *c, const diag_list *d, const diag_list *said, size_t said_from,
                   const char *out_dir, const char *what);

struct build_session {
    build_env env;
    last_run *last;             /* the last run, when it was good and said nothing */
    size_t *deferred;           /* jobs of the last fast rebuild left for build_session_finish */
    size_t ndeferred;
    void (*commit_lock)(void *ctx, bool take); /* around build_session_finish's commit */
    void *commit_lock_ctx;
};

#endif

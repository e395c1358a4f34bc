/* build: the whole pipeline as one call — config, load, front matter,
 * markdown, site model, templates, output — used by `sheaf build`,
 * `sheaf check`, `sheaf serve` and `sheaf deploy`.
 *
 * Output goes to a temporary folder beside the target and is swapped in only
 * when everything succeeded, so a failed build leaves the previous output
 * untouched. Files whose bytes did not change keep their inode and mtime.
 * Work that depends only on its input (formulas, code blocks) goes through
 * the build cache, .sheaf-cache/ in the site folder (src/cache), unless
 * no_cache; `check` reads it but does not write it. */
#ifndef SHEAF_BUILD_H
#define SHEAF_BUILD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"

/* What a running build is doing, for a progress line (cli/): the build
 * sets the stage and, while rendering, counts the outputs; another thread
 * may read it at any time. */
struct tpl_value;

typedef struct build_progress {
    _Atomic(const char *) stage; /* "reading", "markdown", "model", "rendering", "writing"; NULL: not started */
    atomic_size_t done, total;   /* outputs rendered of those to render (stage "rendering") */
} build_progress;

typedef struct build_options {
    const char *site_dir; /* default "." */
    const char *out_dir;  /* default "<site_dir>/public" */
    const char *base_url; /* overrides site.yaml when non-NULL */
    bool drafts;          /* build drafts too */
    bool future;          /* build posts dated after the clock too (--future) */
    long long now;        /* the build's clock (Unix seconds); 0: the time it starts */
    bool write;           /* false: `check` — resolve everything, write nothing */
    bool force;           /* write into an output folder sheaf did not make */
    int jobs;             /* worker threads; 0 = one per core */
    bool no_cache;        /* --no-cache: neither read nor write .sheaf-cache/ */
    /* a session's fast rebuild may leave the outputs no page shows (the
     * search index, made from every page) for build_session_finish, so
     * the edited page reaches the browser first (`sheaf serve`) */
    bool defer_index;
    build_progress *progress; /* or NULL */
    /* called once the site's model is made, with its `site` value (a
     * tpl_value, valid during the call): `sheaf render -s` renders there */
    void (*on_model)(void *ctx, const struct tpl_value *site);
    void *on_model_ctx;
} build_options;

typedef struct build_stats {
    size_t pages, posts, tags;
    size_t scheduled, expired; /* pages left out for a date after the clock, an expiry before it */
    long long next_change; /* Unix seconds when one of those changes (a scheduled post comes
                            * due, a page expires), or 0: a session should run again then */
    size_t written, unchanged, removed, copied;
    size_t rendered; /* outputs rendered this run (all, or the incremental subset) */
    size_t outputs_kept; /* a build with the cache: outputs whose inputs did not change, kept unrendered */
    size_t pages_known;  /* a build with the cache: pages whose values' hashes were the last build's */
    size_t pages_hashed; /* … of the pages whose values' hashes the record needs (every source's) */
    size_t markdown; /* pages whose Markdown was written this run (not kept from the last) */
    size_t markdown_cached; /* pages whose Markdown came from the build cache (.sheaf-cache/) */
    size_t formulas, formulas_rendered; /* met; rendered by KaTeX, not from the cache */
    size_t engines;  /* KaTeX engines started */
    size_t diagrams, diagrams_rendered; /* ```dot diagrams met; laid out by Graphviz, not from the cache */
    double ms_engines; /* starting them */
    size_t citation_docs, citation_docs_rendered; /* CSL: pages and references formatted;
                                                   * by citeproc-js, not from the cache */
    size_t citation_docs_twice; /* CSL: pages written twice (not found by their text) */
    size_t citation_engines; /* citeproc-js engines started */
    size_t search_segments, search_made; /* the search index's segments, and those made (not kept) */
    size_t search_texts, search_texts_written; /* its text files, and those made */
    double ms_search, ms_search_cpu; /* its job's time and CPU time (within render+write) */
    double ms_config, ms_load, ms_markdown, ms_model, ms_render, ms_write, ms_total;
    /* inside those: the links and the pages' values (model); the render
     * record opened — its hashes and the last one read — and the jobs
     * (render+write); the output's folders stat-ed, its walk, its manifest
     * written (swap) */
    double ms_links, ms_values, ms_record, ms_jobs, ms_folders, ms_walk, ms_manifest;
} build_stats;

/* Whether a shortcode template (its text, tpl) takes the argument `arg`
 * (a name, or "0", "1", … for a positional one) by the `args:` line of its
 * opening comment; a template without one takes any. For `sheaf import`,
 * which drops what sheaf's shortcodes do not take. */
bool render_shortcode_takes(const char *tpl, size_t n, const char *arg);

/* Runs a full build. Returns true when there was no error (warnings are
 * allowed). Every problem goes to d. st may be NULL. The output folder may
 * not be the site folder, a folder above it, or one inside its sources
 * (content/, static/, templates/, themes/, data/, .git/); see output.h for
 * what is written and removed there. */
bool build_site(const build_options *o, diag_list *d, build_stats *st);

/* build_site for a caller that builds one site many times over while only
 * its pages change (the page pipeline's fuzz target, hundreds of builds a
 * second): a build_kept keeps what depends on the theme alone — the
 * templates, parsed as builds need them, and the theme strings, loaded by
 * the first build (which alone reports problems with them) — and the KaTeX
 * engines started for formulas, so later builds do not parse or load them
 * again. The site's templates/, theme, i18n/ and site.yaml's `theme` and
 * `language` must not change between the builds, or they use stale ones. */
typedef struct build_kept build_kept;
build_kept *build_kept_new(void);
void build_kept_free(build_kept *k);
bool build_site_kept(const build_options *o, build_kept *k, diag_list *d, build_stats *st);

/* A build that keeps the parsed site in memory between runs (`sheaf serve`).
 * The options are copied. The first run is a full build; each later run is
 * told which source files changed (created, modified or deleted; paths
 * relative to site_dir, e.g. "content/posts/a.md", "templates/base.html",
 * "site.yaml"). Edits that leave every page where it was (a body, a title,
 * other front-matter values; the same dates, tags, slug, draft state,
 * heading ids and links) are rebuilt on the last good run's model,
 * rendering only the outputs whose templates read a value that changed;
 * the list of changes is trusted then. Other runs re-parse only the changed
 * files (checking every source's size, mtime and inode for changes nobody
 * reported) and render everything in memory. Either way the output is
 * byte-for-byte what build_site would write, and only files whose bytes
 * changed are written. A run with errors writes nothing and keeps the
 * previous output. */
typedef struct build_session build_session;
build_session *build_session_new(const build_options *o);
void build_session_free(build_session *s);
/* changed == NULL (or nchanged == 0 on the first run) means a full build. */
bool build_session_run(build_session *s, const char *const *changed, size_t nchanged,
                       diag_list *d, build_stats *st);
/* A full run with the session's caches though no file changed: the clock
 * passed st->next_change of the last run (a scheduled post came due, a
 * page expired). */
bool build_session_rerun(build_session *s, diag_list *d, build_stats *st);
/* With o.defer_index: writes what the last run left for later (nothing,
 * after a full run). Call it after a run, before the next; until then the
 * output holds the previous search index. */
bool build_session_finish(build_session *s, diag_list *d);
/* build_session_finish renders without it and calls lock(ctx, true)
 * before committing to the output folder, lock(ctx, false) after (the
 * preview server's output lock). */
void build_session_set_commit_lock(build_session *s, void (*lock)(void *ctx, bool take), void *ctx);

#endif

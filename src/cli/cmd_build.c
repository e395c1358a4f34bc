/* cmd_build: `sheaf build` (write the site) and `sheaf check` (do all the
 * work in memory, write nothing, report every problem). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "render/build.h"
#include "util/buf.h"
#include "util/fs.h"

/* The progress line: on a terminal, once a build has run for a second
 * (SHEAF_PROGRESS_MS, for the tests), its stage and count on one line of
 * stderr, redrawn ten times a second and cleared at the end. */
typedef struct progress_line {
    build_progress p;
    atomic_bool stop;
    long after_ms;
    bool shown;
    pthread_t thread;
} progress_line;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void *progress_main(void *v)
{
    progress_line *pl = v;
    double t0 = now_ms();
    while (!atomic_load(&pl->stop)) {
        const char *stage = atomic_load(&pl->p.stage);
        if (stage && now_ms() - t0 >= (double)pl->after_ms) {
            if (!strcmp(stage, "rendering"))
                fprintf(stderr, "\r\033[Kbuilding: rendering %zu/%zu outputs", atomic_load(&pl->p.done),
                        atomic_load(&pl->p.total));
            else
                fprintf(stderr, "\r\033[Kbuilding: %s", stage);
            fflush(stderr);
            pl->shown = true;
        }
        struct timespec tick = { 0, 100 * 1000 * 1000 };
        nanosleep(&tick, NULL);
    }
    return NULL;
}

/* Starts the progress line when stderr is a terminal and not quiet. */
static bool progress_start(progress_line *pl, bool quiet)
{
    if (quiet || !isatty(2))
        return false;
    const char *env = getenv("SHEAF_PROGRESS_MS");
    pl->after_ms = env && *env ? atol(env) : 1000;
    return pthread_create(&pl->thread, NULL, progress_main, pl) == 0;
}

static void progress_stop(progress_line *pl)
{
    atomic_store(&pl->stop, true);
    pthread_join(pl->thread, NULL);
    if (pl->shown)
        fputs("\r\033[K", stderr);
}

/* `sheaf build` and `sheaf check` (check: no -o, --base-url or --stats,
 * nothing written): parse the options, run build_site, print the
 * diagnostics and the summary line. Returns the exit status. */
static int run(int argc, char **argv, bool check)
{
    const char *who = check ? "sheaf check" : "sheaf build";
    build_options o = { .site_dir = ".", .write = !check };
    bool quiet = false, stats = false;
    /* the command's flag table says what it takes (check: no -o, --force,
     * --base-url or --stats) */
    cli_opts opts = { cli_command_find(check ? "check" : "build"), who, argc, 1, argv, false };
    const cli_flag *f;
    const char *v;
    int kind, status;
    while ((kind = cli_next_opt(&opts, &f, &v, &status)) != CLI_OPT_END) {
        if (kind == CLI_OPT_EXIT)
            return status;
        const char *name = f->long_name;
        if (!strcmp(name, "site")) {
            o.site_dir = v;
        } else if (!strcmp(name, "output")) {
            o.out_dir = v;
        } else if (!strcmp(name, "force")) {
            o.force = true;
        } else if (!strcmp(name, "base-url")) {
            o.base_url = v;
        } else if (!strcmp(name, "drafts")) {
            o.drafts = true;
        } else if (!strcmp(name, "future")) {
            o.future = true;
        } else if (!strcmp(name, "no-cache")) {
            o.no_cache = true;
        } else if (!strcmp(name, "stats")) {
            stats = true;
        } else if (!strcmp(name, "quiet")) {
            quiet = true;
        } else if (!strcmp(name, "jobs")) {
            char *end;
            long n = strtol(v, &end, 10);
            if (!*v || *end || n < 1 || n > 256) {
                return cli_usage_error(opts.c, "-j needs a number of threads from 1 to 256, not '%s'", v);
            }
            o.jobs = (int)n;
        }
    }
    if (cli_need_site_dir(o.site_dir))
        return 2;
    diag_list *d = diag_list_new();
    /* check reports what build would (and more: root-relative links) */
    cli_warn_no_host(o.site_dir, o.base_url, d);
    build_stats st;
    progress_line pl = { .after_ms = 0 }; /* all zero (clang reads { 0 } as an int for the atomic pointer) */
    bool progress = progress_start(&pl, quiet);
    if (progress)
        o.progress = &pl.p;
    bool ok = build_site(&o, d, &st);
    if (progress)
        progress_stop(&pl);
    cli_print_diags(d);
    size_t errors = diag_error_count(d), warnings = diag_warning_count(d);
    diag_list_free(d);
    buf held = BUF_INIT;
    cli_held_summary(&held, &st);
    if (check) {
        if (!quiet)
            fprintf(stderr, "%s: %zu page%s (%zu post%s%s), %zu error%s, %zu warning%s\n",
                    ok ? "ok" : "failed", st.pages, st.pages == 1 ? "" : "s", st.posts,
                    st.posts == 1 ? "" : "s", held.data, errors, errors == 1 ? "" : "s", warnings,
                    warnings == 1 ? "" : "s");
        buf_release(&held);
        return ok ? 0 : 1;
    }
    if (!ok) {
        diag_list *failed = diag_list_new();
        diag_error(failed, NULL, 0, 0, "the build failed (%zu error%s); the previous output was left as it was",
                   errors, errors == 1 ? "" : "s");
        cli_print_diags(failed);
        diag_list_free(failed);
        buf_release(&held);
        return 1;
    }
    /* shown as a folder: "public/", "../site/public/" */
    char *out = fs_join(o.out_dir ? o.out_dir : o.site_dir, o.out_dir ? "" : "public/");
    const char *shown = out;
    while (shown[0] == '.' && shown[1] == '/' && shown[2])
        shown += 2;
    if (!quiet)
        printf("Built %zu page%s (%zu post%s, %zu tag%s%s): %zu written, %zu unchanged, %zu removed in "
               "%.0f ms → %s\n",
               st.pages, st.pages == 1 ? "" : "s", st.posts, st.posts == 1 ? "" : "s", st.tags,
               st.tags == 1 ? "" : "s", held.data, st.written + st.copied, st.unchanged, st.removed,
               st.ms_total, shown);
    buf_release(&held);
    if (stats)
        cli_print_stats(&st);
    free(out);
    return 0;
}

void cli_held_summary(buf *out, const build_stats *st)
{
    if (st->scheduled)
        buf_printf(out, "; %zu scheduled", st->scheduled);
    if (st->expired)
        buf_printf(out, "%s %zu expired", st->scheduled ? "," : ";", st->expired);
}

void cli_print_stats(const build_stats *st)
{
    printf("  config %.1f ms, load %.1f ms, markdown %.1f ms, model %.1f ms, render+write %.1f ms, "
           "swap %.1f ms; %zu outputs rendered, %zu written\n",
           st->ms_config, st->ms_load, st->ms_markdown, st->ms_model, st->ms_render, st->ms_write,
           st->rendered, st->written + st->copied);
    printf("  inside them: links %.1f ms, values %.1f ms, record %.1f ms, jobs %.1f ms, folders %.1f ms, "
           "walk %.1f ms, manifest %.1f ms\n",
           st->ms_links, st->ms_values, st->ms_record, st->ms_jobs, st->ms_folders, st->ms_walk, st->ms_manifest);
    if (st->outputs_kept)
        printf("  outputs: %zu rendered, %zu kept from the last build (nothing they read changed)\n",
               st->rendered, st->outputs_kept);
    if (st->pages_known)
        printf("  values: %zu of %zu pages' known from the last build (nothing they are made of changed)\n",
               st->pages_known, st->pages_hashed);
    if (st->markdown_cached)
        printf("  markdown: %zu pages written, %zu from the build cache\n", st->markdown,
               st->markdown_cached);
    if (st->search_segments)
        printf("  search: %zu of %zu segments and %zu of %zu text files made (the job: %.1f ms, %.1f ms "
               "of CPU)\n",
               st->search_made, st->search_segments, st->search_texts_written, st->search_texts,
               st->ms_search, st->ms_search_cpu);
    if (st->formulas)
        printf("  math: %zu formulas, %zu rendered by KaTeX (%zu from the cache); %zu engines started "
               "in %.1f ms\n",
               st->formulas, st->formulas_rendered, st->formulas - st->formulas_rendered, st->engines,
               st->ms_engines);
    if (st->citation_docs || st->citation_engines)
        printf("  citations: %zu pages formatted (%zu written twice), %zu documents by citeproc-js; %zu "
               "engines started\n",
               st->citation_docs, st->citation_docs_twice, st->citation_docs_rendered, st->citation_engines);
    if (st->diagrams)
        printf("  diagrams: %zu, %zu laid out by Graphviz (%zu from the cache)\n", st->diagrams,
               st->diagrams_rendered, st->diagrams - st->diagrams_rendered);
}

int cli_build(int argc, char **argv) { return run(argc, argv, false); }
int cli_check(int argc, char **argv) { return run(argc, argv, true); }

/* bench_tpl: renders speed of sheaf's template engine on a realistic post
 * page (extends a base with includes, a loop over 20 tags, ten filters) and
 * an index page listing 10,000 posts. bench_jinja.py renders the same
 * templates and data with Jinja2 and prints the ratio.
 *
 * Build: cmake --build build --target bench_tpl (a Release or RelWithDebInfo
 * build folder). Run: build/bench_tpl bench/tpl/templates [DUMPDIR [post|index]]
 * or, for both engines and their ratio: bench/tpl/bench_jinja.py build/bench_tpl
 * DUMPDIR ("-": none) gets post.out and index.out, one render each, to
 * compare; the last argument runs one page only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag/diag.h"
#include "tpl/tpl.h"
#include "util/arena.h"
#include "util/buf.h"

#define NPOSTS 10000
#define NTAGS 20
#define EPOCH 1704067200 /* 2024-01-01T00:00:00Z */

static const char summary[] =
    "Gradient compression, model parallelism and in-network aggregation: what the papers "
    "measured, what they assumed about the network, and which of the results still hold when "
    "stragglers and fragmented GPU clusters enter the picture. 分布式训练研究 & notes.";

static tpl_value str(arena *a, const char *s) { return tpl_str_copy(a, s, strlen(s)); }

/* The data is laid out the way sheaf's site model lays out a site's: the
 * texts read from each page (title, tags, summary, content) lie page after
 * page in the order the pages were read (`text`), and the page maps, built
 * together afterwards, sit together with their entries, lists and URLs
 * (`model`). */
typedef struct post_text {
    tpl_value title, summary, content;
    tpl_value tags[NTAGS];
} post_text;

static void read_post(arena *text, int i, int ntags, post_text *pt)
{
    char t[128];
    snprintf(t, sizeof t, "Notes on distributed training, part %d", i);
    pt->title = str(text, t);
    for (int k = 0; k < ntags; k++) {
        snprintf(t, sizeof t, "Topic %d: <Scheduling> & %s", (i + k) % 37, k % 2 ? "GPUs" : "Networks");
        pt->tags[k] = str(text, t);
    }
    pt->summary = str(text, summary);
    buf c = BUF_INIT;
    for (int p = 0; p < 8; p++)
        buf_printf(&c, "<p>Paragraph %d of part %d: <em>%s</em></p>\n", p, i, summary);
    pt->content = tpl_str_copy(text, c.data, c.len);
    buf_release(&c);
}

static tpl_value post(arena *model, const post_text *pt, int i, int ntags)
{
    char t[128];
    tpl_map *m = tpl_map_new(model, 8);
    tpl_map_set_str(model, m, "title", pt->title);
    snprintf(t, sizeof t, "/posts/part-%d/", i);
    tpl_map_set_str(model, m, "url", str(model, t));
    tpl_map_set_str(model, m, "date", tpl_date(EPOCH + (int64_t)i * 3600, 480, TPL_HAS_TIME | TPL_HAS_ZONE));
    tpl_list *tags = tpl_list_new(model, (size_t)ntags);
    for (int k = 0; k < ntags; k++)
        tags->items[k] = pt->tags[k];
    tpl_map_set_str(model, m, "tags", tpl_list_value(tags));
    tpl_map_set_str(model, m, "summary", pt->summary);
    tpl_map_set_str(model, m, "content", pt->content);
    tpl_map_seal(model, m);
    return tpl_map_value(m);
}

static tpl_map *site(arena *a, arena *text)
{
    tpl_map *s = tpl_map_new(a, 8);
    tpl_map_set_str(a, s, "title", str(a, "☀️ Hello World."));
    tpl_map_set_str(a, s, "language", str(a, "en"));
    tpl_map_set_str(a, s, "author", str(a, "A. Researcher"));
    tpl_map_set_str(a, s, "build_date", tpl_date(EPOCH, 0, TPL_HAS_TIME | TPL_HAS_ZONE));
    static const char *const menu[][2] = { { "Home", "/" }, { "Archive", "/archive/" },
                                            { "Tags", "/tags/" }, { "About", "/about/" } };
    tpl_list *ml = tpl_list_new(a, 4);
    for (size_t i = 0; i < 4; i++) {
        tpl_map *m = tpl_map_new(a, 2);
        tpl_map_set_str(a, m, "name", str(a, menu[i][0]));
        tpl_map_set_str(a, m, "url", str(a, menu[i][1]));
        tpl_map_seal(a, m);
        ml->items[i] = tpl_map_value(m);
    }
    tpl_map_set_str(a, s, "menu", tpl_list_value(ml));
    post_text *texts = malloc(NPOSTS * sizeof *texts);
    for (int i = 0; i < NPOSTS; i++)
        read_post(text, i, 3, &texts[i]);
    tpl_list *posts = tpl_list_new(a, NPOSTS);
    for (int i = 0; i < NPOSTS; i++)
        posts->items[i] = post(a, &texts[i], i, 3);
    free(texts);
    tpl_map_set_str(a, s, "posts", tpl_list_value(posts));
    tpl_map_seal(a, s);
    return s;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Renders `name` for at least `secs` seconds in windows of half a second
 * (and at least 10 renders); returns the renders per second of the best
 * window — as Python's timeit advises, since slower windows are other
 * processes getting in the way. bench_jinja.py measures Jinja2 the same. */
static double bench(tpl_loader *l, const char *name, const tpl_map *vars, double secs,
                    const char *dump)
{
    diag_list *d = diag_list_new();
    const tpl_template *t = tpl_load(l, name, d);
    if (!t) {
        diag_print(d, stderr, false);
        exit(1);
    }
    tpl_options opt = { .base_url = "https://example.org/notes/" };
    arena *scratch = arena_new();
    buf out = BUF_INIT;
    double start = now(), best = 0;
    while (now() - start < secs) {
        long n = 0;
        double w0 = now(), el;
        do {
            buf_reset(&out);
            if (!tpl_render(t, l, vars, &opt, name, scratch, &out, d)) {
                diag_print(d, stderr, false);
                exit(1);
            }
            arena_reset(scratch);
            n++;
            el = now() - w0;
        } while (el < 0.5 || n < 10);
        if ((double)n / el > best)
            best = (double)n / el;
    }
    if (dump) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%.*s.out", dump, (int)(strlen(name) - 5), name);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(out.data, 1, out.len, f);
            fclose(f);
        }
    }
    buf_release(&out);
    arena_free(scratch);
    diag_list_free(d);
    return best;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_tpl TEMPLATE_DIR [DUMPDIR]\n");
        return 2;
    }
    arena *a = arena_new(), *text = arena_new();
    tpl_map *s = site(a, text);
    tpl_map *vars = tpl_map_new(a, 2);
    tpl_map_set_str(a, vars, "site", tpl_map_value(s));
    post_text page;
    read_post(text, 4242, NTAGS, &page);
    tpl_map_set_str(a, vars, "page", post(a, &page, 4242, NTAGS));
    tpl_map_seal(a, vars);
    const char *dirs[1] = { argv[1] };
    tpl_loader *l = tpl_loader_new(dirs, 1, false);
    const char *dump = argc > 2 && strcmp(argv[2], "-") ? argv[2] : NULL;
    const char *only = argc > 3 ? argv[3] : "";
    if (strcmp(only, "index"))
        printf("post: %.0f renders/s\n", bench(l, "post.html", vars, 2.0, dump));
    if (strcmp(only, "post"))
        printf("index: %.1f renders/s\n", bench(l, "index.html", vars, 5.0, dump));
    tpl_loader_free(l);
    arena_free(a);
    arena_free(text);
    return 0;
}

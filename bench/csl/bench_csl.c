/* bench_csl: what CSL citations cost in citeproc-js on Duktape (src/js/csl.c):
 * starting an engine (citeproc.js from its bytecode), the first document
 * in each bundled style (citeproc-js builds its processor from the
 * style's XML), and a warm document of N entries, each cited once, with its
 * bibliography — per entry. CPU time of this thread and wall time.
 *
 *   cmake --build build --target bench_csl && build/bench_csl [N [STYLE]]   (N: 200; every style) */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "js/csl.h"
#include "util/buf.h"

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void json_string(buf *b, const char *s, size_t n)
{
    buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            buf_printf(b, "\\%c", c);
        else if (c < 0x20)
            buf_printf(b, "\\u%04x", c);
        else
            buf_putc(b, (char)c);
    }
    buf_putc(b, '"');
}

static const char *const family[] = { "Müller", "Zhang", "Nakamura", "Ibáñez", "O'Neil", "Kowalski",
                                      "Okafor", "Lindqvist" };
static const char *const given[] = { "Ana", "Bo", "Chen", "Dmitri", "Élise", "Farid", "Grete" };

/* Entries from..to-1, each cited once (refs: none cited, the references
 * alone, as entry.reference asks). */
static void document_of(buf *q, const js_csl_file *style, size_t from, size_t to, bool refs)
{
    buf_puts(q, "{\"style\":");
    json_string(q, style->text, style->len);
    buf_printf(q, ",\"key\":\"%s\",\"lang\":\"en-US\",%s\"items\":[", style->name,
               refs ? "\"references\":true," : "");
    for (size_t i = from; i < to; i++) {
        buf_printf(q, "%s{\"id\":\"r%zu\",\"type\":\"%s\",\"title\":\"A study of SGD number %zu\","
                      "\"container-title\":\"Proceedings of NSDI\",\"page\":\"%zu-%zu\","
                      "\"issued\":{\"date-parts\":[[%zu]]},\"DOI\":\"10.1000/bench.%zu\",\"author\":[",
                   i > from ? "," : "", i, i % 2 ? "paper-conference" : "article-journal", i, i, i + 12,
                   2000 + i % 25, i);
        for (size_t k = 0; k <= i % 5; k++)
            buf_printf(q, "%s{\"family\":\"%s\",\"given\":\"%s\"}", k ? "," : "",
                       family[(i + k) % 8], given[(i * 3 + k) % 7]);
        buf_puts(q, "]}");
    }
    buf_puts(q, "],\"clusters\":[");
    for (size_t i = from; i < to && !refs; i++)
        buf_printf(q, "%s[{\"id\":\"r%zu\"%s}]", i > from ? "," : "", i, i % 3 ? "" : ",\"locator\":\"4\"");
    buf_puts(q, "]}");
}

static void document(buf *q, const js_csl_file *style, size_t n) { document_of(q, style, 0, n, false); }

/* n documents of one entry each, cited (refs false) or not: the CPU per
 * document */
static double singles(js_csl *k, const js_csl_file *st, size_t n, bool refs, buf *q, buf *out, buf *err)
{
    double c0 = cpu_ms();
    for (size_t i = 0; i < n; i++) {
        buf_reset(q);
        document_of(q, st, i, i + 1, refs);
        buf_reset(out);
        if (!js_csl_render(k, q->data, q->len, out, err)) {
            fprintf(stderr, "bench_csl: %s: %s\n", st->name, err->data);
            exit(1);
        }
    }
    return (cpu_ms() - c0) / (double)n;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atoi(argv[1]) : 200;
    buf err = BUF_INIT, out = BUF_INIT, q = BUF_INIT;
    double c0 = cpu_ms(), w0 = wall_ms();
    js_csl *k = js_csl_new(js_csl_bundled_locale_fn, NULL, &err);
    if (!k) {
        fprintf(stderr, "bench_csl: %s\n", err.data);
        return 1;
    }
    printf("engine start (citeproc.js bytecode): %.0f ms CPU, %.0f ms wall\n", cpu_ms() - c0,
           wall_ms() - w0);
    printf("%-52s %10s %10s %12s\n", "style", "first doc", "warm doc", "per entry");
    const char *only = argc > 2 ? argv[2] : NULL;
    for (size_t s = 0; s < js_csl_nstyles; s++) {
        const js_csl_file *st = &js_csl_styles[s];
        if (only && strcmp(only, st->name))
            continue;
        buf_reset(&q);
        document(&q, st, 1);
        buf_reset(&out);
        c0 = cpu_ms();
        if (!js_csl_render(k, q.data, q.len, &out, &err)) {
            fprintf(stderr, "bench_csl: %s: %s\n", st->name, err.data);
            return 1;
        }
        double first = cpu_ms() - c0;
        buf_reset(&q);
        document(&q, st, n);
        buf_reset(&out);
        c0 = cpu_ms();
        if (!js_csl_render(k, q.data, q.len, &out, &err)) {
            fprintf(stderr, "bench_csl: %s: %s\n", st->name, err.data);
            return 1;
        }
        double warm = cpu_ms() - c0;
        printf("%-52s %7.0f ms %7.0f ms %9.2f ms\n", st->name, first, warm, warm / (double)n);
    }
    printf("\none document per entry (%zu), as entry.reference makes them:\n", n);
    printf("%-52s %12s %12s\n", "style", "cited", "references");
    for (size_t s = 0; s < js_csl_nstyles; s++) {
        const js_csl_file *st = &js_csl_styles[s];
        if (only && strcmp(only, st->name))
            continue;
        double cited = singles(k, st, n, false, &q, &out, &err);
        double refs = singles(k, st, n, true, &q, &out, &err);
        printf("%-52s %9.2f ms %9.2f ms\n", st->name, cited, refs);
    }
    js_csl_free(k);
    buf_release(&err);
    buf_release(&out);
    buf_release(&q);
    return 0;
}

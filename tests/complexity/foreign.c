/* complexity tests for the stages that run foreign code (issue 34): an
 * input doubled must not more than triple the time (nor the output), where
 * quadratic growth would quadruple them.
 *
 *   foreign formula   one display formula of N and 2N bytes through KaTeX
 *   foreign bib       .bib files of N and 2N @string macros: macros that
 *                     double (refused at the value cap, whatever N), and a
 *                     chain that the reader expands in full
 *
 * Times are this thread's CPU time, the median of three runs, so other work on the machine
 * hardly moves them. (Highlighting has its own: hl_bench, identifier
 * length per grammar.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bib/bib.h"
#include "js/katex.h"

static int failures;

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double median(double a, double b, double c)
{
    double lo = a < b ? a : b, hi = a < b ? b : a;
    return c < lo ? lo : c > hi ? hi : c;
}

static void check(const char *what, size_t n, double t1, double t2, size_t out1, size_t out2,
                  double slack)
{
    printf("%s: %zu → %.1f ms, %zu → %.1f ms (x%.2f); output %zu → %zu bytes\n", what, n,
           t1 * 1e3, 2 * n, t2 * 1e3, t1 > 0 ? t2 / t1 : 0, out1, out2);
    if (t2 > 3 * t1 + slack) {
        fprintf(stderr, "FAIL %s: twice the input took %.1f ms against %.1f ms (more than 3x)\n",
                what, t2 * 1e3, t1 * 1e3);
        failures++;
    }
    if (out2 > 3 * out1 + 64) {
        fprintf(stderr, "FAIL %s: twice the input gave %zu bytes against %zu (more than 3x)\n",
                what, out2, out1);
        failures++;
    }
}

/* ---- formula length ---- */

static double formula(js_katex *k, size_t n, size_t *outlen)
{
    buf tex = BUF_INIT, out = BUF_INIT;
    while (tex.len + 4 <= n)
        buf_puts(&tex, "x_1+");
    long at;
    double t0 = cpu_s();
    if (!js_katex_render(k, tex.data, tex.len, true, &out, &at)) {
        fprintf(stderr, "FAIL formula of %zu bytes: %s\n", tex.len, out.data);
        failures++;
    }
    double t = cpu_s() - t0;
    *outlen = out.len;
    buf_release(&tex);
    buf_release(&out);
    return t;
}

static void formulas(void)
{
    buf err = BUF_INIT;
    js_katex *k = js_katex_new(&err);
    if (!k) {
        fprintf(stderr, "FAIL no KaTeX: %s\n", err.data);
        failures++;
        return;
    }
    /* a quarter and half of the largest a formula may be */
    size_t n = JS_KATEX_MAX_BYTES / 4, o1, o2;
    double a[3], b[3];
    for (int r = 0; r < 3; r++) {
        a[r] = formula(k, n, &o1);
        b[r] = formula(k, 2 * n, &o2);
    }
    check("formula length", n, median(a[0], a[1], a[2]), median(b[0], b[1], b[2]), o1, o2, 0.02);
    js_katex_free(k);
    buf_release(&err);
}

/* ---- bib macro depth ---- */

static double bibfile(int depth, bool doubling, size_t *outlen)
{
    buf t = BUF_INIT;
    buf_puts(&t, "@string{m0 = \"xxxxxxxx\"}\n");
    for (int i = 1; i < depth; i++) {
        if (doubling)
            buf_printf(&t, "@string{m%d = m%d # m%d}\n", i, i - 1, i - 1);
        else /* a chain: each the one before (8 bytes), so the reader expands it all */
            buf_printf(&t, "@string{m%d = m%d}\n", i, i - 1);
    }
    buf_printf(&t, "@misc{k, title = m%d}\n", depth - 1);
    arena *a = arena_new();
    diag_list *d = diag_list_new();
    bib b = { 0 };
    double t0 = cpu_s();
    bool ok = bib_load_text(&b, t.data, t.len, "c.bib", a, d);
    double took = cpu_s() - t0;
    if (ok == doubling) {
        fprintf(stderr, "FAIL bib of depth %d (%s): %s\n", depth, doubling ? "doubling" : "chain",
                ok ? "read" : diag_get(d, 0)->message);
        failures++;
    }
    *outlen = b.n ? strlen(bib_field_get(&b.entries[0], "title")) : 0;
    bib_free(&b);
    diag_list_free(d);
    arena_free(a);
    buf_release(&t);
    return took;
}

static void bibs(void)
{
    for (int doubling = 1; doubling >= 0; doubling--) {
        int n = doubling ? 64 : 4000;
        size_t o1, o2;
        double a[3], b[3];
        for (int r = 0; r < 3; r++) {
            a[r] = bibfile(n, doubling, &o1);
            b[r] = bibfile(2 * n, doubling, &o2);
        }
        check(doubling ? "bib macro depth (doubling)" : "bib macro depth (chain)", (size_t)n,
              median(a[0], a[1], a[2]), median(b[0], b[1], b[2]), o1, o2, 0.01);
    }
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "formula"))
        formulas();
    else if (!strcmp(what, "bib"))
        bibs();
    else {
        fprintf(stderr, "usage: foreign formula|bib\n");
        return 2;
    }
    return failures ? 1 : 0;
}

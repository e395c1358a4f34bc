/* fuzz_formula: libFuzzer target over formulas of any size through KaTeX
 * in Duktape, under each formula's budget (js/katex.h; issue 34: one
 * formula of 2 MB ran over 300 s and took 1.9 GB).
 *
 * Input: a byte of mode, then TeX. Mode bit 0: display math; bits 1–7:
 * the TeX is repeated 1 + 64·(mode >> 1) times, so a small input makes a
 * formula of up to a few hundred kilobytes. Checks: a formula over
 * JS_KATEX_MAX_BYTES fails with the size message; any other is rendered
 * or fails, within its CPU time budget (here 1 s, and 64 MB of heap) and a
 * little more for the reads of the clock; an engine that ran out of its
 * budget says so, and a new one is started. Seed corpus:
 * tests/fuzz/corpus/formula. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "js/katex.h"

static js_katex *engine;

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    if (!engine) {
        buf err = BUF_INIT;
        engine = js_katex_new(&err);
        if (!engine) {
            fprintf(stderr, "%s\n", err.data);
            abort();
        }
        buf_release(&err);
    }
    js_katex_set_budget(engine, (size_t)64 << 20, 1000);
    bool display = data[0] & 1;
    size_t times = 1 + 64 * (size_t)(data[0] >> 1);
    buf tex = BUF_INIT, out = BUF_INIT;
    for (size_t i = 0; i < times; i++)
        buf_put(&tex, data + 1, size - 1);
    long at;
    double t0 = cpu_s();
    bool ok = js_katex_render(engine, tex.data, tex.len, display, &out, &at);
    double took = cpu_s() - t0;
    if (tex.len > JS_KATEX_MAX_BYTES) {
        char want[128];
        snprintf(want, sizeof want, "this formula has %zu bytes, more than the %d a formula may have",
                 tex.len, JS_KATEX_MAX_BYTES);
        if (ok || strcmp(out.data, want) != 0 || took > 0.01)
            abort();
    }
    if (took > 1.0 + 0.5) /* the budget, and the time between two reads of the clock */
        abort();
    if (ok && strncmp(out.data, "<math", 5) != 0)
        abort();
    if (at < -1 || at > (long)tex.len)
        abort();
    if (js_katex_spent(engine)) {
        if (ok || (!strstr(out.data, "CPU time") && !strstr(out.data, "of memory")))
            abort();
        js_katex_free(engine);
        engine = NULL;
    }
    buf_release(&tex);
    buf_release(&out);
    return 0;
}

/* fuzz_dot: libFuzzer target over ```dot diagrams through sheaf's entry
 * point (diagram_dot_render: the size bound, Graphviz's parser, the node
 * and edge bounds, layout, and the SVG pass of diagram/svg.c).
 *
 * Input: a byte of mode, then the dot source. Mode bit 0 picks the engine
 * (dot, or neato); bit 1 renders the same source twice (what one parse
 * leaves behind must not change the next). Checks: a source over
 * DIAGRAM_DOT_MAX_BYTES fails with the size message; any other renders to
 * an SVG that diagram_svg_ok accepts (what the cache would give back), or
 * fails with a message and a line within the source (or 0). Seed corpus:
 * tests/fuzz/corpus/dot. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagram/dot.h"

/* the full unwinder, so the suppression of Graphviz's HTML-label leak
 * (src/diagram/dot.c) sees the function through its libraries' frames */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "fast_unwind_on_malloc=0"; }

static int lines_in(const uint8_t *s, size_t n)
{
    int l = 1;
    for (size_t i = 0; i < n; i++)
        l += s[i] == '\n';
    return l;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 8192)
        return 0;
    const char *engine = data[0] & 1 ? "neato" : "dot";
    const char *src = (const char *)data + 1;
    size_t len = size - 1;
    buf svg = BUF_INIT, err = BUF_INIT, again = BUF_INIT;
    int line = -1;
    bool ok = diagram_dot_render(src, len, engine, &svg, &err, &line);
    if (ok) {
        if (err.len || !diagram_svg_ok(svg.data, svg.len) || strncmp(svg.data, "<svg width=\"", 12))
            abort();
    } else if (!err.len || line < 0 || line > lines_in(data + 1, len) + 1) {
        fprintf(stderr, "bad error: line %d: %s\n", line, err.data);
        abort();
    }
    if (data[0] & 2) {
        buf err2 = BUF_INIT;
        int line2 = -1;
        bool ok2 = diagram_dot_render(src, len, engine, &again, &err2, &line2);
        if (ok2 != ok || (ok && strcmp(again.data, svg.data)) || (!ok && (strcmp(err.data, err2.data) || line != line2))) {
            fprintf(stderr, "second render differs:\n%s\n%s\n", err.data, err2.data);
            abort();
        }
        buf_release(&err2);
    }
    buf_release(&svg);
    buf_release(&err);
    buf_release(&again);
    return 0;
}

/* fuzz_math: libFuzzer target over the math delimiter rules
 * (md/mathscan.c) and the math extension inside the Markdown stage.
 *
 * Input: one byte of mode, then text. Mode bit 0: scan for a formula at
 * every offset and check the span stays inside the text, in order; also
 * try every line as the opening and closing line of a display block.
 * Mode bit 1: render the text as a page body with a renderer that fails on
 * some formulas (so error positions are computed), checking positions lie
 * in the body. Mode bit 3: run the pass over KaTeX's MathML
 * (md/mathml.c) on the text, checking that what it writes stays within
 * what its rewrites can add (letters grow to 4 bytes, a tag gains a few
 * attributes) and is the same on a second run. Seed corpus:
 * tests/fuzz/corpus/math/ (see CMakeLists.txt). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "md/mathml.h"
#include "md/mathscan.h"
#include "md/md.h"
#include "util/arena.h"

static const char *renderer(void *ctx, const md_formula *f, arena *a, const char **error, long *at)
{
    (void)ctx;
    if (f->len && f->tex[f->len - 1] == '!') {
        *error = "bad";
        *at = f->len & 1 ? (long)f->len - 1 : -1;
        return NULL;
    }
    return arena_printf(a, "<math>%zu</math>", f->len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 15)
        return 0;
    unsigned mode = data[0];
    const char *s = (const char *)data + 1;
    size_t n = size - 1;
    if (mode & 1) {
        for (size_t at = 0; at < n; at++) {
            md_math_span m;
            if (md_math_scan(s, n, at, &m)) {
                if (m.tex <= at || m.tex + m.tex_len > m.end || m.end > n)
                    abort();
            }
            if (md_math_scan_escaped(s, n, at, &m) && (m.tex <= at || m.tex + m.tex_len > m.end || m.end > n))
                abort();
        }
        /* markdown.math_escapes: undoing never grows the TeX, and every
         * byte of the result maps back into it */
        char *u = malloc(n + 1);
        size_t un = md_math_unescape(s, n, u);
        if (un > n)
            abort();
        for (size_t k = 0; k < un; k++) {
            size_t o = md_math_unescaped_origin(s, n, k);
            if (o >= n || s[o] != u[k])
                abort();
        }
        free(u);
        long sub = md_math_escaped_subscript(s, n);
        if (sub >= 0 && ((size_t)sub + 1 >= n || s[sub] != '\\' || s[sub + 1] != '_'))
            abort();
        char *z = malloc(n + 1);
        memcpy(z, s, n);
        z[n] = 0;
        (void)md_math_error_hint(z, s, n);
        free(z);
        size_t start = 0;
        while (start <= n) {
            const char *nl = memchr(s + start, '\n', n - start);
            size_t len = (nl ? (size_t)(nl - s) : n) - start;
            char closer;
            size_t olen, tail;
            bool closed;
            if (md_math_block_open(s + start, len, &closer, &olen, &closed) && olen > len)
                abort();
            if (md_math_block_closes(s + start, len, '$', &tail) && tail > len)
                abort();
            if (md_math_block_closes(s + start, len, ']', &tail) && tail > len)
                abort();
            if (!nl)
                break;
            start += len + 1;
        }
    }
    if (mode & 2) {
        arena *a = arena_new();
        md_options o = { .unsafe = true, .math = mode & 4 ? renderer : NULL, .math_escapes = (mode & 16) != 0 };
        md_result r;
        md_render(str_make(s, n), 1, &o, NULL, a, &r);
        size_t lines = 1;
        for (size_t i = 0; i < n; i++) /* \n, \r\n and \r end lines */
            lines += s[i] == '\n' || (s[i] == '\r' && (i + 1 == n || s[i + 1] != '\n'));
        for (size_t i = 0; i < r.nproblems; i++)
            if (r.problems[i].line < 1 || (size_t)r.problems[i].line > lines + 1)
                abort();
        arena_free(a);
    }
    if (mode & 8) {
        buf out = BUF_INIT;
        md_mathml_fix(&out, s, n);
        /* a few bytes per tag more at most: attributes added */
        size_t tags = 0;
        for (size_t i = 0; i < n; i++)
            tags += s[i] == '<';
        if (out.len > 4 * n + 160 * tags + 3 || out.data[out.len] != '\0')
            abort();
        /* the same input gives the same output */
        buf again = BUF_INIT;
        md_mathml_fix(&again, s, n);
        if (again.len != out.len || memcmp(again.data, out.data, out.len))
            abort();
        buf_release(&again);
        buf_release(&out);
    }
    return 0;
}

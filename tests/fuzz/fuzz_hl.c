/* fuzz_hl: libFuzzer target over the highlighter (src/hl): highlight.js's
 * algorithm over the compiled language definitions, PCRE2 matching from
 * every offset, sub-languages (HTML's CSS and JavaScript, Markdown's HTML),
 * the giving-up paths.
 *
 * Input: one byte choosing the language (modulo the languages fences may
 * name), then the code. Besides the sanitizers it checks what must hold for
 * any input: the spans balance, and the output with its tags removed and
 * &amp; &lt; &gt; decoded is the input, byte for byte, and the block
 * counted no more work than its budget (hl.h) allows, with room for the
 * one search that runs past it, and took no absurd time (issue 34: a long
 * identifier in C took time quadratic in its length). Seed corpus: the
 * samples of tests/hl/samples, each behind a language byte. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hl/hl.h"

static int languages[256];
static int nlanguages;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!nlanguages)
        for (size_t i = 0; i < hl_language_total() && nlanguages < 256; i++)
            if (hl_language_name((int)i))
                languages[nlanguages++] = (int)i;
    if (size < 1 || size > 1 << 15 || !nlanguages)
        return 0;
    int lang = languages[data[0] % nlanguages];
    const char *code = (const char *)data + 1;
    size_t len = size - 1;
    buf out = BUF_INIT, text = BUF_INIT;
    struct timespec t0, t1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    hl_page page = {0};
    hl_highlight(lang, code, len, &out, &page);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    unsigned long long budget = HL_BUDGET_BASE + HL_BUDGET_PER_BYTE * (unsigned long long)len;
    if (page.work > budget + 64ULL * (len + 1) || took > 5)
        abort();
    long depth = 0;
    for (size_t i = 0; i < out.len;) {
        if (out.data[i] == '<') {
            const char *gt = memchr(out.data + i, '>', out.len - i);
            if (!gt)
                abort();
            if (out.data[i + 1] == '/')
                depth--;
            else
                depth++;
            if (depth < 0)
                abort();
            i = (size_t)(gt - out.data) + 1;
        } else if (out.data[i] == '&') {
            const char *semi = memchr(out.data + i, ';', out.len - i);
            if (!semi)
                abort();
            size_t n = (size_t)(semi - out.data) - i + 1;
            if (n == 5 && !memcmp(out.data + i, "&amp;", 5))
                buf_putc(&text, '&');
            else if (n == 4 && !memcmp(out.data + i, "&lt;", 4))
                buf_putc(&text, '<');
            else if (n == 4 && !memcmp(out.data + i, "&gt;", 4))
                buf_putc(&text, '>');
            else
                abort();
            i += n;
        } else {
            buf_putc(&text, out.data[i++]);
        }
    }
    if (depth != 0 || text.len != len || memcmp(text.data, code, len) != 0)
        abort();
    buf_release(&out);
    buf_release(&text);
    return 0;
}

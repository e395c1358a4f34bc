/* fuzz_shortcode: libFuzzer target over the shortcode tag grammar
 * (md/scparse.c) and the shortcodes extension inside the Markdown stage
 * (md/shortcode.c: pairs, raw and Markdown inner text, code left alone).
 *
 * Input: one byte of mode, then text. Mode bit 0: parse a tag at every
 * offset (its length and every argument inside the text, values decoded
 * within their length) and look for closing tags. Mode bit 1: render the
 * text as a page body with a hook that echoes its inner text, fails for
 * the name `bad` and returns links and ids, checking that every problem
 * lies in the body and the inner text lies in the text given. Mode bit 2
 * makes the hook drop its inner text (the "template changed `inner`"
 * path). Mode bit 0 also checks md_sc_pairs against md_sc_find_close. Seed corpus: tests/fuzz/corpus/shortcode/ (see CMakeLists.txt). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "md/md.h"
#include "md/scparse.h"
#include "util/arena.h"

static const char *hook(void *ctx, const md_shortcode *sc, arena *a, const char **error)
{
    unsigned mode = *(const unsigned *)ctx;
    if (!strcmp(sc->name, "bad")) {
        *error = "bad";
        return NULL;
    }
    for (size_t i = 0; i < sc->nargs; i++)
        if (!sc->args[i].value)
            abort();
    if (sc->paired && !sc->inner)
        abort();
    if (!sc->paired || (mode & 4))
        return arena_printf(a, "<a href=\"%s.md\" id=\"%s\">%zu</a>", sc->name, sc->name, sc->nargs);
    return arena_printf(a, "<div id=\"%s\">%.*s</div>", sc->name, (int)sc->inner_len, sc->inner);
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
            md_sc_tag t;
            const char *err;
            size_t eat;
            md_sc_status st = md_sc_parse(s + at, n - at, &t, &err, &eat);
            if (st == MD_SC_ERROR && (eat > n - at || !err))
                abort();
            if (st != MD_SC_OK)
                continue;
            if (t.len < 5 || t.len > n - at || t.name < s + at || t.name + t.name_len > s + at + t.len)
                abort();
            for (size_t i = 0; i < t.nargs; i++) {
                const md_sc_arg *g = &t.args[i];
                if (g->val < s + at || g->val + g->val_len > s + at + t.len)
                    abort();
                char *v = malloc(g->val_len + 1);
                if (md_sc_value(g, v) > g->val_len)
                    abort();
                free(v);
            }
            if (!t.closing && !t.self_closing && !t.escaped && at + t.len <= n) {
                size_t len, off = md_sc_find_close(s + at + t.len, n - at - t.len, t.mark, t.name,
                                                  t.name_len, &len);
                if (off != (size_t)-1 && off + len > n - at - t.len)
                    abort();
            }
        }
        /* md_sc_pairs, one pass, pairs each opening tag it reads as
         * md_sc_find_close does from that tag */
        md_sc_pair *pv;
        size_t np = md_sc_pairs(s, n, &pv);
        for (size_t k = 0; k < np; k++) {
            md_sc_tag t;
            const char *err;
            size_t eat, len = 0, end = pv[k].open + pv[k].open_len;
            if (md_sc_parse(s + pv[k].open, n - pv[k].open, &t, &err, &eat) != MD_SC_OK
                || t.len != pv[k].open_len || t.closing || t.self_closing || t.escaped)
                abort();
            size_t off = md_sc_find_close(s + end, n - end, '<', t.name, t.name_len, &len);
            if ((off == (size_t)-1) != (pv[k].close == (size_t)-1)
                || (off != (size_t)-1 && (end + off != pv[k].close || len != pv[k].close_len)))
                abort();
        }
        free(pv);
    }
    if (mode & 2) {
        arena *a = arena_new();
        md_options o = { .unsafe = true };
        md_hooks h = { .shortcode = hook, .ctx = &mode };
        md_result r;
        md_render(str_make(s, n), 1, &o, &h, a, &r);
        size_t lines = 1;
        for (size_t i = 0; i < n; i++)
            lines += s[i] == '\n' || (s[i] == '\r' && (i + 1 == n || s[i + 1] != '\n'));
        for (size_t i = 0; i < r.nproblems; i++)
            if (r.problems[i].line < 1 || (size_t)r.problems[i].line > lines + 1 || r.problems[i].col < 1)
                abort();
        if (strlen(r.html) != r.html_len)
            abort();
        arena_free(a);
    }
    return 0;
}

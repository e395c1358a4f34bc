/* fuzz_md: libFuzzer target over the Markdown renderer — cmark-gfm's parse
 * with its extensions, sheaf's HTML, heading ids ({#id} too), footnotes,
 * raw HTML read by gumbo and rewritten in place, template-syntax warnings,
 * summaries, word counts, shortcodes and link positions — with a resolver that
 * rewrites every other link, as the site's cross-post resolver does.
 *
 * Input: two bytes of options (unsafe, smart, hard breaks, reference mode,
 * the first line, formulas rendered, numbered sections, no bibliography;
 * then which extensions are off), then a page body. Figures, tables'
 * captions, labels, cross-references and alerts (md/xref.c) are read
 * here too: the seeds xref-*. Seed
 * corpus: the pages under tests/sites/ and content/ and the examples of
 * tests/md/ (see tests/fuzz/CMakeLists.txt for the commands). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "md/md.h"
#include "util/arena.h"

static const char *resolve(void *ctx, const md_link *l)
{
    unsigned *n = ctx;
    /* every other link to a rewritten URL with an anchor, like a post */
    return (*n)++ % 2 ? NULL : (l->image ? "/posts/x/diagram.png" : "/posts/x/#part");
}

/* Citations: writes the keys, as a site's hook would write their labels. */
static void cite(void *ctx, const md_cite *c, size_t n, buf *out)
{
    (void)ctx;
    for (size_t i = 0; i < n; i++)
        buf_printf(out, "<a href=\"#ref-%s\">%s %s %s</a>", c[i].key, c[i].prefix, c[i].key,
                   c[i].locator);
}

/* Formulas: a fixed MathML, so display math is numbered and labelled. */
static const char *math(void *ctx, const md_formula *f, arena *a, const char **error, long *at)
{
    (void)ctx, (void)a, (void)error, (void)at;
    return f->display ? "<math display=\"block\"></math>" : "<math></math>";
}

/* Shortcodes: a link and the inner text, as a template would write them. */
static const char *shortcode(void *ctx, const md_shortcode *sc, arena *a, const char **error)
{
    (void)ctx;
    if (sc->nargs > 3) {
        *error = "too many";
        return NULL;
    }
    return arena_printf(a, "<a href=\"%s.md\">%.*s</a>", sc->name, (int)sc->inner_len,
                        sc->inner ? sc->inner : "");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size > 1 << 16)
        return 0;
    /* raw HTML on unless bit 0 says otherwise: it is the default, and gumbo's
     * part is only reached with it */
    md_options opt = { .unsafe = !(data[0] & 1), .smart = data[0] & 2, .hard_breaks = data[0] & 4,
                       .reference = data[0] & 8, .off = data[1], .math = data[0] & 0x20 ? math : NULL,
                       .numbered_sections = data[0] & 0x40 };
    arena *a = arena_new();
    md_result r;
    unsigned n = 0;
    /* bit 7: no bibliography, so `@key` is a cross-reference or text */
    md_hooks hooks = { .link = resolve, .cite = data[0] & 0x80 ? NULL : cite, .shortcode = shortcode,
                       .ctx = &n };
    md_render(str_make((const char *)data + 2, size - 2), 1 + ((data[0] >> 4) & 1), &opt, &hooks, a, &r);
    /* what the site reads of the result: the labels, and where the
     * text of links to other pages' labels goes */
    for (size_t i = 0; i < r.nlabels; i++)
        if (!r.labels[i].id || !r.labels[i].number || !r.labels[i].text)
            __builtin_trap();
    for (size_t i = 0; i < r.nxlinks; i++)
        if (r.xlinks[i].link >= r.nlinks || (r.xlinks[i].at != SIZE_MAX && r.xlinks[i].at > r.html_len)
            || (r.xlinks[i].summary_at != SIZE_MAX && r.xlinks[i].summary_at > r.summary_len))
            __builtin_trap();
    arena_free(a);
    return 0;
}

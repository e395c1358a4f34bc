/* test_md_spec: sheaf's Markdown stage against cmark-gfm's own renderer on
 * every example of cmark-gfm's spec files (tests/md/: the GFM spec, whose
 * extension sections cover tables, strikethrough and autolinks, and the
 * extensions file: tables, strikethrough, autolinks, footnotes, task lists).
 * With sheaf's additions off (md_options.reference, no resolver) the HTML
 * must be cmark-gfm's byte for byte, with every extension on and with all
 * off (plain CommonMark), raw HTML kept or omitted, smart punctuation and
 * hard breaks on or off. The extensions file is also checked against the
 * library itself (its expected HTML is what this cmark-gfm writes), so the
 * fixture cannot drift from the library the build links. */
#include "harness.h"

#include <stdlib.h>

#include "gfm_ref.h"
#include "md/md.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/fs.h"

typedef struct example {
    int line;        /* of the opening fence */
    char *markdown;
    char *html;
    char tag[32];    /* what follows "example" on the fence: "table", "" … */
} example;

/* The spec format: a fence of 32 backticks and "example", the Markdown, a
 * line ".", the HTML, the closing fence; "→" stands for a tab. */
static size_t read_examples(const char *path, example **out)
{
    buf text = BUF_INIT;
    if (!fs_read_file(path, &text)) {
        fprintf(stderr, "cannot read %s\n", path);
        return 0;
    }
    static const char fence[] = "````````````````````````````````";
    size_t n = 0, cap = 0;
    example *v = NULL;
    int line = 0, state = 0; /* 0 outside, 1 markdown, 2 html */
    buf md = BUF_INIT, html = BUF_INIT;
    example cur = { 0 };
    for (char *p = text.data, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl)
            nl = p + strlen(p);
        size_t len = (size_t)(nl - p);
        line++;
        if (state == 0 && !strncmp(p, fence, 32) && !strncmp(p + 32, " example", 8)) {
            memset(&cur, 0, sizeof cur);
            cur.line = line;
            snprintf(cur.tag, sizeof cur.tag, "%.*s", (int)(len > 41 ? len - 41 : 0), p + 41);
            buf_reset(&md);
            buf_reset(&html);
            state = 1;
        } else if (state == 1 && len == 1 && p[0] == '.') {
            state = 2;
        } else if (state == 2 && len == 32 && !strncmp(p, fence, 32)) {
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                v = realloc(v, cap * sizeof *v);
            }
            cur.markdown = strdup(md.data);
            cur.html = strdup(html.data);
            v[n++] = cur;
            state = 0;
        } else if (state) {
            buf *b = state == 1 ? &md : &html;
            for (size_t i = 0; i < len; i++) {
                if (!strncmp(p + i, "→", 3)) {
                    buf_putc(b, '\t');
                    i += 2;
                } else {
                    buf_putc(b, p[i]);
                }
            }
            buf_putc(b, '\n');
        }
        if (!*nl)
            break;
    }
    buf_release(&md);
    buf_release(&html);
    buf_release(&text);
    *out = v;
    return n;
}

static void free_examples(example *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].markdown);
        free(v[i].html);
    }
    free(v);
}

static int compared, differing;

/* One example under one set of options. */
static void compare(const char *file, const example *e, md_options o)
{
    o.reference = true;
    char *want = gfm_reference_html(e->markdown, strlen(e->markdown), &o);
    arena *a = arena_new();
    md_result r;
    md_render(str_from(e->markdown), 1, &o, NULL, a, &r);
    compared++;
    if (strcmp(r.html, want) || strlen(r.html) != r.html_len) {
        if (differing++ < 5)
            fprintf(stderr, "%s:%d (unsafe=%d smart=%d hard=%d off=%x)\n  got:  [%s]\n  want: [%s]\n",
                    file, e->line, o.unsafe, o.smart, o.hard_breaks, o.off, r.html, want);
    }
    arena_free(a);
    free(want);
}

static void run_file(const char *file)
{
    example *v;
    size_t n = read_examples(file, &v);
    OK(n > 20);
    for (size_t i = 0; i < n; i++)
        for (int m = 0; m < 16; m++) {
            md_options o = { .unsafe = m & 1, .smart = m & 2, .hard_breaks = m & 4,
                             .off = m & 8 ? ~0u : 0 };
            compare(file, &v[i], o);
        }
    free_examples(v, n);
}

TEST(spec_examples)
{
    compared = differing = 0;
    run_file("md/gfm-spec.txt");
    EQ_INT(differing, 0);
    OK(compared >= 16 * 670);
}

TEST(extension_examples)
{
    compared = differing = 0;
    run_file("md/gfm-extensions.txt");
    EQ_INT(differing, 0);
    OK(compared >= 16 * 28);
}

/* Each extension switched off alone: the others still match. */
TEST(one_extension_off)
{
    example *v;
    size_t n = read_examples("md/gfm-extensions.txt", &v);
    compared = differing = 0;
    for (size_t k = 0; k < md_extension_count(); k++)
        for (size_t i = 0; i < n; i++) {
            md_options o = { .unsafe = true, .off = md_extension_bit(md_extension_name(k)) };
            compare("md/gfm-extensions.txt", &v[i], o);
        }
    EQ_INT(differing, 0);
    free_examples(v, n);
}

/* The fixture's expected HTML is what the library writes (tagfilter, which
 * sheaf never turns on, aside; an example marked <IGNORE> has none). */
TEST(fixture_matches_library)
{
    example *v;
    size_t n = read_examples("md/gfm-extensions.txt", &v);
    int checked = 0;
    for (size_t i = 0; i < n; i++) {
        if (strstr(v[i].html, "<IGNORE>") || strstr(v[i].markdown, "<xmp>"))
            continue;
        md_options o = { .unsafe = true };
        char *got = gfm_reference_html(v[i].markdown, strlen(v[i].markdown), &o);
        if (strcmp(got, v[i].html))
            FAILF("md/gfm-extensions.txt:%d: the library writes\n[%s]\nnot\n[%s]", v[i].line, got,
                  v[i].html);
        checked++;
        free(got);
    }
    OK(checked >= 25);
    free_examples(v, n);
}

int main(void)
{
    RUN(spec_examples);
    RUN(extension_examples);
    RUN(one_extension_off);
    RUN(fixture_matches_library);
    return harness_done();
}

/* Unit tests for md: the HTML must be cmark-gfm's, byte for byte, with
 * sheaf's additions switched off (md_options.reference) and no resolver;
 * with them on, only heading ids, self-links and table boxes differ.
 * Heading ids ({#id} too), the page's ids, the resolver's positions (also
 * in tables, footnotes and raw HTML), raw HTML rewriting, the summary,
 * word counts, problems (duplicate ids, template syntax) and the switches.
 * tests/unit/test_md_spec.c runs cmark-gfm's spec files. */
#include "harness.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "gfm_ref.h"
#include "md/md.h"
#include "md/scparse.h"
#include "util/arena.h"
#include "util/buf.h"

#define ALL_OFF (~0u)
#define ANCHORS_OFF md_extension_bit("heading_anchors")

/* Our HTML with ` id="…"` taken out of heading tags, table boxes
 * unwrapped, code blocks out of the tab order and task list checkboxes
 * without their label (a page rendered with heading anchors off). */
static char *strip_ids(const char *html)
{
    static const char box[] = "<div class=\"table-scroll\" tabindex=\"0\" role=\"group\" aria-label=\"Table\">\n";
    buf b = BUF_INIT;
    for (const char *p = html; *p;) {
        if (p[0] == '<' && p[1] == 'h' && p[2] >= '1' && p[2] <= '6' && !strncmp(p + 3, " id=\"", 5)) {
            buf_put(&b, p, 3);
            const char *q = strchr(p + 8, '"');
            p = q ? q + 1 : p + 8;
        } else if (!strncmp(p, "<pre tabindex=\"0\">", 18)) {
            buf_puts(&b, "<pre>");
            p += 18;
        } else if (!strncmp(p, " aria-label=\"", 13) && b.len > 11
                   && !strcmp(b.data + b.len - 11, "disabled=\"\"")) {
            const char *q = strchr(p + 13, '"');
            p = q ? q + 1 : p + 13;
        } else if (!strncmp(p, box, strlen(box))) {
            p += strlen(box);
        } else if (!strncmp(p, "</table>\n</div>\n", 16)) {
            buf_puts(&b, "</table>\n");
            p += 16;
        } else {
            buf_putc(&b, *p++);
        }
    }
    return buf_detach(&b, NULL);
}

/* Renders s both ways with the given options and compares: in reference
 * mode exactly; otherwise with ids stripped (and anchors off). */
static int same_as_gfm(const char *s, md_options o)
{
    char *want = gfm_reference_html(s, strlen(s), &o);
    arena *a = arena_new();
    md_result r;
    o.reference = true;
    md_render(str_from(s), 1, &o, NULL, a, &r);
    int ok = !strcmp(r.html, want) && strlen(r.html) == r.html_len;
    if (!ok)
        fprintf(stderr, "input [%s] (unsafe=%d smart=%d hard=%d off=%x)\n  got:  [%s]\n  want: [%s]\n",
                s, o.unsafe, o.smart, o.hard_breaks, o.off, r.html, want);
    o.reference = false;
    o.off |= ANCHORS_OFF | md_extension_bit("heading_ids") | md_extension_bit("highlight");
    md_render(str_from(s), 1, &o, NULL, a, &r);
    char *got = strip_ids(r.html);
    if (ok && strcmp(got, want)) {
        fprintf(stderr, "input [%s] (with ids, off=%x)\n  got:  [%s]\n  want: [%s]\n", s, o.off, got,
                want);
        ok = 0;
    }
    free(got);
    free(want);
    arena_free(a);
    return ok;
}

/* Every combination of unsafe, smart, hard_breaks; extensions all on and
 * all off (plain CommonMark). */
static int same_all_options(const char *s)
{
    int ok = 1;
    for (int m = 0; m < 16; m++) {
        md_options o = { .unsafe = m & 1, .smart = m & 2, .hard_breaks = m & 4,
                         .off = m & 8 ? ALL_OFF : 0 };
        ok &= same_as_gfm(s, o);
    }
    return ok;
}

static const char *const samples[] = {
    "",
    "plain text",
    "*emph* **strong** ***both*** _u_ __uu__ *a **b** c*",
    "# H1\n## H2\n### H3\n#### H4\n##### H5\n###### H6\n",
    "Setext\n======\n\nTwo\n---\n",
    "> quote\n> > nested\n>\n> - list in quote\n",
    "> lazy\ncontinuation\n",
    "- a\n- b\n  - c\n  - d\n    1. e\n    2. f\n- g\n",
    "- loose\n\n- list\n\n  second para\n",
    "3. three\n4. four\n",
    "1) paren\n2) list\n",
    "* * *\n---\n___\n",
    "    indented code\n      more\n",
    "```\nfenced <code> & \"q\"\n```\n",
    "```python extra info\ndef f(): return 1 < 2\n```\n",
    "~~~ c&\"<>\nx\n~~~\n",
    "`code span` and `` a`b `` and `<tag>`",
    "<div>\n*raw* block\n</div>\n\npara <span class=\"x\">inline</span> <!-- c -->\n",
    "<script>alert(1)</script>\n",
    "&amp; &copy; &#35; &#x22; &nbsp; &bogus; AT&T 4 < 5 > 3 \"quoted\" 'single'",
    "<http://example.com/a?b=c&d=e> <mailto:x@y.z> <x@y.z>",
    "line one  \nline two\\\nline three\nline four",
    "![alt *text*](/img.png \"Title & more\") ![](empty.png) ![a ![b](c) d](e)",
    "[link](/url \"title\") [empty]() [spaces](<a b>) [unicode](/ü/é) [q](/a'b\"c)",
    "[ref] and [Ref][] and [text][ref]\n\n[ref]: /ref-url 'Ref Title'\n",
    "[js](javascript:alert(1)) [JS](JAVASCRIPT:x) [vb](vbscript:x) [f](file:///etc) "
    "[d](data:text/html,x) ![p](data:image/png;base64,AAA) [dp](data:image/png;x) "
    "![g](data:image/gif;x) ![s](data:image/svg+xml;x) [ok](https://x.y/#a_b~c)",
    "[br\\[a\\]ckets](/x%20y?q=[1]&r={2}|`^\\\\) [tab](/a\tb)",
    "\"smart\" 'quotes' -- dashes --- and ... ellipsis",
    "a\n\n\n\nb\n\n   \n",
    "# heading with `code` and *emph* and [link](/l)\n",
    "#\n\n# #\n",
    "- [ ] task\n- [x] done\n- [@] not\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
    "| l | c | r | n |\n|:--|:-:|--:|---|\n| [x](y.md) | `|` \\| | ~~s~~ | ~t~ |\n| short |\n",
    "> | in | quote |\n> |----|-------|\n> | a | <!--more--> b |\n",
    "text[^1] and[^算] again[^1] and[^nope].\n\n[^1]: 算是我的师弟一枚。\n[^算]: https://example.com/x\n",
    "[^a]: unused\n\nx[^b]\n\n[^b]: see[^c]\n\n    code\n\n[^c]: > quote\n",
    "bare https://example.com/a?b=c&d=e, www.example.com/x. and a@b.co\n",
    "~~www.example.com~~ ~one~ ~~two~~ ~~~three~~~\n",
    "\\*not emph\\* \\# \\\\ \\`",
    "<!--more-->\n",
    "x <!--more--> y",
    "1. a\n\n   ```\n   code in list\n   ```\n2. b\n   > quote in list\n",
    "- a\n- <div>html in tight item</div>\n- c\n",
    "Hard  \nbreak *em  \nph*\n",
    "\tTab\tindented\n\n-\ttab list\n",
    "中文段落，包含**粗体**和`代码`。\n\n## 分布式训练\n",
    "a\r\nb\r\n\r\n# c\r\n",
    "a\rb\r\rc",
    "- \n  empty first line item\n-\n",
    "[foo]: /u\n\n[foo]\n[FOO]\n[Foo][]\n",
    "***\n**",
    "<a href=\"x\">*emph in raw*</a>\n",
    "<?php echo 1; ?>\n\n<!DOCTYPE html>\n\n<![CDATA[x]]>\n",
};

TEST(html_matches_gfm)
{
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++)
        OK(same_all_options(samples[i]));
}

/* Every link's position must point at a '[', '!' or '<' of the source. */
typedef struct posck {
    const char *src;
    int bad;
} posck;

static const char *check_pos(void *ctx, const md_link *l)
{
    posck *p = ctx;
    const char *s = p->src;
    for (int ln = 1; ln < l->line && *s; ln++) {
        s += strcspn(s, "\r\n");
        if (*s == '\r' && s[1] == '\n')
            s++;
        if (*s)
            s++;
    }
    size_t len = strcspn(s, "\r\n");
    char want = l->image ? '!' : '[';
    /* a bare URL (the autolink extension) starts where its text does */
    const char *bare = !strncmp(l->dest, "http://", 7) || !strncmp(l->dest, "mailto:", 7)
                           ? l->dest + 7 : l->dest;
    size_t bn = strcspn(bare, "&"), dn = strcspn(l->dest, "&");
    if (l->col < 1 || (size_t)l->col > len
        || (s[l->col - 1] != want && s[l->col - 1] != '<'
            && (!bn || strncmp(s + l->col - 1, bare, bn))
            && (!dn || strncmp(s + l->col - 1, l->dest, dn)))) {
        if (!p->bad)
            fprintf(stderr, "input [%s]: link %s at %d:%d\n", p->src, l->dest, l->line, l->col);
        p->bad++;
    }
    return NULL;
}

static int positions_ok(const char *s)
{
    posck p = { s, 0 };
    arena *a = arena_new();
    md_result r;
    md_options o = { .unsafe = true };
    md_render(str_from(s), 1, &o, &(md_hooks){ .link = check_pos, .ctx = &p }, a, &r);
    arena_free(a);
    return p.bad == 0;
}

/* Random documents built from pieces that exercise the renderer. */
TEST(html_matches_gfm_random)
{
    static const char *const pieces[] = {
        "# ", "## ", "> ", "- ", "1. ", "  ", "    ", "\n", "\n\n", "*", "**", "_", "`",
        "```", "~~~", "[", "]", "(", ")", "![", "](", "/url", " \"t\"", "<", ">", "&",
        "&amp;", "\"", "'", "<div>", "</div>", "<span>", "<!--more-->", "<!-- x -->",
        "word ", "中文", "---", "===", "\\", "  \n", "javascript:", "http://a.b/c?d&e",
        "<http://x.y>", "text", "\t", "|", "[r]", "[r]: /ref\n", "3) ", "...", "--",
        "|---|", ":-:", "~~", "~", "[^1]", "[^1]: ", "www.x.y", "https://a.b/c", "- [ ] ",
        "- [x] ", " {#id}", "<a href=\"x.md\">", "<td id=\"q\">",
    };
    unsigned seed = 12345;
    buf doc = BUF_INIT;
    int failures = 0, pos_failures = 0;
    for (int k = 0; k < 1500 && failures < 3; k++) {
        buf_reset(&doc);
        int n = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 40;
        for (int i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            buf_puts(&doc, pieces[(seed >> 16) % (sizeof pieces / sizeof *pieces)]);
        }
        if (!same_all_options(doc.data))
            failures++;
        if (!positions_ok(doc.data))
            pos_failures++;
    }
    EQ_INT(failures, 0);
    EQ_INT(pos_failures, 0);
    buf_release(&doc);
}

static md_result render(arena *a, const char *s, int first_line, md_link_fn fn, void *ctx)
{
    md_options o = { .unsafe = true };
    md_result r;
    md_render(str_from(s), first_line, &o, &(md_hooks){ .link = fn, .ctx = ctx }, a, &r);
    return r;
}

TEST(heading_ids)
{
    arena *a = arena_new();
    md_result r = render(a,
                         "# LLM Training\n\ntext\n\n## LLM Training\n\n## LLM training!\n\n"
                         "## 分布式训练\n\n### `code` & *emph*\n\n## !!!\n\n## ---\n\n"
                         "## LLM Training 1\n\n## Section\n",
                         1, NULL, NULL);
    EQ_INT(r.nheadings, 9);
    if (r.nheadings == 9) {
        EQ_STR(r.headings[0].id, "llm-training");
        EQ_INT(r.headings[0].level, 1);
        EQ_STR(r.headings[0].title, "LLM Training");
        EQ_INT(r.headings[0].line, 1);
        EQ_STR(r.headings[1].id, "llm-training-1");
        EQ_STR(r.headings[2].id, "llm-training-2");
        EQ_STR(r.headings[3].id, "分布式训练");
        EQ_STR(r.headings[3].title, "分布式训练");
        EQ_STR(r.headings[4].id, "code-emph");
        EQ_STR(r.headings[4].title, "code & emph");
        EQ_STR(r.headings[4].html, "<code>code</code> &amp; <em>emph</em>");
        EQ_INT(r.headings[4].level, 3);
        EQ_STR(r.headings[5].id, "section");
        EQ_STR(r.headings[6].id, "section-1");
        /* "llm-training-1" is taken by the second heading */
        EQ_STR(r.headings[7].id, "llm-training-1-1");
        EQ_STR(r.headings[8].id, "section-2");
        EQ_INT(r.headings[8].line, 19);
    }
    OK(strstr(r.html, "<h1 id=\"llm-training\">LLM Training <a class=\"anchor\" href=\"#llm-training\" aria-hidden=\"true\" tabindex=\"-1\">#</a></h1>\n") != NULL);
    OK(strstr(r.html, "<h2 id=\"分布式训练\">分布式训练 <a class=\"anchor\" href=\"#分布式训练\" aria-hidden=\"true\" tabindex=\"-1\">#</a></h2>\n") != NULL);
    OK(strstr(r.html, "<h3 id=\"code-emph\"><code>code</code> &amp; <em>emph</em>"
                       " <a class=\"anchor\" href=\"#code-emph\" aria-hidden=\"true\" tabindex=\"-1\">#</a></h3>\n") != NULL);
    arena_free(a);
}

TEST(heading_lines)
{
    arena *a = arena_new();
    md_result r = render(a, "intro\n\nSetext\n===\n\n> ## in quote\n\n- # in list\n", 5, NULL, NULL);
    EQ_INT(r.nheadings, 3);
    if (r.nheadings == 3) {
        EQ_INT(r.headings[0].line, 7);
        EQ_STR(r.headings[0].id, "setext");
        EQ_INT(r.headings[1].line, 10);
        EQ_INT(r.headings[1].level, 2);
        EQ_INT(r.headings[2].line, 12);
        EQ_STR(r.headings[2].html, "in list");
    }
    arena_free(a);
}

typedef struct seen {
    int n;
    char log[2048];
} seen;

/* Rewrites *.md destinations to /posts/<name>/ and logs every call. */
static const char *resolver(void *ctx, const md_link *l)
{
    seen *s = ctx;
    size_t used = strlen(s->log);
    snprintf(s->log + used, sizeof s->log - used, "%s%s|%s|%d:%d;", l->image ? "img " : "", l->dest,
             l->text, l->line, l->col);
    s->n++;
    size_t n = strlen(l->dest);
    if (n > 3 && !strcmp(l->dest + n - 3, ".md"))
        return "/posts/x y/?a=1&b='2'";
    if (!strcmp(l->dest, "drop"))
        return "javascript:alert(1)";
    return NULL;
}

TEST(links_resolved_with_positions)
{
    arena *a = arena_new();
    seen s = { 0, "" };
    const char *src = "See [this post](2024-02-01-x.md) for details.\n"  /* line 5 */
                      "And ![pic *a*](img.png \"t\") and [ext](https://e.x/).\n"
                      "\n"
                      "> quote [q](q.md)\n"
                      "lazy [l](l)\n"
                      "\n"
                      "- item\n"
                      "     [indented](i) [two](t)\n"
                      "\n"
                      "# Head [h](h.md#frag)\n"
                      "\n"
                      "[ref] and \t[tab](tab)\n"
                      "\n"
                      "[ref]: r.md\n"
                      "[multi\nline](m)\n"
                      "[drop](drop)\n";
    md_result r = render(a, src, 5, resolver, &s);
    EQ_STR(s.log, "2024-02-01-x.md|this post|5:5;"
                  "img img.png|pic a|6:5;"
                  "https://e.x/|ext|6:33;"
                  "q.md|q|8:9;"
                  "l|l|9:6;"
                  "i|indented|12:6;"
                  "t|two|12:20;"
                  "h.md#frag|h|14:8;"
                  "r.md|ref|16:1;"
                  "tab|tab|16:12;"
                  "m|multi line|19:1;"
                  "drop|drop|21:1;");
    EQ_INT(r.nlinks, 12);
    if (r.nlinks == 12) {
        EQ_STR(r.links[0].dest, "2024-02-01-x.md");
        EQ_STR(r.links[0].text, "this post");
        EQ_INT(r.links[0].line, 5);
        EQ_INT(r.links[0].col, 5);
        OK(!r.links[0].image);
        OK(r.links[1].image);
        EQ_STR(r.links[1].text, "pic a");
    }
    OK(strstr(r.html, "<a href=\"/posts/x%20y/?a=1&amp;b=&#x27;2&#x27;\">this post</a>") != NULL);
    OK(strstr(r.html, "<img src=\"img.png\" alt=\"pic a\" title=\"t\" />") != NULL);
    OK(strstr(r.html, "<a href=\"https://e.x/\">ext</a>") != NULL);
    OK(strstr(r.html, "<h1 id=\"head-h\">Head <a href=\"h.md#frag\">h</a> <a class=\"anchor\" href=\"#head-h\" aria-hidden=\"true\" tabindex=\"-1\">#</a></h1>") != NULL);
    /* unsafe is on: a javascript: URL from the resolver is written */
    OK(strstr(r.html, "<a href=\"javascript:alert(1)\">drop</a>") != NULL);

    /* without unsafe, a dangerous URL from the resolver is dropped as cmark drops it */
    seen s2 = { 0, "" };
    md_options o = { 0 };
    md_result r2;
    md_render(str_from("[drop](drop) [keep](k.md)"), 1, &o, &(md_hooks){ .link = resolver, .ctx = &s2 }, a, &r2);
    EQ_STR(r2.html, "<p><a href=\"\">drop</a> <a href=\"/posts/x%20y/?a=1&amp;b=&#x27;2&#x27;\">keep</a></p>\n");
    EQ_INT(s2.n, 2);

    /* no resolver */
    md_result r3 = render(a, "[a](b)", 1, NULL, NULL);
    EQ_INT(r3.nlinks, 1);
    EQ_STR(r3.html, "<p><a href=\"b\">a</a></p>\n");
    arena_free(a);
}

/* Where cmark's own inline positions go wrong. */
TEST(link_positions_hard)
{
    arena *a = arena_new();
    seen s = { 0, "" };
    const char *src = "[d1]: /one\n"                          /* 1 */
                      "[d2]: /two\n"                          /* 2 */
                      "`[x]` \\[no] [not a link] [a](a)\n"    /* 3 */
                      "x [multi\n"                            /* 4 */
                      "line](m) [b](b\n"                      /* 5 */
                      "\"title\n"                             /* 6 */
                      "more\") [c](c)\n"                      /* 7 */
                      "<http://auto.x> and\n"                 /* 8 */
                      "   <mailto:m@x.y> [d1]\n"              /* 9 */
                      "\n"                                    /* 10 */
                      "> q\n"                                 /* 11 */
                      "> > lazy\n"                            /* 12 */
                      "\t<http://tab.x> [e](e)\n"             /* 13 */
                      "\n"                                    /* 14 */
                      "- [![img](i)](l) ![two](j)\n";         /* 15 */
    render(a, src, 1, resolver, &s);
    EQ_STR(s.log, "a|a|3:26;"
                  "m|multi line|4:3;"
                  "b|b|5:10;"
                  "c|c|7:8;"
                  "http://auto.x|http://auto.x|8:1;"
                  "mailto:m@x.y|mailto:m@x.y|9:4;"
                  "/one|d1|9:19;"
                  "http://tab.x|http://tab.x|13:2;"
                  "e|e|13:17;"
                  "l|img|15:3;"
                  "img i|img|15:4;"
                  "img j|two|15:18;");
    arena_free(a);
}

TEST(summary)
{
    arena *a = arena_new();
    md_result r = render(a, "# Title\n\nFirst *para*.\n\nSecond.\n", 1, NULL, NULL);
    OK(!r.has_more);
    EQ_STR(r.summary_html, "<p>First <em>para</em>.</p>\n");
    EQ_INT(r.summary_len, strlen(r.summary_html));

    r = render(a, "One.\n\nTwo.\n\n<!--more-->\n\nThree.\n", 1, NULL, NULL);
    OK(r.has_more);
    EQ_STR(r.summary_html, "<p>One.</p>\n<p>Two.</p>\n");
    EQ_STR(r.html, "<p>One.</p>\n<p>Two.</p>\n<!--more-->\n<p>Three.</p>\n");

    /* inline marker: the open elements are closed */
    r = render(a, "> Intro *with <!--more--> rest* here\n\nafter\n", 1, NULL, NULL);
    OK(r.has_more);
    EQ_STR(r.summary_html, "<blockquote>\n<p>Intro <em>with</em></p>\n</blockquote>\n");

    r = render(a, "- a\n- b <!--more--> c\n", 1, NULL, NULL);
    EQ_STR(r.summary_html, "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n");

    /* safe mode still splits (the body shows the omitted-HTML comment) */
    md_options safe = { 0 };
    md_render(str_from("A\n\n<!--more-->\n\nB\n"), 1, &safe, NULL, a, &r);
    OK(r.has_more);
    EQ_STR(r.summary_html, "<p>A</p>\n");
    EQ_STR(r.html, "<p>A</p>\n<!-- raw HTML omitted -->\n<p>B</p>\n");

    /* marker first: empty summary */
    r = render(a, "<!--more-->\ntext\n", 1, NULL, NULL);
    OK(r.has_more);
    EQ_STR(r.summary_html, "");

    /* no paragraph at all */
    r = render(a, "# Only a heading\n\n    code\n", 1, NULL, NULL);
    OK(!r.has_more);
    EQ_STR(r.summary_html, "");
    EQ_INT(r.summary_len, 0);

    /* the first top-level paragraph, not one in a list */
    r = render(a, "- item\n\nthe para\n", 1, NULL, NULL);
    EQ_STR(r.summary_html, "<p>the para</p>\n");

    /* empty body */
    r = render(a, "", 1, NULL, NULL);
    EQ_STR(r.html, "");
    EQ_STR(r.summary_html, "");
    EQ_INT(r.word_count, 0);
    EQ_INT(r.nheadings, 0);
    EQ_INT(r.nlinks, 0);
    arena_free(a);
}

TEST(word_count)
{
    arena *a = arena_new();
    EQ_INT(render(a, "one two three", 1, NULL, NULL).word_count, 3);
    /* inline markup inside a word does not split it; breaks do separate */
    EQ_INT(render(a, "foo*bar* baz\nqux  \nquux", 1, NULL, NULL).word_count, 4);
    /* what a reader sees counts: code spans, code blocks, raw HTML's text */
    EQ_INT(render(a, "use `make all` now\n\n    counted here\n\n<div>\nand this\n</div>\n",
                  1, NULL, NULL).word_count, 8);
    /* a formula counts as its TeX (here unrendered: no KaTeX in this test;
     * test_html has KaTeX's MathML), a footnote mark does not count */
    md_result r = render(a, "Sum $kn = 8192$ here.[^1]\n\n[^1]: A note.\n", 1, NULL, NULL);
    EQ_STR(r.text, "Sum \\(kn = 8192\\) here.\nA note.");
    EQ_INT(r.word_count, 6);
    /* headings, links and list items count; image alt text does not */
    EQ_INT(render(a, "# Big Title\n\n- [a link](x) ok\n- ![alt words](i.png)\n", 1, NULL, NULL)
               .word_count, 5);
    /* CJK characters one each */
    EQ_INT(render(a, "## 分布式训练\n\n梯度压缩 and GPU scheduling。\n", 1, NULL, NULL).word_count,
           5 + 4 + 3);
    /* inline HTML separates */
    EQ_INT(render(a, "a<br>b", 1, NULL, NULL).word_count, 2);
    arena_free(a);
}

TEST(options)
{
    arena *a = arena_new();
    md_options o = { .smart = true, .hard_breaks = true };
    md_result r;
    md_render(str_from("\"hi\" -- x\ny <b>z</b>"), 1, &o, NULL, a, &r);
    EQ_STR(r.html, "<p>“hi” – x<br />\ny <!-- raw HTML omitted -->z<!-- raw HTML omitted --></p>\n");
    md_render(str_from("a\nb"), 1, NULL, NULL, a, &r);
    EQ_STR(r.html, "<p>a\nb</p>\n");
    /* body need not be NUL-terminated */
    md_render(str_make("*x* tail", 3), 1, NULL, NULL, a, &r);
    EQ_STR(r.html, "<p><em>x</em></p>\n");
    arena_free(a);
}

/* ---- GitHub-flavoured Markdown and sheaf's additions ---- */

#define ANCHOR(id) " <a class=\"anchor\" href=\"#" id "\" aria-hidden=\"true\" tabindex=\"-1\">#</a>"

TEST(gfm_additions)
{
    arena *a = arena_new();
    md_result r = render(a, "| l | c | r |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n\n## 结果\n", 1, NULL, NULL);
    EQ_STR(r.html, "<div class=\"table-scroll\" tabindex=\"0\" role=\"group\" aria-label=\"Table\">\n<table>\n<thead>\n<tr>\n"
                   "<th align=\"left\">l</th>\n<th align=\"center\">c</th>\n<th align=\"right\">r</th>\n"
                   "</tr>\n</thead>\n<tbody>\n<tr>\n<td align=\"left\">1</td>\n"
                   "<td align=\"center\">2</td>\n<td align=\"right\">3</td>\n</tr>\n</tbody>\n</table>\n"
                   "</div>\n<h2 id=\"结果\">结果" ANCHOR("结果") "</h2>\n");
    /* the table of contents gets the heading without its self-link */
    EQ_STR(r.headings[0].html, "结果");
    /* a task's checkbox is labelled by its text; code can take the focus */
    r = render(a, "- [x] read *the* \"paper\"\n- [ ]\n\n```c\nx\n```\n", 1, NULL, NULL);
    EQ_STR(r.html, "<ul>\n<li><input type=\"checkbox\" checked=\"\" disabled=\"\" "
                   "aria-label=\"read the &quot;paper&quot;\" /> read <em>the</em> &quot;paper&quot;</li>\n"
                   "<li>[ ]</li>\n</ul>\n<pre tabindex=\"0\" class=\"hl\" data-lang=\"c\">"
                   "<code class=\"language-c hljs\">x\n</code></pre>\n");
    arena_free(a);
}

/* code blocks: highlighted, plain, line numbers, highlighted lines */
TEST(code_blocks)
{
    arena *a = arena_new();
    md_result r = render(a, "```py\nx = 1 # c\n```\n", 1, NULL, NULL);
    EQ_STR(r.html, "<pre tabindex=\"0\" class=\"hl\" data-lang=\"py\"><code class=\"language-py hljs\">"
                   "x = <span class=\"hljs-number\">1</span> <span class=\"hljs-comment\"># c</span>\n"
                   "</code></pre>\n");
    EQ_INT(r.nproblems, 0);
    /* no language, an unknown one (a warning at the fence), "Rust" in capitals */
    r = render(a, "```\na < b\n```\n\n~~~ klingon\nqapla'\n~~~\n\n```Rust\nfn\n```\n\n```Text\nt\n```\n", 3,
               NULL, NULL);
    EQ_STR(r.html, "<pre tabindex=\"0\"><code>a &lt; b\n</code></pre>\n"
                   "<pre tabindex=\"0\"><code class=\"language-klingon\">qapla'\n</code></pre>\n"
                   "<pre tabindex=\"0\" class=\"hl\" data-lang=\"Rust\"><code class=\"language-Rust hljs\">"
                   "<span class=\"hljs-function\"><span class=\"hljs-keyword\">fn</span>\n</span></code></pre>\n"
                   "<pre tabindex=\"0\"><code class=\"language-Text\">t\n</code></pre>\n");
    EQ_INT(r.nproblems, 1); /* "Text" is plain on purpose: no warning */
    if (r.nproblems == 1) {
        EQ_INT(r.problems[0].line, 7);
        EQ_INT(r.problems[0].col, 1);
        OK(!r.problems[0].error);
        EQ_STR(r.problems[0].message, "code block language 'klingon' is not one sheaf highlights: it "
                                      "stays plain (docs/highlighting.md lists the languages)");
    }
    /* issue 34: one identifier of 160 KB in a C block took 40 s (each search
     * rescanned it from each of its positions); the grammars' start guards
     * make it linear, so it is highlighted, without a word — in Perl too,
     * whose grammar rescanned it until the guards knew its earlier
     * searches (then it ran past the budget and stayed plain) */
    {
        buf big = BUF_INIT;
        buf_puts(&big, "text\n\n```c\n");
        for (int i = 0; i < 160 * 1024; i++)
            buf_putc(&big, 'a');
        buf_puts(&big, "\n```\n");
        r = render(a, big.data, 1, NULL, NULL);
        OK(strstr(r.html, "<code class=\"language-c hljs\">aaaa") != NULL);
        EQ_INT(r.nproblems, 0);
        buf_reset(&big);
        buf_puts(&big, "text\n\n```perl\n");
        for (int i = 0; i < 160 * 1024; i++)
            buf_putc(&big, 'a');
        buf_puts(&big, "\n```\n");
        /* the budget counts regex work, not time (a timed check here would
         * be a benchmark): that it stays linear is complexity/
         * identifier-length's, that a block past it stays plain, by the
         * count alone, hl/budget-deterministic's */
        r = render(a, big.data, 1, NULL, NULL);
        OK(strstr(r.html, "<code class=\"language-perl hljs\">aaaa") != NULL);
        EQ_INT(r.nproblems, 0);
        /* 400 blocks of 4 KB YAML prose on one line each ("abcd abcd …",
         * which YAML's key rescanned to the line's end from every word):
         * one page's budget holds them all, the last block highlighted */
        buf_reset(&big);
        for (int b = 0; b < 400; b++) {
            buf_puts(&big, "```yaml\n");
            for (int i = 0; i < 800; i++)
                buf_puts(&big, "abcd ");
            buf_puts(&big, "\n```\n\n");
        }
        r = render(a, big.data, 1, NULL, NULL);
        EQ_INT(r.nproblems, 0);
        const char *last = strstr(r.html, "<pre");
        for (const char *q = last; q; q = strstr(q + 1, "<pre"))
            last = q;
        OK(last && strstr(last, "<span"));
        buf_release(&big);
    }
    /* line numbers and highlighted lines; a comment across lines is closed
     * and opened again at each line end */
    r = render(a, "```c {linenos=true, hl_lines=[2], linenostart=9}\n/* a\nb */\nx\n```\n", 1, NULL, NULL);
    EQ_STR(r.html, "<pre tabindex=\"0\" class=\"hl\" data-lang=\"c\"><code class=\"language-c hljs\">"
                   "<span class=\"line\"><span class=\"ln\">9</span><span class=\"cl\">"
                   "<span class=\"hljs-comment\">/* a\n</span></span></span>"
                   "<span class=\"line hl\"><span class=\"ln\">10</span><span class=\"cl\">"
                   "<span class=\"hljs-comment\">b */</span>\n</span></span>"
                   "<span class=\"line\"><span class=\"ln\">11</span><span class=\"cl\">x\n</span></span>"
                   "</code></pre>\n");
    /* options without a language; ranges as strings */
    r = render(a, "``` {hl_lines=[\"1-2\"]}\n<\n>\nz\n```\n", 1, NULL, NULL);
    EQ_STR(r.html, "<pre tabindex=\"0\"><code>"
                   "<span class=\"line hl\"><span class=\"cl\">&lt;\n</span></span>"
                   "<span class=\"line hl\"><span class=\"cl\">&gt;\n</span></span>"
                   "<span class=\"line\"><span class=\"cl\">z\n</span></span></code></pre>\n");
    /* bad options are errors at the fence; unknown ones are ignored with a warning */
    r = render(a, "text\n\n```go {linenos=maybe, style=monokai, hl_lines=[x]}\nx\n```\n", 1, NULL, NULL);
    EQ_INT(r.nproblems, 3);
    if (r.nproblems == 3) {
        EQ_STR(r.problems[0].message, "code block option linenos=maybe: want true or false");
        OK(r.problems[0].error);
        EQ_INT(r.problems[0].line, 3);
        EQ_STR(r.problems[1].message,
               "code block option 'style' is ignored (known: linenos, hl_lines, linenostart)");
        OK(!r.problems[1].error);
        EQ_STR(r.problems[2].message, "code block option hl_lines=x: want line numbers and ranges, "
                                      "like [2, 3] or [\"4-6\"]");
    }
    /* a language in braces alone (R Markdown's and Quarto's ```{yaml},
     * Pandoc's class {.python}) is the language; an option there still
     * needs a value */
    r = render(a, "```{yaml}\na: 1\n```\n\n```{ .python }\nx\n```\n", 1, NULL, NULL);
    EQ_STR(r.html, "<pre tabindex=\"0\" class=\"hl\" data-lang=\"yaml\"><code class=\"language-yaml hljs\">"
                   "<span class=\"hljs-attr\">a:</span> <span class=\"hljs-number\">1</span>\n</code></pre>\n"
                   "<pre tabindex=\"0\" class=\"hl\" data-lang=\"python\"><code class=\"language-python hljs\">"
                   "x\n</code></pre>\n");
    EQ_INT(r.nproblems, 0);
    r = render(a, "```{r echo=FALSE}\nx\n```\n", 1, NULL, NULL);
    EQ_INT(r.nproblems, 1);
    /* issue 32: Pandoc's attribute block and SyntaxHighlighter's brush
     * (old Jekyll sites): the language is read, .numberLines numbers the
     * lines, the rest is ignored with a warning — never an error */
    r = render(a, "~~~~ {.brush: .php;}\n$x;\n~~~~\n\n``` {.python .numberLines #snippet}\nx\n```\n", 1, NULL,
               NULL);
    EQ_STR(r.html, "<pre tabindex=\"0\" class=\"hl\" data-lang=\"php\"><code class=\"language-php hljs\">"
                   "$x;\n</code></pre>\n"
                   "<pre tabindex=\"0\" class=\"hl\" data-lang=\"python\"><code class=\"language-python hljs\">"
                   "<span class=\"line\"><span class=\"ln\">1</span><span class=\"cl\">x\n</span></span>"
                   "</code></pre>\n");
    EQ_INT(r.nproblems, 1);
    if (r.nproblems == 1) {
        OK(!r.problems[0].error);
        EQ_INT(r.problems[0].line, 5);
        EQ_STR(r.problems[0].message, "code block attributes '{.python .numberLines #snippet}': only the "
                                      "language is read, the rest is ignored");
    }
    /* the site-wide line numbers */
    md_options o = { .linenos = true };
    md_render(str_from("```python\nx\n```\n\n```python {linenos=false}\ny\n```\n"), 1, &o, NULL, a, &r);
    EQ_STR(r.html, "<pre tabindex=\"0\" class=\"hl\" data-lang=\"python\"><code class=\"language-python hljs\">"
                   "<span class=\"line\"><span class=\"ln\">1</span><span class=\"cl\">x\n</span></span>"
                   "</code></pre>\n<pre tabindex=\"0\" class=\"hl\" data-lang=\"python\">"
                   "<code class=\"language-python hljs\">y\n</code></pre>\n");
    EQ_INT(r.nproblems, 0);
    /* markdown.highlight: false writes code blocks as CommonMark does:
     * no highlighting, options or line numbers */
    o.off = md_extension_bit("highlight");
    md_render(str_from("```python {linenos=true}\nx\n```\n\n```c++ {what\ny\n```\n"), 1, &o, NULL, a, &r);
    EQ_STR(r.html, "<pre tabindex=\"0\"><code class=\"language-python\">x\n</code></pre>\n"
                   "<pre tabindex=\"0\"><code class=\"language-c++\">y\n</code></pre>\n");
    EQ_INT(r.nproblems, 0);
    arena_free(a);
}

TEST(explicit_heading_ids)
{
    arena *a = arena_new();
    md_result r = render(a,
                         "## Results {#results}\n\n## Snake {#my_id}\n\n## 结果 {#结果-1}\n\n"
                         "Setext {#set}\n---\n\n## no{#space}\n\n## code `{#c}`\n\n## Results\n\n"
                         "## empty {#}\n",
                         1, NULL, NULL);
    EQ_INT(r.nheadings, 8);
    if (r.nheadings == 8) {
        EQ_STR(r.headings[0].id, "results");
        EQ_STR(r.headings[0].title, "Results");
        EQ_STR(r.headings[1].id, "my_id");
        EQ_STR(r.headings[1].title, "Snake");
        EQ_STR(r.headings[2].id, "结果-1");
        EQ_STR(r.headings[3].id, "set");
        EQ_STR(r.headings[3].title, "Setext");
        EQ_STR(r.headings[4].id, "no-space");   /* no space before '{': text */
        EQ_STR(r.headings[5].id, "code-c");     /* in code: text */
        EQ_STR(r.headings[6].id, "results-1");  /* automatic ids avoid {#id}s */
        EQ_STR(r.headings[7].id, "empty");
        EQ_STR(r.headings[7].title, "empty {#}");
    }
    OK(strstr(r.html, "<h2 id=\"results\">Results" ANCHOR("results") "</h2>\n") != NULL);
    OK(strstr(r.html, "<h2 id=\"my_id\">Snake" ANCHOR("my_id") "</h2>\n") != NULL);
    EQ_INT(r.nproblems, 0);

    /* a {#id} twice, or an id raw HTML also has: errors at the {#id} */
    r = render(a, "## A {#x}\n\n## B {#x}\n\n<div id=\"y\"></div>\n\n## C {#y}\n\n## D {#z}\n\n<p id=\"z\">\n",
               3, NULL, NULL);
    EQ_INT(r.nproblems, 3);
    if (r.nproblems == 3) {
        OK(r.problems[0].error);
        EQ_INT(r.problems[0].line, 5);
        EQ_INT(r.problems[0].col, 6);
        EQ_STR(r.problems[0].message, "id 'x' is already used on this page (line 3)");
        EQ_INT(r.problems[1].line, 9);
        EQ_STR(r.problems[1].message, "id 'y' is already used on this page (line 7)");
        EQ_INT(r.problems[2].line, 11);
        EQ_INT(r.problems[2].col, 6);
        EQ_STR(r.problems[2].message, "id 'z' is used again on this page (line 13)");
    }

    /* Pandoc's and Hugo's attribute lists: #id and .class written, a
     * key=value read and ignored (a warning at the list); what does not
     * parse is text */
    r = render(a,
               "## Fast {anchor=false}\n\n## Classy {#c .wide .x-y}\n\n## Q {a=\"b c\" #q k='v'}\n\n"
               "## Dot {.}\n\n## Words {not attrs}\n\n## Half {#h\n",
               1, NULL, NULL);
    EQ_INT(r.nheadings, 6);
    if (r.nheadings == 6) {
        EQ_STR(r.headings[0].id, "fast");
        EQ_STR(r.headings[0].title, "Fast");
        EQ_STR(r.headings[1].id, "c");
        EQ_STR(r.headings[2].id, "q");
        EQ_STR(r.headings[2].title, "Q");
        EQ_STR(r.headings[3].title, "Dot {.}");
        EQ_STR(r.headings[4].title, "Words {not attrs}");
        EQ_STR(r.headings[5].title, "Half {#h");
    }
    OK(strstr(r.html, "<h2 id=\"c\" class=\"wide x-y\">Classy" ANCHOR("c") "</h2>\n") != NULL);
    OK(strstr(r.html, "<h2 id=\"fast\">Fast" ANCHOR("fast") "</h2>\n") != NULL);
    EQ_INT(r.nproblems, 2);
    if (r.nproblems == 2) {
        OK(!r.problems[0].error);
        EQ_INT(r.problems[0].line, 1);
        EQ_INT(r.problems[0].col, 9);
        EQ_STR(r.problems[0].message, "heading attribute 'anchor' is ignored: sheaf writes a heading's #id and .class only");
        EQ_INT(r.problems[1].line, 5);
    }

    /* issue 32: a second #id is an extra anchor (another generator's id,
     * kept for the links written for it), also with smart punctuation on
     * (which made `--` an en dash inside the list) */
    md_options so = { .unsafe = true, .smart = true };
    md_render(str_from("## MoCo & MoCo-V2 {#moco-moco-v2 #moco--moco-v2}\n\n## Again {#moco--moco-v2}\n"), 1, &so,
              NULL, a, &r);
    OK(strstr(r.html, "<h2 id=\"moco-moco-v2\"><span id=\"moco--moco-v2\"></span>MoCo &amp; MoCo-V2") != NULL);
    EQ_INT((long)r.nanchors, 2);
    EQ_INT(r.nproblems, 1);
    if (r.nproblems == 1)
        EQ_STR(r.problems[0].message, "id 'moco--moco-v2' is already used on this page (line 1)");

    /* switched off, `{#id}` is text */
    md_options o = { .unsafe = true, .off = md_extension_bit("heading_ids") };
    md_render(str_from("## Results {#results}\n"), 1, &o, NULL, a, &r);
    EQ_STR(r.headings[0].id, "results-results");
    arena_free(a);
}

TEST(page_ids)
{
    arena *a = arena_new();
    md_result r = render(a,
                         "## Audience\n\n<h2 id=\"audience\">Audience</h2>\n\n"
                         "x[^note] y[^note] <a name=\"old\"></a><span name=\"not-an-anchor\"></span>\n\n"
                         "## fn note\n\n[^note]: 注释\n",
                         1, NULL, NULL);
    /* automatic ids keep clear of ids written further down, too */
    EQ_STR(r.headings[0].id, "audience-1");
    EQ_STR(r.headings[1].id, "fn-note-1");
    const char *want[] = { "audience", "fnref-note", "fnref-note-2", "old", "fn-note", "audience-1",
                           "fn-note-1" };
    EQ_INT(r.nanchors, 7);
    for (size_t i = 0; i < 7 && i < r.nanchors; i++)
        EQ_STR(r.anchors[i], want[i]);
    /* raw HTML ids used twice: a warning */
    r = render(a, "<b id=\"q\"></b>\n\ntext <i id=\"q\">x</i>\n", 1, NULL, NULL);
    EQ_INT(r.nproblems, 1);
    if (r.nproblems == 1) {
        OK(!r.problems[0].error);
        EQ_INT(r.problems[0].line, 3);
        EQ_INT(r.problems[0].col, 13);
        EQ_STR(r.problems[0].message, "id 'q' is used twice on this page (first at line 1)");
    }
    arena_free(a);
}

TEST(footnotes)
{
    arena *a = arena_new();
    seen s = { 0, "" };
    md_result r = render(a,
                         "算法[^1]，见[^链接]。\n\n[^1]: 算是我的师弟一枚。\n"
                         "[^链接]: https://example.com/paper and [a post](p.md)\n",
                         1, resolver, &s);
    EQ_STR(r.html,
           "<p>算法<sup class=\"footnote-ref\"><a href=\"#fn-1\" id=\"fnref-1\" data-footnote-ref>1</a></sup>"
           "，见<sup class=\"footnote-ref\"><a href=\"#fn-%E9%93%BE%E6%8E%A5\" "
           "id=\"fnref-%E9%93%BE%E6%8E%A5\" data-footnote-ref>2</a></sup>。</p>\n"
           "<section class=\"footnotes\" data-footnotes>\n<ol>\n<li id=\"fn-1\">\n"
           "<p>算是我的师弟一枚。 <a href=\"#fnref-1\" class=\"footnote-backref\" data-footnote-backref "
           "aria-label=\"Back to content\">↩</a></p>\n</li>\n<li id=\"fn-%E9%93%BE%E6%8E%A5\">\n"
           "<p><a href=\"https://example.com/paper\">https://example.com/paper</a> and "
           "<a href=\"/posts/x%20y/?a=1&amp;b=&#x27;2&#x27;\">a post</a> "
           "<a href=\"#fnref-%E9%93%BE%E6%8E%A5\" class=\"footnote-backref\" data-footnote-backref "
           "aria-label=\"Back to content\">↩</a></p>\n</li>\n</ol>\n</section>\n");
    /* the URL and the post link in the note go to the resolver, at their place */
    EQ_STR(s.log, "https://example.com/paper|https://example.com/paper|4:12;p.md|a post|4:42;");
    /* the notes count too: 算法见, 算是我的师弟一枚, the URL and "and a post" */
    EQ_INT(r.word_count, 3 + 8 + 4);
    /* the summary leaves the references out */
    EQ_STR(r.summary_html, "<p>算法，见。</p>\n");
    arena_free(a);
}

TEST(links_in_tables)
{
    arena *a = arena_new();
    seen s = { 0, "" };
    md_result r = render(a,
                         "| a | b |\n|---|---|\n| [x](x.md) [y](y.md) | ![i](i.png) www.e.org |\n"
                         "| `[no](n)` | [z](z.md#part) |\n",
                         1, resolver, &s);
    EQ_STR(s.log, "x.md|x|3:3;y.md|y|3:13;img i.png|i|3:25;http://www.e.org|www.e.org|3:37;"
                  "z.md#part|z|4:15;");
    OK(strstr(r.html, "<td><a href=\"/posts/x%20y/?a=1&amp;b=&#x27;2&#x27;\">x</a>") != NULL);
    /* words per cell (a | b | x y | www.e.org | [no](n) | z); alt text is
     * not counted */
    EQ_INT(r.word_count, 1 + 1 + 2 + 1 + 1 + 1);
    arena_free(a);
}

TEST(raw_html)
{
    arena *a = arena_new();
    seen s = { 0, "" };
    const char *src = "<div class=\"x\">\n"                                   /* 1 */
                      "  <a href=\"a.md#x\">A <b>post</b></a>\n"               /* 2 */
                      "  <img src='/img/x.png' alt=\"\"><a href=keep.md>k</a>\n" /* 3 */
                      "  <base href=\"b.md\"><link href=\"s.css\" rel=x>\n"    /* 4 */
                      "</div>\n"                                               /* 5 */
                      "\n"                                                     /* 6 */
                      "> <p>quote <a\n"                                        /* 7 */
                      ">   href=\"q.md\">q</a></p>\n"                          /* 8 */
                      "\n"                                                     /* 9 */
                      "Text <a href=\"in.md?a=1&amp;b=2\">in</a> and\n"        /* 10 */
                      "<a\n  href=\"two.md\">two</a> [md](m.md)\n";            /* 11, 12 */
    md_result r = render(a, src, 1, resolver, &s);
    /* positions are of the value; an element's text is known when the
     * block holds it */
    EQ_STR(s.log, "a.md#x|A post|2:12;img /img/x.png||3:13;keep.md|k|3:40;s.css||4:33;"
                  "q.md|q|8:11;in.md?a=1&b=2||10:15;two.md||12:9;m.md|md|12:25;");
    /* rewritten in place (the resolver rewrites what ends in .md), the
     * rest as written (cmark drops the spaces starting a paragraph's line) */
    EQ_STR(r.html,
           "<div class=\"x\">\n"
           "  <a href=\"a.md#x\">A <b>post</b></a>\n"
           "  <img src='/img/x.png' alt=\"\"><a href=\"/posts/x y/?a=1&amp;b='2'\">k</a>\n"
           "  <base href=\"b.md\"><link href=\"s.css\" rel=x>\n"
           "</div>\n"
           "<blockquote>\n<p>quote <a\n  href=\"/posts/x y/?a=1&amp;b='2'\">q</a></p>\n</blockquote>\n"
           "<p>Text <a href=\"in.md?a=1&amp;b=2\">in</a> and\n"
           "<a\nhref=\"/posts/x y/?a=1&amp;b='2'\">two</a> <a href=\"/posts/x%20y/?a=1&amp;b=&#x27;2&#x27;\">md</a></p>\n");
    /* a tag left open at the end of a block: nothing to read (found by fuzz_md) */
    r = render(a, "<div id=\"foo\"\n*hi*\n", 1, NULL, NULL);
    EQ_STR(r.html, "<div id=\"foo\"\n*hi*\n");
    EQ_INT(r.nanchors, 0);
    /* raw HTML omitted: nothing is read from it */
    seen s2 = { 0, "" };
    md_options safe = { 0 };
    md_render(str_from("<a href=\"x.md\" id=\"i\">x</a>\n"), 1, &safe, &(md_hooks){ .link = resolver, .ctx = &s2 }, a, &r);
    EQ_INT(s2.n, 0);
    EQ_INT(r.nanchors, 0);
    arena_free(a);
}

/* A shortcode hook that shows what it was given: name, args, inner. */
static const char *fake_sc(void *ctx, const md_shortcode *sc, arena *a, const char **error)
{
    (void)ctx;
    if (!strcmp(sc->name, "bad")) {
        *error = "bad one";
        return NULL;
    }
    if (!strcmp(sc->name, "img"))
        return arena_printf(a, "<img src=\"%s\" id=\"pic\">", sc->args[0].value);
    if (!strcmp(sc->name, "wrap"))
        return arena_printf(a, "<div class=\"w\">%.*s</div>", (int)sc->inner_len, sc->inner);
    buf b = BUF_INIT;
    buf_printf(&b, "[%s%s%s@%d:%d", sc->name, sc->block ? " block" : "", sc->markdown ? " md" : "",
               sc->line, sc->col);
    for (size_t i = 0; i < sc->nargs; i++)
        buf_printf(&b, " %s=%s%s", sc->args[i].key ? sc->args[i].key : "_", sc->args[i].value,
                   sc->args[i].quoted ? "'" : "");
    if (sc->paired)
        buf_printf(&b, " inner=(%.*s)", (int)sc->inner_len, sc->inner);
    buf_puts(&b, "]");
    const char *r = arena_strndup(a, b.data, b.len);
    buf_release(&b);
    return r;
}

typedef struct seen_links {
    const char *dest[8];
    int line[8], col[8];
    int n;
} seen_links;

static const char *see_link(void *ctx, const md_link *l)
{
    seen_links *s = ctx;
    if (s->n < 8) {
        s->dest[s->n] = l->dest;
        s->line[s->n] = l->line;
        s->col[s->n++] = l->col;
    }
    return NULL;
}

static md_result sc(arena *a, const char *s)
{
    md_options o = { .unsafe = true };
    md_result r;
    md_render(str_from(s), 1, &o, &(md_hooks){ .shortcode = fake_sc }, a, &r);
    return r;
}

TEST(shortcodes)
{
    arena *a = arena_new();
    md_result r;
    /* inline and block; named, positional, quoted and bare arguments */
    r = sc(a, "a {{< x k=\"v w\" 2 `r\\` >}} b\n\n{{< y />}}\n");
    EQ_STR(r.html, "<p>a [x@1:3 k=v w' _=2 _=r\\'] b</p>\n[y block@3:1]\n");
    EQ_INT(r.nshortcodes, 2);
    EQ_STR(r.shortcodes[0], "x");
    /* code spans, code blocks and escapes are left alone */
    r = sc(a, "`{{< x >}}` \\{{< x >}}\n\n    {{< x >}}\n\n```\n{{< x >}}\n```\n");
    EQ_STR(r.html, "<p><code>{{&lt; x &gt;}}</code> {{&lt; x &gt;}}</p>\n"
                   "<pre tabindex=\"0\"><code>{{&lt; x &gt;}}\n</code></pre>\n"
                   "<pre tabindex=\"0\"><code>{{&lt; x &gt;}}\n</code></pre>\n");
    EQ_INT(r.nproblems, 0);
    /* a raw pair inside a paragraph, and over blocks: the source as written */
    r = sc(a, "p {{< x >}}*a* `b`{{< /x >}} q\n\n{{< z >}}\n- *i*\n\n  j\n{{< /z >}}\n");
    EQ_STR(r.html, "<p>p [x@1:3 inner=(*a* `b`)] q</p>\n[z block@3:1 inner=(- *i*\n\n  j\n)]\n");
    /* a Markdown pair: the inner HTML, its headings and links kept */
    seen_links sl = { 0 };
    md_options o = { .unsafe = true };
    md_render(str_from("{{% wrap %}}\n## Head\n\n[l](x.md)\n{{% /wrap %}}\n\nafter\n"), 1, &o,
              &(md_hooks){ .shortcode = fake_sc, .link = see_link, .ctx = &sl }, a, &r);
    EQ_STR(r.html, "<div class=\"w\"><h2 id=\"head\">Head" ANCHOR("head") "</h2>\n"
                   "<p><a href=\"x.md\">l</a></p>\n</div>\n<p>after</p>\n");
    EQ_INT(r.nheadings, 1);
    EQ_INT(sl.n, 1);
    EQ_STR(r.summary_html, "<p>after</p>\n");
    /* the hook's HTML: its links and ids are the page's, at the tag */
    sl.n = 0;
    md_render(str_from("x\n\n  {{< img \"a.png\" >}}\n\n[to](#pic)\n"), 1, &o,
              &(md_hooks){ .shortcode = fake_sc, .link = see_link, .ctx = &sl }, a, &r);
    EQ_INT(sl.n, 2);
    EQ_STR(sl.dest[0], "a.png");
    EQ_INT(sl.line[0], 3);
    EQ_INT(sl.col[0], 3);
    OK(r.nanchors == 1 && !strcmp(r.anchors[0], "pic"));
    /* a closing tag ends the list before it */
    r = sc(a, "{{% wrap %}}\n- a\n- b\n{{% /wrap %}}\n");
    EQ_STR(r.html, "<div class=\"w\"><ul>\n<li>a</li>\n<li>b</li>\n</ul>\n</div>\n");
    /* a comment inside the marks: shown as written */
    r = sc(a, "{{</* x a=\"b\" */>}}\n");
    EQ_STR(r.html, "<p>{{&lt; x a=&quot;b&quot; &gt;}}</p>\n");
    /* errors at their place */
    r = sc(a, "{{< bad >}}\n\nt {{< /x >}}\n\n{{< y a=\"b >}}\n\n{{% w %}}\nx {{% /w %}}\n");
    const char *want[] = {
        "1:1: bad one",
        "3:3: '{{< /x >}}' closes no open shortcode",
        "5:9: unterminated \"string\" in a shortcode argument",
        "8:3: '{{% /w %}}' closes the shortcode opened at 7:1, which is in another block: put both "
        "tags on lines of their own, or both in one paragraph",
    };
    EQ_INT(r.nproblems, sizeof want / sizeof *want);
    for (size_t i = 0; i < r.nproblems && i < sizeof want / sizeof *want; i++) {
        char got[300];
        snprintf(got, sizeof got, "%d:%d: %s", r.problems[i].line, r.problems[i].col,
                 r.problems[i].message);
        EQ_STR(got, want[i]);
        OK(r.problems[i].error);
    }
    /* no hook: each is an error */
    md_render(str_from("{{< x >}}\n"), 1, &o, NULL, a, &r);
    EQ_INT(r.nproblems, 1);
    /* a paragraph whose last line became a table's header: cmark-gfm
     * leaves it at line 0, the error is still inside the text */
    r = sc(a, "{{<\nx\n|-\n");
    EQ_INT(r.nproblems, 1);
    if (r.nproblems == 1) {
        EQ_INT(r.problems[0].line, 1);
        EQ_INT(r.problems[0].col, 1);
    }
    arena_free(a);
}

TEST(shortcode_tags)
{
    md_sc_tag t;
    const char *err;
    size_t at;
#define BAD(s, msg, pos)                                                              \
    do {                                                                              \
        EQ_INT(md_sc_parse(s, strlen(s), &t, &err, &at), MD_SC_ERROR);                \
        EQ_STR(err, msg);                                                             \
        EQ_INT(at, pos);                                                              \
    } while (0)
    EQ_INT(md_sc_parse("{{ x }}", 7, &t, &err, &at), MD_SC_NONE);
    EQ_INT(md_sc_parse("{{% a/b-c_d x=1 %}} tail", 24, &t, &err, &at), MD_SC_OK);
    EQ_INT(t.len, 19);
    EQ_INT(t.name_len, 7);
    EQ_INT(md_sc_parse("{{</x>}}", 8, &t, &err, &at), MD_SC_OK);
    OK(t.closing);
    EQ_INT(md_sc_parse("{{< x\n  a=\"q\\\"\" />}}", 20, &t, &err, &at), MD_SC_OK);
    OK(t.self_closing);
    char v[16];
    md_sc_value(&t.args[0], v);
    EQ_STR(v, "q\"");
    BAD("{{< >}}", "shortcode tag without a name", 4);
    BAD("{{< x", "unclosed shortcode tag: no '>}}' after '{{<'", 0);
    BAD("{{< x %}}", "shortcode tag opened with '{{<' is closed with '%}}'", 6);
    BAD("{{< x! >}}", "bad shortcode name: letters, digits, '_', '-' and '/' only", 5);
    BAD("{{< x a= >}}", "shortcode argument without a value after '='", 7);
    BAD("{{< x a=1 a=2 >}}", "shortcode argument given twice", 10);
    BAD("{{< /x a >}}", "a closing shortcode tag takes no arguments", 7);
    BAD("{{< x a\"b >}}", "a quote inside a bare shortcode argument (quote the whole value)", 7);
    BAD("{{< x \"a\"b >}}", "a space must follow a quoted shortcode argument", 9);
    size_t len;
    const char *s = "a {{< x >}}{{< /x >}} b {{< /x >}}";
    EQ_INT(md_sc_find_close(s, strlen(s), '<', "x", 1, &len), 24);
    EQ_INT(len, 10);
#undef BAD
}

TEST(template_syntax)
{
    arena *a = arena_new();
    md_result r;
    md_options sc_off = { .unsafe = true, .off = md_extension_bit("shortcodes") };
    md_render(str_from(
                         "# Post\n\n"
                         "{% include note.html %} and `{% raw %}` and {{ site.baseurl }}.\n\n"
                         "    {% in a code block %}\n\n"
                         "> {{< figure src=\"a.png\" >}} then {{<youtube id=\"x\">}}\n\n"
                         /* a destination with spaces is no link: text */
                         "![pic]({{ site.url }}/a.png) {{ not liquid }} {{% note %}}x\n"
                         "[a]({{site.baseurl}}/x.md) and a long one: {{% /note %}}\n\n"
                         "<div>{% if x %}</div>\n"),
                         10, &sc_off, NULL, a, &r);
    const char *want[] = {
        "12:1: Liquid tag '{% include note.html %}' is shown as written: sheaf does not run Liquid "
        "(rewrite it, or put it in `code`)",
        "12:45: Liquid variable '{{ site.baseurl }}' is shown as written: sheaf does not run Liquid "
        "(rewrite it, or put it in `code`)",
        "16:3: shortcode '{{< figure src=\"a.png\" >}}' is shown as written: shortcodes are off "
        "(markdown: shortcodes: false)",
        "16:35: shortcode '{{<youtube id=\"x\">}}' is shown as written: shortcodes are off "
        "(markdown: shortcodes: false)",
        "18:8: Liquid variable '{{ site.url }}' is shown as written: sheaf does not run Liquid "
        "(rewrite it, or put it in `code`)",
        "18:47: shortcode '{{% note %}}' is shown as written: shortcodes are off "
        "(markdown: shortcodes: false)",
        "19:1: Liquid variable '{{site.baseurl}}' is shown as written: sheaf does not run Liquid "
        "(rewrite it, or put it in `code`)",
        "19:44: shortcode '{{% /note %}}' is shown as written: shortcodes are off "
        "(markdown: shortcodes: false)",
        "21:6: Liquid tag '{% if x %}' is shown as written: sheaf does not run Liquid "
        "(rewrite it, or put it in `code`)",
    };
    size_t nw = sizeof want / sizeof *want;
    EQ_INT(r.nproblems, nw);
    for (size_t i = 0; i < nw && i < r.nproblems; i++) {
        char got[300];
        snprintf(got, sizeof got, "%d:%d: %s", r.problems[i].line, r.problems[i].col,
                 r.problems[i].message);
        EQ_STR(got, want[i]);
        OK(!r.problems[i].error);
    }
    arena_free(a);
}

TEST(summary_gfm)
{
    arena *a = arena_new();
    /* a marker inside a table closes the table, its box and all */
    md_result r = render(a, "| a |\n|---|\n| x <!--more--> y |\n| z |\n", 1, NULL, NULL);
    OK(r.has_more);
    EQ_STR(r.summary_html, "<div class=\"table-scroll\" tabindex=\"0\" role=\"group\" aria-label=\"Table\">\n<table>\n<thead>\n<tr>\n"
                           "<th>a</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>x</td>\n</tr>\n"
                           "</tbody>\n</table>\n</div>\n");
    /* not a marker inside a footnote */
    r = render(a, "first[^1]\n\n## H\n\n[^1]: note <!--more--> more\n", 1, NULL, NULL);
    OK(!r.has_more);
    EQ_STR(r.summary_html, "<p>first</p>\n");
    /* a marker after headings: the summary has their ids */
    r = render(a, "## A\n\ntext[^n]\n\n<!--more-->\n\n[^n]: x\n", 1, NULL, NULL);
    EQ_STR(r.summary_html, "<h2 id=\"a\">A" ANCHOR("a") "</h2>\n<p>text</p>\n");
    arena_free(a);
}

TEST(definition_lists)
{
    arena *a = arena_new();
    md_result r = render(a,
                         "Sun\n: the star\n:  a day\n\nMoon\nLuna\n: satellite, by\nreflected *light*\n\n"
                         "text\n\n: no term\n\nplain: text\nmore\n",
                         1, NULL, NULL);
    EQ_STR(r.html, "<dl>\n<dt>Sun</dt>\n<dd>the star</dd>\n<dd>a day</dd>\n<dt>Moon</dt>\n<dt>Luna</dt>\n"
                   "<dd>satellite, by\nreflected <em>light</em></dd>\n</dl>\n<p>text</p>\n<p>: no term</p>\n"
                   "<p>plain: text\nmore</p>\n");
    /* in a list item, and switched off */
    r = render(a, "- T\n  : d\n", 1, NULL, NULL);
    EQ_STR(r.html, "<ul>\n<li>\n<dl>\n<dt>T</dt>\n<dd>d</dd>\n</dl>\n</li>\n</ul>\n");
    md_options off = { .off = md_extension_bit("definition_lists") };
    md_render(str_from("T\n: d\n"), 1, &off, NULL, a, &r);
    EQ_STR(r.html, "<p>T\n: d</p>\n");
    arena_free(a);
}

TEST(switches)
{
    EQ_INT(md_extension_count(), 12);
    EQ_STR(md_extension_name(0), "tables");
    EQ_STR(md_extension_name(6), "heading_anchors");
    EQ_STR(md_extension_name(7), "highlight");
    EQ_STR(md_extension_name(8), "citations");
    EQ_STR(md_extension_name(9), "math");
    EQ_STR(md_extension_name(10), "shortcodes");
    EQ_STR(md_extension_name(11), "definition_lists");
    OK(md_extension_name(12) == NULL);
    EQ_INT(md_extension_bit("strikethrough"), 2);
    EQ_INT(md_extension_bit("nope"), 0);
    arena *a = arena_new();
    const char *doc = "| a |\n|---|\n| b |\n\n~~s~~ www.x.org\n\n- [ ] t\n\nn[^1]\n\n[^1]: f\n\n## H\n";
    md_result r;
    md_options o = { .unsafe = true, .off = ~0u };
    md_render(str_from(doc), 1, &o, NULL, a, &r);
    EQ_STR(r.html, "<p>| a |\n|---|\n| b |</p>\n<p>~~s~~ www.x.org</p>\n<ul>\n<li>[ ] t</li>\n</ul>\n"
                   "<p>n<a href=\"f\">^1</a></p>\n<h2 id=\"h\">H</h2>\n");
    arena_free(a);
}

/* Pages render on several threads at once. */
static const char *thread_doc = "# T\n\n## T\n\nsee [a](a.md) and ![i](i.png) 中文 words\n\n<!--more-->\n\nend\n";

static const char *count_links(void *ctx, const md_link *l)
{
    (void)l;
    ++*(int *)ctx;
    return "/rewritten/";
}

static void *render_many(void *arg)
{
    char *want = arg;
    int bad = 0;
    for (int i = 0; i < 300; i++) {
        arena *a = arena_new();
        int n = 0;
        md_result r = render(a, thread_doc, 1, count_links, &n);
        if (strcmp(r.html, want) || n != 2 || r.nheadings != 2 || strcmp(r.headings[1].id, "t-1"))
            bad++;
        arena_free(a);
    }
    return bad ? want : NULL;
}

TEST(threads)
{
    arena *a = arena_new();
    int n = 0;
    md_result r = render(a, thread_doc, 1, count_links, &n);
    EQ_INT(n, 2);
    EQ_INT(r.word_count, 1 + 1 + 6 + 1);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        OK(pthread_create(&t[i], NULL, render_many, (void *)r.html) == 0);
    for (int i = 0; i < 4; i++) {
        void *res;
        pthread_join(t[i], &res);
        OK(res == NULL);
    }
    /* many headings with one title */
    buf b = BUF_INIT;
    for (int i = 0; i < 3000; i++)
        buf_puts(&b, "## Same\n");
    md_result m;
    md_render(str_make(b.data, b.len), 1, NULL, NULL, a, &m);
    EQ_INT(m.nheadings, 3000);
    if (m.nheadings == 3000) {
        EQ_STR(m.headings[0].id, "same");
        EQ_STR(m.headings[2999].id, "same-2999");
    }
    buf_release(&b);
    arena_free(a);
}

/* ---- citations ---- */

/* A cite hook that writes each group as {b|n:[prefix]-key,locator;…}. */
static void fake_cite(void *ctx, const md_cite *c, size_t n, buf *out)
{
    (void)ctx;
    buf_printf(out, "{%c:", c[0].narrative ? 'n' : 'b');
    for (size_t i = 0; i < n; i++)
        buf_printf(out, "%s[%s]%s<a href=\"#ref-%s\">%s</a>,%s", i ? ";" : "", c[i].prefix,
                   c[i].suppress_author ? "-" : "", c[i].key, c[i].key, c[i].locator);
    buf_puts(out, "}");
}

static md_result cited(arena *a, const char *s)
{
    md_options o = { .unsafe = true };
    md_hooks h = { .cite = fake_cite };
    md_result r;
    md_render(str_from(s), 3, &o, &h, a, &r);
    return r;
}

TEST(citations)
{
    arena *a = arena_new();
#define C(in, out) EQ_STR(cited(a, in).html, out)
    C("[@lian2017]", "<p>{b:[]<a href=\"#ref-lian2017\">lian2017</a>,}</p>\n");
    C("x [@k, p. 4] y", "<p>x {b:[]<a href=\"#ref-k\">k</a>,p. 4} y</p>\n");
    C("[@a; @b]", "<p>{b:[]<a href=\"#ref-a\">a</a>,;[]<a href=\"#ref-b\">b</a>,}</p>\n");
    C("[see @k, sec. 3]", "<p>{b:[see]<a href=\"#ref-k\">k</a>,sec. 3}</p>\n");
    C("[-@k]", "<p>{b:[]-<a href=\"#ref-k\">k</a>,}</p>\n");
    C("[see @a, p. 1; also -@b]",
      "<p>{b:[see]<a href=\"#ref-a\">a</a>,p. 1;[also]-<a href=\"#ref-b\">b</a>,}</p>\n");
    C("@lian2017 shows.", "<p>{n:[]<a href=\"#ref-lian2017\">lian2017</a>,} shows.</p>\n");
    C("@k [p. 33] says", "<p>{n:[]<a href=\"#ref-k\">k</a>,p. 33} says</p>\n");
    C("@{odd key} x", "<p>{n:[]<a href=\"#ref-odd key\">odd key</a>,} x</p>\n");
    C("as @a:b.c-d/e, said", "<p>as {n:[]<a href=\"#ref-a:b.c-d/e\">a:b.c-d/e</a>,}, said</p>\n");
    /* never citations */
    C("mail a@b.com now", "<p>mail <a href=\"mailto:a@b.com\">a@b.com</a> now</p>\n");
    C("\\@k and `@k`", "<p>@k and <code>@k</code></p>\n");
    C("[@x](u)", "<p><a href=\"u\">@x</a></p>\n");
    C("@ alone, @- and @.", "<p>@ alone, @- and @.</p>\n");
    /* a bracket that is not a citation list: narrative inside */
    C("[foo @k bar; baz]", "<p>[foo {n:[]<a href=\"#ref-k\">k</a>,} bar; baz]</p>\n");
    C("[@a] and [@b]",
      "<p>{b:[]<a href=\"#ref-a\">a</a>,} and {b:[]<a href=\"#ref-b\">b</a>,}</p>\n");
    C("*[@em]*", "<p><em>{b:[]<a href=\"#ref-em\">em</a>,}</em></p>\n");
    /* in a table cell (cmark-gfm's cells refused extension nodes: the
     * citation vanished) */
    C("| a |\n|---|\n| [@k] and @n |\n",
      "<div class=\"table-scroll\" tabindex=\"0\" role=\"group\" aria-label=\"Table\">\n<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n"
      "</thead>\n<tbody>\n<tr>\n<td>{b:[]<a href=\"#ref-k\">k</a>,} and "
      "{n:[]<a href=\"#ref-n\">n</a>,}</td>\n</tr>\n</tbody>\n</table>\n</div>\n");
    /* the group's own separators (RS, US) in a key, prefix or locator are
     * spaces: they broke the group apart (fuzz_md, a NULL pointer) */
    C("[see\x1e @{a\x1f" "b}, p.\x1f 4]", "<p>{b:[see ]<a href=\"#ref-a b\">a b</a>,p.  4}</p>\n");
    C("@{k\x1e} [x\x1e]", "<p>{n:[]<a href=\"#ref-k \">k </a>,x }</p>\n");
#undef C
    /* records: keys, groups, positions, sentences */
    md_result r = cited(a, "First one. Then [see @a, p. 2; @b] here. Last.\n\n"
                           "- item @c.\n");
    EQ_INT(r.ncites, 3);
    if (r.ncites == 3) {
        EQ_STR(r.cites[0].key, "a");
        EQ_STR(r.cites[0].prefix, "see");
        EQ_STR(r.cites[0].locator, "p. 2");
        EQ_INT(r.cites[0].group, 0);
        EQ_INT(r.cites[1].group, 0);
        EQ_INT(r.cites[2].group, 1);
        EQ_INT(r.cites[0].line, 3);
        EQ_INT(r.cites[0].col, 22);
        EQ_INT(r.cites[2].line, 5);
        EQ_INT(r.cites[2].col, 8);
        EQ_STR(r.cites[0].context, "Then {b:[see]a,p. 2;[]b,} here.");
        EQ_STR(r.cites[2].context, "item {n:[]c,}.");
        OK(r.cites[2].narrative);
    }
    /* summaries keep the citation, without its links */
    r = cited(a, "Intro [@a].\n");
    EQ_STR(r.summary_html, "<p>Intro {b:[]a,}.</p>\n");
    /* no hook: plain text */
    md_result p;
    md_render(str_from("[@a] @b"), 1, NULL, NULL, a, &p);
    EQ_STR(p.html, "<p>[@a] @b</p>\n");
    EQ_INT(p.ncites, 0);
    /* switched off */
    md_options off = { .off = md_extension_bit("citations") };
    EQ_STR(md_extension_name(md_extension_count() - 4), "citations");
    md_hooks h = { .cite = fake_cite };
    md_render(str_from("[@a]"), 1, &off, &h, a, &p);
    EQ_STR(p.html, "<p>[@a]</p>\n");
    arena_free(a);
}

/* Text escaping (md_escape_html, a block of bytes at a time) against the
 * rule a byte at a time: " & < > as cmark writes them, the apostrophe and
 * every other byte as it is; texts of every length, specials at the
 * blocks' edges, in a buffer that holds text already. */
TEST(escape_blocks)
{
    static const char alphabet[] = "abc'\"&<>xyz \n\xc3\xa9";
    uint32_t r = 777;
    char text[100];
    buf got = BUF_INIT, want = BUF_INIT;
    for (int round = 0; round < 20000; round++) {
        size_t n = (size_t)(round % 90);
        for (size_t i = 0; i < n; i++) {
            r = r * 1103515245u + 12345u;
            text[i] = alphabet[(r >> 16) % (sizeof alphabet - 1)];
        }
        buf_reset(&got);
        buf_reset(&want);
        buf_puts(&got, "<p>");
        buf_puts(&want, "<p>");
        for (size_t i = 0; i < n; i++)
            switch (text[i]) {
            case '"': buf_puts(&want, "&quot;"); break;
            case '&': buf_puts(&want, "&amp;"); break;
            case '<': buf_puts(&want, "&lt;"); break;
            case '>': buf_puts(&want, "&gt;"); break;
            default: buf_putc(&want, text[i]);
            }
        md_escape_html(&got, text, n);
        if (got.len != want.len || strcmp(got.data, want.data))
            FAILF("escaped: '%s', want '%s'", got.data, want.data);
    }
    buf_release(&got);
    buf_release(&want);
}

int main(void)
{
    RUN(html_matches_gfm);
    RUN(html_matches_gfm_random);
    RUN(escape_blocks);
    RUN(heading_ids);
    RUN(heading_lines);
    RUN(links_resolved_with_positions);
    RUN(link_positions_hard);
    RUN(summary);
    RUN(word_count);
    RUN(options);
    RUN(gfm_additions);
    RUN(code_blocks);
    RUN(explicit_heading_ids);
    RUN(page_ids);
    RUN(footnotes);
    RUN(links_in_tables);
    RUN(raw_html);
    RUN(template_syntax);
    RUN(shortcodes);
    RUN(shortcode_tags);
    RUN(summary_gfm);
    RUN(definition_lists);
    RUN(switches);
    RUN(threads);
    RUN(citations);
    return harness_done();
}

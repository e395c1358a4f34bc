/* Unit tests for md/xref.c: labelled figures, tables, equations and
 * sections, the references to them (one, two, three or more, `-@`,
 * several kinds, forward), their words in English, Chinese and Japanese,
 * unknown and duplicate labels at line:col, links with no text to labels
 * of this page and of another, numbered sections on and off, and the
 * alerts (each kind, folded, open, titled, unknown). */
#include "harness.h"

#include <stdint.h>
#include <string.h>

#include "md/md.h"
#include "util/arena.h"

static const char *fake_math(void *ctx, const md_formula *f, arena *a, const char **error, long *at)
{
    (void)ctx, (void)error, (void)at;
    return arena_printf(a, "<math>%s</math>", f->display ? "D" : "I");
}

static md_result render_o(arena *a, const char *s, const md_options *o)
{
    md_result r;
    md_render(str_from(s), 1, o, NULL, a, &r);
    return r;
}

static md_result render(arena *a, const char *s)
{
    md_options o = { .unsafe = true, .math = fake_math };
    return render_o(a, s, &o);
}

static bool has(const char *html, const char *want)
{
    if (strstr(html, want))
        return true;
    fprintf(stderr, "  missing: %s\n  in: %s\n", want, html);
    return false;
}

/* the problems as "line:col: message", one a line */
static const char *problems(arena *a, const md_result *r)
{
    buf b = BUF_INIT;
    for (size_t i = 0; i < r->nproblems; i++)
        buf_printf(&b, "%d:%d: %s%s\n", r->problems[i].line, r->problems[i].col,
                   r->problems[i].error ? "" : "warning: ", r->problems[i].message);
    const char *s = arena_strndup(a, b.data ? b.data : "", b.len);
    buf_release(&b);
    return s;
}

/* A figure's alt text is its caption as Markdown: emphasis, code and links
 * render in <figcaption> (the alt attribute keeps the plain text), with
 * "Figure 1" joined by a no-break space. */
TEST(caption_markdown)
{
    arena *a = arena_new();
    md_result r = render(a, "![The *big* `sys` and [docs](https://example.org/)](arch.png){#fig-arch}\n");
    OK(has(r.html, "alt=\"The big sys and docs\""));
    OK(has(r.html, "<figcaption><span class=\"caption-number\">Figure\u00a01</span>: The <em>big</em> "
                   "<code>sys</code> and <a href=\"https://example.org/\">docs</a></figcaption>"));
    arena_free(a);
}

TEST(figures)
{
    arena *a = arena_new();
    md_result r = render(a, "![The system](arch.png){#fig-arch}\n\n"
                            "![Two](b.png){#fig-b caption=\"Its *own* caption\"}\n\n"
                            "![Plain](c.png)\n\n"
                            "![Wide](d.png) {#fig-d width=50%}\n\n"
                            "![Text](e.png) and words {#fig-e}\n");
    OK(has(r.html, "<figure id=\"fig-arch\" class=\"figure\">\n<img src=\"arch.png\" alt=\"The system\" />\n"
                   "<figcaption><span class=\"caption-number\">Figure\u00a01</span>: The system</figcaption>\n"
                   "</figure>\n"));
    OK(has(r.html, "<figcaption><span class=\"caption-number\">Figure\u00a02</span>: Its <em>own</em> caption</figcaption>"));
    OK(has(r.html, "<p><img src=\"c.png\" alt=\"Plain\" /></p>"));
    OK(has(r.html, "<figure id=\"fig-d\" class=\"figure\">"));
    /* words beside the image: a paragraph, the braces as text */
    OK(has(r.html, "<p><img src=\"e.png\" alt=\"Text\" /> and words {#fig-e}</p>"));
    EQ_STR(problems(a, &r), "7:16: warning: figure attribute 'width' is ignored: sheaf reads a figure's #id and caption only\n");
    EQ_INT(r.nlabels, 3);
    if (r.nlabels == 3) {
        EQ_STR(r.labels[0].id, "fig-arch");
        EQ_INT(r.labels[0].kind, MD_LABEL_FIG);
        EQ_STR(r.labels[0].number, "1");
        EQ_INT(r.labels[0].line, 1);
        EQ_INT(r.labels[0].col, 24);
        EQ_STR(r.labels[2].number, "3");
    }
    /* the label is an id of the page */
    bool found = false;
    for (size_t i = 0; i < r.nanchors; i++)
        found |= !strcmp(r.anchors[i], "fig-b");
    OK(found);
    arena_free(a);
}

TEST(references)
{
    arena *a = arena_new();
    md_result r = render(a, "See @fig-a, [@fig-a; @fig-b], [@fig-a; @fig-b; @fig-c] and [-@fig-c].\n"
                            "Also [@fig-a; @tbl-t], @tbl-t and @sec-m.\n\n"
                            "![A](a.png){#fig-a}\n\n![B](b.png){#fig-b}\n\n![C](c.png){#fig-c}\n\n"
                            "| x |\n|---|\n| 1 |\n\n: Results *per run* {#tbl-t}\n\n## Method {#sec-m}\n");
    EQ_STR(problems(a, &r), "");
    OK(has(r.html, "See <a class=\"xref\" href=\"#fig-a\">Figure\u00a01</a>, "
                   "Figures\u00a0<a class=\"xref\" href=\"#fig-a\">1</a> and <a class=\"xref\" href=\"#fig-b\">2</a>, "
                   "Figures\u00a0<a class=\"xref\" href=\"#fig-a\">1</a>, <a class=\"xref\" href=\"#fig-b\">2</a> and "
                   "<a class=\"xref\" href=\"#fig-c\">3</a> and <a class=\"xref\" href=\"#fig-c\">3</a>."));
    OK(has(r.html, "Also <a class=\"xref\" href=\"#fig-a\">Figure\u00a01</a> and <a class=\"xref\" href=\"#tbl-t\">Table\u00a01</a>, "
                   "<a class=\"xref\" href=\"#tbl-t\">Table\u00a01</a> and <a class=\"xref\" href=\"#sec-m\">Method</a>."));
    /* the caption after the table goes inside it, with its markup */
    OK(has(r.html, "<table id=\"tbl-t\">\n<caption><span class=\"caption-number\">Table\u00a01</span>: "
                   "Results <em>per run</em></caption>\n<thead>"));
    OK(!strstr(r.html, "<p>: Results"));
    /* the summary (the first paragraph) has the words, not the links */
    OK(has(r.summary_html, "<p>See Figure\u00a01, Figures\u00a01 and 2, Figures\u00a01, 2 and 3 and 3."));
    /* caption before the table, `Table:` form */
    r = render(a, "Table: First {#tbl-a}\n\n| x |\n|---|\n| 1 |\n\n@tbl-a\n");
    OK(has(r.html, "<table id=\"tbl-a\">\n<caption><span class=\"caption-number\">Table\u00a01</span>: First</caption>"));
    OK(has(r.html, "<p><a class=\"xref\" href=\"#tbl-a\">Table\u00a01</a></p>"));
    /* a reference inside a citation-like bracket with a bibliography hook
     * still is one; and right after CJK text */
    r = render(a, "见@fig-x。\n\n![x](x.png){#fig-x}\n");
    OK(has(r.html, "见<a class=\"xref\" href=\"#fig-x\">Figure\u00a01</a>。"));
    /* an e-mail address stays one */
    r = render(a, "me@fig-x.org\n");
    OK(!strstr(r.html, "xref"));
    arena_free(a);
}

TEST(equations)
{
    arena *a = arena_new();
    md_result r = render(a, "@eq-b and [@eq-a; @eq-b] and \\eqref{eq-a}.\n\n"
                            "$$\nx = 1 \\label{eq-a}\n$$\n\n"
                            "$$\ny = 2\n$$ {#eq-b}\n\n"
                            "$$ z $$ {#eq-c}\n");
    EQ_STR(problems(a, &r), "");
    OK(has(r.html, "<a class=\"xref\" href=\"#eq-b\">Equation\u00a02</a> and Equations\u00a0"
                   "<a class=\"xref\" href=\"#eq-a\">1</a> and <a class=\"xref\" href=\"#eq-b\">2</a> and "
                   "<a class=\"eqref\" href=\"#eq-a\">(1)</a>."));
    OK(has(r.html, "id=\"eq-b\" tabindex=\"0\" role=\"group\" aria-label=\"Formula (2)\"><math>D</math>"
                   "<span class=\"eqno\" aria-hidden=\"true\">(2)</span>"));
    OK(has(r.html, "id=\"eq-c\""));
    OK(!strstr(r.html, "{#eq"));
    EQ_INT(r.nlabels, 3);
    if (r.nlabels == 3) {
        EQ_STR(r.labels[1].id, "eq-b");
        EQ_STR(r.labels[1].number, "2");
    }
    arena_free(a);
}

TEST(words)
{
    arena *a = arena_new();
    const char *src = "@fig-a, [@fig-a; @fig-b], [@fig-a; @fig-b; @fig-c], @tbl-t, @eq-e, @sec-s.\n\n"
                      "![A](a.png){#fig-a}\n\n![B](b.png){#fig-b}\n\n![C](c.png){#fig-c}\n\n"
                      "| x |\n|---|\n| 1 |\n\n: T {#tbl-t}\n\n$$ e $$ {#eq-e}\n\n## S {#sec-s}\n\n"
                      "> [!NOTE]\n> n\n";
    md_words zh = { .one = { "图 {n}", "表 {n}", "式 {n}", "第 {n} 节" },
                    .many = { "图 {n}", "表 {n}", "式 {n}", "第 {n} 节" },
                    .list_sep = "、", .list_and = " 和 ", .caption_sep = "：",
                    .alert = { "注意", "提示", "重要", "警告", "小心" } };
    md_options o = { .unsafe = true, .math = fake_math, .words = &zh, .numbered_sections = true };
    md_result r = render_o(a, src, &o);
    EQ_STR(problems(a, &r), "");
    OK(has(r.html, "<a class=\"xref\" href=\"#fig-a\">图\u00a01</a>, 图\u00a0<a class=\"xref\" href=\"#fig-a\">1</a> 和 "
                   "<a class=\"xref\" href=\"#fig-b\">2</a>, 图\u00a0<a class=\"xref\" href=\"#fig-a\">1</a>、"
                   "<a class=\"xref\" href=\"#fig-b\">2</a> 和 <a class=\"xref\" href=\"#fig-c\">3</a>, "
                   "<a class=\"xref\" href=\"#tbl-t\">表\u00a01</a>, <a class=\"xref\" href=\"#eq-e\">式\u00a01</a>, "
                   "<a class=\"xref\" href=\"#sec-s\">第\u00a01\u00a0节</a>."));
    OK(has(r.html, "<span class=\"caption-number\">图\u00a01</span>：A</figcaption>"));
    OK(has(r.html, "<span class=\"caption-number\">表\u00a01</span>：T</caption>"));
    OK(has(r.html, "<p class=\"callout-title\">注意</p>"));
    md_words ja = { .one = { "図 {n}", "表 {n}", "式 {n}", "第 {n} 節" },
                    .many = { "図 {n}", "表 {n}", "式 {n}", "第 {n} 節" },
                    .list_sep = "、", .list_and = " と ", .caption_sep = "：" };
    o.words = &ja;
    r = render_o(a, src, &o);
    OK(has(r.html, "<a class=\"xref\" href=\"#fig-a\">図\u00a01</a>, 図\u00a0<a class=\"xref\" href=\"#fig-a\">1</a> と "));
    OK(has(r.html, "<a class=\"xref\" href=\"#sec-s\">第\u00a01\u00a0節</a>"));
    /* a missing word falls back to English */
    OK(has(r.html, "<p class=\"callout-title\">Note</p>"));
    arena_free(a);
}

TEST(unknown_and_duplicate)
{
    arena *a = arena_new();
    md_result r = render(a, "Text.\n\nSee @fig-arhc and [@fig-arch; @tbl-nothing].\n\n"
                            "![A](a.png){#fig-arch}\n\n![B](b.png) {#fig-arch}\n\n## S {#sec-a}\n\n## T {#sec-a}\n");
    EQ_STR(problems(a, &r),
           "3:5: @fig-arhc: no label 'fig-arhc' on this page (did you mean 'fig-arch'?)\n"
           "3:31: @tbl-nothing: no label 'tbl-nothing' on this page\n"
           "7:13: duplicate label 'fig-arch': line 5, column 12 has it already (a label names one thing)\n"
           "11:6: id 'sec-a' is already used on this page (line 9)\n");
    OK(has(r.html, "See ?? and <a class=\"xref\" href=\"#fig-arch\">Figure\u00a01</a> and ??."));
    /* a link with no text to no label: the link check says so, once */
    r = render(a, "See [](#fig-nope).\n");
    EQ_STR(problems(a, &r), "");
    OK(has(r.html, "<a href=\"#fig-nope\">?\?</a>"));
    /* mixing references and citations in one bracket */
    md_result c;
    md_render(str_from("[@fig-a; @smith]\n\n![A](a.png){#fig-a}\n"), 1, NULL, NULL, a, &c);
    EQ_STR(problems(a, &c), "");
    OK(has(c.html, "[<a class=\"xref\" href=\"#fig-a\">Figure\u00a01</a>; @smith]"));
    arena_free(a);
}

static void fake_cite(void *ctx, const md_cite *c, size_t n, buf *out)
{
    (void)ctx;
    for (size_t i = 0; i < n; i++)
        buf_printf(out, "{%s}", c[i].key);
}

TEST(with_bibliography)
{
    arena *a = arena_new();
    md_hooks h = { .cite = fake_cite };
    md_result r;
    md_render(str_from("[@smith] @fig-a [@fig-a; @smith]\n\n![A](a.png){#fig-a}\n"), 1, NULL, &h, a, &r);
    OK(has(r.html, "{smith} <a class=\"xref\" href=\"#fig-a\">Figure\u00a01</a> "));
    EQ_STR(problems(a, &r), "1:18: this citation mixes cross-references (@fig-…, @tbl-…, @eq-…, @sec-…) with "
                            "citations: write them in brackets of their own\n");
    EQ_INT(r.ncites, 1);
    arena_free(a);
}

/* Captions are the page's Markdown with its citations: the alt text's
 * and caption="…" (emphasis, math, citations, cross-references). The alt
 * attribute keeps the citation as written; an image that is no figure
 * cites nothing. */
TEST(caption_citations)
{
    arena *a = arena_new();
    md_hooks h = { .cite = fake_cite };
    md_options o = { .math = fake_math };
    md_result r;
    md_render(str_from("Text.\n\n![see [@knuth, p. 3] and *this*](a.png){#fig-a}\n\n"
                       "![B](b.png){#fig-b caption=\"Own *caption*, $x$, @fig-a and [@lamport]\"}\n\n"
                       "![not [@smith]](c.png)\n"),
              1, &o, &h, a, &r);
    OK(has(r.html, "<img src=\"a.png\" alt=\"see [@knuth, p. 3] and this\" />"));
    OK(has(r.html, "Figure\u00a01</span>: see {knuth} and <em>this</em></figcaption>"));
    OK(has(r.html, "Figure\u00a02</span>: Own <em>caption</em>, <span class=\"math-nowrap\"><math>I</math>,</span> <a class=\"xref\" "
                   "href=\"#fig-a\">Figure\u00a01</a> and {lamport}</figcaption>"));
    OK(has(r.html, "<p><img src=\"c.png\" alt=\"not [@smith]\" /></p>"));
    EQ_INT(r.ncites, 2);
    if (r.ncites == 2) {
        EQ_STR(r.cites[0].key, "knuth");
        EQ_STR(r.cites[0].locator, "p. 3");
        EQ_INT(r.cites[0].line, 3);
        EQ_STR(r.cites[1].key, "lamport");
        EQ_INT(r.cites[1].line, 5); /* the line of the figure whose caption= holds it */
    }
    EQ_STR(problems(a, &r), "");
    /* an unknown label in a caption= is reported at the figure's line */
    md_render(str_from("Text.\n\n![B](b.png){#fig-b caption=\"See @fig-zz\"}\n"), 1, &o, &h, a, &r);
    EQ_STR(problems(a, &r), "3:33: @fig-zz: no label 'fig-zz' on this page (did you mean 'fig-b'?)\n");
    arena_free(a);
}

TEST(links_to_labels)
{
    arena *a = arena_new();
    md_result r = render(a, "Para [](other.md#fig-x) and [](#fig-a) and [text](other.md#fig-y).\n\n"
                            "![A](a.png){#fig-a}\n");
    EQ_STR(problems(a, &r), "");
    /* this page's: its words, inside the link */
    OK(has(r.html, "<a href=\"#fig-a\">Figure\u00a01</a>"));
    /* another page's: a place for the site to fill */
    EQ_INT(r.nxlinks, 1);
    if (r.nxlinks == 1) {
        EQ_INT(r.xlinks[0].link, 0);
        const char *want = "Para <a href=\"other.md#fig-x\">";
        const char *at = strstr(r.html, want);
        OK(at != NULL);
        if (at)
            EQ_INT(r.xlinks[0].at, (size_t)(at - r.html) + strlen(want));
        OK(r.xlinks[0].summary_at != SIZE_MAX);
        const char *s = strstr(r.summary_html, want);
        if (s)
            EQ_INT(r.xlinks[0].summary_at, (size_t)(s - r.summary_html) + strlen(want));
    }
    arena_free(a);
}

TEST(numbered_sections)
{
    arena *a = arena_new();
    const char *src = "See @sec-b and @sec-c.\n\n## A\n\n## B {#sec-b}\n\n### C {#sec-c}\n\n#### D\n\n## E\n\n"
                      "> ## Quoted\n";
    md_options o = { .unsafe = true, .numbered_sections = true };
    md_result r = render_o(a, src, &o);
    EQ_STR(problems(a, &r), "");
    OK(has(r.html, "<a class=\"xref\" href=\"#sec-b\">Section\u00a02</a> and <a class=\"xref\" href=\"#sec-c\">Section\u00a02.1</a>"));
    OK(has(r.html, "<h2 id=\"a\"><span class=\"section-number\">1</span> A "));
    OK(has(r.html, "<h4 id=\"d\"><span class=\"section-number\">2.1.1</span> D "));
    OK(has(r.html, "<h2 id=\"e\"><span class=\"section-number\">3</span> E "));
    OK(has(r.html, "<h2 id=\"quoted\">Quoted "));
    EQ_STR(r.headings[1].title, "B");
    o.numbered_sections = false;
    r = render_o(a, src, &o);
    OK(has(r.html, "<a class=\"xref\" href=\"#sec-b\">B</a> and <a class=\"xref\" href=\"#sec-c\">C</a>"));
    OK(!strstr(r.html, "section-number"));
    r = render_o(a, "[@sec-b; @sec-c]\n\n## B {#sec-b}\n\n## C {#sec-c}\n", &o);
    OK(has(r.html, "<a class=\"xref\" href=\"#sec-b\">B</a> and <a class=\"xref\" href=\"#sec-c\">C</a>"));
    arena_free(a);
}

TEST(alerts)
{
    arena *a = arena_new();
    static const char *const kinds[5][3] = { { "NOTE", "note", "Note" },
                                             { "Tip", "tip", "Tip" },
                                             { "important", "important", "Important" },
                                             { "WARNING", "warning", "Warning" },
                                             { "CAUTION", "caution", "Caution" } };
    for (int k = 0; k < 5; k++) {
        md_result r = render(a, arena_printf(a, "> [!%s]\n> Some **text**.\n", kinds[k][0]));
        EQ_STR(r.html, arena_printf(a, "<div class=\"callout callout-%s\" role=\"note\" aria-label=\"%s\">\n"
                                       "<p class=\"callout-title\">%s</p>\n<p>Some <strong>text</strong>.</p>\n</div>\n",
                                    kinds[k][1], kinds[k][2], kinds[k][2]));
    }
    md_result r = render(a, "> [!note]- Read this *later*\n> folded\n");
    OK(!strstr(r.html, "callout"));  /* markup in the title line: a quote */
    r = render(a, "> [!note]- Read this later\n> folded\n");
    EQ_STR(r.html, "<details class=\"callout callout-note\">\n<summary class=\"callout-title\">Read this later</summary>\n"
                   "<p>folded</p>\n</details>\n");
    r = render(a, "> [!TIP]+\n> open\n");
    EQ_STR(r.html, "<details class=\"callout callout-tip\" open>\n<summary class=\"callout-title\">Tip</summary>\n"
                   "<p>open</p>\n</details>\n");
    r = render(a, "> [!WARNING] Mind the gap\n>\n> para\n");
    EQ_STR(r.html, "<div class=\"callout callout-warning\" role=\"note\" aria-label=\"Mind the gap\">\n"
                   "<p class=\"callout-title\">Mind the gap</p>\n<p>para</p>\n</div>\n");
    r = render(a, "> [!INFO]\n> stays\n");
    EQ_STR(r.html, "<blockquote>\n<p>[!INFO]\nstays</p>\n</blockquote>\n");
    r = render(a, "> [!NOTE]\n");
    EQ_STR(r.html, "<div class=\"callout callout-note\" role=\"note\" aria-label=\"Note\">\n"
                   "<p class=\"callout-title\">Note</p>\n</div>\n");
    r = render(a, "> text [!NOTE]\n");
    OK(has(r.html, "<blockquote>"));
    /* a summary cut inside an alert closes it */
    r = render(a, "> [!NOTE]\n> a <!--more--> b\n");
    OK(has(r.summary_html, "</p>\n</div>\n"));
    arena_free(a);
}

int main(void)
{
    RUN(figures);
    RUN(caption_markdown);
    RUN(caption_citations);
    RUN(references);
    RUN(equations);
    RUN(words);
    RUN(unknown_and_duplicate);
    RUN(with_bibliography);
    RUN(links_to_labels);
    RUN(numbered_sections);
    RUN(alerts);
    return harness_done();
}

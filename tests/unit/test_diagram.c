/* test_diagram: ```dot diagrams — Graphviz's SVG made inline (src/diagram:
 * viewBox sizing, currentColor, no prolog or comments, CJK fonts), the
 * bounds and errors, the build cache in front of Graphviz (site/diagram.c),
 * and the markup of a diagram and a labelled figure in md_render. */
#include <stdlib.h>
#include <string.h>

#include "cache/cache.h"
#include "diagram/dot.h"
#include "harness.h"
#include "md/md.h"
#include "site/site.h"
#include "util/fs.h"

static bool render(const char *src, buf *svg, buf *err, int *line)
{
    buf_reset(svg);
    buf_reset(err);
    return diagram_dot_render(src, strlen(src), NULL, svg, err, line);
}

static size_t count(const char *s, const char *w)
{
    size_t n = 0;
    for (const char *p = strstr(s, w); p; p = strstr(p + 1, w))
        n++;
    return n;
}

TEST(svg_inline)
{
    buf svg = BUF_INIT, err = BUF_INIT;
    int line = -1;
    OK(render("digraph {\n  a -> b\n  b [label=\"梯度压缩\"]\n}\n", &svg, &err, &line));
    EQ_STR(err.data, "");
    const char *s = svg.data;
    OK(!strncmp(s, "<svg width=\"", 12));
    OK(strstr(s, " viewBox=\"0.00 0.00 ") != NULL);
    OK(strstr(s, " role=\"img\"") != NULL);
    OK(strstr(s, "pt\"") == NULL); /* no size in points */
    OK(strstr(s, "<?xml") == NULL && strstr(s, "<!DOCTYPE") == NULL && strstr(s, "<!--") == NULL);
    OK(strstr(s, "<title>%3</title>") == NULL); /* the anonymous graph's name */
    EQ_INT(count(s, "\"black\""), 0);
    EQ_INT(count(s, "fill=\"white\""), 0);
    OK(count(s, "stroke=\"currentColor\"") >= 3); /* two nodes and the edge */
    EQ_INT(count(s, "<text"), 2);
    EQ_INT(count(s, "fill=\"currentColor\">"), 2); /* both labels */
    OK(strstr(s, ">梯度压缩</text>") != NULL);
    OK(strstr(s, "font-family=\"'DejaVu Sans',Verdana,'Noto Sans CJK SC'") != NULL);
    OK(!strcmp(s + svg.len - 6, "</svg>"));
    OK(diagram_svg_ok(s, svg.len));
    OK(strstr(s, " id=\"") == NULL); /* graph0, node1, edge1: repeated by a second diagram */
    /* width and height are the viewBox's, rounded up */
    double w, h, vw, vh;
    OK(sscanf(s, "<svg width=\"%lf\" height=\"%lf\" viewBox=\"0.00 0.00 %lf %lf", &w, &h, &vw, &vh) == 4);
    OK(w >= vw && w < vw + 1 && h >= vh && h < vh + 1);
    buf_release(&svg);
    buf_release(&err);
}

TEST(own_colours_and_fonts)
{
    buf svg = BUF_INIT, err = BUF_INIT;
    int line;
    OK(render("digraph { a [style=filled fillcolor=lightblue]; b [fontname=Courier fontcolor=red]; "
              "c [shape=box style=filled fillcolor=white]; a -> b [color=blue] }",
              &svg, &err, &line));
    const char *s = svg.data;
    OK(strstr(s, "fill=\"lightblue\"") != NULL);
    OK(strstr(s, " id=\"") == NULL);
    OK(strstr(s, "stroke=\"blue\"") != NULL);
    OK(strstr(s, "fill=\"red\"") != NULL);
    OK(strstr(s, "font-family=\"Courier") != NULL);
    /* a's label on its light blue stays black (no fill): readable in both modes */
    const char *a = strstr(s, "<title>a</title>");
    const char *at = a ? strstr(a, "<text") : NULL;
    OK(at && !strstr(at, "currentColor\">a<") && strstr(at, ">a</text>"));
    /* the white box: the page's background through the theme's class */
    OK(strstr(s, "fill=\"white\"") && strstr(s, "class=\"paper\""));
    buf_release(&svg);
    buf_release(&err);
}

TEST(errors)
{
    buf svg = BUF_INIT, err = BUF_INIT;
    int line = -1;
    OK(!render("digraph {\n  a -> b\n  c -> -> d\n}\n", &svg, &err, &line));
    EQ_STR(err.data, "syntax error in line 3 near '->'");
    EQ_INT(line, 3);
    OK(!render("", &svg, &err, &line));
    EQ_STR(err.data, "no graph in it (write `digraph { a -> b }`)");
    EQ_INT(line, 0);
    /* fine again after errors: Graphviz's error state is reset */
    OK(render("graph { x -- y }", &svg, &err, &line));
    /* what follows a graph is not read by the next parse (Graphviz's
     * scanner keeps it unless told not to) */
    OK(render("digraph { first } digraph { leftover }\n", &svg, &err, &line));
    OK(render("digraph { second }", &svg, &err, &line));
    OK(strstr(svg.data, ">second</text>") && !strstr(svg.data, "leftover"));
    /* another engine */
    buf_reset(&svg);
    OK(diagram_dot_render("graph { x -- y -- z -- x }", 26, "neato", &svg, &err, &line));
    OK(strstr(svg.data, "viewBox") != NULL);
    OK(!render("digraph { layout=nop; a }", &svg, &err, &line));
    EQ_STR(err.data, "layout=nop is not a layout engine sheaf runs (dot, neato, fdp, sfdp, circo, twopi, "
                     "osage, patchwork)");
    /* layout= in a subgraph only (the graph's own is then empty), or empty */
    OK(!render("digraph { subgraph s { graph [layout=circo]; a -> b } }", &svg, &err, &line));
    EQ_STR(err.data, "layout= is empty or set only inside a subgraph: Graphviz reads it from the graph "
                     "itself (write e.g. `layout=neato` at the top of the graph)");
    OK(!render("digraph { layout=\"\"; a }", &svg, &err, &line));
    OK(strstr(err.data, "layout= is empty") != NULL);
    OK(!render("digraph { a [image=\"/etc/passwd\"] }", &svg, &err, &line));
    EQ_STR(err.data, "image= would make Graphviz read a file of the machine that builds the site: sheaf does "
                     "not let a diagram do that");
    OK(!render("digraph { a [label=<<IMG SRC=\"x.png\"/>>] }", &svg, &err, &line));
    EQ_STR(err.data, "<IMG> would make Graphviz read a file of the machine that builds the site: sheaf does "
                     "not let a diagram do that");
    /* an HTML-like label that does not parse: one line, the source's line
     * of the label (Graphviz gives the label's own line), and no unnamed
     * graph's "%N", which changes from one parse to the next (found by
     * fuzz_dot) */
    OK(!render("digraph {\n  a\n  b [label=<\n<b>x</i>>]\n}\n", &svg, &err, &line));
    EQ_STR(err.data, "the HTML-like label of node b does not parse: mismatched tag near 'x</i>'");
    EQ_INT(line, 4);
    OK(!render("digraph {\n  label=<<b>x</i>>\n}\n", &svg, &err, &line));
    EQ_STR(err.data, "the HTML-like label of an unnamed graph does not parse: mismatched tag near 'x</i>'");
    EQ_INT(line, 2);
    OK(!render("graph G {\n  a -- b [label=<x<>>]\n  c [label=<x<>>]\n}\n", &svg, &err, &line));
    EQ_STR(err.data, "the HTML-like label of node c does not parse: not well-formed (invalid token) near 'x<>'");
    EQ_INT(line, 0); /* the text is there twice: no line rather than a wrong one */
    /* the first error, not a warning Graphviz gave after it; without the
     * <HTML> Graphviz wraps a label in */
    OK(!render("digraph {\n  label=<<bx<>>i/ ->\n  x\372\n}\n", &svg, &err, &line));
    EQ_STR(err.data, "the HTML-like label of an unnamed graph does not parse: not well-formed (invalid token) "
                     "near '<bx<>'");
    EQ_INT(line, 2);
    /* a URL's '<' (Graphviz writes it raw) is escaped (found by fuzz_dot) */
    OK(render("digraph { a [URL=\"<iframe>x\"] }", &svg, &err, &line));
    OK(strstr(svg.data, "xlink:href=\"&lt;iframe&gt;x\"") && diagram_svg_ok(svg.data, svg.len));
    OK(!render("digraph { a [URL=\"javascript:alert(1)\"] }", &svg, &err, &line));
    EQ_STR(err.data, "the link 'javascript:alert(1)' has the scheme 'javascript:': only http, https, mailto, "
                     "relative and #fragment URLs are written");
    buf_release(&svg);
    buf_release(&err);
}

/* Labels that read like a script's spelling to diagram_svg_ok: written
 * with a character reference, so the SVG passes it (else the cache never
 * takes the diagram back, and it is laid out on every build; found by
 * fuzz_dot) and shows the same text. */
TEST(labels_like_scripts)
{
    buf svg = BUF_INIT, err = BUF_INIT;
    int line;
    OK(render("digraph { a [label=\"javascript: the good parts\"]; b [label=\"turn on=1, x onload=2 on2=3\" "
              "tooltip=\"y onclick=4\" URL=\"https://example.org/JavaScript:x?a=b\"] }",
              &svg, &err, &line));
    OK(diagram_svg_ok(svg.data, svg.len));
    OK(strstr(svg.data, ">javascript&#58; the good parts</text>") != NULL);
    OK(strstr(svg.data, ">turn on&#61;1, x onload&#61;2 on2=3</text>") != NULL);
    OK(strstr(svg.data, "xlink:title=\"y onclick&#61;4\"") != NULL);
    OK(strstr(svg.data, "xlink:href=\"https://example.org/JavaScript&#58;x?a=b\"") != NULL);
    buf_release(&svg);
    buf_release(&err);
}

/* An unnamed object's number (a node named "%g" is shown as one) is the
 * same whatever was laid out before: Graphviz's own count runs for the
 * process (found by fuzz_dot) */
TEST(unnamed_the_same_each_time)
{
    buf svg = BUF_INIT, again = BUF_INIT, err = BUF_INIT;
    int line;
    const char *src = "digraph { a -> \"%g\"; subgraph { b } }";
    OK(render(src, &svg, &err, &line));
    OK(render("digraph { subgraph { x } subgraph { y } \"%q\" -> \"%r\" }", &again, &err, &line));
    OK(render(src, &again, &err, &line));
    EQ_STR(again.data, svg.data);
    OK(strstr(svg.data, ">%3</text>") != NULL);
    buf_release(&svg);
    buf_release(&again);
    buf_release(&err);
}

TEST(bounds)
{
    buf svg = BUF_INIT, err = BUF_INIT, src = BUF_INIT;
    int line;
    size_t before = diagram_dot_layouts();
    buf_puts(&src, "digraph {\n");
    while (src.len <= DIAGRAM_DOT_MAX_BYTES)
        buf_puts(&src, "  // a comment to fill the source\n");
    buf_puts(&src, "}\n");
    OK(!render(src.data, &svg, &err, &line));
    char want[160];
    snprintf(want, sizeof want, "this diagram has %zu bytes, more than the 65536 a diagram may have", src.len);
    EQ_STR(err.data, want);
    buf_reset(&src);
    buf_puts(&src, "digraph {");
    for (int i = 0; i <= DIAGRAM_DOT_MAX_NODES; i++)
        buf_printf(&src, " n%d;", i);
    buf_puts(&src, "}");
    OK(!render(src.data, &svg, &err, &line));
    EQ_STR(err.data, "the graph has 201 nodes and 0 edges: a diagram may have at most 200 nodes and 400 edges "
                     "(laying out more can take Graphviz minutes)");
    EQ_INT(diagram_dot_layouts(), before); /* refused before layout */
    buf_release(&src);
    buf_release(&svg);
    buf_release(&err);
}

TEST(svg_pass)
{
    buf out = BUF_INIT, err = BUF_INIT;
    const char *in = "<?xml version=\"1.0\"?>\n<!-- c -->\n<svg width=\"10pt\" height=\"5pt\" viewBox=\"0 0 9.5 4.2\" "
                     "xmlns=\"http://www.w3.org/2000/svg\">\n<g><title>%3</title>\n<!-- n -->\n"
                     "<polygon fill=\"white\" stroke=\"transparent\" points=\"0,0\"/>\n"
                     "<polygon fill=\"white\" stroke=\"black\" points=\"1,1\"/>\n<text x=\"1\">a &amp; b</text>"
                     "</g>\n</svg>\n";
    OK(diagram_svg_fix(&out, in, strlen(in), &err));
    EQ_STR(out.data, "<svg width=\"10\" height=\"5\" viewBox=\"0 0 9.5 4.2\" role=\"img\" "
                     "xmlns=\"http://www.w3.org/2000/svg\">\n<g>"
                     "<polygon fill=\"none\" stroke=\"transparent\" points=\"0,0\"/>\n"
                     "<polygon fill=\"white\" stroke=\"currentColor\" points=\"1,1\" class=\"paper\"/>\n"
                     "<text x=\"1\" fill=\"currentColor\">a &amp; b</text></g>\n</svg>");
    buf_reset(&out);
    buf_reset(&err);
    const char *bad = "<svg width=\"1pt\" height=\"1pt\" viewBox=\"0 0 1 1\"><script>x</script></svg>";
    OK(!diagram_svg_fix(&out, bad, strlen(bad), &err));
    EQ_STR(err.data, "Graphviz wrote a <script>, which sheaf does not put in a page");
    /* what the cache may give */
    OK(!diagram_svg_ok("<svg a=\"1\"><script/></svg>", 27));
    OK(!diagram_svg_ok("<svg onload=\"x\"></svg>", 22));
    OK(!diagram_svg_ok("<math></math>", 13));
    OK(diagram_svg_ok("<svg a=\"1\"><g/></svg>", 21));
    buf_release(&out);
    buf_release(&err);
}

/* ---- the cache in front of Graphviz, and the page's markup ---- */

static const char two_diagrams[] = "Text.\n"
                           "\n"
                           "```dot {#fig-arch caption=\"Architecture & more\"}\n"
                           "digraph { a -> b }\n"
                           "```\n"
                           "\n"
                           "```graphviz\n"
                           "graph { x -- y }\n"
                           "```\n";

static md_result render_page(const char *md, site_diagram *sd, arena *a)
{
    md_options o = { .diagram = site_diagram_render, .diagram_ctx = sd };
    md_result r;
    md_render(str_make(md, strlen(md)), 5, &o, NULL, a, &r);
    return r;
}

TEST(cached)
{
    char tpl[] = "/tmp/sheaf-diagram-XXXXXX";
    char *dir = mkdtemp(tpl);
    OK(dir != NULL);
    if (!dir)
        return;
    site_diagram sd = { .cache = cache_open(dir, 0) };
    arena *a = arena_new();
    size_t before = diagram_dot_layouts();
    md_result r1 = render_page(two_diagrams, &sd, a);
    EQ_INT(r1.nproblems, 0);
    EQ_INT(diagram_dot_layouts() - before, 2);
    EQ_INT(atomic_load(&sd.rendered), 2);
    /* a second build: both from the cache, Graphviz not called */
    md_result r2 = render_page(two_diagrams, &sd, a);
    EQ_INT(diagram_dot_layouts() - before, 2);
    EQ_INT(atomic_load(&sd.diagrams), 4);
    EQ_INT(atomic_load(&sd.rendered), 2);
    EQ_STR(r2.html, r1.html);
    /* the markup: a figure with its id and caption, and a plain diagram */
    const char *h = r1.html;
    static const char fig[] = "<figure id=\"fig-arch\" class=\"diagram\"><div class=\"diagram-scroll\" "
                              "tabindex=\"0\" role=\"group\" aria-label=\"Diagram\"><svg aria-label="
                              "\"Architecture &amp; more\" width=\"";
    OK(strstr(h, fig) != NULL);
    OK(strstr(h, "</svg></div><figcaption><span class=\"caption-number\">Figure\u00a01</span>: "
                 "Architecture &amp; more</figcaption></figure>\n") != NULL);
    OK(strstr(h, "<div class=\"diagram\"><div class=\"diagram-scroll\" tabindex=\"0\" role=\"group\" "
                 "aria-label=\"Diagram\"><svg aria-label=\"Diagram\" width=\"") != NULL);
    /* the figure's id is a link target of the page */
    bool anchor = false;
    for (size_t i = 0; i < r1.nanchors; i++)
        anchor |= !strcmp(r1.anchors[i], "fig-arch");
    OK(anchor);
    cache_free(sd.cache);
    arena_free(a);
    fs_rmtree(dir);
}

TEST(page_errors)
{
    site_diagram sd = { 0 };
    arena *a = arena_new();
    md_result r = render_page("Para.\n\n```dot\ndigraph {\n  a -> b\n  c -> -> d\n}\n```\n"
                              "\n```dot {#fig-x engine=nope}\ndigraph { a }\n```\n"
                              "\n```dot {caption=\"x\" frobnicate=1}\ndigraph { a }\n```\n",
                              &sd, a);
    EQ_INT(r.nproblems, 3);
    if (r.nproblems == 3) {
        /* the fence is line 3 of the body, line 7 of the file (the body starts on line 5) */
        EQ_INT(r.problems[0].line, 7);
        EQ_INT(r.problems[0].col, 1);
        OK(r.problems[0].error);
        EQ_STR(r.problems[0].message,
               "dot: syntax error in line 3 near '->' (line 3 of the diagram, line 10 of the file)");
        EQ_INT(r.problems[1].line, 14);
        EQ_STR(r.problems[1].message, "diagram option engine=nope: want dot, neato, fdp, sfdp, circo, twopi, "
                                      "osage or patchwork");
        EQ_INT(r.problems[2].line, 18);
        OK(!r.problems[2].error);
        EQ_STR(r.problems[2].message, "diagram option 'frobnicate' is ignored (known: #id, caption, engine)");
    }
    /* the broken one stays code */
    OK(strstr(r.html, "<pre tabindex=\"0\"><code class=\"language-dot\">digraph {\n  a -&gt; b\n") != NULL);
    /* without the hook (md alone), a dot block is code as before */
    md_result plain;
    md_render(str_make("```dot\ndigraph { a }\n```\n", 21), 1, NULL, NULL, a, &plain);
    OK(strstr(plain.html, "<code class=\"language-dot\">") != NULL);
    arena_free(a);
}

int main(void)
{
    RUN(svg_inline);
    RUN(own_colours_and_fonts);
    RUN(errors);
    RUN(labels_like_scripts);
    RUN(unnamed_the_same_each_time);
    RUN(bounds);
    RUN(svg_pass);
    RUN(cached);
    RUN(page_errors);
    return harness_done();
}

/* test_math: math in Markdown — the delimiter rules (md/mathscan.c, each
 * branch), the extension in md_render (what reaches the TeX, what stays
 * Markdown, positions of errors), and KaTeX in Duktape (src/js). */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "js/katex.h"
#include "md/md.h"
#include "md/mathscan.h"

/* ---- the scanner ---- */

/* The formula at the start of s, as "tex|d" (display) or "tex|i", and
 * what follows it after '@'; "-" when there is none. */
static char got[256];

static const char *scan(const char *s)
{
    md_math_span m;
    size_t at = s[0] == '\\' ? 0 : 0;
    if (!md_math_scan(s, strlen(s), at, &m))
        return "-";
    snprintf(got, sizeof got, "%.*s|%c@%s", (int)m.tex_len, s + m.tex, m.display ? 'd' : 'i', s + m.end);
    return got;
}

TEST(dollar_inline)
{
    EQ_STR(scan("$x$"), "x|i@");
    EQ_STR(scan("$a*b*c$ rest"), "a*b*c|i@ rest");
    EQ_STR(scan("$a b$"), "a b|i@");            /* inner spaces are fine */
    EQ_STR(scan("$a\nb$"), "a\nb|i@");          /* so is a line break */
    EQ_STR(scan("$x$."), "x|i@.");
    /* the opener must be followed by a non-space */
    EQ_STR(scan("$ x$"), "-");
    EQ_STR(scan("$\nx$"), "-");
    EQ_STR(scan("$"), "-");
    /* a space before a `$` ends the attempt: prices stay text */
    EQ_STR(scan("$5 and $10"), "-");
    EQ_STR(scan("$x $"), "-");
    EQ_STR(scan("$x \n$"), "-");
    /* the closer may not be followed by a digit */
    EQ_STR(scan("$x$5"), "-");
    EQ_STR(scan("$x$a"), "x|i@a");
    /* no closer */
    EQ_STR(scan("$x"), "-");
    EQ_STR(scan("$x y"), "-");
    /* a backslash takes the next character: `\$` does not close */
    EQ_STR(scan("$\\$x$"), "\\$x|i@");
    EQ_STR(scan("$a\\\\$"), "a\\\\|i@");
    EQ_STR(scan("$a\\"), "-");
    /* \text{…} may hold `$` and spaces before it */
    EQ_STR(scan("$\\text{costs $5} x$"), "\\text{costs $5} x|i@");
    EQ_STR(scan("$\\text{a {b} c}$"), "\\text{a {b} c}|i@");
    EQ_STR(scan("$\\text{\\}$}$"), "\\text{\\}$}|i@");
    /* unbalanced: an ordinary backslash pair, then on */
    EQ_STR(scan("$\\text{x$"), "\\text{x|i@");
    EQ_STR(scan("$\\tex$"), "\\tex|i@");
    EQ_STR(scan("$\\text$"), "\\text|i@");
}

TEST(dollar_display)
{
    EQ_STR(scan("$$x$$"), "x|d@");
    EQ_STR(scan("$$ x = 1 $$ after"), " x = 1 |d@ after");
    EQ_STR(scan("$$a\n\\\\ b$$"), "a\n\\\\ b|d@");
    EQ_STR(scan("$$a\\$$$"), "a\\$|d@");       /* `\$` then the closer */
    EQ_STR(scan("$$x$"), "-");
    EQ_STR(scan("$$x"), "-");
    EQ_STR(scan("$$$$"), "-");                  /* empty */
    EQ_STR(scan("$$  $$"), "-");                /* blank */
    EQ_STR(scan("$$"), "-");
    EQ_STR(scan("$$a\\"), "-");
}

TEST(paren_inline)
{
    EQ_STR(scan("\\(x\\)"), "x|i@");
    EQ_STR(scan("\\( a*b \\) z"), " a*b |i@ z");
    EQ_STR(scan("\\(a\\\\)b\\)"), "a\\\\)b|i@");  /* `\\` is a pair, `)` not a closer */
    EQ_STR(scan("\\(a\\$b\\)"), "a\\$b|i@");
    EQ_STR(scan("\\(x"), "-");
    EQ_STR(scan("\\(x)"), "-");
    EQ_STR(scan("\\(\\)"), "-");                /* empty */
    EQ_STR(scan("\\( \\)"), "-");
    EQ_STR(scan("\\("), "-");
    EQ_STR(scan("\\x"), "-");
    EQ_STR(scan("x"), "-");
    md_math_span m;
    OK(!md_math_scan("$x$", 3, 3, &m)); /* past the end */
    OK(md_math_scan("a $x$", 5, 2, &m) && m.tex == 3 && m.end == 5);
}

static const char *opens(const char *line)
{
    char closer;
    size_t olen;
    bool closed;
    if (!md_math_block_open(line, strlen(line), &closer, &olen, &closed))
        return "-";
    snprintf(got, sizeof got, "%c%s%zu", closer, closed ? "closed" : "open", olen);
    return got;
}

/* issue 32: TeX written for Markdown first (markdown.math_escapes) */
static const char *unescaped(const char *s)
{
    size_t n = md_math_unescape(s, strlen(s), got);
    got[n] = '\0';
    return got;
}

TEST(markdown_escapes)
{
    md_math_span m;
    const char *s = "\\\\(x\\_1 \\\\) rest";
    OK(md_math_scan_escaped(s, strlen(s), 0, &m));
    EQ_INT((long)m.tex, 3);
    EQ_INT((long)m.tex_len, 5);
    EQ_STR(s + m.end, " rest");
    OK(!md_math_scan_escaped("\\\\(x\\)", 7, 0, &m)); /* `\)` only closes it */
    OK(!md_math_scan_escaped("\\(x\\)", 5, 0, &m));
    EQ_STR(unescaped("D\\_{KL} \\* \\left\\\\{ \\alpha"), "D_{KL} * \\left\\{ \\alpha");
    EQ_INT((long)md_math_unescaped_origin("a\\_b", 4, 2), 3);
    EQ_INT((long)md_math_unescaped_origin("a\\_b", 4, 0), 0);
    /* `\_` as an escaped subscript, not in a text argument */
    EQ_INT(md_math_escaped_subscript("D\\_{KL}", 7), 1);
    EQ_INT(md_math_escaped_subscript("x\\_1", 4), 1);
    EQ_INT(md_math_escaped_subscript("\\text{a\\_b}", 12), -1);
    EQ_INT(md_math_escaped_subscript("\\mathrm{x\\_{y}}", 15), -1);
    EQ_INT(md_math_escaped_subscript("a\\_", 3), -1);
    EQ_INT(md_math_escaped_subscript("\\\\_x", 4), -1);
    /* what KaTeX wants instead */
    OK(md_math_error_hint("KaTeX parse error: Got function '\\vec' with no arguments as superscript", "", 0) != NULL);
    OK(md_math_error_hint("KaTeX parse error: Undefined control sequence: \\nope", "\\nope", 5) == NULL);
    OK(md_math_error_hint("KaTeX parse error: Expected 'EOF', got '_'", "a_b", 3) == NULL);
}

TEST(block_lines)
{
    EQ_STR(opens("$$"), "$open2");
    EQ_STR(opens("$$   "), "$open2");
    EQ_STR(opens("$$\\begin{aligned}"), "$open2");
    EQ_STR(opens("$$ x $$"), "$closed2");
    EQ_STR(opens("$$ x $$  "), "$closed2");
    EQ_STR(opens("$$ x $$ and text"), "-");   /* inline display math in a paragraph */
    EQ_STR(opens("$$$$"), "-");
    EQ_STR(opens("$$ \\$$"), "$open2");        /* `\$` then `$`: not a closer */
    EQ_STR(opens("$x$"), "-");
    EQ_STR(opens("$"), "-");
    EQ_STR(opens("\\["), "]open2");
    EQ_STR(opens("\\[ x = 1"), "]open2");
    EQ_STR(opens("\\[ x \\]"), "]closed2");
    EQ_STR(opens("\\[ a_{[i]} \\]"), "]closed2");
    EQ_STR(opens("\\[not math]"), "-");        /* an escaped bracket */
    EQ_STR(opens("\\[ \\]"), "-");
    EQ_STR(opens("\\[ x \\\\]"), "-");         /* `\\` then `]`: has a `]` */
    EQ_STR(opens("\\x"), "-");
    EQ_STR(opens("x"), "-");
    size_t tail;
    OK(md_math_block_closes("x $$", 4, '$', &tail) && tail == 2);
    OK(md_math_block_closes("$$  ", 4, '$', &tail) && tail == 4);
    OK(!md_math_block_closes("x \\$$", 5, '$', &tail));
    OK(!md_math_block_closes("x $", 3, '$', &tail));
    OK(!md_math_block_closes("$", 1, '$', &tail));
    OK(md_math_block_closes("\\]", 2, ']', &tail) && tail == 2);
    OK(!md_math_block_closes("\\\\]", 3, ']', &tail));
    OK(!md_math_block_closes("x]", 2, ']', &tail));
    OK(!md_math_block_closes("x )", 3, ']', &tail));
}

/* ---- in md_render, without a renderer (the TeX is written escaped) ---- */

static const char *render(const char *md, const md_options *o)
{
    static char out[4096];
    arena *a = arena_new();
    md_result r;
    md_render(str_make(md, strlen(md)), 1, o, NULL, a, &r);
    snprintf(out, sizeof out, "%s", r.html);
    arena_free(a);
    return out;
}

TEST(markdown_never_touches_tex)
{
    md_options o = { 0 };
    EQ_STR(render("$a*b*c$ and *em*\n", &o),
           "<p><span class=\"math inline\">\\(a*b*c\\)</span> and <em>em</em></p>\n");
    EQ_STR(render("\\(a_1 *b* \\\\ c\\)\n", &o),
           "<p><span class=\"math inline\">\\(a_1 *b* \\\\ c\\)</span></p>\n");
    EQ_STR(render("it cost $5 and $10, \\$ too\n", &o), "<p>it cost $5 and $10, $ too</p>\n");
    EQ_STR(render("\\(not closed and \\[bracket]\n", &o), "<p>(not closed and [bracket]</p>\n");
    EQ_STR(render("\\\\(x\\)\n", &o), "<p>\\(x)</p>\n");
    EQ_STR(render("`$x$` [$y$](u)\n", &o),
           "<p><code>$x$</code> <a href=\"u\"><span class=\"math inline\">\\(y\\)</span></a></p>\n");
    EQ_STR(render("a $$x^2$$ b\n", &o),
           "<p>a <span class=\"math display\">\\[x^2\\]</span> b</p>\n");
    /* a display block: no Markdown inside (no list, no heading, `\\` kept) */
    EQ_STR(render("$$\n\\begin{pmatrix}\na & b \\\\\n- c & d\n\\end{pmatrix}\n$$\nafter\n", &o),
           "<div class=\"math display\">\\[\\begin{pmatrix}\na &amp; b \\\\\n- c &amp; d\n"
           "\\end{pmatrix}\\]</div>\n<p>after</p>\n");
    EQ_STR(render("text\n\\[ E = mc^2 \\]\n", &o),
           "<p>text</p>\n<div class=\"math display\">\\[ E = mc^2 \\]</div>\n");
    EQ_STR(render("$$x\n===\n$$\n", &o), "<div class=\"math display\">\\[x\n===\\]</div>\n");
    EQ_STR(render("```math\n\\int_0^1 f\n```\n", &o),
           "<div class=\"math display\">\\[\\int_0^1 f\\]</div>\n");
    EQ_STR(render("> $$\n> x\n> $$\n", &o),
           "<blockquote>\n<div class=\"math display\">\\[x\\]</div>\n</blockquote>\n");
    EQ_STR(render("- $$\n  x\n  $$\n- b\n", &o),
           "<ul>\n<li>\n<div class=\"math display\">\\[x\\]</div>\n</li>\n<li>b</li>\n</ul>\n");
    /* in a table cell (cmark-gfm's cells refused extension nodes: the
     * formula vanished) */
    EQ_STR(render("| a | b |\n|---|---|\n| $x^2$ | \\(y\\) |\n", &o),
           "<div class=\"table-scroll\" tabindex=\"0\" role=\"group\" aria-label=\"Table\">\n<table>\n<thead>\n<tr>\n<th>a</th>\n"
           "<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n"
           "<td><span class=\"math inline\">\\(x^2\\)</span></td>\n"
           "<td><span class=\"math inline\">\\(y\\)</span></td>\n</tr>\n</tbody>\n</table>\n</div>\n");
    /* markdown.math: false — all Markdown again */
    o.off = md_extension_bit("math");
    OK(o.off != 0);
    EQ_STR(render("$a*b*c$ \\(x\\)\n", &o), "<p>$a<em>b</em>c$ (x)</p>\n");
    EQ_STR(render("```math\nx\n```\n", &o),
           "<pre tabindex=\"0\"><code class=\"language-math\">x\n</code></pre>\n");
}

/* A renderer that fails on formulas holding '!' (at that byte). */
static const char *fake(void *ctx, const md_formula *f, arena *a, const char **error, long *at)
{
    (*(int *)ctx)++;
    const char *bang = memchr(f->tex, '!', f->len);
    if (bang) {
        *error = "bad formula";
        *at = bang - f->tex;
        return NULL;
    }
    return arena_printf(a, "<math%s>%s</math>", f->display ? " display=\"block\"" : "", f->tex);
}

TEST(renderer_and_error_positions)
{
    int calls = 0;
    md_options o = { .math = fake, .math_ctx = &calls };
    arena *a = arena_new();
    md_result r;
    const char *md = "Text $x$ and $a!b$.\n"
                     "\n"
                     "> $$\n"
                     ">   y\n"
                     ">   z!\n"
                     "> $$\n"
                     "\n"
                     "```math\n"
                     "!\n"
                     "```\n"
                     "\n"
                     "$$\n"
                     "never closed\n";
    md_render(str_make(md, strlen(md)), 10, &o, NULL, a, &r);
    EQ_INT(calls, 4);
    OK(strstr(r.html, "<p>Text <math>x</math> and .</p>") != NULL);
    EQ_INT(r.nproblems, 4);
    if (r.nproblems == 4) {
        /* body line 1 is file line 10 */
        EQ_INT(r.problems[0].line, 10);
        EQ_INT(r.problems[0].col, 16);
        EQ_STR(r.problems[0].message, "bad formula");
        EQ_INT(r.problems[1].line, 14);
        EQ_INT(r.problems[1].col, 6);
        EQ_INT(r.problems[2].line, 18);
        EQ_INT(r.problems[2].col, 1);
        EQ_INT(r.problems[3].line, 21);
        EQ_INT(r.problems[3].col, 1);
        EQ_STR(r.problems[3].message, "display math opened here is never closed (a line ending with $$)");
        OK(r.problems[0].error && r.problems[3].error);
    }
    arena_free(a);
}

/* \label in display formulas: numbered in the page's order, one number a
 * formula, shown after it (the label taken out of the TeX), the box's id; \eqref and \ref the number, as text in formulas and links
 * in the page's text, before or after the label; code untouched. */
TEST(equation_references)
{
    int calls = 0;
    md_options o = { .math = fake, .math_ctx = &calls };
    arena *a = arena_new();
    md_result r;
    const char *md = "See \\eqref{eq_b} and \\ref{first}; \\eqref{none} stays.\n"
                     "\n"
                     "$$\n"
                     "\\begin{equation}\n"
                     "x \\label{first}\n"
                     "\\end{equation}\n"
                     "$$\n"
                     "\n"
                     "$$\\begin{align}a &= b \\label{eq_b} \\\\ c &= d \\label{eq:c}\\end{align}$$\n"
                     "\n"
                     "Inline $y = \\eqref{first}$, `\\ref{first}`.\n";
    md_render(str_make(md, strlen(md)), 1, &o, NULL, a, &r);
    EQ_INT(r.nproblems, 0);
    OK(strstr(r.html, "<p>See <a class=\"eqref\" href=\"#eq_b\">(2)</a> and <a class=\"eqref\" "
                      "href=\"#first\">1</a>; \\eqref{none} stays.</p>") != NULL);
    OK(strstr(r.html, "id=\"first\"") != NULL);
    OK(strstr(r.html, "<span class=\"math-scroll numbered\" id=\"first\" tabindex=\"0\" role=\"group\" "
                      "aria-label=\"Formula (1)\"><math display=\"block\">\\begin{equation}\nx \n"
                      "\\end{equation}</math><span class=\"eqno\" aria-hidden=\"true\">(1)</span></span>") != NULL);
    OK(strstr(r.html, "<span id=\"eq:c\"></span><span class=\"math-scroll numbered\" id=\"eq_b\"") != NULL);
    OK(strstr(r.html, "\\begin{align}a &= b  \\\\ c &= d \\end{align}</math><span class=\"eqno\" "
                      "aria-hidden=\"true\">(2)</span>") != NULL);
    OK(strstr(r.html, "<math>y = \\text{(1)}</math>") != NULL);
    OK(strstr(r.html, "<code>\\ref{first}</code>") != NULL);
    /* a reference to no label, in a formula: an error at it */
    md_render(str_from("$$ x = \\eqref{nope} $$\n"), 5, &o, NULL, a, &r);
    EQ_INT(r.nproblems, 1);
    if (r.nproblems == 1) {
        EQ_INT(r.problems[0].line, 5);
        EQ_INT(r.problems[0].col, 8);
        EQ_STR(r.problems[0].message, "\\eqref{nope}: no \\label{nope} in a display formula of this page");
    }
    /* the same label twice: one number, the id claimed once */
    md_render(str_from("$$ a \\label{k} $$\n\n$$ b \\label{k} $$\n"), 1, &o, NULL, a, &r);
    EQ_INT(r.nproblems, 1);
    arena_free(a);
}

/* ---- KaTeX in Duktape ---- */

TEST(katex)
{
    buf err = BUF_INIT, out = BUF_INIT;
    js_katex *k = js_katex_new(&err);
    OK(k != NULL);
    if (!k) {
        fprintf(stderr, "%s\n", err.data);
        return;
    }
    long at;
    OK(js_katex_render(k, "a*b", 3, false, &out, &at));
    OK(strncmp(out.data, "<math xmlns=\"http://www.w3.org/1998/Math/MathML\"><semantics>", 60) == 0);
    OK(strstr(out.data, "<annotation encoding=\"application/x-tex\">a*b</annotation>") != NULL);
    OK(strstr(out.data, "</math>") == out.data + out.len - 7);
    buf_reset(&out);
    /* matrices need Array.prototype.fill */
    const char *pm = "\\begin{pmatrix}a & b\\\\ c & d\\end{pmatrix}";
    OK(js_katex_render(k, pm, strlen(pm), true, &out, &at));
    OK(strstr(out.data, "display=\"block\"") != NULL);
    OK(strstr(out.data, "<mtable") != NULL);
    buf_reset(&out);
    /* errors: KaTeX's message, the byte offset (é is two bytes, one unit) */
    const char *bad = "\\text{é} \\foo";
    OK(!js_katex_render(k, bad, strlen(bad), false, &out, &at));
    EQ_STR(out.data, "KaTeX parse error: Undefined control sequence: \\foo");
    EQ_INT(at, 10);
    buf_reset(&out);
    OK(!js_katex_render(k, "x^{2", 4, false, &out, &at));
    EQ_STR(out.data, "KaTeX parse error: Expected '}', got 'EOF' at end of input");
    EQ_INT(at, 4);
    /* a character beyond U+FFFF (𝜎, four bytes, two UTF-16 units) reads
     * as KaTeX reads it in a browser, and comes back as UTF-8; an error
     * after one is placed by its bytes */
    buf_reset(&out);
    OK(js_katex_render(k, "\xf0\x9d\x9c\x8e(x)", 7, false, &out, &at));
    OK(strstr(out.data, "<mtext>\xf0\x9d\x9c\x8e</mtext>") != NULL);
    OK(strstr(out.data, "x-tex\">\xf0\x9d\x9c\x8e(x)</annotation>") != NULL);
    OK(memchr(out.data, 0xed, out.len) == NULL);
    buf_reset(&out);
    OK(!js_katex_render(k, "\xf0\x9d\x9c\x8e \\foo", 9, false, &out, &at));
    EQ_STR(out.data, "KaTeX parse error: Undefined control sequence: \\foo");
    EQ_INT(at, 5);
    /* still fine after errors */
    buf_reset(&out);
    OK(js_katex_render(k, "x", 1, false, &out, &at));
    js_katex_free(k);
    OK(strncmp(js_katex_version(), "katex-0.16.", 11) == 0);
    OK(strstr(js_katex_version(), "/duktape-") != NULL);
    /* the pool: one engine, reused */
    js_pool *p = js_pool_new();
    js_katex *a = js_pool_take(p, &err);
    js_pool_give(p, a);
    js_katex *b = js_pool_take(p, &err);
    OK(a == b);
    js_pool_give(p, b);
    EQ_INT(js_pool_started(p, NULL), 1);
    js_pool_free(p);
    buf_release(&err);
    buf_release(&out);
}

/* issue 34: one display formula of 200 KB took 15.8 s and 282 MB, of 2 MB
 * over 300 s and 1.9 GB. Each formula has a size, a heap and a CPU time
 * budget; an engine that ran out of one is not reused. */
static void repeat_into(buf *b, const char *unit, size_t n)
{
    buf_reset(b);
    while (b->len + strlen(unit) <= n)
        buf_puts(b, unit);
}

TEST(katex_budgets)
{
    buf err = BUF_INIT, out = BUF_INIT, tex = BUF_INIT;
    long at;
    js_katex *k = js_katex_new(&err);
    OK(k != NULL);
    if (!k)
        return;
    /* the size, checked before KaTeX sees the formula */
    repeat_into(&tex, "x+", 200000);
    OK(!js_katex_render(k, tex.data, tex.len, true, &out, &at));
    EQ_STR(out.data, "this formula has 200000 bytes, more than the 32768 a formula may have");
    EQ_INT(at, -1);
    OK(!js_katex_spent(k));
    /* just under the size: rendered (with time to spare for a sanitizer's
     * build, where it takes some 6 s) */
    repeat_into(&tex, "x+", JS_KATEX_MAX_BYTES);
    buf_reset(&out);
    js_katex_set_budget(k, (size_t)JS_KATEX_HEAP_MB << 20, 60000);
    OK(js_katex_render(k, tex.data, tex.len, true, &out, &at));
    /* the heap (KaTeX takes some 30 MB for 16 KB of "x+") */
    repeat_into(&tex, "x+", 16384);
    js_katex_set_budget(k, 4 << 20, JS_KATEX_CPU_MS);
    buf_reset(&out);
    OK(!js_katex_render(k, tex.data, tex.len, true, &out, &at));
    EQ_STR(out.data, "this formula needed more than the 4 MB of memory a formula may use");
    EQ_INT(at, -1);
    OK(js_katex_spent(k));
    js_katex_free(k);
    /* the time (16 KB of "x+" take some 200 ms) */
    k = js_katex_new(&err);
    js_katex_set_budget(k, (size_t)JS_KATEX_HEAP_MB << 20, 20);
    buf_reset(&out);
    OK(!js_katex_render(k, tex.data, tex.len, true, &out, &at));
    EQ_STR(out.data, "this formula took more than the 20 ms of CPU time a formula may take");
    OK(js_katex_spent(k));
    /* a spent engine is never called again */
    buf_reset(&out);
    OK(!js_katex_render(k, "x", 1, false, &out, &at));
    EQ_STR(out.data, "this engine ran out of a budget before: start another");
    /* the pool drops a spent engine and starts another */
    js_pool *p = js_pool_new();
    js_pool_give(p, k);
    js_katex *k2 = js_pool_take(p, &err);
    OK(k2 != NULL && !js_katex_spent(k2));
    buf_reset(&out);
    OK(k2 && js_katex_render(k2, "x", 1, false, &out, &at));
    js_pool_give(p, k2);
    js_pool_free(p);
    /* the budget's options are part of what the cache keys on */
    OK(strstr(js_katex_version(), "/x1000-s100") != NULL);
    buf_release(&err);
    buf_release(&out);
    buf_release(&tex);
}

TEST(punctuation_stays_with_its_formula)
{
    EQ_INT(md_math_punct_len(""), 0);
    EQ_INT(md_math_punct_len(" ,"), 0);
    EQ_INT(md_math_punct_len(", and"), 1);
    EQ_INT(md_math_punct_len(".)\" x"), 3);
    EQ_INT(md_math_punct_len("’s"), 3);
    EQ_INT(md_math_punct_len("，而"), 3);
    EQ_INT(md_math_punct_len("。”"), 6);
    EQ_INT(md_math_punct_len("a."), 0);
    EQ_INT(md_math_punct_len("!!!!!!!!!!!!!!"), 12); /* at most 12 bytes */
    EQ_INT(md_math_punct_len("？？？？？"), 12);
    int calls = 0;
    md_options o = { .math = fake, .math_ctx = &calls };
    arena *a = arena_new();
    md_result r;
    md_render(str_from("So $x$, then $y$.) and $z$ end, $a!$. $$d$$.\n\n$e$，对\n"), 1, &o, NULL, a, &r);
    EQ_STR(r.html, "<p>So <span class=\"math-nowrap\"><math>x</math>,</span> then "
                   "<span class=\"math-nowrap\"><math>y</math>.)</span> and <math>z</math> end, . "
                   "<span class=\"math-scroll\" tabindex=\"0\" role=\"group\" aria-label=\"Formula\">"
                   "<math display=\"block\">d</math></span>.</p>\n"
                   "<p><span class=\"math-nowrap\"><math>e</math>，</span>对</p>\n");
    /* the words and the text of the page still hold the punctuation once */
    OK(r.text && strstr(r.text, "对") && !strstr(r.text, "，，"));
    arena_free(a);
    /* without a renderer, nothing is wrapped */
    md_options plain = { 0 };
    a = arena_new();
    md_render(str_from("$x$, y\n"), 1, &plain, NULL, a, &r);
    OK(strstr(r.html, "math-nowrap") == NULL);
    OK(strstr(r.html, "\\)</span>, y") != NULL);
    arena_free(a);
}

/* Formulas in the text of raw HTML blocks, which MathJax rendered in the
 * browser: rendered too, their character references decoded; not in code,
 * pre, script, style, textarea, nor in attribute values; never with math
 * off; `\_` stays TeX's even where the Markdown's TeX is Markdown first. */
TEST(math_in_raw_html)
{
    int calls = 0;
    md_options o = { .unsafe = true, .math = fake, .math_ctx = &calls };
    EQ_STR(render("<div class=\"box\" title=\"$t$\">\nSo $a &lt; b$ and \\(c\\), \\[d\\]\n"
                  "<code>$e$</code><pre>$f$</pre><script>x = '$g$'</script><textarea>$h$</textarea>\n"
                  "it cost $5 and $10, \\$ too</div>\n",
                  &o),
           "<div class=\"box\" title=\"$t$\">\nSo <math>a < b</math> and <math>c</math>, "
           "<span class=\"math-scroll\" tabindex=\"0\" role=\"group\" aria-label=\"Formula\">"
           "<math display=\"block\">d</math></span>\n"
           "<code>$e$</code><pre>$f$</pre><script>x = '$g$'</script><textarea>$h$</textarea>\n"
           "it cost $5 and $10, \\$ too</div>\n");
    EQ_INT(calls, 3);
    EQ_STR(render("<table><tr><td>$x_1$</td><td><b>$D\\_{KL}$</b></td></tr></table>\n", &o),
           "<table><tr><td><math>x_1</math></td><td><b><math>D\\_{KL}</math></b></td></tr></table>\n");
    o.math_escapes = true;
    EQ_STR(render("<p>$D\\_{KL}$</p>\n", &o), "<p><math>D\\_{KL}</math></p>\n");
    /* an error is at the formula's place in the file */
    arena *a = arena_new();
    md_result r;
    const char *md = "Text.\n\n<p>\none $a!b$\n</p>\n";
    md_render(str_make(md, strlen(md)), 1, &o, NULL, a, &r);
    EQ_INT(r.nproblems, 1);
    if (r.nproblems == 1) {
        EQ_INT(r.problems[0].line, 4);
        EQ_INT(r.problems[0].col, 7);
    }
    arena_free(a);
    /* inline HTML in a paragraph was math already; math off: none */
    o.off = md_extension_bit("math");
    EQ_STR(render("<p>$x$</p>\n", &o), "<p>$x$</p>\n");
}

int main(void)
{
    RUN(dollar_inline);
    RUN(dollar_display);
    RUN(paren_inline);
    RUN(block_lines);
    RUN(markdown_never_touches_tex);
    RUN(renderer_and_error_positions);
    RUN(equation_references);
    RUN(katex);
    RUN(katex_budgets);
    RUN(punctuation_stays_with_its_formula);
    RUN(markdown_escapes);
    RUN(math_in_raw_html);
    return harness_done();
}

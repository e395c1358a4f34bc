/* Unit tests for util/html: character references and the plain text of a
 * page (html_plain_text), every rule of it and its bounds. */
#include "harness.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/html.h"

static const char *plain(buf *b, const char *h, bool lines)
{
    buf_reset(b);
    html_plain_text(b, h, strlen(h), lines);
    return b->len ? b->data : "";
}

/* Text without markup: runs of blanks as one space, none at the ends —
 * the rule said plainly, against the 16-bytes-a-step copy on random text
 * (blocks with and without blanks, blanks at their edges and in pairs). */
TEST(blanks_in_blocks)
{
    static const char alphabet[] = "abcdefgh \t\n\r\f  xyz";
    uint32_t r = 4321;
    char text[80], want[80];
    buf b = BUF_INIT;
    for (int round = 0; round < 20000; round++) {
        size_t n = (size_t)(round % 75), w = 0;
        bool blank = false;
        for (size_t i = 0; i < n; i++) {
            r = r * 1103515245u + 12345u;
            char c = alphabet[(r >> 16) % (sizeof alphabet - 1)];
            text[i] = c;
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
                blank = true;
                continue;
            }
            if (blank && w)
                want[w++] = ' ';
            blank = false;
            want[w++] = c;
        }
        text[n] = want[w] = 0;
        if (strcmp(plain(&b, text, round % 2), want))
            FAILF("'%s': '%s', want '%s'", text, b.data, want);
    }
    /* after a block: the break pending (a line break with `lines`) is the
     * separator, whether the text starts with blanks or not; prose-like
     * text, so that blocks starting with a blank are copied whole too */
    static const char prose[] = "abcdefghijklmnopqrstuvwxyz \n abcdefghijklm\t";
    char html[100], want2[100];
    for (int round = 0; round < 20000; round++) {
        size_t n = (size_t)(round % 75), w = 0;
        bool blank = false, lines = round % 2;
        memcpy(html, "<p>x</p>", 8);
        for (size_t i = 0; i < n; i++) {
            r = r * 1103515245u + 12345u;
            char c = prose[(r >> 16) % (sizeof prose - 1)];
            html[8 + i] = c;
            if (c == ' ' || c == '\t' || c == '\n') {
                blank = true;
                continue;
            }
            if (blank && w)
                want[w++] = ' ';
            blank = false;
            want[w++] = c;
        }
        html[8 + n] = want[w] = 0;
        snprintf(want2, sizeof want2, "x%s%s", w ? (lines ? "\n" : " ") : "", want);
        if (strcmp(plain(&b, html, lines), want2))
            FAILF("'%s': '%s', want '%s'", html, b.data, want2);
    }
    buf_release(&b);
}

/* Text between tags and character references, at every offset from a
 * block's start and a run's end: the rule said plainly (a run of blanks
 * one pending space, a block a break, a reference its character) against
 * the block-a-step copy, whose last step in a run reads past the run. */
TEST(runs_and_references)
{
    static const struct {
        const char *html, *text; /* text: NULL a blank, "\1" a block */
    } units[] = {
        { "ab", "ab" }, { "x", "x" }, { "Quite long words", "Quite long words" },
        { " ", NULL }, { "\n", NULL }, { "\t\t", NULL }, { "  \n ", NULL },
        { "<em>", "" }, { "</em>", "" }, { "<a href=\"u&amp;v\">", "" },
        { "<p>", "\1" }, { "</p>\n", "\1" }, { "<br />", "\1" },
        { "&amp;", "&" }, { "&lt;", "<" }, { "&#65;", "A" }, { "& ", "&" }, { "&&amp;", "&&" },
    };
    enum { U = sizeof units / sizeof *units };
    uint32_t r = 97;
    char html[400], want[400];
    buf b = BUF_INIT;
    for (int round = 0; round < 40000; round++) {
        bool lines = round & 1;
        size_t h = 0, w = 0;
        int pending = 0;
        size_t count = (size_t)(round % 23);
        for (size_t u = 0; u < count; u++) {
            r = r * 1103515245u + 12345u;
            size_t k = (r >> 16) % U;
            size_t hl = strlen(units[k].html);
            memcpy(html + h, units[k].html, hl);
            h += hl;
            const char *t = units[k].text;
            if (!t) {
                if (!pending)
                    pending = 1;
                continue;
            }
            if (*t == '\1') {
                int brk = lines ? 2 : 1;
                if (brk > pending)
                    pending = brk;
                continue;
            }
            if (!*t)
                continue;
            if (units[k].html[0] == '&' && units[k].html[1] == ' ') { /* "& ": '&', then a blank */
                if (pending && w)
                    want[w++] = pending == 2 ? '\n' : ' ';
                want[w++] = '&';
                pending = 1;
                continue;
            }
            if (pending && w)
                want[w++] = pending == 2 ? '\n' : ' ';
            pending = 0;
            for (const char *c = t; *c; c++) {
                if (*c == ' ') {
                    pending = 1;
                    continue;
                }
                if (pending && w)
                    want[w++] = ' ';
                pending = 0;
                want[w++] = *c;
            }
        }
        html[h] = want[w] = 0;
        buf_reset(&b);
        html_plain_text(&b, html, h, lines);
        if (strcmp(b.len ? b.data : "", want))
            FAILF("'%s' (lines %d): '%s', want '%s'", html, lines, b.len ? b.data : "", want);
    }
    buf_release(&b);
}

TEST(references)
{
    buf b = BUF_INIT;
    EQ_INT((int)html_unescape_ref("&amp;x", 6, &b), 5);
    EQ_INT((int)html_unescape_ref("&#x41;", 6, &b), 6);
    EQ_INT((int)html_unescape_ref("&#65", 4, &b), 4);
    EQ_INT((int)html_unescape_ref("&mdash;", 7, &b), 7);
    EQ_INT((int)html_unescape_ref("&ampx", 5, &b), 4); /* the longest name that is one */
    EQ_INT((int)html_unescape_ref("&zz;", 4, &b), 0);
    EQ_INT((int)html_unescape_ref("&", 1, &b), 0);
    EQ_STR(b.data, "&A" "A" "\xe2\x80\x94" "&");
    buf_release(&b);
}

TEST(tags_and_space)
{
    buf b = BUF_INIT;
    EQ_STR(plain(&b, "<p>Hello,   <em>brave</em>\n new <a href=\"/x\">world</a>.</p>", false),
           "Hello, brave new world.");
    EQ_STR(plain(&b, "  <p> a </p>  ", false), "a");
    EQ_STR(plain(&b, "", false), "");
    EQ_STR(plain(&b, "a &lt;b&gt; &amp; &mdash; &#x4E2D;&nbsp;x", false),
           "a <b> & \xe2\x80\x94 \xe4\xb8\xad\xc2\xa0x");
    EQ_STR(plain(&b, "a<!-- note -->b<!--more-->c", false), "abc");
    EQ_STR(plain(&b, "<!DOCTYPE html><?xml x?>a", false), "a");
    EQ_STR(plain(&b, "1 < 2 and 3 <4", false), "1 < 2 and 3 <4");
    EQ_STR(plain(&b, "a<b title=\"x > y\">c</b>", false), "ac");
    EQ_STR(plain(&b, "a<b title='>'>c", false), "ac");
    EQ_STR(plain(&b, "word<span>joined</span>", false), "wordjoined");
    buf_release(&b);
}

TEST(blocks)
{
    buf b = BUF_INIT;
    const char *h = "<h2 id=\"t\">Title</h2><p>One.</p>\n<ul><li>a</li><li>b</li></ul>"
                    "<table><tr><td>x</td><td>y</td></tr></table>text<br>more";
    EQ_STR(plain(&b, h, true), "Title\nOne.\na\nb\nx\ny\ntext\nmore");
    EQ_STR(plain(&b, h, false), "Title One. a b x y text more");
    EQ_STR(plain(&b, "<P>A</P><DIV>B</DIV>", true), "A\nB");
    buf_release(&b);
}

/* Each kind of element found by its name in any case, whatever its
 * length (the short names are looked up packed in a number, the long ones
 * by their bytes), and a tag at the very end of the text. */
TEST(element_kinds)
{
    static const struct {
        const char *name, *want;
    } cases[] = {
        { "p", "a\nb\nc" },          { "P", "a\nb\nc" },         { "h6", "a\nb\nc" },
        { "H7", "abc" },             { "b", "abc" },               { "br", "a\nb\nc" },
        { "Br", "a\nb\nc" },         { "brx", "abc" },             { "wbr", "abc" },
        { "SPAN", "abc" },           { "svg", "ac" },              { "Script", "ac" },
        { "section", "a\nb\nc" },    { "details", "a\nb\nc" },     { "TEMPLATE", "ac" },
        { "textarea", "ac" },        { "textareas", "abc" },       { "blockquote", "a\nb\nc" },
        { "FigCaption", "a\nb\nc" }, { "annotation", "ac" },       { "annotation-xml", "ac" },
        { "Annotation-XML", "ac" },  { "annotation-xmlx", "abc" }, { "x:y", "abc" },
    };
    buf b = BUF_INIT, h = BUF_INIT;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        buf_reset(&h);
        buf_printf(&h, "a<%s>b</%s>c", cases[i].name, cases[i].name);
        EQ_STR(plain(&b, h.data, true), cases[i].want);
    }
    /* a name that ends the text: read without going past it */
    EQ_STR(plain(&b, "a</p", true), "a");
    EQ_STR(plain(&b, "a<P", true), "a");
    buf_release(&h);
    buf_release(&b);
}

TEST(formulas)
{
    buf b = BUF_INIT;
    /* what KaTeX writes: the formula once, as its TeX */
    const char *m = "<p>sums <math xmlns=\"http://www.w3.org/1998/Math/MathML\"><semantics><mrow>"
                    "<mi>k</mi><mi>n</mi><mo>=</mo><mn>8192</mn></mrow>"
                    "<annotation encoding=\"application/x-tex\">kn = 8192</annotation>"
                    "</semantics></math> values</p>";
    EQ_STR(plain(&b, m, false), "sums kn = 8192 values");
    /* references in the TeX are decoded */
    EQ_STR(plain(&b, "<math><annotation encoding=\"application/x-tex\">a &lt; b &amp; c</annotation></math>", false),
           "a < b & c");
    /* no TeX: the formula's text, the other annotations left out */
    EQ_STR(plain(&b, "<math><mi>x</mi><annotation encoding=\"text/plain\">ex</annotation>"
                     "<annotation-xml encoding=\"MathML-Content\"><ci>x</ci></annotation-xml></math>!", false),
           "x!");
    /* a TeX annotation after another annotation */
    EQ_STR(plain(&b, "<math><mi>y</mi><annotation encoding=\"a\">no</annotation>"
                     "<annotation encoding='application/x-tex'>y^2</annotation></math>", false),
           "y^2");
    /* an equation number hidden from readers stays out */
    EQ_STR(plain(&b, "<div class=\"math display\"><math><annotation encoding=\"application/x-tex\">E</annotation>"
                     "</math><span class=\"eqno\" aria-hidden=\"true\">(1)</span></div>after", true),
           "E\nafter");
    /* unclosed */
    EQ_STR(plain(&b, "a <math><mi>z</mi>", false), "a z");
    EQ_STR(plain(&b, "a <math><annotation encoding=\"application/x-tex\">q", false), "a q");
    buf_release(&b);
}

TEST(left_out)
{
    buf b = BUF_INIT;
    EQ_STR(plain(&b, "a<script>if (x < y) document.write('<b>')</script>b", false), "ab");
    EQ_STR(plain(&b, "a<style>p{}</style><template><p>t</p></template>b", false), "ab");
    EQ_STR(plain(&b, "a<button class=\"copy\">Copy</button>b<svg><text>L</text></svg>c", false), "abc");
    EQ_STR(plain(&b, "<h2>T <a class=\"anchor\" href=\"#t\" aria-hidden=\"true\">#</a></h2>", false), "T");
    EQ_STR(plain(&b, "<p hidden>x</p>y", false), "y");
    EQ_STR(plain(&b, "no<sup class=\"footnote-ref\"><a href=\"#fn-1\">1</a></sup> more", false), "no more");
    EQ_STR(plain(&b, "<p>note <a href=\"#fnref-1\" class=\"footnote-backref\">\xe2\x86\xa9</a></p>", false),
           "note");
    /* nested elements of the name left out are counted */
    EQ_STR(plain(&b, "<div aria-hidden=\"true\"><div>x</div>y</div>z", false), "z");
    EQ_STR(plain(&b, "<span aria-hidden=true><span/>x</span>z", false), "z");
    /* void elements end at once, whatever they say */
    EQ_STR(plain(&b, "a<img alt=\"pic\" aria-hidden=\"true\">b<br hidden>c", false), "ab c");
    /* class tokens are whole */
    EQ_STR(plain(&b, "<sup class=\"footnote-refs\">1</sup>", false), "1");
    /* an attribute's first occurrence counts, in any case, the others not */
    EQ_STR(plain(&b, "a<span class=\"x\" class=\"footnote-ref\">b</span>c", false), "abc");
    EQ_STR(plain(&b, "a<span aria-hidden=\"false\" ARIA-HIDDEN=\"true\">b</span>c", false), "abc");
    EQ_STR(plain(&b, "a<span Aria-Hidden=\"TRUE\" class=\"x\">b</span>c", false), "ac");
    EQ_STR(plain(&b, "a<span class=\"x\" data-y='z' HIDDEN>b</span>c", false), "ac");
    EQ_STR(plain(&b, "a<span title=hidden class = 'q footnote-backref'>b</span>c", false), "ac");
    EQ_STR(plain(&b, "a<span ==\"x\" / hidden=>b</span>c", false), "ac");
    EQ_STR(plain(&b, "a<script>never closed", false), "a");
    buf_release(&b);
}

TEST(marks)
{
    buf b = BUF_INIT;
    const char *h = "<p>As shown   <span class=\"c\">(Smith 2020)</span>, it <math><mi>x</mi>"
                    "<annotation encoding=\"application/x-tex\">x</annotation></math> works"
                    "<sup class=\"footnote-ref\">1</sup>.</p>  ";
    const char *span = strstr(h, "<span"), *after = strstr(h, "</span>") + 7;
    const char *mid = strstr(h, "<mi>"), *fn = strstr(h, ">1<") + 1;
    size_t marks[] = { 0, (size_t)(span - h), (size_t)(span - h) + 5, (size_t)(after - h),
                       (size_t)(mid - h), (size_t)(fn - h), strlen(h) - 1, strlen(h) };
    size_t at[8];
    html_plain_text_marked(&b, h, strlen(h), false, marks, at, 8);
    EQ_STR(b.data, "As shown (Smith 2020), it x works.");
    EQ_INT((int)at[0], 0);
    EQ_INT((int)at[1], 9);  /* "(Smith": after the space the white space before it makes */
    EQ_INT((int)at[2], 9);  /* inside the tag: where its text begins */
    EQ_INT((int)at[3], 21); /* ", it" */
    EQ_INT((int)at[4], 27); /* inside the formula: after it */
    EQ_INT((int)at[5], 33); /* inside the footnote mark: after it */
    EQ_INT((int)at[6], 34); /* trailing space never written: the end */
    EQ_INT((int)at[7], 34);
    buf_release(&b);
}

/* Pathological markup ends, within its bytes: nested or unclosed formulas
 * and left-out elements, many '<' with no '>'. That it is linear is checked
 * by tests/complexity (html_plain_text's case), not by a clock here. */
TEST(bounded)
{
    enum { N = 20000 };
    const char *units[] = { "<math>", "<math><annotation encoding=x>", "<svg>", "<a ", "<b title=\"",
                            "<!--", "<script><script>", "<span aria-hidden=true>", "&#x" };
    for (size_t u = 0; u < sizeof units / sizeof *units; u++) {
        size_t ul = strlen(units[u]);
        char *s = malloc(N * ul + 1);
        for (size_t i = 0; i < N; i++)
            memcpy(s + i * ul, units[u], ul);
        s[N * ul] = 0;
        buf b = BUF_INIT;
        html_plain_text(&b, s, N * ul, true);
        OK(b.len <= N * ul);
        buf_release(&b);
        free(s);
    }
}

int main(void)
{
    RUN(references);
    RUN(tags_and_space);
    RUN(blanks_in_blocks);
    RUN(runs_and_references);
    RUN(blocks);
    RUN(element_kinds);
    RUN(formulas);
    RUN(left_out);
    RUN(marks);
    RUN(bounded);
    return harness_done();
}

/* md/rawhtml.c: raw HTML in Markdown is part of the page, not a blind spot.
 *
 * cmark-gfm keeps raw HTML as literal text: a block (an HTML block, whole
 * lines) or an inline node (one tag or comment each: `<a href="x">`, the
 * text, `</a>` are three nodes). Each literal is read with gumbo, a real
 * HTML5 tokenizer and tree builder with source positions, in the context of
 * a <template> (so `<tr>`/`<td>` pieces of a table split over several
 * blocks are read as the browser will read them inside the whole table);
 * literals naming <html>, <head> or <body> are also read as a document, as
 * those tags' attributes only exist there. Then:
 *  - `id` on any element and `name` on <a> are ids of the page
 *    (md_claim_id): `#links` may target them, automatic heading ids avoid
 *    them;
 *  - `href` and `src` on any element but <base> are links, handed to the
 *    resolver like Markdown's (with the file position of the value) and
 *    rewritten in place when it says so: `.md` targets become the page's
 *    URL, root-relative paths get the base_url's path.
 * What a shortcode's template wrote (md_raw_html_at) carries its arguments,
 * which are data: its URLs — href, src, action, formaction, xlink:href —
 * must pass the URL policy (url_allowed: http, https, mailto, relative,
 * #fragment), else an error at the tag and the value is written empty.
 * Everything else is written exactly as it was. gumbo's objects stay here. */
#include <gumbo.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "md/internal.h"
#include "md/mathscan.h"
#include "util/url.h"
#include "util/xalloc.h"
#include "util/vec.h"

/* ATTR_URL: a URL only checked by the policy (a shortcode's action=, …);
 * TEXT_MATH: a formula in a text node (its TeX at tex, tex_len) */
typedef enum attr_kind { ATTR_ID, ATTR_LINK, ATTR_IMAGE, ATTR_URL, TEXT_MATH } attr_kind;

typedef struct found {
    size_t at, len;   /* the value as written, quotes included, in the literal */
    const char *value; /* decoded (gumbo's, freed with its output) */
    attr_kind kind;
    GumboNode *el;
    size_t tex, tex_len; /* TEXT_MATH: the TeX, in the literal */
    bool display;
} found;

typedef struct scan {
    md_vec v; /* found */
} scan;

static void collect(scan *s, GumboNode *n, const char *lit)
{
    if (n->type != GUMBO_NODE_ELEMENT && n->type != GUMBO_NODE_TEMPLATE)
        return;
    GumboElement *e = &n->v.element;
    for (unsigned i = 0; i < e->attributes.length; i++) {
        GumboAttribute *at = e->attributes.data[i];
        if (!at->original_value.data || !at->original_value.length)
            continue; /* no value; or made by the parser, not written */
        attr_kind k;
        if (!strcmp(at->name, "id") || (!strcmp(at->name, "name") && e->tag == GUMBO_TAG_A))
            k = ATTR_ID;
        else if (!strcmp(at->name, "href") && e->tag != GUMBO_TAG_BASE)
            k = ATTR_LINK;
        else if (!strcmp(at->name, "src"))
            k = ATTR_IMAGE;
        else if (!strcmp(at->name, "action") || !strcmp(at->name, "formaction")
                 || !strcmp(at->name, "xlink:href")
                 || (at->attr_namespace == GUMBO_ATTR_NAMESPACE_XLINK && !strcmp(at->name, "href")))
            k = ATTR_URL;
        else
            continue;
        found *f = md_vec_push(&s->v);
        f->at = (size_t)(at->original_value.data - lit);
        f->len = at->original_value.length;
        f->value = at->value;
        f->kind = k;
        f->el = n;
    }
    for (unsigned i = 0; i < e->children.length; i++)
        collect(s, e->children.data[i], lit);
}

/* Formulas in the text of a raw HTML block, which MathJax or KaTeX's
 * auto-render found in the browser on the old sites (`<td>$x^2$</td>`,
 * `<p>\\(a\\)</p>`): by sheaf's delimiter rules (md/mathscan.h), and
 * `\\[…\\]`, within one text node — never in the elements those scripts
 * skip, nor in attribute values (no text nodes). */
static bool math_skipped(GumboTag t)
{
    return t == GUMBO_TAG_CODE || t == GUMBO_TAG_PRE || t == GUMBO_TAG_SCRIPT || t == GUMBO_TAG_STYLE
           || t == GUMBO_TAG_TEXTAREA || t == GUMBO_TAG_NOSCRIPT || t == GUMBO_TAG_KBD || t == GUMBO_TAG_SAMP
           || t == GUMBO_TAG_MATH || t == GUMBO_TAG_SVG || t == GUMBO_TAG_TITLE;
}

static void collect_math(scan *s, GumboNode *n, const char *lit, size_t len)
{
    if (n->type == GUMBO_NODE_ELEMENT || n->type == GUMBO_NODE_TEMPLATE) {
        if (math_skipped(n->v.element.tag))
            return;
        for (unsigned i = 0; i < n->v.element.children.length; i++)
            collect_math(s, n->v.element.children.data[i], lit, len);
        return;
    }
    if (n->type != GUMBO_NODE_TEXT)
        return;
    const char *t = n->v.text.original_text.data;
    size_t tn = n->v.text.original_text.length;
    if (!t || t < lit || t + tn > lit + len)
        return; /* made by the parser, not written */
    for (size_t j = 0; j < tn; j++) {
        if (t[j] == '\\' && j + 1 < tn && t[j + 1] != '(' && t[j + 1] != '[') {
            j++; /* \$ and other escapes */
            continue;
        }
        md_math_span sp;
        bool ok = false;
        if (t[j] == '\\' && t[j + 1] == '[') {
            for (size_t k = j + 2; k + 1 < tn && !ok; k++) {
                if (t[k] == '\\' && t[k + 1] == ']' && k > j + 2) {
                    sp = (md_math_span){ .tex = j + 2, .tex_len = k - j - 2, .end = k + 2, .display = true };
                    ok = true;
                } else if (t[k] == '\\') {
                    k++;
                }
            }
        } else if (t[j] == '$' || t[j] == '\\') {
            ok = md_math_scan(t, tn, j, &sp);
        }
        if (!ok)
            continue;
        found *f = md_vec_push(&s->v);
        memset(f, 0, sizeof *f);
        f->at = (size_t)(t + j - lit);
        f->len = sp.end - j;
        f->tex = (size_t)(t - lit) + sp.tex;
        f->tex_len = sp.tex_len;
        f->display = sp.display;
        f->kind = TEXT_MATH;
        f->el = n;
        j = sp.end - 1;
    }
}

/* The TeX of a formula in HTML text, its character references decoded
 * (`a &lt; b`, `&amp;` in a matrix), as the browser gave it to MathJax. */
static void html_tex(const char *s, size_t n, buf *out)
{
    static const struct { const char *ref, *ch; } refs[] = { { "&lt;", "<" },    { "&gt;", ">" },
                                                             { "&amp;", "&" },   { "&quot;", "\"" },
                                                             { "&#39;", "'" },   { "&apos;", "'" },
                                                             { "&nbsp;", " " } };
    for (size_t i = 0; i < n; i++) {
        size_t k = 0, nrefs = sizeof refs / sizeof *refs;
        if (s[i] == '&')
            while (k < nrefs && (strlen(refs[k].ref) > n - i || strncmp(s + i, refs[k].ref, strlen(refs[k].ref))))
                k++;
        if (s[i] == '&' && k < nrefs) {
            buf_puts(out, refs[k].ch);
            i += strlen(refs[k].ref) - 1;
        } else {
            buf_putc(out, s[i]);
        }
    }
}

/* md_put_img_attrs's question: does the tag have this attribute? */
static bool img_has(void *attrs, const char *name)
{
    return gumbo_get_attribute(attrs, name) != NULL;
}

static int by_place(const void *a, const void *b)
{
    const found *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* The text inside an element, as far as this literal holds it. */
static void element_text(GumboNode *n, buf *b)
{
    if (n->type == GUMBO_NODE_TEXT || n->type == GUMBO_NODE_WHITESPACE) {
        buf_puts(b, n->v.text.text);
        return;
    }
    if (n->type != GUMBO_NODE_ELEMENT)
        return;
    for (unsigned i = 0; i < n->v.element.children.length; i++)
        element_text(n->v.element.children.data[i], b);
}

/* Where byte `at` of node n's literal is in the file (cmark's lines). */
static void place(md_walk *w, cmark_node *n, const char *lit, size_t at, int first_line,
                  int first_col, int *line, int *col)
{
    size_t ls = 0; /* start of the literal's line holding `at` */
    int k = 0;
    for (const char *p = lit; (p = memchr(p, '\n', at - (size_t)(p - lit))) != NULL; p++) {
        k++;
        ls = (size_t)(p - lit) + 1;
    }
    size_t le = ls + strcspn(lit + ls, "\n");
    *line = first_line + k;
    *col = (int)(at - ls) + 1;
    const char *s;
    size_t slen;
    if (!md_source_line(md_walk_source(w), *line, &s, &slen))
        return;
    size_t llen = le - ls;
    if (cmark_node_get_type(n) == CMARK_NODE_HTML_BLOCK) {
        /* the block's lines are the source lines less their container
         * prefix (`> `, a list item's indentation) */
        if (slen >= llen)
            *col = (int)(slen - llen + (at - ls)) + 1;
    } else if (k == 0) {
        *col = first_col + (int)at;
    } else if (llen) {
        const char *q = memmem(s, slen, lit + ls, llen);
        if (q)
            *col = (int)(q - s + (ptrdiff_t)(at - ls)) + 1;
    }
}

/* Where the literal of an inline node starts: cmark's position is a hint,
 * the text is looked up near it in the block. */
static void inline_start(md_walk *w, cmark_node *n, const char *lit, int *line, int *col)
{
    *line = cmark_node_get_start_line(n);
    *col = cmark_node_get_start_column(n) > 0 ? cmark_node_get_start_column(n) : 1;
    size_t first = strcspn(lit, "\n");
    int l, c;
    if (md_find_in_leaf(md_walk_source(w), md_leaf_of(n), *line, *col, lit, first, &l, &c)) {
        *line = l;
        *col = c;
    }
}

static bool worth_reading(const char *lit, size_t len)
{
    return memchr(lit, '=', len)
           && (strcasestr(lit, "id") || strcasestr(lit, "href") || strcasestr(lit, "src")
               || strcasestr(lit, "name") || strcasestr(lit, "action"));
}

/* Reads lit (the literal of node n; or, n NULL, HTML that is not in the
 * source, whose links are all at line0:col0) and writes it to out. */
static void read_html(md_walk *w, buf *out, cmark_node *n, const char *lit, size_t len, int line0,
                      int col0)
{
    bool block = n && cmark_node_get_type(n) == CMARK_NODE_HTML_BLOCK;
    bool placed = n == NULL;
    bool math = block && md_ext_on(w, MD_EXT_MATH) && !md_walk_options(w)->reference
                && (memchr(lit, '$', len) || strstr(lit, "\\(") || strstr(lit, "\\["));
    if (!math && !worth_reading(lit, len)) {
        buf_put(out, lit, len);
        return;
    }
    GumboOptions o = kGumboDefaultOptions;
    o.max_errors = 0;
    o.fragment_context = GUMBO_TAG_TEMPLATE;
    GumboOutput *g = gumbo_parse_with_options(&o, lit, len);
    GumboOptions doc_o = kGumboDefaultOptions;
    doc_o.max_errors = 0;
    GumboOutput *d = NULL;
    if (strcasestr(lit, "<html") || strcasestr(lit, "<head") || strcasestr(lit, "<body"))
        d = gumbo_parse_with_options(&doc_o, lit, len);
    scan s = { .v = { .size = sizeof(found) } };
    collect(&s, g->root, lit);
    if (d)
        collect(&s, d->root, lit);
    if (math)
        collect_math(&s, g->root, lit, len);
    found *f = s.v.v;
    if (s.v.n > 1)
        vec_sort(f, s.v.n, sizeof *f, by_place);
    size_t copied = 0;
    buf text = BUF_INIT;
    for (size_t i = 0; i < s.v.n; i++) {
        if (i && f[i].at == f[i - 1].at)
            continue; /* read twice (an element the parser cloned, or both readings) */
        if (!placed) {
            if (!block)
                inline_start(w, n, lit, &line0, &col0);
            placed = true;
        }
        size_t vat = f[i].at + (lit[f[i].at] == '"' || lit[f[i].at] == '\'');
        int line = line0, col = col0;
        if (n)
            place(w, n, lit, vat, line0, col0, &line, &col);
        if (f[i].kind == TEXT_MATH) {
            if (f[i].at < copied)
                continue;
            int tl = line0, tc = col0;
            place(w, n, lit, f[i].tex, line0, col0, &tl, &tc);
            buf_reset(&text);
            html_tex(lit + f[i].tex, f[i].tex_len, &text);
            buf_put(out, lit + copied, f[i].at - copied);
            md_math_in_html(w, out, arena_strndup(md_walk_arena(w), text.data, text.len), text.len, f[i].display,
                            tl, tc);
            copied = f[i].at + f[i].len;
            continue;
        }
        if (f[i].kind == ATTR_ID) {
            if (*f[i].value)
                md_claim_id(w, f[i].value, strlen(f[i].value), line, col, false);
            continue;
        }
        char scheme[32];
        if (!n && !url_allowed(f[i].value, strlen(f[i].value), scheme)) {
            md_problem_at(w, true, line, col,
                          "a shortcode wrote the URL '%.60s' (scheme '%s:'): only http, https, "
                          "mailto, relative and #fragment URLs are written from a shortcode",
                          f[i].value, scheme);
            buf_put(out, lit + copied, f[i].at - copied);
            buf_puts(out, "\"\"");
            copied = f[i].at + f[i].len;
            continue;
        }
        if (f[i].kind == ATTR_URL)
            continue;
        buf_reset(&text);
        if (f[i].kind == ATTR_LINK)
            element_text(f[i].el, &text);
        bool img = f[i].kind == ATTR_IMAGE && f[i].el->type == GUMBO_NODE_ELEMENT
                   && f[i].el->v.element.tag == GUMBO_TAG_IMG;
        md_img_attrs ia;
        const char *to = md_resolve_link(w, f[i].value, text.data, line, col, f[i].kind == ATTR_IMAGE,
                                         img ? &ia : NULL);
        bool more = img && (ia.width || ia.lazy || ia.srcset);
        if (!to && !more)
            continue;
        buf_put(out, lit + copied, f[i].at - copied);
        if (to) {
            buf_putc(out, '"');
            md_put_escaped_cstr(out, to);
            buf_putc(out, '"');
        } else {
            buf_put(out, lit + f[i].at, f[i].len);
        }
        copied = f[i].at + f[i].len;
        if (more)
            md_put_img_attrs(out, &ia, img_has, &f[i].el->v.element.attributes);
    }
    buf_put(out, lit + copied, len - copied);
    buf_release(&text);
    free(s.v.v);
    gumbo_destroy_output(&o, g);
    if (d)
        gumbo_destroy_output(&doc_o, d);
}

void md_raw_html(md_walk *w, buf *out, cmark_node *n)
{
    const char *lit = cmark_node_get_literal(n);
    int line0 = cmark_node_get_start_line(n);
    if (cmark_node_get_type(n) == CMARK_NODE_HTML_BLOCK && (strstr(lit, "{{") || strstr(lit, "{%")))
        md_lint_literal(w, lit, line0, cmark_node_get_start_column(n));
    read_html(w, out, n, lit, strlen(lit), line0, 1);
}

void md_raw_html_at(md_walk *w, buf *out, const char *html, size_t len, int line, int col)
{
    char *copy = xmalloc(len + 1); /* a piece of a longer text: the scan wants its own NUL */
    memcpy(copy, html, len);
    copy[len] = 0;
    read_html(w, out, NULL, copy, len, line, col);
    free(copy);
}

/* md/mathml.c: a pass over the MathML that KaTeX writes for a formula,
 * run once when the formula is rendered (site/math.c, before the formula
 * cache keeps it), so that browsers implementing MathML Core draw what TeX
 * would (see mathml.h for the list of rewrites).
 *
 * Why each rewrite: MathML Core, which Chromium implements, keeps only
 * mathvariant="normal" (letters must be the Mathematical Alphanumeric
 * characters themselves); it gives an operator its dictionary spacing at
 * every script level, where TeX's script style drops the space around
 * binary operators and relations; and it reads none of mtable's
 * columnalign, columnspacing or rowspacing, nor the width attributes, so
 * those become CSS on the cells (as Temml writes its own MathML). Firefox
 * reads the attributes too: they are left as they are where both agree
 * (columnalign), and set to 0 where the styles replace them (spacing).
 *
 * The input is KaTeX's output, well-formed and small, but the pass must
 * not trust it: it reads tags with a small tokenizer, keeps a stack of the
 * open elements (their names point into the input), copies whatever it does
 * not recognise byte for byte, and looks ahead (a token's text, a table's
 * rows, a row's cells) only within a budget of bytes for the whole pass,
 * so its time stays linear in the input. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md/mathml.h"
#include "util/xalloc.h"

#define MAX_ATTRS 24

typedef struct slice {
    const char *p;
    size_t n;
} slice;

static bool is(slice s, const char *lit) { return s.n == strlen(lit) && !memcmp(s.p, lit, s.n); }

/* ---- tags ---- */

enum { TAG_START, TAG_END, TAG_OTHER };

typedef struct tag {
    int kind;
    bool self_closing;
    slice name;
    size_t nattrs;
    slice an[MAX_ATTRS], av[MAX_ATTRS]; /* attribute names and raw values */
    bool too_many;                      /* more attributes than MAX_ATTRS */
    const char *end;                    /* just past '>' */
} tag;

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == ':' || c == '.';
}

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* Reads the tag at p (*p == '<'); false when it does not close before
 * end. */
static bool read_tag(const char *p, const char *end, tag *t)
{
    /* (not memset: the attribute arrays are written as they are read) */
    t->self_closing = t->too_many = false;
    t->nattrs = 0;
    t->end = NULL;
    const char *q = p + 1;
    if (q < end && (*q == '!' || *q == '?')) {
        const char *gt = memchr(q, '>', (size_t)(end - q));
        t->kind = TAG_OTHER;
        t->end = gt ? gt + 1 : NULL;
        return gt != NULL;
    }
    t->kind = TAG_START;
    if (q < end && *q == '/') {
        t->kind = TAG_END;
        q++;
    }
    t->name.p = q;
    while (q < end && name_char(*q))
        q++;
    t->name.n = (size_t)(q - t->name.p);
    for (;;) {
        q = skip_space(q, end);
        if (q >= end)
            return false;
        if (*q == '>') {
            t->end = q + 1;
            return true;
        }
        if (*q == '/' && q + 1 < end && q[1] == '>') {
            t->self_closing = true;
            t->end = q + 2;
            return true;
        }
        slice an = { q, 0 }, av = { q, 0 };
        while (q < end && *q != '=' && *q != '>' && *q != '/' && *q != ' ' && *q != '\t' &&
               *q != '\n' && *q != '\r')
            q++;
        an.n = (size_t)(q - an.p);
        if (!an.n) { /* a stray '/' or '=' */
            q++;
            continue;
        }
        q = skip_space(q, end);
        if (q < end && *q == '=') {
            q = skip_space(q + 1, end);
            if (q < end && (*q == '"' || *q == '\'')) {
                const char *close = memchr(q + 1, *q, (size_t)(end - q - 1));
                if (!close)
                    return false;
                av = (slice){ q + 1, (size_t)(close - q - 1) };
                q = close + 1;
            } else {
                av.p = q;
                while (q < end && *q != '>' && *q != ' ' && *q != '\t' && *q != '\n' && *q != '\r')
                    q++;
                av.n = (size_t)(q - av.p);
            }
        }
        if (t->nattrs == MAX_ATTRS) {
            t->too_many = true;
            continue;
        }
        t->an[t->nattrs] = an;
        t->av[t->nattrs++] = av;
    }
}

static const slice *attr(const tag *t, const char *name)
{
    for (size_t i = 0; i < t->nattrs; i++)
        if (is(t->an[i], name))
            return &t->av[i];
    return NULL;
}

/* Whether the class list c holds name. */
static bool has_class(const slice *c, const char *name)
{
    if (!c)
        return false;
    size_t n = strlen(name);
    const char *p = c->p, *end = c->p + c->n;
    while (p < end) {
        p = skip_space(p, end);
        const char *w = p;
        while (p < end && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            p++;
        if ((size_t)(p - w) == n && !memcmp(w, name, n))
            return true;
    }
    return false;
}

/* A cell KaTeX adds to centre a numbered row (\tag, align's glue) rather
 * than one of the table's columns. */
static bool is_filler(const tag *t)
{
    const slice *c = attr(t, "class");
    return attr(t, "width") || has_class(c, "mtr-glue") || has_class(c, "mml-eqn-num");
}

/* Counts the children named name of the element whose content starts at p
 * (fillers not counted); -1 when the content does not close before end or
 * when reading it would pass *budget bytes, which it lowers by what it
 * reads: a budget for the whole pass keeps its time linear however deep
 * the tables nest. */
static int count_children(const char *p, const char *end, const char *name, size_t *budget)
{
    const char *start = p;
    size_t depth = 0;
    int n = 0;
    while (p < end && (size_t)(p - start) < *budget) {
        const char *lt = memchr(p, '<', (size_t)(end - p));
        tag t;
        if (!lt || !read_tag(lt, end, &t))
            break;
        p = t.end;
        if (t.kind == TAG_END) {
            if (depth-- == 0) {
                *budget -= (size_t)(p - start);
                return n;
            }
        } else if (t.kind == TAG_START) {
            if (depth == 0 && is(t.name, name) && !is_filler(&t))
                n++;
            if (!t.self_closing)
                depth++;
        }
    }
    *budget = (size_t)(p - start) < *budget ? *budget - (size_t)(p - start) : 0;
    return -1;
}

/* ---- letters ---- */

typedef struct variant {
    const char *name;
    uint32_t upper, lower, digit, greek_upper, greek_lower;
    const char *exceptions; /* pairs: an ASCII letter, then its code point in hex, ';' */
    const char *text_style; /* for mtext: CSS instead of other characters */
} variant;

static const variant variants[] = {
    { "bold", 0x1D400, 0x1D41A, 0x1D7CE, 0x1D6A8, 0x1D6C2, "", "font-weight:bold" },
    { "italic", 0x1D434, 0x1D44E, 0, 0x1D6E2, 0x1D6FC, "h210E;", "font-style:italic" },
    { "bold-italic", 0x1D468, 0x1D482, 0, 0x1D71C, 0x1D736, "",
      "font-weight:bold;font-style:italic" },
    { "script", 0x1D49C, 0x1D4B6, 0, 0, 0,
      "B212C;E2130;F2131;H210B;I2110;L2112;M2133;R211B;e212F;g210A;o2134;", NULL },
    { "bold-script", 0x1D4D0, 0x1D4EA, 0, 0, 0, "", NULL },
    { "fraktur", 0x1D504, 0x1D51E, 0, 0, 0, "C212D;H210C;I2111;R211C;Z2128;", NULL },
    { "bold-fraktur", 0x1D56C, 0x1D586, 0, 0, 0, "", NULL },
    { "double-struck", 0x1D538, 0x1D552, 0x1D7D8, 0, 0, "C2102;H210D;N2115;P2119;Q211A;R211D;Z2124;",
      NULL },
    { "sans-serif", 0x1D5A0, 0x1D5BA, 0x1D7E2, 0, 0, "", "font-family:sans-serif" },
    { "bold-sans-serif", 0x1D5D4, 0x1D5EE, 0x1D7EC, 0x1D756, 0x1D770, "",
      "font-family:sans-serif;font-weight:bold" },
    { "sans-serif-italic", 0x1D608, 0x1D622, 0, 0, 0, "", "font-family:sans-serif;font-style:italic" },
    { "sans-serif-bold-italic", 0x1D63C, 0x1D656, 0, 0x1D790, 0x1D7AA, "",
      "font-family:sans-serif;font-weight:bold;font-style:italic" },
    { "monospace", 0x1D670, 0x1D68A, 0x1D7F6, 0, 0, "", "font-family:monospace" },
};

static const variant *find_variant(slice name)
{
    for (size_t i = 0; i < sizeof variants / sizeof *variants; i++)
        if (is(name, variants[i].name))
            return &variants[i];
    return NULL;
}

/* The Greek letters after the 25 of each case, in the order of the
 * Mathematical Alphanumeric blocks: ∇ after Ω; ∂ ϵ ϑ ϰ ϕ ϱ ϖ after ω. */
static const uint32_t greek_lower_extra[] = { 0x2202, 0x3F5, 0x3D1, 0x3F0, 0x3D5, 0x3F1, 0x3D6 };

static uint32_t hex4(const char *s)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v = v * 16 + (uint32_t)(s[i] <= '9' ? s[i] - '0' : s[i] - 'A' + 10);
    return v;
}

/* The character c in variant v, or 0 when Unicode has none. */
static uint32_t map_char(const variant *v, uint32_t c)
{
    if (c < 0x80) {
        for (const char *e = v->exceptions; *e; e = strchr(e, ';') + 1)
            if ((unsigned char)*e == c)
                return hex4(e + 1);
    }
    if (c >= 'A' && c <= 'Z')
        return v->upper + (c - 'A');
    if (c >= 'a' && c <= 'z')
        return v->lower + (c - 'a');
    if (c >= '0' && c <= '9')
        return v->digit ? v->digit + (c - '0') : 0;
    if (v->greek_upper) {
        if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2)
            return v->greek_upper + (c - 0x391);
        if (c == 0x3F4) /* ϴ, in the place of the missing U+03A2 */
            return v->greek_upper + 17;
        if (c == 0x2207)
            return v->greek_upper + 25;
    }
    if (v->greek_lower) {
        if (c >= 0x3B1 && c <= 0x3C9)
            return v->greek_lower + (c - 0x3B1);
        for (size_t i = 0; i < sizeof greek_lower_extra / sizeof *greek_lower_extra; i++)
            if (c == greek_lower_extra[i])
                return v->greek_lower + 25 + (uint32_t)i;
    }
    return 0;
}

/* Decodes one UTF-8 character at s (n bytes left) into *c; its length, or
 * 0 when the bytes are not a well-formed character. */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *c)
{
    if (s[0] < 0x80) {
        *c = s[0];
        return 1;
    }
    size_t len = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    if (!len || len > n || s[0] > 0xF4)
        return 0;
    uint32_t v = s[0] & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3F);
    }
    static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (v < min[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *c = v;
    return len;
}

static void utf8_put(buf *out, uint32_t c)
{
    if (c < 0x80) {
        buf_putc(out, (int)c);
    } else if (c < 0x800) {
        buf_putc(out, (int)(0xC0 | c >> 6));
        buf_putc(out, (int)(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
        buf_putc(out, (int)(0xE0 | c >> 12));
        buf_putc(out, (int)(0x80 | (c >> 6 & 0x3F)));
        buf_putc(out, (int)(0x80 | (c & 0x3F)));
    } else {
        buf_putc(out, (int)(0xF0 | c >> 18));
        buf_putc(out, (int)(0x80 | (c >> 12 & 0x3F)));
        buf_putc(out, (int)(0x80 | (c >> 6 & 0x3F)));
        buf_putc(out, (int)(0x80 | (c & 0x3F)));
    }
}

/* Appends text in variant v to out; false (out as it was) when a character
 * of it has no such form. */
static bool map_text(buf *out, const variant *v, slice text)
{
    size_t mark = out->len;
    const unsigned char *s = (const unsigned char *)text.p;
    size_t i = 0;
    while (i < text.n) {
        uint32_t c, m;
        size_t k = utf8_decode(s + i, text.n - i, &c);
        if (!k || !(m = map_char(v, c))) {
            buf_truncate(out, mark);
            return false;
        }
        utf8_put(out, m);
        i += k;
    }
    return text.n > 0;
}

/* ---- lengths ---- */

/* The i-th word of a space-separated list (the last one past its end); an
 * empty slice when the list is empty. */
static slice nth(const slice *list, size_t i)
{
    slice last = { NULL, 0 };
    if (!list)
        return last;
    const char *p = list->p, *end = list->p + list->n;
    for (size_t k = 0;; k++) {
        p = skip_space(p, end);
        if (p >= end)
            return last;
        const char *w = p;
        while (p < end && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            p++;
        last = (slice){ w, (size_t)(p - w) };
        if (k == i)
            return last;
    }
}

/* Appends half of the length s ("1em", "0.2778em", "5pt") to out, in the
 * same unit: false (nothing written) when s is not such a length. Written
 * with integers, to four decimals, whatever the C locale. */
static bool put_half(buf *out, slice s)
{
    size_t i = 0;
    uint64_t v = 0; /* in 1/10000 */
    int digits = 0;
    while (i < s.n && s.p[i] >= '0' && s.p[i] <= '9' && digits < 9) {
        v = v * 10 + (uint64_t)(s.p[i++] - '0');
        digits++;
    }
    v *= 10000;
    if (i < s.n && s.p[i] == '.') {
        i++;
        uint64_t scale = 1000;
        while (i < s.n && s.p[i] >= '0' && s.p[i] <= '9') {
            v += (uint64_t)(s.p[i] - '0') * scale;
            scale /= 10;
            i++;
            digits++;
        }
    }
    size_t unit = i;
    while (i < s.n && ((s.p[i] >= 'a' && s.p[i] <= 'z') || s.p[i] == '%'))
        i++;
    if (!digits || i != s.n || i - unit > 3)
        return false;
    v /= 2;
    if (!v) {
        buf_putc(out, '0');
        return true;
    }
    buf_printf(out, "%llu", (unsigned long long)(v / 10000));
    unsigned frac = (unsigned)(v % 10000);
    if (frac) {
        char d[8];
        int k = snprintf(d, sizeof d, ".%04u", frac);
        while (k > 1 && d[k - 1] == '0') /* d starts with '.': k stays >= 1 */
            k--;
        if (k > 1)
            buf_put(out, d, (size_t)k);
    }
    buf_put(out, s.p + unit, s.n - unit);
    return true;
}

/* The padding of one side of a cell: half the space between it and its
 * neighbour (space, from the list, or the MathML default dflt), 0 at the
 * table's edge. */
static void put_pad(buf *out, bool edge, slice space, const char *dflt)
{
    if (edge || !put_half(out, space.n ? space : (slice){ dflt, strlen(dflt) }))
        buf_putc(out, '0');
}

/* ---- the pass ---- */

typedef struct frame {
    slice name;
    size_t children;     /* element children seen so far */
    bool script;         /* in TeX's script style: operators get no space */
    bool display;        /* in display style (a fraction's parts are not scripts) */
    bool dropped;        /* its tags are not written */
    /* mtable */
    slice align, cspace, rspace;
    bool has_align, has_cspace, has_rspace;
    int rows, row;       /* rows (-1: unknown) and the next row's index */
    /* mtr */
    int cols, col;       /* cells (-1: unknown) and the next cell's index */
    int row_index;
} frame;

typedef struct pass {
    buf *out;
    const char *end;
    frame *stack;
    size_t depth, cap;
    size_t budget;       /* bytes count_children may still read */
} pass;

static bool in_list(slice name, const char *const *list)
{
    for (; *list; list++)
        if (is(name, *list))
            return true;
    return false;
}

static const char *const scripted[] = { "msub",       "msup",   "msubsup",       "munder",
                                        "mover",      "munderover", "mmultiscripts", "mroot", NULL };
static const char *const tokens[] = { "mi", "mn", "mo", "mtext", "ms", NULL };

/* Large operators and function names keep TeX's thin space even in a
 * script. */
static bool keeps_space(slice text)
{
    static const char *const big[] = { "∑", "∏", "∐", "∫", "∬", "∭", "∮", "∯", "∰", "⋀", "⋁",
                                       "⋂", "⋃", "⨀", "⨁", "⨂", "⨄", "⨆", "⨌", NULL };
    if (in_list(text, big))
        return true;
    if (text.n < 2)
        return false;
    for (size_t i = 0; i < text.n; i++)
        if (!((text.p[i] >= 'a' && text.p[i] <= 'z') || (text.p[i] >= 'A' && text.p[i] <= 'Z')))
            return false;
    return true;
}

static void put_tag_start(buf *out, const tag *t, const char *const *drop)
{
    buf_putc(out, '<');
    buf_put(out, t->name.p, t->name.n);
    for (size_t i = 0; i < t->nattrs; i++) {
        if (drop && in_list(t->an[i], drop))
            continue;
        buf_putc(out, ' ');
        buf_put(out, t->an[i].p, t->an[i].n);
        buf_puts(out, "=\"");
        buf_put(out, t->av[i].p, t->av[i].n);
        buf_putc(out, '"');
    }
}

static void put_tag_end(buf *out, const tag *t) { buf_puts(out, t->self_closing ? "/>" : ">"); }

/* style="ours;theirs", where ours is already in s */
static void put_style(buf *out, const tag *t, const buf *s)
{
    const slice *old = attr(t, "style");
    buf_puts(out, " style=\"");
    buf_put(out, s->data, s->len);
    if (old && old->n) {
        buf_putc(out, ';');
        buf_put(out, old->p, old->n);
    }
    buf_putc(out, '"');
}

static frame *push(pass *ps, const tag *t)
{
    if (ps->depth == ps->cap) {
        ps->cap = ps->cap ? ps->cap * 2 : 32;
        ps->stack = xrealloc(ps->stack, ps->cap * sizeof *ps->stack);
    }
    frame *f = &ps->stack[ps->depth++];
    memset(f, 0, sizeof *f);
    f->name = t->name;
    f->rows = f->cols = -1;
    return f;
}

/* The text of a token element whose start tag ends at p, when nothing but
 * text comes before its end tag (named name). */
static bool token_text(const char *p, const char *end, slice name, slice *text)
{
    const char *lt = memchr(p, '<', (size_t)(end - p));
    if (!lt || (size_t)(end - lt) < name.n + 3 || lt[1] != '/' || memcmp(lt + 2, name.p, name.n) ||
        lt[2 + name.n] != '>')
        return false;
    *text = (slice){ p, (size_t)(lt - p) };
    return true;
}

/* A cell's style: its column's alignment and half the spaces to its
 * neighbours, as padding. */
static void cell_style(buf *s, const tag *t, const frame *table, const frame *row)
{
    int j = row->col, i = row->row_index;
    const slice *own = attr(t, "columnalign");
    slice a = own ? *own : nth(table->has_align ? &table->align : NULL, (size_t)j);
    if (is(a, "left") || is(a, "right") || is(a, "center")) {
        /* Chromium makes a cell's content a block, which only its own
         * -webkit- values move; other browsers skip what they lack */
        buf_printf(s, "text-align:%.*s;text-align:-webkit-%.*s;", (int)a.n, a.p, (int)a.n, a.p);
    }
    const slice *rs = table->has_rspace ? &table->rspace : NULL;
    const slice *cs = table->has_cspace ? &table->cspace : NULL;
    buf_puts(s, "padding:");
    put_pad(s, i == 0, nth(rs, (size_t)(i > 0 ? i - 1 : 0)), "1ex");
    buf_putc(s, ' ');
    put_pad(s, row->cols >= 0 && j >= row->cols - 1, nth(cs, (size_t)j), "0.8em");
    buf_putc(s, ' ');
    put_pad(s, table->rows >= 0 && i >= table->rows - 1, nth(rs, (size_t)i), "1ex");
    buf_putc(s, ' ');
    put_pad(s, j == 0, nth(cs, (size_t)(j > 0 ? j - 1 : 0)), "0.8em");
}

/* Handles the start tag t (ending at t->end); returns where to go on. */
/* U+2061 FUNCTION APPLICATION, which KaTeX writes after \log, \sin,
 * \operatorname{…}: TeX's thin space between an operator name and what
 * follows, which MathML Core's dictionary gives it none of. Marked with a
 * class for the theme to space (style.css, .fn-apply), not with rspace:
 * Firefox adds TeX's spacing between a row's atoms itself (in an explicit
 * <mrow>, whatever the operator's rspace), so rspace would double it. */
static bool is_apply(slice text) { return is(text, "\xe2\x81\xa1"); }

/* A bar that KaTeX writes as <mo stretchy="false"> is a delimiter
 * (\lVert, \rvert…: TeX's open and close, no space), where MathML Core's
 * dictionary spaces ∥ and ∣ as relations. */
static bool is_bar_delimiter(const tag *t, slice text)
{
    static const char *const bars[] = { "∥", "∣", "‖", "|", NULL };
    const slice *a = attr(t, "stretchy");
    return a && is(*a, "false") && in_list(text, bars);
}

/* Does the U+2061 token whose text ends at p take a thin space after it:
 * is `</mo>` followed by a sibling that is not an opening delimiter
 * (<mo stretchy="false"> or <mo fence="true">, alone or first in an
 * <mrow>)? Not when it ends its row (\max_i: the space would fall between
 * the name and its limit). Reads a few tags ahead. */
static bool thin_after_apply(const char *p, const char *end)
{
    if ((size_t)(end - p) < 5 || memcmp(p, "</mo>", 5))
        return false;
    p = skip_space(p + 5, end);
    tag n;
    for (int k = 0; k < 2 && p < end && *p == '<' && read_tag(p, end, &n); k++) {
        if (n.kind != TAG_START)
            return false;
        if (is(n.name, "mo")) {
            const slice *a = attr(&n, "stretchy"), *f = attr(&n, "fence");
            return !((a && is(*a, "false")) || (f && is(*f, "true")));
        }
        if (!is(n.name, "mrow"))
            return true;
        p = skip_space(n.end, end);
    }
    return false;
}

static const char *start_tag(pass *ps, const tag *t, const char *at)
{
    buf *out = ps->out;
    frame *parent = ps->depth ? &ps->stack[ps->depth - 1] : NULL;
    size_t index = parent ? parent->children++ : 0;
    bool script = parent && parent->script, display = parent && parent->display;
    if (parent && in_list(parent->name, scripted) && index >= 1) {
        script = true;
        display = false;
    } else if (parent && is(parent->name, "mfrac")) {
        if (display)
            display = false;
        else
            script = true;
    }
    const slice *a;
    if (is(t->name, "math")) {
        display = (a = attr(t, "display")) && is(*a, "block");
        script = false;
    } else if (is(t->name, "mstyle")) {
        if ((a = attr(t, "scriptlevel")) && a->n)
            script = !(a->n == 1 && a->p[0] == '0') && a->p[0] != '-';
        if ((a = attr(t, "displaystyle"))) {
            display = is(*a, "true");
            if (display)
                script = false;
        }
    }

    const char *next = t->end;
    buf style = BUF_INIT;
    static const char *const no_variant[] = { "mathvariant", "style", NULL };
    static const char *const no_spacing[] = { "columnspacing", "rowspacing", "style", NULL };
    static const char *const no_width[] = { "width", "style", NULL };
    const char *const *drop = NULL;
    bool written = false, dropped = false;
    slice text = { NULL, 0 };
    bool has_text = !t->self_closing && token_text(t->end, ps->end, t->name, &text);

    if (t->too_many) {
        /* attributes it could not all read: the tag as it is */
    } else if (in_list(t->name, tokens) && (a = attr(t, "mathvariant")) && has_text) {
        const variant *v = find_variant(*a);
        buf mapped = BUF_INIT;
        if (v && is(t->name, "mtext") && v->text_style) {
            buf_puts(&style, v->text_style);
            drop = no_variant;
            buf_put(&mapped, text.p, text.n);
        } else if (v && map_text(&mapped, v, text)) {
            drop = no_variant;
        }
        if (drop) {
            written = true;
            put_tag_start(out, t, drop);
            if (style.len)
                put_style(out, t, &style);
            else if ((a = attr(t, "style")))
                buf_printf(out, " style=\"%.*s\"", (int)a->n, a->p);
            put_tag_end(out, t);
            buf_put(out, mapped.data, mapped.len);
            next = text.p + text.n;
        }
        buf_release(&mapped);
    } else if (is(t->name, "mi") && !t->self_closing) {
        /* <mi><mrow>…</mrow></mi>: the <mi> goes */
        const char *c = skip_space(t->end, ps->end);
        if (c + 1 < ps->end && c[0] == '<' && c[1] != '/')
            dropped = true;
    } else if (is(t->name, "mo") && has_text && !attr(t, "lspace") && !attr(t, "rspace") &&
               !attr(t, "class") &&
               (is_bar_delimiter(t, text) ||
                (is_apply(text) && thin_after_apply(text.p + text.n, ps->end)))) {
        /* the thin space is the theme's (.fn-apply): Firefox spaces the
         * atoms of a row as TeX does and has it already, Chromium not */
        put_tag_start(out, t, NULL);
        buf_puts(out, is_apply(text) ? " class=\"fn-apply\"" : " lspace=\"0em\" rspace=\"0em\"");
        put_tag_end(out, t);
        written = true;
    } else if (is(t->name, "mo") && script && has_text && !keeps_space(text) &&
               (!attr(t, "lspace") || !attr(t, "rspace"))) {
        put_tag_start(out, t, NULL);
        if (!attr(t, "lspace"))
            buf_puts(out, " lspace=\"0em\"");
        if (!attr(t, "rspace"))
            buf_puts(out, " rspace=\"0em\"");
        put_tag_end(out, t);
        written = true;
    } else if (is(t->name, "mtable") && !t->self_closing) {
        if ((a = attr(t, "width"))) {
            buf_puts(&style, "width:");
            buf_put(&style, a->p, a->n);
        }
        put_tag_start(out, t, no_spacing);
        buf_puts(out, " columnspacing=\"0\" rowspacing=\"0\"");
        if (style.len)
            put_style(out, t, &style);
        else if ((a = attr(t, "style")))
            buf_printf(out, " style=\"%.*s\"", (int)a->n, a->p);
        put_tag_end(out, t);
        written = true;
    } else if (is(t->name, "mtd") && parent && ps->depth >= 2 &&
               (is(parent->name, "mtr") || is(parent->name, "mlabeledtr")) &&
               is(ps->stack[ps->depth - 2].name, "mtable")) {
        const frame *table = &ps->stack[ps->depth - 2];
        if ((a = attr(t, "width"))) {
            buf_puts(&style, "width:");
            buf_put(&style, a->p, a->n);
        } else if (has_class(attr(t, "class"), "mtr-glue")) {
            buf_puts(&style, "width:50%");
        } else if (!is_filler(t)) {
            cell_style(&style, t, table, parent);
            parent->col++;
        }
        if (style.len) {
            put_tag_start(out, t, no_width);
            put_style(out, t, &style);
            put_tag_end(out, t);
            written = true;
        }
    }

    if (!written && !dropped)
        buf_put(out, at, (size_t)(t->end - at));
    buf_release(&style);
    if (t->self_closing)
        return next;

    frame *f = push(ps, t);
    parent = ps->depth >= 2 ? &ps->stack[ps->depth - 2] : NULL; /* push may move the stack */
    f->script = script;
    f->display = display;
    f->dropped = dropped;
    if (is(t->name, "mtable")) {
        if ((a = attr(t, "columnalign")))
            f->align = *a, f->has_align = true;
        if ((a = attr(t, "columnspacing")))
            f->cspace = *a, f->has_cspace = true;
        if ((a = attr(t, "rowspacing")))
            f->rspace = *a, f->has_rspace = true;
        f->rows = count_children(t->end, ps->end, "mtr", &ps->budget);
    } else if ((is(t->name, "mtr") || is(t->name, "mlabeledtr")) && parent &&
               is(parent->name, "mtable")) {
        f->row_index = parent->row++;
        f->cols = count_children(t->end, ps->end, "mtd", &ps->budget);
    }
    return next;
}

static void end_tag(pass *ps, const tag *t, const char *at)
{
    size_t k = ps->depth;
    while (k && !(ps->stack[k - 1].name.n == t->name.n &&
                  !memcmp(ps->stack[k - 1].name.p, t->name.p, t->name.n)))
        k--;
    if (!k) { /* closes nothing open: as it is */
        buf_put(ps->out, at, (size_t)(t->end - at));
        return;
    }
    frame *f = &ps->stack[k - 1];
    if (!f->dropped)
        buf_put(ps->out, at, (size_t)(t->end - at));
    ps->depth = k - 1;
}

void md_mathml_fix(buf *out, const char *mathml, size_t len)
{
    pass ps = { .out = out, .end = mathml + len, .budget = 16 * len + 4096 };
    const char *p = mathml, *end = mathml + len;
    while (p < end) {
        const char *lt = memchr(p, '<', (size_t)(end - p));
        if (!lt) {
            buf_put(out, p, (size_t)(end - p));
            break;
        }
        buf_put(out, p, (size_t)(lt - p));
        tag t;
        if (!read_tag(lt, end, &t)) {
            buf_put(out, lt, (size_t)(end - lt));
            break;
        }
        if (t.kind == TAG_OTHER || !t.name.n) {
            buf_put(out, lt, (size_t)(t.end - lt));
            p = t.end;
        } else if (t.kind == TAG_END) {
            end_tag(&ps, &t, lt);
            p = t.end;
        } else {
            p = start_tag(&ps, &t, lt);
        }
    }
    free(ps.stack);
}

/* diagram/svg.c: Graphviz's SVG → the SVG a page holds inline.
 *
 * Graphviz writes a standalone file: an XML prolog, a DOCTYPE, comments
 * naming every node and edge, an <svg> sized in points, and black strokes
 * and text on a white background. Inline in a page that has a dark mode
 * this would be a white box with black lines, and its fixed size in points
 * makes it 4/3 larger than the text around it. The pass here, one walk over
 * the tags, writes instead:
 *
 *  - from the <svg> tag on, without comments, and without the <title> of an
 *    anonymous graph (Graphviz names it "%3" and browsers show it as a
 *    tooltip);
 *  - <svg width="W" height="H" viewBox="…" role="img" …>: W and H the
 *    viewBox's size rounded up, in CSS pixels (so a 14-point label is as
 *    big as 14px text, and the box is reserved before styles load);
 *  - black (Graphviz's default pen and font colour) as currentColor, so the
 *    lines and labels take the text colour of the page; text with no fill
 *    gets currentColor too, except on a node or cluster filled with a
 *    colour of its own, where black stays readable in both modes;
 *  - the graph's white background as no fill at all, and any other white
 *    fill with class="paper" (the theme paints it the page's background;
 *    without the theme's rule it stays white);
 *  - no id Graphviz made up (graph0, node1, …: a page with two diagrams
 *    would hold each twice);
 *  - a link's URL only when url_allowed says so (Graphviz writes `URL=` and
 *    `href=` attributes as <a xlink:href>).
 *
 * A user's explicit colours other than black and white are kept as
 * written. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "diagram/dot.h"
#include "util/url.h"

typedef struct attr {
    const char *name, *value;
    size_t nlen, vlen;
} attr;

#define MAX_ATTRS 32

static bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

static bool eq(const char *p, size_t n, const char *w) { return n == strlen(w) && !memcmp(p, w, n); }

/* The tag s[0..n) (from '<' to '>' included): its name and attributes.
 * Graphviz writes every value in double quotes. */
static bool parse_tag(const char *s, size_t n, const char **name, size_t *nlen, attr *a, size_t *na,
                      bool *closing, bool *empty)
{
    size_t i = 1;
    *closing = s[i] == '/';
    i += *closing;
    *name = s + i;
    while (i < n && !is_space(s[i]) && s[i] != '>' && s[i] != '/')
        i++;
    *nlen = (size_t)(s + i - *name);
    *na = 0;
    *empty = false;
    for (;;) {
        while (i < n && is_space(s[i]))
            i++;
        if (i >= n)
            return false;
        if (s[i] == '>')
            return true;
        if (s[i] == '/' && i + 1 < n && s[i + 1] == '>') {
            *empty = true;
            return true;
        }
        if (*closing || *na == MAX_ATTRS)
            return false;
        attr *t = &a[(*na)++];
        t->name = s + i;
        while (i < n && s[i] != '=' && !is_space(s[i]) && s[i] != '>')
            i++;
        t->nlen = (size_t)(s + i - t->name);
        if (i + 1 >= n || s[i] != '=' || s[i + 1] != '"' || !t->nlen)
            return false;
        i += 2;
        t->value = s + i;
        while (i < n && s[i] != '"')
            i++;
        if (i >= n)
            return false;
        t->vlen = (size_t)(s + i - t->value);
        i++;
    }
}

static const attr *find(const attr *a, size_t na, const char *name)
{
    for (size_t i = 0; i < na; i++)
        if (eq(a[i].name, a[i].nlen, name))
            return &a[i];
    return NULL;
}

/* a colour of the user's own: not Graphviz's defaults, not "no colour" */
static bool own_colour(const char *v, size_t n)
{
    static const char *const plain[] = { "none", "black", "white", "transparent", "currentColor" };
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
        if (eq(v, n, plain[i]))
            return false;
    return n > 0;
}

/* an id Graphviz makes up (graph0, node3, edge12, clust2, a_node3): two
 * diagrams on a page would repeat them, and nothing refers to them */
static bool made_up_id(const char *v, size_t n)
{
    static const char *const prefixes[] = { "graph", "node", "edge", "clust", "a_node", "a_edge", "a_graph", "a_clust" };
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
        size_t pl = strlen(prefixes[i]);
        if (n > pl && !memcmp(v, prefixes[i], pl)) {
            size_t j = pl;
            while (j < n && v[j] >= '0' && v[j] <= '9')
                j++;
            if (j == n)
                return true;
        }
    }
    return false;
}

/* Text or an attribute's value, s[0..n), as written: '<' and '>' as
 * entities (a value may hold them: Graphviz writes a URL raw), and the two
 * harmless spellings diagram_svg_ok refuses wherever they are — a label
 * "javascript: the good parts", "x onload=1" — with the ':' or the '=' as
 * a character reference, which reads the same. */
static void put_safe(buf *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '<') {
            buf_puts(out, "&lt;");
        } else if (c == '>') {
            buf_puts(out, "&gt;");
        } else if (c == ':' && i >= 10 && !strncasecmp(s + i - 10, "javascript", 10)) {
            buf_puts(out, "&#58;");
        } else if (c == '=') {
            size_t j = i; /* back over letters to " on" */
            while (j > 0 && ((s[j - 1] >= 'a' && s[j - 1] <= 'z') || (s[j - 1] >= 'A' && s[j - 1] <= 'Z')))
                j--;
            bool handler = i - j >= 2 && j > 0 && is_space(s[j - 1]) && (s[j] == 'o' || s[j] == 'O') &&
                           (s[j + 1] == 'n' || s[j + 1] == 'N');
            if (handler)
                buf_puts(out, "&#61;");
            else
                buf_putc(out, c);
        } else {
            buf_putc(out, c);
        }
    }
}

/* Graphviz escapes `&` and `"` in values but writes a URL's `<` and `>` as
 * they are (URL="<x>"): written escaped here (put_safe), so no value holds
 * markup. */
static void put_attr(buf *out, const char *name, size_t nlen, const char *v, size_t vlen)
{
    buf_putc(out, ' ');
    buf_put(out, name, nlen);
    buf_puts(out, "=\"");
    put_safe(out, v, vlen);
    buf_putc(out, '"');
}

/* <svg width="244pt" height="116pt" viewBox="0.00 0.00 243.89 116.00" xmlns…> */
static bool write_svg_tag(buf *out, const attr *a, size_t na, buf *err)
{
    const attr *vb = find(a, na, "viewBox");
    double v[4];
    if (vb) {
        char tmp[128];
        if (vb->vlen >= sizeof tmp)
            vb = NULL;
        else {
            memcpy(tmp, vb->value, vb->vlen);
            tmp[vb->vlen] = 0;
            char *p = tmp;
            for (int i = 0; i < 4 && vb; i++) {
                char *e;
                v[i] = strtod(p, &e);
                if (e == p || !isfinite(v[i]))
                    vb = NULL;
                p = e;
            }
        }
    }
    if (!vb || v[2] <= 0 || v[3] <= 0 || v[2] > 1e6 || v[3] > 1e6) {
        buf_puts(err, "Graphviz wrote an <svg> without a usable viewBox");
        return false;
    }
    buf_printf(out, "<svg width=\"%.0f\" height=\"%.0f\"", ceil(v[2]), ceil(v[3]));
    put_attr(out, "viewBox", 7, vb->value, vb->vlen);
    buf_puts(out, " role=\"img\"");
    for (size_t i = 0; i < na; i++)
        if (a[i].nlen >= 5 && !memcmp(a[i].name, "xmlns", 5))
            put_attr(out, a[i].name, a[i].nlen, a[i].value, a[i].vlen);
    buf_putc(out, '>');
    return true;
}

bool diagram_svg_fix(buf *out, const char *svg, size_t n, buf *err)
{
    const char *start = NULL;
    for (size_t i = 0; i + 4 < n; i++) /* the prolog, DOCTYPE and comments before it hold no "<svg " */
        if (!memcmp(svg + i, "<svg", 4) && is_space(svg[i + 4])) {
            start = svg + i;
            break;
        }
    if (!start) {
        buf_puts(err, "Graphviz wrote no <svg>");
        return false;
    }
    size_t i = (size_t)(start - svg), depth = 0;
    bool seen_svg = false, background = false, coloured = false;
    attr a[MAX_ATTRS];
    while (i < n) {
        if (svg[i] != '<') {
            const char *lt = memchr(svg + i, '<', n - i);
            size_t e = lt ? (size_t)(lt - svg) : n;
            if (depth)
                put_safe(out, svg + i, e - i);
            i = e;
            continue;
        }
        if (n - i >= 4 && !memcmp(svg + i, "<!--", 4)) {
            const char *end = memmem(svg + i + 4, n - i - 4, "-->", 3);
            if (!end)
                break;
            i = (size_t)(end - svg) + 3;
            if (i < n && svg[i] == '\n')
                i++;
            continue;
        }
        const char *gt = NULL; /* the tag's end: a '>' outside quotes (a URL may hold one) */
        for (size_t k = i + 1, q = 0; k < n && !gt; k++)
            if (svg[k] == '"')
                q = !q;
            else if (svg[k] == '>' && !q)
                gt = svg + k;
        if (!gt)
            break;
        size_t tl = (size_t)(gt - (svg + i)) + 1;
        const char *name;
        size_t nl, na;
        bool closing, empty;
        if (!parse_tag(svg + i, tl, &name, &nl, a, &na, &closing, &empty)) {
            buf_printf(err, "Graphviz wrote a tag sheaf does not read: %.*s", (int)(tl > 80 ? 80 : tl),
                       svg + i);
            return false;
        }
        if (eq(name, nl, "script") || eq(name, nl, "foreignObject")) {
            buf_printf(err, "Graphviz wrote a <%.*s>, which sheaf does not put in a page", (int)nl, name);
            return false;
        }
        if (closing) {
            buf_put(out, svg + i, tl);
            i += tl;
            if (depth && --depth == 0)
                break; /* </svg> */
            continue;
        }
        if (!seen_svg) {
            if (!eq(name, nl, "svg") || empty || !write_svg_tag(out, a, na, err)) {
                if (!err->len)
                    buf_puts(err, "Graphviz's SVG does not start with <svg>");
                return false;
            }
            seen_svg = true;
            depth = 1;
            i += tl;
            continue;
        }
        /* an anonymous graph's <title>%3</title>, and the newline after it */
        if (eq(name, nl, "title") && i + tl < n && svg[i + tl] == '%') {
            const char *end = memmem(svg + i, n - i, "</title>", 8);
            if (end) {
                i = (size_t)(end - svg) + 8;
                if (i < n && svg[i] == '\n')
                    i++;
                continue;
            }
        }
        if (eq(name, nl, "g"))
            coloured = false; /* a node, an edge or a cluster begins */
        bool text = eq(name, nl, "text");
        bool shape = !text && !eq(name, nl, "g") && !eq(name, nl, "a") && !eq(name, nl, "title");
        buf_putc(out, '<');
        buf_put(out, name, nl);
        bool has_fill = false, paper = false;
        for (size_t k = 0; k < na; k++) {
            const attr *t = &a[k];
            const char *v = t->value;
            size_t vl = t->vlen;
            bool fill = eq(t->name, t->nlen, "fill"), stroke = eq(t->name, t->nlen, "stroke");
            if (eq(t->name, t->nlen, "xlink:href") || eq(t->name, t->nlen, "href")) {
                char scheme[32];
                if (!url_allowed(v, vl, scheme)) {
                    buf_printf(err,
                               "the link '%.*s' has the scheme '%s:': only http, https, mailto, relative "
                               "and #fragment URLs are written",
                               (int)(vl > 200 ? 200 : vl), v, scheme);
                    return false;
                }
            }
            if (eq(t->name, t->nlen, "id") && made_up_id(v, vl))
                continue;
            if (fill)
                has_fill = true;
            if ((fill || stroke) && eq(v, vl, "black")) {
                v = "currentColor";
                vl = 12;
            } else if (fill && shape && eq(v, vl, "white")) {
                if (!background) { /* the graph's own, drawn first */
                    v = "none";
                    vl = 4;
                } else {
                    paper = true;
                }
            } else if (fill && shape && own_colour(v, vl)) {
                coloured = true;
            }
            put_attr(out, t->name, t->nlen, v, vl);
        }
        if (shape)
            background = true;
        if (paper)
            buf_puts(out, " class=\"paper\"");
        if (text && !has_fill && !coloured)
            buf_puts(out, " fill=\"currentColor\"");
        buf_puts(out, empty ? "/>" : ">");
        if (!empty)
            depth++;
        i += tl;
    }
    if (depth || !seen_svg) {
        buf_puts(err, "Graphviz's SVG ends early");
        return false;
    }
    return true;
}

static bool has_ci(const char *s, size_t n, const char *w)
{
    size_t wl = strlen(w);
    for (size_t i = 0; i + wl <= n; i++)
        if (!strncasecmp(s + i, w, wl))
            return true;
    return false;
}

bool diagram_svg_ok(const char *s, size_t n)
{
    if (n < 12 || memcmp(s, "<svg ", 5) || memcmp(s + n - 6, "</svg>", 6))
        return false;
    if (has_ci(s, n, "<script") || has_ci(s, n, "<foreignobject") || has_ci(s, n, "<!--") ||
        has_ci(s, n, "javascript:") || has_ci(s, n, "<iframe") || has_ci(s, n, "<!["))
        return false;
    for (size_t i = 0; i + 3 < n; i++) /* an event handler: ` on…=` */
        if (is_space(s[i]) && (s[i + 1] == 'o' || s[i + 1] == 'O') && (s[i + 2] == 'n' || s[i + 2] == 'N')) {
            size_t j = i + 3;
            while (j < n && ((s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z')))
                j++;
            if (j < n && s[j] == '=')
                return false;
        }
    return true;
}

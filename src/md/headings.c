/* md/headings.c: two switches about headings; md.c writes the heading
 * itself (`<h2 id="…">`, its automatic id, its number) and records it.
 *
 * heading_ids: an attribute list at the end of a heading's text,
 * `## Title {#id .class}` (Pandoc's, Hugo's, kramdown's), gives the
 * heading its id and classes and is not printed; a second `#id` and any
 * after it are extra anchors of the heading.
 *
 * heading_anchors: a heading ends with a self-link,
 * ` <a class="anchor" href="#id" …>#</a>`, so readers can copy a link to
 * the section. It is hidden from screen readers and the tab order, which
 * reach sections through the heading itself and the table of contents; a
 * pointer shows it on hover. */
#include <ctype.h>
#include <string.h>

#include "md/internal.h"

static bool id_byte(unsigned char c)
{
    return c > ' ' && c != '{' && c != '}' && c != '#';
}

/* The attribute list t[0..n) (braces included) of a heading: `{#id}`,
 * Pandoc's and Hugo's `{#id .class key=value}`. A second `#id` and any
 * after it are extra anchors of the heading, space-separated in *extra:
 * `{#moco-moco-v2 #moco--moco-v2}` keeps the id another generator gave it
 * (kramdown's), for links written for that one. An id of id bytes, classes
 * of letters, digits, '-' and '_'; a key=value (bare, "quoted" or
 * 'quoted') is read and ignored (*ignored: the first key, for a warning).
 * False when t is no such list: it is text then. */
static bool parse_attrs(const char *t, size_t n, md_walk *r, const char **id, buf *classes, buf *extra,
                        const char **ignored, size_t *nignored)
{
    *id = NULL;
    *ignored = NULL;
    size_t i = 1, end = n - 1;
    bool any = false;
    while (i < end) {
        if (t[i] == ' ' || t[i] == '\t') {
            i++;
            continue;
        }
        size_t k = i + 1;
        if (t[i] == '#') {
            while (k < end && id_byte((unsigned char)t[k]))
                k++;
            if (k == i + 1)
                return false;
            if (*id)
                buf_printf(extra, "%s%.*s", extra->len ? " " : "", (int)(k - i - 1), t + i + 1);
            else
                *id = arena_strndup(md_walk_arena(r), t + i + 1, k - i - 1);
        } else if (t[i] == '.') {
            while (k < end && (isalnum((unsigned char)t[k]) || t[k] == '-' || t[k] == '_'))
                k++;
            if (k == i + 1)
                return false;
            buf_printf(classes, "%s%.*s", classes->len ? " " : "", (int)(k - i - 1), t + i + 1);
        } else if (isalpha((unsigned char)t[i]) || t[i] == '_') {
            while (k < end && (isalnum((unsigned char)t[k]) || strchr("_-:.", t[k])))
                k++;
            if (k >= end || t[k] != '=')
                return false;
            size_t key = k - i;
            k++;
            if (k < end && (t[k] == '"' || t[k] == '\'')) {
                const char *q = memchr(t + k + 1, t[k], end - k - 1);
                if (!q)
                    return false;
                k = (size_t)(q - t) + 1;
            } else {
                while (k < end && t[k] != ' ' && t[k] != '\t' && t[k] != '"' && t[k] != '\'')
                    k++;
            }
            if (!*ignored) {
                *ignored = t + i;
                *nignored = key;
            }
        } else {
            return false;
        }
        if (k < end && t[k] != ' ' && t[k] != '\t')
            return false;
        any = true;
        i = k;
    }
    return any;
}

/* `## Title {#id .class}`: takes the attribute list (and the spaces before
 * it) off the end of the heading's text; its id (arena, or NULL) at *id,
 * its classes in classes. The text may be split over several text nodes
 * (`{#my_id}`: '_' is a node of its own), so the trailing text nodes are
 * read together. False when the heading has none. */
static bool take_attributes(md_walk *r, cmark_node *h, const char **id, buf *classes, buf *extra)
{
    *id = NULL;
    cmark_node *first = cmark_node_last_child(h);
    if (!first || cmark_node_get_type(first) != CMARK_NODE_TEXT)
        return false;
    while (cmark_node_previous(first) && cmark_node_get_type(cmark_node_previous(first)) == CMARK_NODE_TEXT)
        first = cmark_node_previous(first);
    buf *t = md_tmp(r);
    buf_reset(t);
    for (cmark_node *c = first; c; c = cmark_node_next(c))
        buf_puts(t, cmark_node_get_literal(c));
    size_t n = t->len;
    if (n < 3 || t->data[n - 1] != '}')
        return false;
    const char *open = NULL;
    for (size_t k = n - 1; k-- > 0 && !open;)
        if (t->data[k] == '{')
            open = t->data + k;
    if (!open)
        return false;
    size_t brace = (size_t)(open - t->data);
    if (brace > 0 && t->data[brace - 1] != ' ' && t->data[brace - 1] != '\t')
        return false;
    const char *ignored;
    size_t nignored = 0;
    /* with markdown.smart, cmark made `--` an en dash and `"` curly even
     * inside the list: undone there (`{#moco--moco-v2}` is that id) */
    buf un = BUF_INIT;
    static const char *const smart[][2] = { { "\xE2\x80\x93", "--" }, { "\xE2\x80\x94", "---" },
                                            { "\xE2\x80\x9C", "\"" }, { "\xE2\x80\x9D", "\"" },
                                            { "\xE2\x80\x98", "'" },  { "\xE2\x80\x99", "'" } };
    for (size_t q = brace; q < n; q++) {
        size_t k = 0;
        while (k < 6 && (n - q < 3 || memcmp(t->data + q, smart[k][0], 3)))
            k++;
        if (k < 6) {
            buf_puts(&un, smart[k][1]);
            q += 2;
        } else {
            buf_putc(&un, t->data[q]);
        }
    }
    bool parsed = parse_attrs(un.data, un.len, r, id, classes, extra, &ignored, &nignored);
    if (ignored) /* into the list as written (un goes) */
        ignored = arena_strndup(md_walk_arena(r), ignored, nignored);
    char *want = arena_strndup(md_walk_arena(r), un.data, un.len);
    size_t wn = un.len;
    buf_release(&un);
    if (!parsed)
        return false;
    size_t keep = brace;
    while (keep > 0 && (t->data[keep - 1] == ' ' || t->data[keep - 1] == '\t'))
        keep--;
    /* where the list is, for messages: its last occurrence in the heading */
    int line = cmark_node_get_start_line(h), col = 1;
    for (int ln = cmark_node_get_start_line(h); ln <= cmark_node_get_end_line(h); ln++) {
        const char *p, *q;
        size_t len;
        if (!md_source_line(md_walk_source(r), ln, &p, &len))
            break;
        for (q = p; (q = memmem(q, len - (size_t)(q - p), want, wn)) != NULL; q++) {
            line = ln;
            col = (int)(q - p) + 1;
        }
    }
    if (ignored)
        md_problem_at(r, false, line, col,
                      "heading attribute '%.*s' is ignored: sheaf writes a heading's #id and .class only",
                      (int)nignored, ignored);
    /* cut the text nodes down to `keep` bytes in all */
    size_t at = 0;
    buf lit = BUF_INIT;
    for (cmark_node *c = first; c; c = cmark_node_next(c)) {
        const char *s = cmark_node_get_literal(c);
        size_t len = strlen(s);
        if (at + len > keep) {
            buf_reset(&lit);
            buf_put(&lit, s, at < keep ? keep - at : 0);
            cmark_node_set_literal(c, lit.data);
        }
        at += len;
    }
    buf_release(&lit);
    if (*id)
        md_claim_id(r, *id, strlen(*id), line, col, true);
    for (size_t a = 0; a < extra->len;) {
        size_t z = a;
        while (z < extra->len && extra->data[z] != ' ')
            z++;
        md_claim_id(r, extra->data + a, z - a, line, col, true);
        a = z + 1;
    }
    return true;
}

/* Entering a heading: its attribute list, taken off its text, for md.c
 * to write. */
static bool ids_enter(md_walk *w, buf *out, cmark_node *n)
{
    (void)out;
    md_heading_attrs *h = md_walk_heading_attrs(w);
    take_attributes(w, n, &h->id, &h->classes, &h->extra);
    return false;
}

const md_ext md_ext_heading_ids = {
    .reference_off = true,
    .nodes = MD_NODE(CMARK_NODE_HEADING),
    .enter = ids_enter,
};

static void anchor_leave(md_walk *w, buf *out, cmark_node *n)
{
    (void)n;
    buf_puts(out, " <a class=\"anchor\" href=\"#");
    md_put_heading_id(w, out);
    buf_puts(out, "\" aria-hidden=\"true\" tabindex=\"-1\">#</a>");
}

const md_ext md_ext_heading_anchors = {
    .reference_off = true,
    .nodes = MD_NODE(CMARK_NODE_HEADING),
    .leave = anchor_leave,
};

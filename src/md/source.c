/* md/source.c: positions in the source file.
 *
 * cmark-gfm gives every node a source position, but those of inline nodes
 * are only hints: it drops newlines met inside link destinations and
 * titles, dates a link that spans lines from its last line, counts lines of
 * a paragraph from the link reference definitions that were taken out of
 * it, gets columns wrong on lines whose prefix differs from the block's
 * first line (lazy continuations, indentation, tabs) and for autolinks, and
 * gives none at all to what the autolink extension makes. Block positions
 * are right. So an inline node is looked up in the source text of its block
 * near where cmark says it is. */
#include <stdlib.h>
#include <string.h>

#include "md/internal.h"
#include "util/xalloc.h"

/* The start of every line, in an array grown here (a line a step: no
 * call a line). */
static void index_lines(md_source *s)
{
    size_t cap = 64, n = 0;
    size_t *v = xmalloc(cap * sizeof *v);
    v[n++] = 0;
#define PUSH(at)                                                                                 \
    do {                                                                                         \
        if (n == cap)                                                                            \
            v = xrealloc(v, (cap *= 2) * sizeof *v);                                             \
        v[n++] = (at);                                                                           \
    } while (0)
    const char *p = s->text.ptr, *end = s->text.ptr + s->text.len;
    if (!memchr(p, '\r', s->text.len)) {
        /* the usual case, '\n' only: memchr finds each at memory speed */
        while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL)
            PUSH((size_t)(++p - s->text.ptr));
    } else {
        for (size_t i = 0; i < s->text.len; i++) {
            char c = s->text.ptr[i];
            if (c == '\r' && i + 1 < s->text.len && s->text.ptr[i + 1] == '\n')
                i++;
            else if (c != '\r' && c != '\n')
                continue;
            PUSH(i + 1);
        }
    }
#undef PUSH
    s->line_start = v;
    s->nlines = n;
}

bool md_source_line(md_source *s, int line, const char **p, size_t *n)
{
    if (!s->line_start)
        index_lines(s);
    if (line < 1 || (size_t)line > s->nlines)
        return false;
    size_t b = s->line_start[line - 1];
    size_t e = (size_t)line < s->nlines ? s->line_start[line] : s->text.len;
    while (e > b && (s->text.ptr[e - 1] == '\n' || s->text.ptr[e - 1] == '\r'))
        e--;
    *p = s->text.ptr + b;
    *n = e - b;
    return true;
}

cmark_node *md_leaf_of(cmark_node *n)
{
    cmark_node *leaf = cmark_node_parent(n);
    while (leaf) {
        cmark_node_type t = cmark_node_get_type(leaf);
        if (t == CMARK_NODE_PARAGRAPH || t == CMARK_NODE_HEADING)
            return leaf;
        if (t == CMARK_NODE_DOCUMENT)
            return NULL;
        /* a table cell: the only other block holding inlines */
        if (cmark_node_get_syntax_extension(leaf) && cmark_node_get_start_line(leaf) > 0
            && !strcmp(cmark_node_get_type_string(leaf), "table_cell"))
            return leaf;
        leaf = cmark_node_parent(leaf);
    }
    return NULL;
}

/* Is s[i] a link or image start: `want` there, and not backslash-escaped?
 * For an image, the '!' must be followed by '['. */
static bool is_start(const char *s, size_t n, size_t i, char want, bool image)
{
    if (s[i] != want)
        return false;
    if (image && (i + 1 >= n || s[i + 1] != '['))
        return false;
    size_t k = i;
    while (k > 0 && s[k - 1] == '\\')
        k--;
    return (i - k) % 2 == 0;
}

/* A line that looks like the start of a link reference definition:
 * up to 3 spaces, `[label]:`, the label without unescaped brackets. */
static bool ref_def_line(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && i < 3 && s[i] == ' ')
        i++;
    if (i >= n || s[i] != '[')
        return false;
    for (i++; i < n; i++) {
        if (s[i] == '\\')
            i++;
        else if (s[i] == '[')
            return false;
        else if (s[i] == ']')
            return i + 1 < n && s[i + 1] == ':';
    }
    return false;
}

/* Does u start with an URI scheme, as an autolink's must? */
static bool has_scheme(const char *u)
{
    size_t i = 0;
    if (!((u[0] >= 'a' && u[0] <= 'z') || (u[0] >= 'A' && u[0] <= 'Z')))
        return false;
    while (u[i] && (strchr("+.-", u[i]) || (u[i] >= '0' && u[i] <= '9') || (u[i] >= 'a' && u[i] <= 'z')
                    || (u[i] >= 'A' && u[i] <= 'Z')))
        i++;
    return i >= 2 && i <= 32 && u[i] == ':';
}

/* The text of a link that is its own URL (an autolink, `<…>` or bare):
 * the URL itself, without the "mailto:" cmark adds to an e-mail address or
 * the "http://" the autolink extension adds to "www."; else NULL. */
static const char *autolink_text(cmark_node *n)
{
    const char *url = cmark_node_get_url(n);
    cmark_node *c = cmark_node_first_child(n);
    const char *lit = c ? cmark_node_get_literal(c) : NULL;
    if (!url || !lit || cmark_node_next(c) || !has_scheme(url))
        return NULL;
    if (!strcmp(url, lit) || (!strncmp(url, "mailto:", 7) && !strcmp(url + 7, lit))
        || (!strncmp(url, "http://", 7) && !strcmp(url + 7, lit)))
        return lit;
    return NULL;
}

/* Starts the search in a new leaf block: at its first line (after any link
 * reference definitions, which come first in a paragraph), at its first
 * column for a table cell (the row holds the other cells too). */
static void cursor_enter(md_source *s, md_link_cursor *cur, cmark_node *leaf)
{
    cur->leaf = leaf;
    cur->line = cmark_node_get_start_line(leaf);
    cur->col = 0;
    cur->lag = 0;
    cmark_node_type t = cmark_node_get_type(leaf);
    const char *p;
    size_t len;
    if (t == CMARK_NODE_PARAGRAPH) {
        while (cur->line < cmark_node_get_end_line(leaf) && md_source_line(s, cur->line, &p, &len)
               && ref_def_line(p, len))
            cur->line++;
    } else if (t != CMARK_NODE_HEADING && cmark_node_get_start_column(leaf) > 1) {
        cur->col = cmark_node_get_start_column(leaf) - 1;
    }
}

/* Finds the file position of link/image n, which sits in leaf block `leaf`:
 * of the unescaped '[' ('!' for images; for a link that is its own URL, a
 * '<' followed by the URL, or the URL itself) after the previous link of
 * the block, the one nearest cmark's hint (the line first, then the
 * column); the hint's line comes from the link's text and is shifted by how
 * far behind cmark was for the previous link. */
void md_link_position(md_source *s, md_link_cursor *cur, cmark_node *n, cmark_node *leaf,
                      bool image, int *line_out, int *col_out)
{
    int hl = cmark_node_get_start_line(n), hc = cmark_node_get_start_column(n);
    /* a link that spans lines gets its last line; its text knows better */
    for (cmark_node *c = cmark_node_first_child(n); c; c = cmark_node_first_child(c))
        if (cmark_node_get_start_line(c) > 0) {
            hl = cmark_node_get_start_line(c);
            break;
        }
    if (hl <= 0 && leaf)
        hl = cmark_node_get_start_line(leaf);
    *line_out = hl;
    *col_out = hc > 0 ? hc : 1;
    if (!leaf)
        return;
    if (leaf != cur->leaf)
        cursor_enter(s, cur, leaf);
    hl += cur->lag; /* cmark's line count, once behind, stays behind */
    /* modes: '<' an autolink's bracket, 'u' a bare URL, '[' / '!' */
    const char *modes = image ? "!" : "[";
    const char *auto_text = image ? NULL : autolink_text(n);
    if (auto_text)
        modes = "<u[";
    /* the source spells an autolink's URL out up to any entity */
    size_t k = auto_text ? strcspn(auto_text, "&") : 0;
    int last = cmark_node_get_end_line(leaf);
    const long W = 1L << 20;
    long best = -1;
    int bl = 0, bc = 0;
    for (const char *m = modes; *m && best < 0; m++) {
        for (int ln = cur->line; ln <= last; ln++) {
            if (best >= 0 && (long)(ln - hl) * W > best)
                break;
            const char *p;
            size_t len;
            if (!md_source_line(s, ln, &p, &len))
                break;
            size_t from = ln == cur->line ? (size_t)cur->col : 0;
            /* the byte every candidate starts with, found by memchr (none
             * for a URL that starts with an entity) */
            char want = *m != 'u' ? *m : k ? auto_text[0] : 0;
            for (size_t i = from; i < len; i++) {
                if (want) {
                    const char *q = memchr(p + i, want, len - i);
                    if (!q)
                        break;
                    i = (size_t)(q - p);
                }
                long score;
                if (*m == '<' || *m == 'u') {
                    /* cmark's column is no hint at all here */
                    size_t at = *m == '<' ? i + 1 : i;
                    if ((*m == '<' && !is_start(p, len, i, '<', false))
                        || (*m == 'u' && i > 0 && p[i - 1] == '[') /* `[url](url)`: its '[' */
                        || k > len - at || strncmp(p + at, auto_text, k))
                        continue;
                    score = labs((long)(ln - hl)) * W + (long)i;
                } else {
                    if (!is_start(p, len, i, *m, image))
                        continue;
                    score = labs((long)(ln - hl)) * W + labs((long)i + 1 - hc);
                }
                if (best < 0 || score < best) {
                    best = score;
                    bl = ln;
                    bc = (int)i + 1;
                } else if (*m == '<' || *m == 'u' || (long)i + 1 > hc) {
                    break; /* further along this line only gets worse */
                }
            }
        }
    }
    if (best < 0)
        return;
    *line_out = bl;
    *col_out = bc;
    cur->lag += bl - hl;
    cur->line = bl;
    cur->col = bc; /* the next link starts after this one's first byte */
}

/* The occurrence of needle in p[0..len) nearest to byte h (an earlier one
 * on a tie): its offset, or -1. Reads only as far from h as the nearest
 * one is (and forward to the first one after h), so that finding each of
 * many tags on one long line near its hint stays linear in the line. */
static long nearest_in_line(const char *p, size_t len, const char *needle, size_t n, size_t h)
{
    if (h > len)
        h = len;
    const char *f = memmem(p + h, len - h, needle, n);
    size_t df = f ? (size_t)(f - (p + h)) : (size_t)-1;
    /* backwards from h, no further than df */
    size_t i = h < len - (n <= len ? n : len) + 1 ? h : (n <= len ? len - n + 1 : 0);
    while (i > 0 && h - (i - 1) <= df) {
        i--;
        if (p[i] == needle[0] && !memcmp(p + i, needle, n))
            return (long)i;
    }
    return f ? (long)(f - p) : -1;
}

bool md_find_in_leaf(md_source *s, cmark_node *leaf, int hint_line, int hint_col,
                     const char *needle, size_t n, int *line, int *col)
{
    if (!leaf || !n)
        return false;
    int first = cmark_node_get_start_line(leaf), last = cmark_node_get_end_line(leaf);
    /* nearest by line first, then by column (a line is worth more than any
     * column): the hint's line, then the lines one away (above first, as
     * on a tie), two away, … — each line read once at most */
    size_t h = hint_col > 1 ? (size_t)hint_col - 1 : 0;
    long d0 = hint_line < first ? first - hint_line : hint_line > last ? hint_line - last : 0;
    long dmax = (long)hint_line - first > last - (long)hint_line ? (long)hint_line - first
                                                                : last - (long)hint_line;
    for (long d = d0; d <= dmax; d++) {
        long best = -1;
        for (int side = 0; side < 2 && !(side && !d); side++) {
            long ln = side ? hint_line + d : hint_line - d;
            const char *p;
            size_t len;
            if (ln < first || ln > last || !md_source_line(s, (int)ln, &p, &len))
                continue;
            long c = nearest_in_line(p, len, needle, n, h);
            if (c < 0)
                continue;
            long score = labs(c - (long)h);
            if (best < 0 || score < best) {
                best = score;
                *line = (int)ln;
                *col = (int)c + 1;
            }
        }
        if (best >= 0)
            return true;
    }
    return false;
}

/* md: Markdown → HTML with cmark, one parse and one walk per page.
 *
 * cmark parses the body; we then walk its AST once with an iterator and
 * write the HTML ourselves, node by node, exactly as cmark_render_html does
 * (same markup, same escaping of text and attributes, same URL escaping and
 * unsafe-URL filter, same `<!-- raw HTML omitted -->` when raw HTML is not
 * allowed). Only two things differ from cmark's own output:
 *  - headings carry an id: `<h2 id="llm-training">`. The id is the slug of
 *    the heading's plain text (text_slugify), "section" when that is empty,
 *    made unique within the page by suffixes: x, x-1, x-2, …;
 *  - link and image destinations may be rewritten by the resolver.
 *
 * Along the way:
 *  - headings are collected (level, id, plain title, inline HTML, line);
 *  - every link and image outside an image's alt text goes to the resolver
 *    with its file position: the line, and the column (in bytes, from 1) of
 *    its '[' ('!' for images, '<' for autolinks). cmark's own inline
 *    positions are only a hint (see link_position);
 *  - the summary is the HTML before the first `<!--more-->` (an HTML block or
 *    inline HTML holding that comment), with the elements still open at
 *    that point closed, so it is well-formed; the marker itself is left out
 *    of the summary (but stays in the body, as cmark renders it). Without a
 *    marker, the summary is the first top-level paragraph;
 *  - word count: the text of each paragraph and heading — text nodes and
 *    code spans, with line breaks and inline HTML as word separators — is
 *    counted with text_word_count (each CJK character one word). Code
 *    blocks, raw HTML and image alt text are not counted.
 *
 * No global state: pages render on several threads at once. Everything in
 * the result lives in the caller's arena; cmark's memory is freed here. */
#include <cmark.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "md/md.h"
#include "util/buf.h"
#include "util/text.h"
#include "util/xalloc.h"

/* ---- escaping, as cmark's houdini does ---- */

/* Text and attribute values: houdini_escape_html0 with secure = 0. */
static const char *escape_of(char c)
{
    switch (c) {
    case '"': return "&quot;";
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    default: return NULL;
    }
}

static void put_escaped(buf *b, const char *s, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        const char *rep = escape_of(s[i]);
        if (!rep)
            continue;
        buf_put(b, s + start, i - start);
        buf_puts(b, rep);
        start = i + 1;
    }
    buf_put(b, s + start, n - start);
}

/* The same for a NUL-terminated string (most text): strcspn skips the
 * plain stretches many bytes at a time. */
static void put_escaped_cstr(buf *b, const char *s)
{
    if (!s)
        return;
    for (;;) {
        size_t k = strcspn(s, "\"&<>");
        buf_put(b, s, k);
        if (!s[k])
            return;
        buf_puts(b, escape_of(s[k]));
        s += k + 1;
    }
}

/* Bytes houdini_escape_href writes as they are. */
static bool href_safe(unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return c != 0 && strchr("!#$%()*+,-./:;=?@_~", c) != NULL;
}

static void put_href(buf *b, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (href_safe(*p)) {
            buf_putc(b, *p);
        } else if (*p == '&') {
            buf_puts(b, "&amp;");
        } else if (*p == '\'') {
            buf_puts(b, "&#x27;");
        } else {
            char e[3] = { '%', hex[*p >> 4], hex[*p & 15] };
            buf_put(b, e, 3);
        }
    }
}

static bool starts_ci(const char *s, const char *prefix)
{
    return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

/* cmark's _scan_dangerous_url: javascript:, vbscript:, file: and data:,
 * except data:image/{png,gif,jpeg,webp} (for links and images alike). */
static bool dangerous_url(const char *u)
{
    static const char *const ok[] = { "data:image/png", "data:image/gif", "data:image/jpeg",
                                      "data:image/webp" };
    static const char *const bad[] = { "javascript:", "vbscript:", "file:", "data:" };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        if (starts_ci(u, ok[i]))
            return false;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (starts_ci(u, bad[i]))
            return true;
    return false;
}

/* ---- small growable arrays (malloc; copied into the arena at the end) ---- */

typedef struct vec {
    void *v;
    size_t n, cap, size;
} vec;

static void *vec_push(vec *x)
{
    if (x->n == x->cap) {
        x->cap = x->cap ? x->cap * 2 : 8;
        x->v = xrealloc(x->v, x->cap * x->size);
    }
    void *p = (char *)x->v + x->size * x->n++;
    memset(p, 0, x->size);
    return p;
}

static void *vec_to_arena(vec *x, arena *a)
{
    void *p = NULL;
    if (x->n) {
        p = arena_alloc(a, x->n * x->size);
        memcpy(p, x->v, x->n * x->size);
    }
    free(x->v);
    x->v = NULL;
    return p;
}

/* ---- a set of strings (heading ids taken so far) ---- */

/* Each id remembers the next suffix to try when it is taken again, so n
 * headings with one title cost O(n), not O(n^2). */
typedef struct idslot {
    const char *s;
    int next;
} idslot;

typedef struct idset {
    idslot *slot;
    size_t cap, n;
} idset;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static idslot *idset_find(const idset *set, const char *s)
{
    if (!set->cap)
        return NULL;
    for (size_t i = hash_str(s) & (set->cap - 1);; i = (i + 1) & (set->cap - 1)) {
        if (!set->slot[i].s)
            return NULL;
        if (!strcmp(set->slot[i].s, s))
            return &set->slot[i];
    }
}

/* s must outlive the set (it lives in the arena). */
static void idset_add(idset *set, const char *s)
{
    if ((set->n + 1) * 2 > set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 16;
        idset big = { xcalloc(cap, sizeof(idslot)), cap, 0 };
        for (size_t i = 0; i < set->cap; i++)
            if (set->slot[i].s) {
                idset_add(&big, set->slot[i].s);
                idset_find(&big, set->slot[i].s)->next = set->slot[i].next;
            }
        free(set->slot);
        *set = big;
    }
    size_t i = hash_str(s) & (set->cap - 1);
    while (set->slot[i].s)
        i = (i + 1) & (set->cap - 1);
    set->slot[i] = (idslot){ s, 1 };
    set->n++;
}

/* ---- the walk ---- */

typedef struct renderer {
    arena *a;
    bool unsafe, hard_breaks;
    int line0; /* added to cmark's 1-based lines */
    str src;
    size_t *line_start; /* lazily: offsets of the source lines */
    size_t nlines;
    md_link_fn resolve;
    void *ctx;
    buf html, tmp, words;
    size_t nwords;
    vec heads, links;
    idset ids;
    cmark_node *plain; /* inside this image: only its alt text is written */
    cmark_node *cur_leaf; /* block of the last link placed, and where it began */
    int cur_line, cur_col, cur_lag;
} renderer;

/* Plain text of an inline subtree: text and code spans, breaks as spaces,
 * raw HTML left out; an image contributes its alt text. */
static void plain_text(cmark_node *n, buf *b)
{
    for (cmark_node *c = cmark_node_first_child(n); c; c = cmark_node_next(c)) {
        switch (cmark_node_get_type(c)) {
        case CMARK_NODE_TEXT:
        case CMARK_NODE_CODE:
            buf_puts(b, cmark_node_get_literal(c));
            break;
        case CMARK_NODE_SOFTBREAK:
        case CMARK_NODE_LINEBREAK:
            buf_putc(b, ' ');
            break;
        case CMARK_NODE_HTML_INLINE:
            break;
        default:
            plain_text(c, b);
            break;
        }
    }
}

static void cr(buf *b)
{
    if (b->len && b->data[b->len - 1] != '\n')
        buf_putc(b, '\n');
}

static bool in_tight_list(cmark_node *para)
{
    cmark_node *gp = cmark_node_parent(cmark_node_parent(para));
    return gp && cmark_node_get_type(gp) == CMARK_NODE_LIST && cmark_node_get_list_tight(gp);
}

/* Writes what cmark writes when leaving n (markup only, no side effects);
 * used both by the walk and to close open elements at <!--more-->. */
static void emit_exit(renderer *r, buf *b, cmark_node *n)
{
    switch (cmark_node_get_type(n)) {
    case CMARK_NODE_BLOCK_QUOTE:
        cr(b);
        buf_puts(b, "</blockquote>\n");
        break;
    case CMARK_NODE_LIST:
        buf_puts(b, cmark_node_get_list_type(n) == CMARK_BULLET_LIST ? "</ul>\n" : "</ol>\n");
        break;
    case CMARK_NODE_ITEM:
        buf_puts(b, "</li>\n");
        break;
    case CMARK_NODE_HEADING:
        buf_printf(b, "</h%d>\n", cmark_node_get_heading_level(n));
        break;
    case CMARK_NODE_PARAGRAPH:
        if (!in_tight_list(n))
            buf_puts(b, "</p>\n");
        break;
    case CMARK_NODE_CUSTOM_BLOCK:
        cr(b);
        buf_puts(b, cmark_node_get_on_exit(n));
        cr(b);
        break;
    case CMARK_NODE_CUSTOM_INLINE:
        buf_puts(b, cmark_node_get_on_exit(n));
        break;
    case CMARK_NODE_STRONG:
        buf_puts(b, "</strong>");
        break;
    case CMARK_NODE_EMPH:
        buf_puts(b, "</em>");
        break;
    case CMARK_NODE_LINK:
        buf_puts(b, "</a>");
        break;
    case CMARK_NODE_IMAGE: {
        const char *title = cmark_node_get_title(n);
        if (title && *title) {
            buf_puts(b, "\" title=\"");
            put_escaped_cstr(b, title);
        }
        buf_puts(b, "\" />");
        break;
    }
    default:
        (void)r;
        break;
    }
}

static void put_url(renderer *r, buf *b, const char *url)
{
    if (!url)
        url = "";
    if (r->unsafe || !dangerous_url(url))
        put_href(b, url);
}

/* ---- link positions ---- */

static void index_lines(renderer *r)
{
    vec v = { .size = sizeof(size_t) };
    *(size_t *)vec_push(&v) = 0;
    const char *p = r->src.ptr, *end = r->src.ptr + r->src.len;
    if (!memchr(p, '\r', r->src.len)) {
        /* the usual case, '\n' only: memchr finds each at memory speed */
        while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL)
            *(size_t *)vec_push(&v) = (size_t)(++p - r->src.ptr);
        r->line_start = v.v;
        r->nlines = v.n;
        return;
    }
    for (size_t i = 0; i < r->src.len; i++) {
        char c = r->src.ptr[i];
        if (c == '\r' && i + 1 < r->src.len && r->src.ptr[i + 1] == '\n')
            i++;
        else if (c != '\r' && c != '\n')
            continue;
        *(size_t *)vec_push(&v) = i + 1;
    }
    r->line_start = v.v;
    r->nlines = v.n;
}

/* Source line `line` (cmark's numbering, from 1) as [*s, *s + *n). */
static bool source_line(renderer *r, int line, const char **s, size_t *n)
{
    if (!r->line_start)
        index_lines(r);
    if (line < 1 || (size_t)line > r->nlines)
        return false;
    size_t b = r->line_start[line - 1];
    size_t e = (size_t)line < r->nlines ? r->line_start[line] : r->src.len;
    while (e > b && (r->src.ptr[e - 1] == '\n' || r->src.ptr[e - 1] == '\r'))
        e--;
    *s = r->src.ptr + b;
    *n = e - b;
    return true;
}

/* Is s[i] a link or image start: `want` there, and not backslash-escaped?
 * For an image, the '!' must be followed by '['. */
static bool is_start(const char *s, size_t n, size_t i, const char *want, bool image)
{
    if (!strchr(want, s[i]) || s[i] == '\0')
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

/* Finds the file position of link/image n, which sits in leaf block `leaf`.
 *
 * cmark's inline positions are only hints: it drops newlines met inside
 * link destinations and titles, dates a link that spans lines from its last
 * line, counts lines of a paragraph from the link reference definitions
 * that were taken out of it, and gets columns wrong on lines whose prefix
 * differs from the block's first line (lazy continuations, indentation,
 * tabs) and for autolinks. So the start is looked up in the source: of the
 * unescaped '[' ('!' for images, also '<' for what looks like an autolink)
 * after the previous link of the block, the one nearest cmark's hint
 * (the line first, then the column); the hint's line comes from the link's
 * text and is shifted by how far behind cmark was for the previous link.
 * An autolink is found by its URL after the '<'. */
static void link_position(renderer *r, cmark_node *n, cmark_node *leaf, bool image, int *line_out,
                          int *col_out)
{
    int hl = cmark_node_get_start_line(n), hc = cmark_node_get_start_column(n);
    /* a link that spans lines gets its last line; its text knows better */
    for (cmark_node *c = cmark_node_first_child(n); c; c = cmark_node_first_child(c))
        if (cmark_node_get_start_line(c) > 0) {
            hl = cmark_node_get_start_line(c);
            break;
        }
    *line_out = hl;
    *col_out = hc > 0 ? hc : 1;
    if (!leaf)
        return;
    if (leaf != r->cur_leaf) {
        r->cur_leaf = leaf;
        r->cur_line = cmark_node_get_start_line(leaf);
        r->cur_col = 0;
        r->cur_lag = 0;
        /* link reference definitions come first in a paragraph */
        const char *s;
        size_t len;
        if (cmark_node_get_type(leaf) == CMARK_NODE_PARAGRAPH)
            while (r->cur_line < cmark_node_get_end_line(leaf)
                   && source_line(r, r->cur_line, &s, &len) && ref_def_line(s, len))
                r->cur_line++;
    }
    hl += r->cur_lag; /* cmark's line count, once behind, stays behind */
    const char *want = "[";
    const char *auto_text = NULL; /* what follows the '<' of an autolink */
    if (image) {
        want = "!";
    } else {
        const char *url = cmark_node_get_url(n);
        cmark_node *c = cmark_node_first_child(n);
        const char *lit = c ? cmark_node_get_literal(c) : NULL;
        if (url && lit && !cmark_node_next(c) && has_scheme(url)
            && (!strcmp(url, lit) || (!strncmp(url, "mailto:", 7) && !strcmp(url + 7, lit)))) {
            want = "<[";
            auto_text = lit;
        }
    }
    int last = cmark_node_get_end_line(leaf);
    const long W = 1L << 20;
    long best = -1;
    int bl = 0, bc = 0;
    /* an autolink's '<' first; then (a link whose text is its URL) '[' */
    for (const char *w = want; *w && best < 0; w++) {
        char one[2] = { *w, 0 };
        for (int ln = r->cur_line; ln <= last; ln++) {
            if (best >= 0 && (long)(ln - hl) * W > best)
                break;
            const char *s;
            size_t len;
            if (!source_line(r, ln, &s, &len))
                break;
            size_t from = ln == r->cur_line ? (size_t)r->cur_col : 0;
            for (size_t i = from; i < len; i++) {
                if (!is_start(s, len, i, one, image))
                    continue;
                long score = labs((long)(ln - hl)) * W + labs((long)i + 1 - hc);
                if (*w == '<') {
                    /* the source spells the URL out (up to any entity);
                     * cmark's column for an autolink is no hint at all */
                    size_t k = strcspn(auto_text, "&");
                    if (k > len - i - 1 || strncmp(s + i + 1, auto_text, k) != 0)
                        continue;
                    score = labs((long)(ln - hl)) * W + (long)i;
                }
                if (best < 0 || score < best) {
                    best = score;
                    bl = ln;
                    bc = (int)i + 1;
                } else if ((long)i + 1 > hc || *w == '<') {
                    break; /* further along this line only gets worse */
                }
            }
        }
    }
    if (best < 0)
        return;
    *line_out = bl;
    *col_out = bc;
    r->cur_lag += bl - hl;
    r->cur_line = bl;
    r->cur_col = bc; /* the next link starts after this one's first byte */
}

/* ---- headings ---- */

static const char *unique_id(renderer *r, const char *title, size_t n)
{
    buf slug = BUF_INIT;
    text_slugify(&slug, title, n);
    if (!slug.len)
        buf_puts(&slug, "section");
    char *id;
    idslot *base = idset_find(&r->ids, slug.data);
    if (!base) {
        id = arena_strndup(r->a, slug.data, slug.len);
    } else {
        buf u = BUF_INIT;
        int k = base->next;
        for (;; k++) {
            buf_reset(&u);
            buf_printf(&u, "%s-%d", slug.data, k);
            if (!idset_find(&r->ids, u.data))
                break;
        }
        base->next = k + 1;
        id = arena_strndup(r->a, u.data, u.len);
        buf_release(&u);
    }
    buf_release(&slug);
    idset_add(&r->ids, id);
    return id;
}

/* ---- the summary marker ---- */

static bool is_more(cmark_node *n)
{
    const char *lit = cmark_node_get_literal(n);
    return lit && strstr(lit, "<!--more-->") != NULL;
}

/* The summary at a marker: the HTML so far, with every element the marker
 * sits in closed. */
static void summary_at(renderer *r, cmark_node *marker, buf *out)
{
    buf_put(out, r->html.data, r->html.len);
    if (cmark_node_get_type(marker) == CMARK_NODE_HTML_INLINE)
        while (out->len && (out->data[out->len - 1] == ' ' || out->data[out->len - 1] == '\n'))
            out->len--;
    out->data[out->len] = '\0';
    for (cmark_node *p = cmark_node_parent(marker);
         p && cmark_node_get_type(p) != CMARK_NODE_DOCUMENT; p = cmark_node_parent(p))
        emit_exit(r, out, p);
}

static void flush_words(renderer *r)
{
    if (r->words.len)
        r->nwords += text_word_count(r->words.data, r->words.len);
    buf_reset(&r->words);
}

/* ---- entering a node ---- */

static void enter_link(renderer *r, cmark_node *n, bool image)
{
    cmark_node *leaf = cmark_node_parent(n);
    while (leaf && cmark_node_get_type(leaf) != CMARK_NODE_PARAGRAPH
           && cmark_node_get_type(leaf) != CMARK_NODE_HEADING)
        leaf = cmark_node_parent(leaf);
    md_link *l = vec_push(&r->links);
    const char *url = cmark_node_get_url(n);
    l->dest = arena_strdup(r->a, url ? url : "");
    buf_reset(&r->tmp);
    plain_text(n, &r->tmp);
    l->text = arena_strndup(r->a, r->tmp.data, r->tmp.len);
    int line, col;
    link_position(r, n, leaf, image, &line, &col);
    l->line = line + r->line0;
    l->col = col;
    l->image = image;
    const char *w = r->resolve ? r->resolve(r->ctx, l) : NULL;
    buf *b = &r->html;
    if (image) {
        buf_puts(b, "<img src=\"");
        put_url(r, b, w ? w : l->dest);
        buf_puts(b, "\" alt=\"");
        r->plain = n;
    } else {
        buf_puts(b, "<a href=\"");
        put_url(r, b, w ? w : l->dest);
        const char *title = cmark_node_get_title(n);
        if (title && *title) {
            buf_puts(b, "\" title=\"");
            put_escaped_cstr(b, title);
        }
        buf_puts(b, "\">");
    }
}

static void enter_heading(renderer *r, cmark_node *n)
{
    md_heading *h = vec_push(&r->heads);
    h->level = cmark_node_get_heading_level(n);
    h->line = cmark_node_get_start_line(n) + r->line0;
    buf_reset(&r->tmp);
    plain_text(n, &r->tmp);
    h->title = arena_strndup(r->a, r->tmp.data, r->tmp.len);
    h->id = unique_id(r, r->tmp.data, r->tmp.len);
    cr(&r->html);
    buf_printf(&r->html, "<h%d id=\"", h->level);
    put_escaped_cstr(&r->html, h->id);
    buf_puts(&r->html, "\">");
}

static void enter_code_block(renderer *r, cmark_node *n)
{
    buf *b = &r->html;
    const char *info = cmark_node_get_fence_info(n);
    cr(b);
    if (!info || !*info) {
        buf_puts(b, "<pre><code>");
    } else {
        size_t k = 0;
        while (info[k] && !strchr(" \t\n\v\f\r", info[k]))
            k++;
        buf_puts(b, "<pre><code class=\"language-");
        put_escaped(b, info, k);
        buf_puts(b, "\">");
    }
    put_escaped_cstr(b, cmark_node_get_literal(n));
    buf_puts(b, "</code></pre>\n");
}

static void enter(renderer *r, cmark_node *n)
{
    buf *b = &r->html;
    switch (cmark_node_get_type(n)) {
    case CMARK_NODE_BLOCK_QUOTE:
        cr(b);
        buf_puts(b, "<blockquote>\n");
        break;
    case CMARK_NODE_LIST:
        cr(b);
        if (cmark_node_get_list_type(n) == CMARK_BULLET_LIST)
            buf_puts(b, "<ul>\n");
        else if (cmark_node_get_list_start(n) == 1)
            buf_puts(b, "<ol>\n");
        else
            buf_printf(b, "<ol start=\"%d\">\n", cmark_node_get_list_start(n));
        break;
    case CMARK_NODE_ITEM:
        cr(b);
        buf_puts(b, "<li>");
        break;
    case CMARK_NODE_HEADING:
        enter_heading(r, n);
        break;
    case CMARK_NODE_CODE_BLOCK:
        enter_code_block(r, n);
        break;
    case CMARK_NODE_HTML_BLOCK:
        cr(b);
        if (r->unsafe)
            buf_puts(b, cmark_node_get_literal(n));
        else
            buf_puts(b, "<!-- raw HTML omitted -->");
        cr(b);
        break;
    case CMARK_NODE_CUSTOM_BLOCK:
        cr(b);
        buf_puts(b, cmark_node_get_on_enter(n));
        cr(b);
        break;
    case CMARK_NODE_THEMATIC_BREAK:
        cr(b);
        buf_puts(b, "<hr />\n");
        break;
    case CMARK_NODE_PARAGRAPH:
        if (!in_tight_list(n)) {
            cr(b);
            buf_puts(b, "<p>");
        }
        break;
    case CMARK_NODE_TEXT:
        put_escaped_cstr(b, cmark_node_get_literal(n));
        buf_puts(&r->words, cmark_node_get_literal(n));
        break;
    case CMARK_NODE_LINEBREAK:
        buf_puts(b, "<br />\n");
        buf_putc(&r->words, ' ');
        break;
    case CMARK_NODE_SOFTBREAK:
        if (r->hard_breaks)
            buf_puts(b, "<br />\n");
        else
            buf_putc(b, '\n');
        buf_putc(&r->words, ' ');
        break;
    case CMARK_NODE_CODE:
        buf_puts(b, "<code>");
        put_escaped_cstr(b, cmark_node_get_literal(n));
        buf_puts(b, "</code>");
        buf_puts(&r->words, cmark_node_get_literal(n));
        break;
    case CMARK_NODE_HTML_INLINE:
        if (r->unsafe)
            buf_puts(b, cmark_node_get_literal(n));
        else
            buf_puts(b, "<!-- raw HTML omitted -->");
        buf_putc(&r->words, ' ');
        break;
    case CMARK_NODE_CUSTOM_INLINE:
        buf_puts(b, cmark_node_get_on_enter(n));
        break;
    case CMARK_NODE_STRONG:
        buf_puts(b, "<strong>");
        break;
    case CMARK_NODE_EMPH:
        buf_puts(b, "<em>");
        break;
    case CMARK_NODE_LINK:
        enter_link(r, n, false);
        break;
    case CMARK_NODE_IMAGE:
        enter_link(r, n, true);
        break;
    default:
        break;
    }
}

/* Inside an image's alt text cmark writes only the escaped text. */
static void enter_plain(renderer *r, cmark_node *n)
{
    switch (cmark_node_get_type(n)) {
    case CMARK_NODE_TEXT:
    case CMARK_NODE_CODE:
    case CMARK_NODE_HTML_INLINE:
        put_escaped_cstr(&r->html, cmark_node_get_literal(n));
        break;
    case CMARK_NODE_LINEBREAK:
    case CMARK_NODE_SOFTBREAK:
        buf_putc(&r->html, ' ');
        break;
    default:
        break;
    }
}

void md_render(str body, int first_line, const md_options *opt, md_link_fn resolve, void *ctx,
               arena *a, md_result *out)
{
    memset(out, 0, sizeof *out);
    md_options none = { 0 };
    if (!opt)
        opt = &none;
    int opts = CMARK_OPT_SOURCEPOS;
    if (opt->unsafe)
        opts |= CMARK_OPT_UNSAFE;
    if (opt->smart)
        opts |= CMARK_OPT_SMART;
    if (opt->hard_breaks)
        opts |= CMARK_OPT_HARDBREAKS;
    cmark_parser *parser = cmark_parser_new(opts);
    if (body.len)
        cmark_parser_feed(parser, body.ptr, body.len);
    cmark_node *doc = cmark_parser_finish(parser);
    cmark_parser_free(parser);

    renderer r = {
        .a = a,
        .unsafe = opt->unsafe,
        .hard_breaks = opt->hard_breaks,
        .line0 = first_line - 1,
        .src = body,
        .resolve = resolve,
        .ctx = ctx,
        .html = BUF_INIT,
        .tmp = BUF_INIT,
        .words = BUF_INIT,
        .heads = { .size = sizeof(md_heading) },
        .links = { .size = sizeof(md_link) },
    };
    buf summary = BUF_INIT;
    bool have_summary = false;
    size_t head_start = 0, para_start = 0; /* where the current heading's content / top paragraph began */

    cmark_iter *it = cmark_iter_new(doc);
    cmark_event_type ev;
    while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node *n = cmark_iter_get_node(it);
        cmark_node_type t = cmark_node_get_type(n);
        if (r.plain == n) /* leaving the image */
            r.plain = NULL;
        if (r.plain) {
            if (ev == CMARK_EVENT_ENTER)
                enter_plain(&r, n);
            continue;
        }
        if (ev == CMARK_EVENT_ENTER) {
            if (!out->has_more && (t == CMARK_NODE_HTML_BLOCK || t == CMARK_NODE_HTML_INLINE)
                && is_more(n)) {
                out->has_more = true;
                buf_reset(&summary);
                summary_at(&r, n, &summary);
                have_summary = true;
            }
            bool top_para = t == CMARK_NODE_PARAGRAPH && cmark_node_parent(n) == doc;
            if (top_para) {
                cr(&r.html);
                para_start = r.html.len;
            }
            enter(&r, n);
            if (t == CMARK_NODE_HEADING)
                head_start = r.html.len;
        } else {
            if (t == CMARK_NODE_HEADING) {
                md_heading *h = (md_heading *)r.heads.v + r.heads.n - 1;
                h->html = arena_strndup(a, r.html.data + head_start, r.html.len - head_start);
            }
            emit_exit(&r, &r.html, n);
            if (t == CMARK_NODE_PARAGRAPH || t == CMARK_NODE_HEADING)
                flush_words(&r);
            if (t == CMARK_NODE_PARAGRAPH && cmark_node_parent(n) == doc && !have_summary) {
                buf_put(&summary, r.html.data + para_start, r.html.len - para_start);
                have_summary = true;
            }
        }
    }
    cmark_iter_free(it);
    cmark_node_free(doc);
    flush_words(&r);

    out->html = arena_strndup(a, r.html.data, r.html.len);
    out->html_len = r.html.len;
    out->summary_html = arena_strndup(a, summary.data, summary.len);
    out->summary_len = summary.len;
    out->nheadings = r.heads.n;
    out->headings = vec_to_arena(&r.heads, a);
    out->nlinks = r.links.n;
    out->links = vec_to_arena(&r.links, a);
    out->word_count = r.nwords;

    buf_release(&r.html);
    buf_release(&r.tmp);
    buf_release(&r.words);
    buf_release(&summary);
    free(r.line_start);
    free(r.ids.slot);
}

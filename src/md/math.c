/* md/math.c: TeX math — `$…$`, `\(…\)` inline, `$$…$$`, `\[…\]` and
 * ```math fences display — taken out of the Markdown before cmark-gfm
 * touches it (no emphasis in `$a*b*c$`, `\` stays `\`), and written
 * through md_options.math (KaTeX → MathML at build time; see
 * site/math.c). The delimiter rules are in md/mathscan.c.
 *
 * How the syntax gets into cmark-gfm, whose inline parser handles `\`
 * itself and only asks extensions about other characters:
 *  - `$` is a special character of an inline extension. cmark-gfm keeps
 *    special characters in one table for all threads and clears an
 *    extension's characters when each parse ends, which would race between
 *    pages parsing at once; so `$` is set in that table once, for good, by
 *    a parser made only for that, and the math extension lists no special
 *    characters of its own. A `$` that is not math is text as before.
 *  - `\(`: the parser is told that `(` cannot be backslash-escaped, so
 *    `\(` leaves a text node "\" and the extension is asked about `(`: when
 *    a formula follows (and the backslash run before `(` is odd), the "\"
 *    node goes; when none does, it is emptied, so `\(` is "(" as before.
 *  - Display blocks (`$$` or `\[` opening a line) are fenced code blocks
 *    owned by the extension, so the lines inside are never Markdown (a
 *    line `- c & d` in a matrix is not a list item); ```math fences are
 *    ordinary code blocks, recognised when written.
 *  - `\[` inside a line is left alone (an escaped bracket): cmark-gfm
 *    handles `[` before any extension sees it.
 *
 * Positions: inline nodes record cmark's line and column as a hint and are
 * looked up in the source (md/source.c); blocks know their line. A TeX
 * error (md_options.math returns NULL) is an error at the line and column
 * of the offending character when the renderer says which, else at the
 * formula's start. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "md/cmark_private.h"
#include "md/internal.h"
#include "md/mathscan.h"
#include "util/xalloc.h"

typedef struct math_data {
    char *tex;          /* inline: the TeX; block: the TeX on the opening line */
    size_t len;
    bool display;
    bool block, closed; /* a display block, and whether its closer was seen */
    char closer;        /* '$' or ']' */
    const char *opener; /* inline: "$", "$$" or "\\(" */
    int line, col;      /* inline: cmark's hint of the opener's position */
} math_data;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static cmark_syntax_extension *math_ext, *pin_ext;
static cmark_llist *pin_chars;
static cmark_node_type node_math;
static _Thread_local md_walk *parsing; /* the walk whose page this thread parses */

/* What a backslash escapes: ASCII punctuation (CommonMark), but for `(`. */
static int no_paren_escape(char c)
{
    return c && c != '(' && strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) != NULL;
}

/* ---- inline ---- */

static bool is_text(cmark_node *n, const char *lit)
{
    return n && cmark_node_get_type(n) == CMARK_NODE_TEXT && !strcmp(cmark_node_get_literal(n), lit);
}

static cmark_node *match_inline(cmark_syntax_extension *self, cmark_parser *parser,
                                cmark_node *parent, unsigned char c, cmark_inline_parser *inl)
{
    (void)parser;
    md_walk *w = parsing;
    if (!w || (c != '$' && c != '('))
        return NULL;
    size_t n;
    const char *s = md_inline_text(inl, &n);
    size_t at = (size_t)cmark_inline_parser_get_offset(inl);
    if (at >= n)
        return NULL;
    cmark_node *backslash = NULL;
    bool escaped = false;
    if (c == '(') {
        size_t k = 0;
        while (k < at && s[at - 1 - k] == '\\')
            k++;
        backslash = cmark_node_last_child(parent);
        /* `\\(`: Markdown's escaped backslash, then `(` — math for a site
         * written so (markdown.math_escapes) */
        escaped = !(k & 1) && k >= 2 && md_walk_options(w)->math_escapes;
        if ((!(k & 1) && !escaped) || !is_text(backslash, "\\"))
            return NULL;
        at -= escaped ? 2 : 1;
    }
    md_math_span m;
    if (escaped ? !md_math_scan_escaped(s, n, at, &m) : !md_math_scan(s, n, at, &m)) {
        if (escaped)
            return NULL; /* the escaped backslash stays text */
        if (backslash)
            cmark_node_set_literal(backslash, ""); /* `\(` escapes `(`, as before */
        return NULL;
    }
    math_data *d = arena_alloc(md_walk_arena(w), sizeof *d);
    memset(d, 0, sizeof *d);
    d->tex = arena_strndup(md_walk_arena(w), s + m.tex, m.tex_len);
    d->len = m.tex_len;
    d->display = m.display;
    d->opener = escaped ? "\\\\(" : backslash ? "\\(" : m.display ? "$$" : "$";
    d->line = cmark_inline_parser_get_line(inl);
    d->col = cmark_inline_parser_get_column(inl) - (escaped ? 2 : backslash ? 1 : 0);
    cmark_node *node = cmark_node_new_with_mem(node_math, md_walk_mem(w));
    cmark_node_set_syntax_extension(node, self);
    cmark_node_set_user_data(node, d);
    cmark_inline_parser_set_offset(inl, (int)m.end);
    if (backslash) {
        cmark_node_unlink(backslash);
        cmark_node_free(backslash);
    }
    return node;
}

/* ---- display blocks ---- */

static size_t line_len(const unsigned char *s, size_t n)
{
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    return n;
}

static cmark_node *open_block(cmark_syntax_extension *self, int indented, cmark_parser *parser,
                              cmark_node *parent, unsigned char *input, int len)
{
    md_walk *w = parsing;
    if (!w || indented || len <= 0)
        return NULL;
    size_t first = (size_t)cmark_parser_get_first_nonspace(parser);
    size_t end = line_len(input, (size_t)len);
    if (first >= end)
        return NULL;
    const char *line = (const char *)input + first;
    char closer;
    size_t olen;
    bool closed;
    if (!md_math_block_open(line, end - first, &closer, &olen, &closed))
        return NULL;
    cmark_node *b = cmark_parser_add_child(parser, parent, CMARK_NODE_CODE_BLOCK, (int)first + 1);
    cmark_node_set_syntax_extension(b, self);
    cmark_node_set_fenced(b, 1, 2, 0, closer);
    math_data *d = arena_alloc(md_walk_arena(w), sizeof *d);
    memset(d, 0, sizeof *d);
    d->block = d->display = true;
    d->closed = closed;
    d->closer = closer;
    d->len = end - first - olen;
    d->tex = arena_strndup(md_walk_arena(w), line + olen, d->len);
    cmark_node_set_user_data(b, d);
    /* the rest of the line is ours (kept above): the block's text starts
     * on the next line */
    cmark_parser_advance_offset(parser, (const char *)input,
                                (int)end - cmark_parser_get_offset(parser), 0);
    return b;
}

static int block_matches(cmark_syntax_extension *self, cmark_parser *parser, unsigned char *input,
                         int len, cmark_node *container)
{
    (void)self;
    math_data *d = cmark_node_get_user_data(container);
    if (!d || !d->block || d->closed || len <= 0)
        return 0;
    size_t off = (size_t)cmark_parser_get_offset(parser);
    size_t end = line_len(input, (size_t)len);
    size_t tail;
    if (off < end && md_math_block_closes((const char *)input + off, end - off, d->closer, &tail))
        d->closed = true;
    return 1;
}

/* ---- setup ---- */

static cmark_node *pin_match(cmark_syntax_extension *self, cmark_parser *parser, cmark_node *parent,
                             unsigned char c, cmark_inline_parser *inl)
{
    (void)self, (void)parser, (void)parent, (void)c, (void)inl;
    return NULL;
}

static void setup(void)
{
    math_ext = cmark_syntax_extension_new("math");
    node_math = cmark_syntax_extension_add_node(1);
    cmark_syntax_extension_set_match_inline_func(math_ext, match_inline);
    cmark_syntax_extension_set_open_block_func(math_ext, open_block);
    cmark_syntax_extension_set_match_block_func(math_ext, block_matches);
    /* `$` a special character for good (see the top of the file) */
    cmark_mem *mem = cmark_get_default_mem_allocator();
    pin_ext = cmark_syntax_extension_new("math-dollar");
    cmark_syntax_extension_set_match_inline_func(pin_ext, pin_match);
    pin_chars = cmark_llist_append(mem, NULL, (void *)(uintptr_t)'$');
    cmark_syntax_extension_set_special_inline_chars(pin_ext, pin_chars);
    cmark_parser *p = cmark_parser_new(0);
    cmark_parser_attach_syntax_extension(p, pin_ext);
    cmark_manage_extensions_special_characters(p, 1);
    cmark_parser_free(p);
}

static void attach_walk(md_walk *w, cmark_parser *p)
{
    pthread_once(&once, setup);
    parsing = w;
    cmark_parser_attach_syntax_extension(p, math_ext);
    cmark_parser_set_backslash_ispunct_func(p, no_paren_escape);
}

/* ---- writing ---- */

/* The file position (cmark's line, column) of byte `at` of a formula
 * whose TeX starts at (line, col). */
static void position_in(md_walk *w, const char *tex, long at, int *line, int *col)
{
    if (at < 0)
        return;
    long last_nl = -1;
    int k = 0;
    for (long i = 0; i < at && tex[i]; i++)
        if (tex[i] == '\n') {
            k++;
            last_nl = i;
        }
    if (!k) {
        *col += (int)at;
        return;
    }
    *line += k;
    /* a later line of the TeX: find it in the source line (its indent
     * there may differ) */
    const char *frag = tex + last_nl + 1;
    size_t flen = strcspn(frag, "\n");
    const char *p;
    size_t n;
    *col = (int)(at - last_nl);
    if (flen && md_source_line(md_walk_source(w), *line, &p, &n)) {
        const char *q = memmem(p, n, frag, flen);
        if (q)
            *col = (int)(q - p) + (int)(at - last_nl);
    }
}

/* ---- equation references ---- */

/* The key of a `\name{key}` at s[i] (no line break in it), or NULL. */
static const char *ref_at(const char *s, size_t n, size_t i, const char *name, size_t *klen, size_t *end)
{
    size_t w = strlen(name);
    if (i + w > n || memcmp(s + i, name, w) || (i > 0 && s[i - 1] == '\\'))
        return NULL;
    const char *close = memchr(s + i + w, '}', n - i - w);
    if (!close || close == s + i + w || memchr(s + i + w, '\n', (size_t)(close - s) - i - w))
        return NULL;
    *klen = (size_t)(close - s) - i - w;
    *end = (size_t)(close - s) + 1;
    return s + i + w;
}

static size_t label_number(md_walk *w, const char *key, size_t len)
{
    md_vec *v = md_walk_eqlabels(w);
    for (size_t i = 0; i < v->n; i++) {
        const md_eqlabel *l = (const md_eqlabel *)v->v + i;
        if (l->len == len && !memcmp(l->key, key, len))
            return l->num;
    }
    return 0;
}

/* The labels of one display formula (its TeX in up to two pieces), all
 * with the formula's number: the next one, when it has a new label. */
static void add_labels(md_walk *w, size_t *count, const char *s1, size_t n1, const char *s2, size_t n2)
{
    size_t num = 0;
    for (int k = 0; k < 2; k++) {
        const char *s = k ? s2 : s1;
        size_t n = k ? n2 : n1;
        for (size_t i = 0; s && i < n; i++) {
            size_t klen, end;
            const char *key = s[i] == '\\' ? ref_at(s, n, i, "\\label{", &klen, &end) : NULL;
            if (!key || label_number(w, key, klen))
                continue;
            if (!num)
                num = ++*count;
            md_eqlabel *l = md_vec_push(md_walk_eqlabels(w));
            l->key = arena_strndup(md_walk_arena(w), key, klen);
            l->len = klen;
            l->num = num;
            i = end - 1;
        }
    }
}

/* A display block's TeX: the opening line's, then the lines below, with
 * its closer, and a `{#eq-key}` after the closer as `\label{eq-key}`. */
static void block_text(const math_data *d, const char *lit, buf *tex)
{
    if (d->tex[strspn(d->tex, " \t")]) {
        buf_put(tex, d->tex, d->len);
        if (lit && *lit)
            buf_putc(tex, '\n');
    }
    if (lit)
        buf_puts(tex, lit);
    const char *key;
    size_t klen, attr = md_math_eq_attr(tex->data, tex->len, &key, &klen);
    if (attr) {
        char *k = xstrndup(key, klen);
        buf_truncate(tex, tex->len - attr);
        buf_printf(tex, " \\label{%s}", k);
        free(k);
    }
}

/* Whether s[0..n) may label an equation: holds "\\label{" or "{#eq-".
 * Both have a '{', which memchr finds many bytes a step (memmem's general
 * search was 20 instructions a byte of every page). */
static bool has_eq_label(const char *s, size_t n)
{
    for (const char *b = memchr(s, '{', n); b; b = memchr(b + 1, '{', (size_t)(s + n - b - 1))) {
        size_t i = (size_t)(b - s);
        if ((i >= 6 && !memcmp(b - 6, "\\label", 6)) || (n - i >= 5 && !memcmp(b, "{#eq-", 5)))
            return true;
    }
    return false;
}

/* Before the walk: numbers the labels, and joins the text nodes after one
 * holding `ref{` (a key with '_' or '*' is split over several). */
static void number_labels(md_walk *w, cmark_node *doc)
{
    str body = md_walk_source(w)->text;
    if (!has_eq_label(body.ptr, body.len))
        return;
    cmark_iter *it = cmark_iter_new(doc);
    cmark_event_type ev;
    size_t count = 0;
    while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node *n = cmark_iter_get_node(it);
        if (ev != CMARK_EVENT_ENTER)
            continue;
        math_data *d = NULL;
        if (node_math && cmark_node_get_type(n) == node_math) {
            d = cmark_node_get_user_data(n);
            if (d && d->display)
                add_labels(w, &count, d->tex, d->len, NULL, 0);
        } else if (cmark_node_get_type(n) == CMARK_NODE_CODE_BLOCK) {
            const char *info = cmark_node_get_fence_info(n);
            bool block = math_ext && cmark_node_get_syntax_extension(n) == math_ext;
            d = block ? cmark_node_get_user_data(n) : NULL;
            const char *lit = cmark_node_get_literal(n);
            if (d && d->closed) { /* `$$ {#eq-…}`: one more label */
                buf t = BUF_INIT;
                block_text(d, lit, &t);
                add_labels(w, &count, t.data, t.len, NULL, 0);
                buf_release(&t);
            } else if (block || (info && strcspn(info, " \t") == 4 && !memcmp(info, "math", 4))) {
                add_labels(w, &count, d ? d->tex : NULL, d ? d->len : 0, lit, lit ? strlen(lit) : 0);
            }
        }
    }
    cmark_iter_free(it);
    if (!md_walk_eqlabels(w)->n)
        return;
    /* a reference's key may span text nodes (eq_a: '_' is a node of its
     * own): join each text node holding "ref{" with the text after it */
    it = cmark_iter_new(doc);
    while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node *n = cmark_iter_get_node(it);
        const char *lit = ev == CMARK_EVENT_ENTER && cmark_node_get_type(n) == CMARK_NODE_TEXT
                              ? cmark_node_get_literal(n)
                              : NULL;
        if (!lit || !strstr(lit, "ref{"))
            continue;
        cmark_node *next = cmark_node_next(n);
        if (!next || cmark_node_get_type(next) != CMARK_NODE_TEXT)
            continue;
        buf j = BUF_INIT;
        buf_puts(&j, lit);
        while (next && cmark_node_get_type(next) == CMARK_NODE_TEXT) {
            cmark_node *after = cmark_node_next(next);
            buf_puts(&j, cmark_node_get_literal(next));
            cmark_node_free(next); /* unlinks it; the iterator has not reached it */
            next = after;
        }
        cmark_node_set_literal(n, j.data);
        buf_release(&j);
    }
    cmark_iter_free(it);
}

/* Writes a text node's literal, its references to the page's labels as
 * links; false (nothing written) when it holds none. */
static bool text_refs(md_walk *w, buf *out, cmark_node *node, const char *lit)
{
    (void)node;
    if (!md_walk_eqlabels(w)->n || !strstr(lit, "ref{"))
        return false;
    size_t n = strlen(lit), from = 0;
    for (size_t i = 0; i < n; i++) {
        size_t klen, end, num;
        bool eq = true;
        const char *key = lit[i] != '\\' ? NULL : ref_at(lit, n, i, "\\eqref{", &klen, &end);
        if (!key && lit[i] == '\\') {
            key = ref_at(lit, n, i, "\\ref{", &klen, &end);
            eq = false;
        }
        if (!key || !(num = label_number(w, key, klen)))
            continue;
        md_put_escaped(out, lit + from, i - from);
        buf_puts(out, "<a class=\"eqref\" href=\"#");
        md_put_href(out, key, klen);
        buf_printf(out, eq ? "\">(%zu)</a>" : "\">%zu</a>", num);
        from = end;
        i = end - 1;
    }
    md_put_escaped(out, lit + from, n - from);
    return true;
}

/* The TeX without its labels (display; the formula's number at *number)
 * and with its references as the numbers; the keys of its labels at *ids
 * (n of them, at most 16). NULL when there is nothing to change, or at a
 * reference to no label (an error, reported). */
static const char *number_tex(md_walk *w, const char *tex, size_t len, bool display, int line, int col,
                              size_t *out_len, const char **ids, size_t *nids, size_t *number, bool *failed)
{
    *nids = 0;
    *number = 0;
    *failed = false;
    if (!memmem(tex, len, "\\label{", 7) && !memmem(tex, len, "ref{", 4))
        return NULL;
    buf t = BUF_INIT;
    bool changed = false;
    size_t tag = 0;
    for (size_t i = 0; i < len; i++) {
        size_t klen, end, num;
        const char *key = NULL;
        int kind = 0; /* 1 label, 2 eqref, 3 ref */
        if (tex[i] == '\\') {
            if ((key = ref_at(tex, len, i, "\\label{", &klen, &end)))
                kind = 1;
            else if ((key = ref_at(tex, len, i, "\\eqref{", &klen, &end)))
                kind = 2;
            else if ((key = ref_at(tex, len, i, "\\ref{", &klen, &end)))
                kind = 3;
        }
        if (!kind || (kind == 1 && !display)) {
            buf_putc(&t, tex[i]);
            continue;
        }
        num = label_number(w, key, klen);
        if (!num) {
            int l = line, c = col;
            position_in(w, tex, (long)i, &l, &c);
            md_problem_at(w, true, l, c, "%s{%.*s}: no \\label{%.*s} in a display formula of this page",
                          kind == 2 ? "\\eqref" : "\\ref", (int)klen, key, (int)klen, key);
            buf_release(&t);
            *failed = true;
            return NULL;
        }
        if (kind == 1) {
            if (!*nids)
                tag = num;
            if (*nids < 16)
                ids[(*nids)++] = arena_strndup(md_walk_arena(w), key, klen);
        } else {
            buf_printf(&t, kind == 2 ? "\\text{(%zu)}" : "\\text{%zu}", num);
        }
        changed = true;
        i = end - 1;
    }
    *number = tag;
    const char *r = changed ? arena_strndup(md_walk_arena(w), t.data, t.len) : NULL;
    *out_len = t.len;
    buf_release(&t);
    return r;
}

/* Writes one formula, a block of its own or inside a paragraph; (line,
 * col) is where its TeX starts (cmark's lines). */
static void emit(md_walk *w, buf *out, const char *tex, size_t len, bool display, bool block,
                 int line, int col, bool markdown)
{
    const md_options *o = md_walk_options(w);
    if (!o->math) {
        buf_puts(out, block     ? "<div class=\"math display\">\\["
                      : display ? "<span class=\"math display\">\\["
                                : "<span class=\"math inline\">\\(");
        md_put_escaped(out, tex, len);
        buf_puts(out, block ? "\\]</div>" : display ? "\\]</span>" : "\\)</span>");
        return;
    }
    /* TeX written for Markdown first (markdown.math_escapes): its escapes
     * undone, as the old site's Markdown did before MathJax saw it; else a
     * `\_` that looks like such an escape is said (TeX prints it) */
    const char *written = tex;
    size_t written_len = len;
    if (o->math_escapes && markdown) {
        char *u = arena_alloc(md_walk_arena(w), len + 1);
        len = md_math_unescape(tex, len, u);
        u[len] = '\0';
        tex = u;
    } else if (markdown) {
        long at = md_math_escaped_subscript(tex, len);
        if (at >= 0) {
            int l = line, c = col;
            position_in(w, tex, at, &l, &c);
            md_problem_at(w, false, l, c,
                          "'\\_' in a formula prints an underscore; if it is a subscript escaped for "
                          "Markdown, write '_' (or set markdown.math_escapes: markdown for a site written "
                          "that way)");
        }
    }
    const char *ids[16];
    size_t nids, numbered_len = 0, number;
    bool failed;
    const char *numbered =
        number_tex(w, tex, len, display, line, col, &numbered_len, ids, &nids, &number, &failed);
    if (failed)
        return;
    md_formula f = { numbered ? numbered : tex, numbered ? numbered_len : len, display };
    const char *error = NULL;
    long at = -1;
    const char *html = o->math(o->math_ctx, &f, md_walk_arena(w), &error, &at);
    if (html && display) {
        /* a labelled formula: the links' targets (the first label on the
         * box, any other before it) */
        for (size_t i = 1; i < nids; i++) {
            buf_puts(out, "<span id=\"");
            md_put_escaped_cstr(out, ids[i]);
            buf_puts(out, "\"></span>");
        }
        for (size_t i = 0; i < nids; i++)
            md_claim_id(w, ids[i], strlen(ids[i]), line, col, false);
        /* a box that scrolls a wide formula and that the keyboard reaches */
        buf_puts(out, number ? "<span class=\"math-scroll numbered\"" : "<span class=\"math-scroll\"");
        if (nids) {
            buf_puts(out, " id=\"");
            md_put_escaped_cstr(out, ids[0]);
            buf_putc(out, '"');
        }
        buf_puts(out, " tabindex=\"0\" role=\"group\" aria-label=\"");
        md_put_escaped_cstr(out, o->label_math ? o->label_math : "Formula");
        if (number)
            buf_printf(out, " (%zu)", number);
        buf_puts(out, "\">");
        buf_puts(out, html);
        /* its number, at the right of the line (the theme's style) */
        if (number)
            buf_printf(out, "<span class=\"eqno\" aria-hidden=\"true\">(%zu)</span>", number);
        buf_puts(out, "</span>");
        return;
    }
    if (html) {
        buf_puts(out, html);
        return;
    }
    if (written != tex && at >= 0)
        at = (long)md_math_unescaped_origin(written, written_len, (size_t)at);
    position_in(w, written, at, &line, &col);
    const char *hint = error ? md_math_error_hint(error, tex, len) : NULL;
    md_problem_at(w, true, line, col, "%s%s%s", error ? error : "this formula cannot be rendered",
                  hint ? ": " : "", hint ? hint : "");
}

void md_math_in_html(md_walk *w, buf *out, const char *tex, size_t len, bool display, int line, int col)
{
    emit(w, out, tex, len, display, false, line, col, false);
}

static bool owns(cmark_node *n) { return cmark_node_get_type(n) == node_math && node_math; }

static void render(md_walk *w, buf *out, cmark_node *n, bool entering)
{
    if (!entering)
        return;
    math_data *d = cmark_node_get_user_data(n);
    if (!d)
        return;
    /* where it is: the opener and the TeX's first line, in the source near
     * cmark's hint; the TeX starts after the opener */
    int line = d->line, col = d->col;
    buf needle = BUF_INIT;
    buf_puts(&needle, d->opener);
    buf_put(&needle, d->tex, strcspn(d->tex, "\n"));
    int l, c;
    if (md_find_in_leaf(md_walk_source(w), md_leaf_of(n), d->line, d->col, needle.data, needle.len,
                        &l, &c)) {
        line = l;
        col = c;
    }
    col += (int)strlen(d->opener);
    buf_release(&needle);
    /* punctuation right after an inline formula goes with it into a box
     * that does not wrap: browsers may break a line after any <math>,
     * whatever character follows */
    size_t punct = 0;
    cmark_node *next = cmark_node_next(n);
    const char *lit =
        next && cmark_node_get_type(next) == CMARK_NODE_TEXT ? cmark_node_get_literal(next) : NULL;
    if (!d->display && lit && md_walk_options(w)->math)
        punct = md_math_punct_len(lit);
    size_t mark = out->len;
    if (punct)
        buf_puts(out, "<span class=\"math-nowrap\">");
    size_t opened = out->len;
    emit(w, out, d->tex, d->len, d->display, false, line, col, true);
    if (punct && out->len == opened) { /* nothing written: an error */
        buf_truncate(out, mark);
        punct = 0;
    }
    if (punct) {
        md_put_escaped(out, lit, punct);
        buf_puts(out, "</span>");
        md_take_next_text(w, punct);
    }
}

/* Writes a fenced code block whose info string is `math`, or a display
 * block of the math extension, as display math; false (nothing written)
 * for any other code block. */
static bool code_block(md_walk *w, buf *out, cmark_node *n)
{
    math_data *d = cmark_node_get_syntax_extension(n) == math_ext && math_ext
                       ? cmark_node_get_user_data(n)
                       : NULL;
    const char *lit = cmark_node_get_literal(n);
    if (!lit)
        lit = "";
    int line = cmark_node_get_start_line(n), col = cmark_node_get_start_column(n);
    if (!d) {
        const char *info = cmark_node_get_fence_info(n);
        size_t k = info ? strcspn(info, " \t") : 0;
        if (!info || k != 4 || memcmp(info, "math", 4))
            return false;
        md_cr(out);
        /* the TeX starts on the line after the fence */
        size_t n = strlen(lit);
        while (n && (lit[n - 1] == '\n' || lit[n - 1] == '\r'))
            n--;
        emit(w, out, arena_strndup(md_walk_arena(w), lit, n), n, true, true, line + 1, col, true);
        md_cr(out);
        return true;
    }
    /* a display block: the TeX on the opening line, then the lines below */
    buf tex = BUF_INIT;
    int tex_line = line, tex_col = col + 2;
    if (!d->tex[strspn(d->tex, " \t")]) {
        tex_line = line + 1;
        tex_col = col;
    }
    block_text(d, lit, &tex);
    /* the label `{#eq-…}` became (a `\label` after the closer) */
    size_t label = 0;
    const char *lb = strrchr(tex.data, '\\');
    if (d->closed && lb && !strncmp(lb, "\\label{eq-", 10) && lb[strlen(lb) - 1] == '}' && lb > tex.data
        && lb[-1] == ' ' && !strchr(lb, '\n')) {
        label = strlen(lb);
        tex.len -= label + 1;
    }
    char *label_text = label ? xstrndup(tex.data + tex.len + 1, label) : NULL;
    /* the closer and the spaces after it */
    while (tex.len && (tex.data[tex.len - 1] == '\n' || tex.data[tex.len - 1] == '\r'))
        tex.len--;
    size_t tail;
    if (d->closed && md_math_block_closes(tex.data, tex.len, d->closer, &tail))
        tex.len -= tail;
    if (label_text) {
        tex.data[tex.len] = '\0';
        buf_putc(&tex, ' ');
        buf_puts(&tex, label_text);
        free(label_text);
    }
    while (tex.len && (tex.data[tex.len - 1] == '\n' || tex.data[tex.len - 1] == '\r'))
        tex.len--; /* the line break before the closer's line */
    tex.data[tex.len] = '\0';
    md_cr(out);
    if (!d->closed)
        md_problem_at(w, true, line, col, "display math opened here is never closed (a line ending "
                                          "with %s)", d->closer == '$' ? "$$" : "\\]");
    else
        emit(w, out, tex.data, tex.len, true, true, tex_line, tex_col, true);
    md_cr(out);
    buf_release(&tex);
    return true;
}

const md_ext md_ext_math = {
    .reference_off = true,
    .attach_walk = attach_walk,
    .prepare = number_labels,
    .owns = owns,
    .render = render,
    .text = text_refs,
    .code_block = code_block,
};

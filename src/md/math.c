/* md/math.c: TeX math — `$…$`, `\(…\)` inline, `$$…$$`, `\[…\]` and
 * ```math fences display — taken out of the Markdown before cmark-gfm
 * touches it (no emphasis in `$a*b*c$`, `\\` stays `\\`), and written
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

#include "md/internal.h"
#include "md/mathscan.h"

/* The first fields of cmark-gfm's cmark_chunk (chunk.h), which its
 * public headers declare but do not define: the bytes of the text being
 * parsed inline and their length. Stable since cmark 0.1. */
typedef struct chunk_head {
    unsigned char *data;
    int32_t len;
} chunk_head;

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
    const chunk_head *ch = (const chunk_head *)cmark_inline_parser_get_chunk(inl);
    const char *s = (const char *)ch->data;
    size_t n = ch->len > 0 ? (size_t)ch->len : 0;
    size_t at = (size_t)cmark_inline_parser_get_offset(inl);
    if (at >= n)
        return NULL;
    cmark_node *backslash = NULL;
    if (c == '(') {
        size_t k = 0;
        while (k < at && s[at - 1 - k] == '\\')
            k++;
        backslash = cmark_node_last_child(parent);
        if (!(k & 1) || !is_text(backslash, "\\"))
            return NULL;
        at--;
    }
    md_math_span m;
    if (!md_math_scan(s, n, at, &m)) {
        if (backslash)
            cmark_node_set_literal(backslash, ""); /* `\(` escapes `(`, as before */
        return NULL;
    }
    math_data *d = arena_alloc(md_walk_arena(w), sizeof *d);
    memset(d, 0, sizeof *d);
    d->tex = arena_strndup(md_walk_arena(w), s + m.tex, m.tex_len);
    d->len = m.tex_len;
    d->display = m.display;
    d->opener = backslash ? "\\(" : m.display ? "$$" : "$";
    d->line = cmark_inline_parser_get_line(inl);
    d->col = cmark_inline_parser_get_column(inl) - (backslash ? 1 : 0);
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

/* Writes one formula, a block of its own or inside a paragraph; (line,
 * col) is where its TeX starts (cmark's lines). */
static void emit(md_walk *w, buf *out, const char *tex, size_t len, bool display, bool block,
                 int line, int col)
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
    md_formula f = { tex, len, display };
    const char *error = NULL;
    long at = -1;
    const char *html = o->math(o->math_ctx, &f, md_walk_arena(w), &error, &at);
    if (html && display) {
        /* a box that scrolls a wide formula and that the keyboard reaches */
        buf_puts(out, "<span class=\"math-scroll\" tabindex=\"0\" role=\"group\" aria-label=\"");
        md_put_escaped_cstr(out, o->label_math ? o->label_math : "Formula");
        buf_puts(out, "\">");
        buf_puts(out, html);
        buf_puts(out, "</span>");
        return;
    }
    if (html) {
        buf_puts(out, html);
        return;
    }
    position_in(w, tex, at, &line, &col);
    md_problem_at(w, true, line, col, "%s", error ? error : "this formula cannot be rendered");
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
    emit(w, out, d->tex, d->len, d->display, false, line, col);
    md_words_break(w);
}

bool md_math_code_block(md_walk *w, buf *out, cmark_node *n)
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
        emit(w, out, arena_strndup(md_walk_arena(w), lit, n), n, true, true, line + 1, col);
        md_cr(out);
        return true;
    }
    /* a display block: the TeX on the opening line, then the lines below */
    buf tex = BUF_INIT;
    int tex_line = line, tex_col = col + 2;
    if (d->tex[strspn(d->tex, " \t")]) {
        buf_put(&tex, d->tex, d->len);
        if (*lit)
            buf_putc(&tex, '\n');
    } else {
        tex_line = line + 1;
        tex_col = col;
    }
    buf_puts(&tex, lit);
    /* the closer and the spaces after it */
    while (tex.len && (tex.data[tex.len - 1] == '\n' || tex.data[tex.len - 1] == '\r'))
        tex.len--;
    size_t tail;
    if (d->closed && md_math_block_closes(tex.data, tex.len, d->closer, &tail))
        tex.len -= tail;
    while (tex.len && (tex.data[tex.len - 1] == '\n' || tex.data[tex.len - 1] == '\r'))
        tex.len--; /* the line break before the closer's line */
    tex.data[tex.len] = '\0';
    md_cr(out);
    if (!d->closed)
        md_problem_at(w, true, line, col, "display math opened here is never closed (a line ending "
                                          "with %s)", d->closer == '$' ? "$$" : "\\]");
    else
        emit(w, out, tex.data, tex.len, true, true, tex_line, tex_col);
    md_cr(out);
    buf_release(&tex);
    return true;
}

const md_ext md_ext_math = { .attach_walk = attach_walk, .owns = owns, .render = render };

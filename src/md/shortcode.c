/* md/shortcode.c: Hugo's shortcodes in Markdown — `{{< figure src="a.png" >}}`,
 * `{{% note %}}…{{% /note %}}` — written by the caller's hook (templates,
 * see render/shortcode.c). The tag grammar is md/scparse.c.
 *
 * Code spans and code blocks are never looked at, because tags are found
 * by cmark-gfm's own parse: a tag is an inline node of this extension
 * (cmark handles backticks, so a tag in a code span stays text), or, when
 * it stands alone on its line, a block of its own (so a closing tag ends
 * the list or paragraph before it, as a Hugo user expects). A paragraph
 * holding nothing but a tag that spans lines becomes such a block too.
 * `\{{<` is text.
 *
 * Pairs, found after the parse: a tag `{{< /name >}}` closes the nearest
 * open `name` before it (an open tag of another name in between stays
 * unpaired); both tags must sit in the same container — two blocks side
 * by side (the blocks between them are the inner text), or one paragraph.
 * Inner text:
 *  - `{{% name %}}`: Markdown. The blocks (or inlines) between the tags are
 *    written as usual — their links checked, their headings in the table of
 *    contents — and the HTML is handed to the hook as `inner`. Printed as
 *    is by the template, it goes back with its heading ids and footnotes.
 *  - `{{< name >}}`: raw. The source between the tags, exactly (inside a
 *    paragraph: as the paragraph holds it), is never written as Markdown.
 * What the hook returns is read like raw HTML: its `href` and `src` are
 * links of the page (checked; `.md` targets rewritten) at the tag's place,
 * its ids are ids of the page. A syntax error, a closing tag with nothing
 * to close, an unknown shortcode or a failing template is an error at the
 * tag's line and column. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "md/cmark_private.h"
#include "md/internal.h"
#include "md/scparse.h"
#include "util/xalloc.h"

typedef struct sc_data {
    char mark;
    bool closing, self_closing, escaped, block;
    const char *name;
    md_shortcode_arg *args;
    size_t nargs;
    const char *text; /* the tag as written */
    size_t text_len;
    const char *error; /* a syntax or pairing error, reported where the tag is */
    size_t error_at;   /* its offset in text */
    const char *inner; /* a raw pair found inside one paragraph: its inner text */
    size_t inner_len;
    bool has_inner;
    int hint_line, hint_col;
    int line, col; /* cmark's lines */
    int end_line;  /* a block's last line */
    cmark_node *partner; /* the other tag of a pair */
    size_t capture;      /* an open {{% %}}: where its inner HTML starts */
} sc_data;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static cmark_syntax_extension *sc_ext, *pin_ext;
static _Thread_local md_walk *parsing;

/* What the parse of the page in progress has learnt: how many tags it
 * read (at most MD_SC_MAX_PER_PAGE), and the raw pairs of the text the
 * inline parser is in (`pairs_of`: one paragraph or cell, read once by
 * md_sc_pairs — looking for each opening tag's end from the tag would read
 * the rest of the text once a tag). */
static _Thread_local struct {
    size_t tags;
    bool over;
    cmark_node *pairs_of;
    const unsigned char *pairs_text;
    md_sc_pair *pairs;
    size_t npairs;
} seen;

static void forget_pairs(void)
{
    free(seen.pairs);
    seen.pairs = NULL;
    seen.npairs = 0;
    seen.pairs_of = NULL;
    seen.pairs_text = NULL;
}

/* One more tag on the page: false, once, with an error, when it is one
 * too many (the tag and the rest stay text). */
static bool count_tag(md_walk *w, int line, int col)
{
    if (seen.tags < MD_SC_MAX_PER_PAGE) {
        seen.tags++;
        return true;
    }
    if (!seen.over)
        md_problem_at(w, true, line, col,
                      "more than %d shortcodes on one page: split the page (this one and the "
                      "rest are left as text)",
                      MD_SC_MAX_PER_PAGE);
    seen.over = true;
    return false;
}

/* Where the raw pair opened at `at` in the text s[0..n) of parent closes,
 * as md_sc_find_close finds it. */
static size_t find_close(cmark_node *parent, const char *s, size_t n, size_t at, const md_sc_tag *t,
                         size_t *clen)
{
    if (seen.pairs_of != parent || seen.pairs_text != (const unsigned char *)s) {
        forget_pairs();
        seen.npairs = md_sc_pairs(s, n, &seen.pairs);
        seen.pairs_of = parent;
        seen.pairs_text = (const unsigned char *)s;
    }
    size_t lo = 0, hi = seen.npairs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (seen.pairs[mid].open < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < seen.npairs && seen.pairs[lo].open == at) {
        *clen = seen.pairs[lo].close_len;
        return seen.pairs[lo].close;
    }
    /* not read by md_sc_pairs (inside a tag it read, from a code span):
     * the search from the tag */
    size_t end = at + t->len;
    size_t off = md_sc_find_close(s + end, n - end, '<', t->name, t->name_len, clen);
    return off == (size_t)-1 ? off : end + off;
}

static sc_data *new_data(md_walk *w, const char *s, const md_sc_tag *t, md_sc_status st,
                         const char *err, size_t err_at)
{
    arena *a = md_walk_arena(w);
    sc_data *d = arena_alloc(a, sizeof *d);
    memset(d, 0, sizeof *d);
    if (st == MD_SC_ERROR) {
        d->error = err;
        d->error_at = err_at;
        d->text = arena_strndup(a, s, err_at > 3 ? err_at : 3); /* for the error's place */
        d->text_len = 3;                                       /* what stays as text */
        return d;
    }
    d->mark = t->mark;
    d->closing = t->closing;
    d->self_closing = t->self_closing;
    d->escaped = t->escaped;
    d->name = arena_strndup(a, t->name, t->name_len);
    d->text = arena_strndup(a, s, t->len);
    d->text_len = t->len;
    d->nargs = t->nargs;
    d->args = arena_alloc(a, (t->nargs ? t->nargs : 1) * sizeof *d->args);
    for (size_t i = 0; i < t->nargs; i++) {
        const md_sc_arg *g = &t->args[i];
        char *v = arena_alloc(a, g->val_len + 1);
        md_sc_value(g, v);
        d->args[i].key = g->key ? arena_strndup(a, g->key, g->key_len) : NULL;
        d->args[i].value = v;
        d->args[i].quoted = g->quote != 0;
    }
    return d;
}

static cmark_node *new_node(md_walk *w, cmark_node_type type, sc_data *d)
{
    cmark_node *n = cmark_node_new_with_mem(type, md_walk_mem(w));
    cmark_node_set_syntax_extension(n, sc_ext);
    cmark_node_set_user_data(n, d);
    return n;
}

/* ---- inline tags ---- */

static cmark_node *match_inline(cmark_syntax_extension *self, cmark_parser *parser,
                                cmark_node *parent, unsigned char c, cmark_inline_parser *inl)
{
    (void)self, (void)parser;
    md_walk *w = parsing;
    if (!w || c != '{' || seen.over)
        return NULL;
    size_t n;
    const char *s = md_inline_text(inl, &n);
    size_t at = (size_t)cmark_inline_parser_get_offset(inl);
    md_sc_tag t;
    const char *err = NULL;
    size_t err_at = 0;
    md_sc_status st = md_sc_parse(s + at, n - at, &t, &err, &err_at);
    if (st == MD_SC_NONE
        || !count_tag(w, cmark_inline_parser_get_line(inl), cmark_inline_parser_get_column(inl)))
        return NULL;
    sc_data *d = new_data(w, s + at, &t, st, err, err_at);
    size_t end = at + (st == MD_SC_OK ? t.len : 3);
    if (st == MD_SC_OK && d->mark == '<' && !d->closing && !d->self_closing && !d->escaped) {
        /* a raw pair inside this paragraph: its inner text as written */
        size_t clen, close = find_close(parent, s, n, at, &t, &clen);
        if (close != (size_t)-1) {
            d->inner = arena_strndup(md_walk_arena(w), s + end, close - end);
            d->inner_len = close - end;
            d->has_inner = true;
            end = close + clen;
        }
    }
    d->hint_line = cmark_inline_parser_get_line(inl);
    d->hint_col = cmark_inline_parser_get_column(inl);
    cmark_node *node = new_node(w, CMARK_NODE_CUSTOM_INLINE, d);
    cmark_inline_parser_set_offset(inl, (int)end);
    return node;
}

/* ---- a tag alone on its line ---- */

static cmark_node *open_block(cmark_syntax_extension *self, int indented, cmark_parser *parser,
                              cmark_node *parent, unsigned char *input, int len)
{
    (void)self;
    md_walk *w = parsing;
    if (!w || indented || len <= 0 || seen.over)
        return NULL;
    size_t first = (size_t)cmark_parser_get_first_nonspace(parser);
    size_t end = (size_t)len;
    while (end > first && (input[end - 1] == '\n' || input[end - 1] == '\r' || input[end - 1] == ' '
                           || input[end - 1] == '\t'))
        end--;
    const char *line = (const char *)input + first;
    if (end - first < 3 || line[0] != '{' || line[1] != '{' || (line[2] != '<' && line[2] != '%'))
        return NULL;
    md_sc_tag t;
    const char *err;
    size_t err_at;
    if (md_sc_parse(line, end - first, &t, &err, &err_at) != MD_SC_OK || t.len != end - first
        || t.escaped || !count_tag(w, cmark_parser_get_line_number(parser), (int)first + 1))
        return NULL;
    cmark_node *b = cmark_parser_add_child(parser, parent, CMARK_NODE_CUSTOM_BLOCK, (int)first + 1);
    sc_data *d = new_data(w, line, &t, MD_SC_OK, NULL, 0);
    d->block = true;
    cmark_node_set_syntax_extension(b, sc_ext);
    cmark_node_set_user_data(b, d);
    cmark_parser_advance_offset(parser, (const char *)input, (int)end - cmark_parser_get_offset(parser),
                                0);
    return b;
}

static int block_matches(cmark_syntax_extension *self, cmark_parser *parser, unsigned char *input,
                         int len, cmark_node *container)
{
    (void)self, (void)parser, (void)input, (void)len, (void)container;
    return 0; /* one line */
}

/* ---- after the parse: places, lone tags, pairs ---- */

static bool is_sc(cmark_node *n) { return n && cmark_node_get_syntax_extension(n) == sc_ext; }

static sc_data *data_of(cmark_node *n) { return cmark_node_get_user_data(n); }

/* Is n the only thing in its paragraph (spaces and line breaks aside)? */
static bool alone_in_paragraph(cmark_node *n)
{
    cmark_node *p = cmark_node_parent(n);
    if (!p || cmark_node_get_type(p) != CMARK_NODE_PARAGRAPH)
        return false;
    for (cmark_node *c = cmark_node_first_child(p); c; c = cmark_node_next(c)) {
        if (c == n)
            continue;
        cmark_node_type t = cmark_node_get_type(c);
        if (t == CMARK_NODE_SOFTBREAK || t == CMARK_NODE_LINEBREAK)
            continue;
        const char *lit = t == CMARK_NODE_TEXT ? cmark_node_get_literal(c) : NULL;
        if (!lit || lit[strspn(lit, " \t")])
            return false;
    }
    return true;
}

static void place(md_walk *w, cmark_node *n, sc_data *d)
{
    if (d->block) {
        d->line = cmark_node_get_start_line(n);
        d->col = cmark_node_get_start_column(n);
        d->end_line = d->line; /* one line */
        return;
    }
    cmark_node *leaf = md_leaf_of(n);
    d->line = d->hint_line > 0 ? d->hint_line : leaf ? cmark_node_get_start_line(leaf) : 1;
    /* cmark-gfm leaves a paragraph whose last line became a table's header
     * at line 0: look from the top then */
    if (d->line < 1)
        d->line = 1;
    d->col = d->hint_col > 0 ? d->hint_col : 1;
    size_t first = strcspn(d->text, "\n");
    int l, c;
    if (md_find_in_leaf(md_walk_source(w), leaf, d->line, d->col, d->text, first, &l, &c)) {
        d->line = l;
        d->col = c;
    }
}

static cmark_node *postprocess(cmark_syntax_extension *self, cmark_parser *parser, cmark_node *root)
{
    (void)self, (void)parser;
    md_walk *w = parsing;
    forget_pairs(); /* the inline parse is over */
    if (!w)
        return root;
    md_vec v = { .size = sizeof(cmark_node *) };
    cmark_iter *it = cmark_iter_new(root);
    cmark_event_type ev;
    while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node *x = cmark_iter_get_node(it);
        if (ev == CMARK_EVENT_ENTER && is_sc(x))
            *(cmark_node **)md_vec_push(&v) = x;
    }
    cmark_iter_free(it);
    cmark_node **nodes = v.v;
    md_vec stack = { .size = sizeof(cmark_node *) };
    for (size_t i = 0; i < v.n; i++) {
        cmark_node *n = nodes[i];
        sc_data *d = data_of(n);
        place(w, n, d);
        if (d->error || d->escaped)
            continue;
        if (!d->block && alone_in_paragraph(n)) {
            /* a tag over several lines, alone: a block */
            cmark_node *para = cmark_node_parent(n);
            cmark_node *b = new_node(w, CMARK_NODE_CUSTOM_BLOCK, d);
            md_node_set_pos(b, cmark_node_get_start_line(para), cmark_node_get_start_column(para),
                            cmark_node_get_end_line(para), cmark_node_get_end_column(para));
            d->block = true;
            d->end_line = cmark_node_get_end_line(para);
            cmark_node_replace(para, b);
            cmark_node_free(para);
            nodes[i] = n = b;
        }
        if (d->self_closing || d->has_inner)
            continue;
        if (!d->closing) {
            *(cmark_node **)md_vec_push(&stack) = n;
            continue;
        }
        cmark_node **open = stack.v;
        size_t k = stack.n;
        while (k > 0) {
            sc_data *o = data_of(open[k - 1]);
            if (o->mark == d->mark && !strcmp(o->name, d->name))
                break;
            k--;
        }
        if (!k) {
            d->error = "closes no open shortcode";
            continue;
        }
        cmark_node *o = open[k - 1];
        stack.n = k - 1; /* the tags opened after it stay unpaired */
        sc_data *od = data_of(o);
        if (cmark_node_parent(o) != cmark_node_parent(n) || od->block != d->block) {
            d->error = arena_printf(md_walk_arena(w),
                                    "closes the shortcode opened at %d:%d, which is in another "
                                    "block: put both tags on lines of their own, or both in one "
                                    "paragraph",
                                    md_file_line(w, od->line), od->col);
            continue;
        }
        od->partner = n;
        d->partner = o;
    }
    free(stack.v);
    free(v.v);
    return root;
}

/* ---- writing ---- */

static void report(md_walk *w, sc_data *d, const char *fmt, const char *what)
{
    int line = d->line, col = d->col;
    for (size_t i = 0; i < d->error_at; i++) {
        if (d->text[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    md_problem_at(w, true, line, col, fmt, what);
}

/* The tag as written, on one line, for messages. */
static const char *shown(md_walk *w, sc_data *d)
{
    buf b = BUF_INIT;
    for (size_t i = 0; i < d->text_len && b.len < 60; i++)
        buf_putc(&b, d->text[i] == '\n' || d->text[i] == '\r' ? ' ' : d->text[i]);
    if (b.len < d->text_len)
        buf_puts(&b, "…");
    const char *s = arena_strdup(md_walk_arena(w), b.data);
    buf_release(&b);
    return s;
}

/* The source lines strictly between two block tags. */
static char *lines_between(md_walk *w, cmark_node *a, cmark_node *b, size_t *len)
{
    buf out = BUF_INIT;
    int from = data_of(a)->end_line + 1, to = data_of(b)->line - 1;
    for (int ln = from; ln <= to; ln++) {
        const char *p;
        size_t n;
        if (!md_source_line(md_walk_source(w), ln, &p, &n))
            break;
        buf_put(&out, p, n);
        buf_putc(&out, '\n');
    }
    return buf_detach(&out, len);
}

static void call(md_walk *w, buf *out, sc_data *d, const char *inner, size_t inner_len, bool paired,
                 size_t start, bool captured)
{
    md_shortcode sc = {
        .name = d->name,
        .args = d->args,
        .nargs = d->nargs,
        .paired = paired,
        .markdown = d->mark == '%',
        .inner = paired ? inner : NULL,
        .inner_len = paired ? inner_len : 0,
        .block = d->block,
        .line = d->line,
        .col = d->col,
    };
    /* the figure's caption: its Markdown written where the shortcode goes,
     * then taken out and handed to the template as its inner HTML is */
    char *caption = NULL;
    size_t caption_len = 0;
    for (size_t k = 0; k < d->nargs && !paired && out == md_html(w) && !strcmp(d->name, "figure"); k++)
        if (d->args[k].key && !strcmp(d->args[k].key, "caption")) {
            if (d->block)
                md_cr(out);
            start = md_capture_begin(w);
            md_write_markdown(w, d->args[k].value, d->line, d->col);
            caption = md_capture_end(w, start, &caption_len);
            sc.caption_html = caption;
            break;
        }
    const char *error;
    const char *html = md_call_shortcode(w, &sc, &error);
    if (!html) {
        md_problem_at(w, true, d->line, d->col, "%s", error);
        free(caption);
        return;
    }
    if (d->block)
        md_cr(out);
    if (caption) {
        /* a caption of plain words is written with the HTML around it (its
         * text may stand in alt="…" too); one with citations or ids goes
         * back where the template printed it */
        bool marked = md_has_offsets(w, start);
        if (!md_put_shortcode(w, html, marked ? caption : NULL, marked ? caption_len : 0, start, d->line, d->col))
            md_problem_at(w, true, d->line, d->col,
                          "the template of shortcode 'figure' does not print `args.caption` as it is, which "
                          "holds citations or ids (print it with {{ args.caption }})");
        free(caption);
    } else if (!md_put_shortcode(w, html, captured ? inner : NULL, inner_len, start, d->line, d->col)
        && captured)
        md_problem_at(w, true, d->line, d->col,
                      "the template of shortcode '%s' does not print `inner` as it is, which holds "
                      "headings, footnotes or citations (print it with {{ inner | safe }})",
                      d->name);
    if (d->block)
        md_cr(out);
}

static void render(md_walk *w, buf *out, cmark_node *n, bool entering)
{
    if (!entering)
        return;
    sc_data *d = data_of(n);
    if (d->error && !d->name) { /* a syntax error: the text stays */
        report(w, d, "%s", d->error);
        md_put_escaped(out, d->text, d->text_len);
        return;
    }
    if (d->error) {
        md_problem_at(w, true, d->line, d->col, "'%s' %s", shown(w, d), d->error);
        return;
    }
    if (d->escaped) {
        if (d->block)
            md_cr(out);
        buf_putc(out, '{');
        buf_putc(out, '{');
        md_put_escaped(out, &d->mark, 1);
        md_put_escaped(out, d->name, strlen(d->name));
        md_put_escaped(out, d->mark == '<' ? ">" : "%", 1);
        buf_puts(out, "}}");
        if (d->block)
            buf_putc(out, '\n');
        return;
    }
    if (d->closing) {
        sc_data *o = data_of(d->partner);
        if (o->mark != '%')
            return; /* the end of a raw pair, already written */
        size_t len;
        char *inner = md_capture_end(w, o->capture, &len);
        call(w, out, o, inner, len, true, o->capture, true);
        free(inner);
        return;
    }
    if (d->has_inner) {
        call(w, out, d, d->inner, d->inner_len, true, 0, false);
        return;
    }
    if (!d->partner) {
        call(w, out, d, NULL, 0, false, 0, false);
        return;
    }
    if (d->mark == '%') {
        d->capture = md_capture_begin(w);
        return;
    }
    /* a raw pair of blocks: the source between them */
    size_t len;
    char *inner = lines_between(w, n, d->partner, &len);
    call(w, out, d, inner, len, true, 0, false);
    free(inner);
    md_skip_to(w, d->partner);
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
    sc_ext = cmark_syntax_extension_new("sheaf-shortcodes");
    cmark_syntax_extension_set_match_inline_func(sc_ext, match_inline);
    cmark_syntax_extension_set_open_block_func(sc_ext, open_block);
    cmark_syntax_extension_set_match_block_func(sc_ext, block_matches);
    cmark_syntax_extension_set_postprocess_func(sc_ext, postprocess);
    /* `{` a special character for good (see md/math.c on `$`) */
    pin_ext = cmark_syntax_extension_new("sheaf-shortcodes-brace");
    cmark_syntax_extension_set_match_inline_func(pin_ext, pin_match);
    cmark_syntax_extension_set_special_inline_chars(
        pin_ext, cmark_llist_append(cmark_get_default_mem_allocator(), NULL, (void *)'{'));
    cmark_parser *p = cmark_parser_new(0);
    cmark_parser_attach_syntax_extension(p, pin_ext);
    cmark_manage_extensions_special_characters(p, 1);
    cmark_parser_free(p);
}

/* Does the text hold `{{<` or `{{%`? ('{' is rare in prose: memchr's
 * speed; memmem's general search cost 5 instructions a byte) */
static bool has_tag(const char *s, size_t n)
{
    const char *end = s + n;
    for (const char *q = s; (q = memchr(q, '{', (size_t)(end - q))) != NULL; q++)
        if (end - q >= 3 && q[1] == '{' && (q[2] == '<' || q[2] == '%'))
            return true;
    return false;
}

static void attach_walk(md_walk *w, cmark_parser *p)
{
    pthread_once(&once, setup);
    parsing = w;
    forget_pairs();
    seen.tags = 0;
    seen.over = false;
    /* most pages have no tag: they skip the block test of every line and
     * the walk after the parse */
    const str *t = &md_walk_source(w)->text;
    if (has_tag(t->ptr, t->len))
        cmark_parser_attach_syntax_extension(p, sc_ext);
}

static bool owns(cmark_node *n) { return sc_ext && is_sc(n); }

const md_ext md_ext_shortcodes = { .attach_walk = attach_walk, .owns = owns, .render = render };

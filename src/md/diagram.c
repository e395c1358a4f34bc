/* md/diagram.c: ```dot and ```graphviz code blocks → inline SVG diagrams.
 *
 * The block's text goes to md_options.diagram (site/diagram.c: the build
 * cache, else Graphviz); what comes back is an <svg> that this file puts in
 * a box that scrolls sideways when the diagram is wider than the page (and
 * that the keyboard reaches), given its accessible name:
 *
 *     <div class="diagram"><div class="diagram-scroll" tabindex="0"
 *      role="group" aria-label="Diagram"><svg aria-label="…" …>…</svg></div></div>
 *
 * The info string may carry options in braces, as Pandoc and Quarto write
 * them for figures:
 *
 *     ```dot {#fig-arch caption="Architecture" engine=neato}
 *
 * An id or a caption makes the diagram a figure,
 * `<figure id="fig-arch" class="diagram">…<figcaption>Figure 1: Architecture</figcaption></figure>`;
 * a `fig-` id numbers it with the page's other figures (md/xref.c), so
 * `@fig-arch` reads "Figure 1"; any id is a link target like a heading's,
 * so `[…](#fig-arch)` and links from other pages to it are checked. `engine=` picks Graphviz's layout (dot by
 * default). A diagram that does not render is an error at the fence, its
 * message Graphviz's with the line of the diagram and of the file it names;
 * the block is then written as plain code. */
#include <stdlib.h>
#include <string.h>

#include "md/internal.h"

typedef struct diagram_opts {
    const char *id, *caption, *engine;
    size_t id_len, caption_len, engine_len;
} diagram_opts;

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

static bool eq(const char *p, size_t n, const char *w) { return n == strlen(w) && !memcmp(p, w, n); }

/* An id as a heading's {#id} may be: letters of any script, digits, - _ : . */
static bool id_char(unsigned char c) { return c >= 0x80 || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z') || strchr("-_:.", c); }

/* {#fig-arch caption="Architecture" engine=neato}: s is at '{'. A problem
 * is an error at the fence; false then. */
static bool parse_opts(md_walk *w, const char *s, int line, int col, diagram_opts *o)
{
    const char *p = s + 1;
    for (;;) {
        while (is_space(*p) || *p == ',')
            p++;
        if (*p == '}')
            break;
        if (!*p) {
            md_problem_at(w, true, line, col, "diagram options: '{' is not closed by '}'");
            return false;
        }
        if (*p == '#' || *p == '.') {
            char kind = *p++;
            const char *v = p;
            while (*p && id_char((unsigned char)*p))
                p++;
            if (p == v) {
                md_problem_at(w, true, line, col, "diagram options: '%c' without a name after it", kind);
                return false;
            }
            if (kind == '#') {
                o->id = v;
                o->id_len = (size_t)(p - v);
            } /* a .class: Pandoc's; nothing here uses it */
            continue;
        }
        const char *k = p;
        while (*p && *p != '=' && *p != '}' && *p != ',' && !is_space(*p))
            p++;
        size_t kn = (size_t)(p - k);
        if (*p != '=') {
            md_problem_at(w, true, line, col, "diagram option '%.*s' has no value (write %.*s=…)", (int)kn, k,
                          (int)kn, k);
            return false;
        }
        p++;
        const char *v = p;
        size_t vn;
        if (*p == '"' || *p == '\'') {
            const char *e = strchr(p + 1, *p);
            if (!e) {
                md_problem_at(w, true, line, col, "diagram option '%.*s': its value is not closed", (int)kn, k);
                return false;
            }
            v = p + 1;
            vn = (size_t)(e - v);
            p = e + 1;
        } else {
            while (*p && *p != ',' && *p != '}' && !is_space(*p))
                p++;
            vn = (size_t)(p - v);
        }
        if (eq(k, kn, "caption")) {
            o->caption = v;
            o->caption_len = vn;
        } else if (eq(k, kn, "engine") || eq(k, kn, "layout")) {
            o->engine = v;
            o->engine_len = vn;
        } else if (eq(k, kn, "id")) {
            o->id = v;
            o->id_len = vn;
        } else {
            md_problem_at(w, false, line, col, "diagram option '%.*s' is ignored (known: #id, caption, engine)",
                          (int)kn, k);
        }
    }
    for (p++; *p; p++)
        if (!is_space(*p)) {
            md_problem_at(w, true, line, col, "diagram options: text after the closing '}'");
            return false;
        }
    return true;
}

static const char *const engines[] = { "dot", "neato", "fdp", "sfdp", "circo", "twopi", "osage", "patchwork" };

static bool engine_known(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof engines / sizeof *engines; i++)
        if (eq(s, n, engines[i]))
            return true;
    return false;
}

/* Where a figure's id is registered: a `fig-` id is a numbered figure
 * (md_label_add: it claims the id, numbers the figure among the page's
 * others, and `@fig-…` refers to it); its number (arena) is returned for
 * the caption. Any other id is only claimed, a link target like a
 * heading's; NULL back. */
static const char *figure_label(md_walk *w, const diagram_opts *o, int line, int col)
{
    if (md_label_kind_of(o->id, o->id_len) == MD_LABEL_FIG)
        return md_label_add(w, arena_strndup(md_walk_arena(w), o->id, o->id_len), line, col, NULL, NULL);
    md_claim_id(w, o->id, o->id_len, line, col, true);
    return NULL;
}

/* A diagram that does not render (the error is reported): its source as
 * plain code. */
static bool plain(buf *b, cmark_node *n)
{
    const char *code = cmark_node_get_literal(n);
    md_cr(b);
    buf_puts(b, "<pre tabindex=\"0\"><code class=\"language-dot\">");
    md_put_escaped_cstr(b, code ? code : "");
    buf_puts(b, "</code></pre>\n");
    return true;
}

/* Writes a fenced code block whose info string is `dot` or `graphviz` as
 * an inline SVG diagram (md_options.diagram), a <figure> when its options
 * give an id or a caption; false (nothing written) for any other block, or
 * when there is no diagram hook. */
static bool diagram(md_walk *w, buf *b, cmark_node *n)
{
    const md_options *mo = md_walk_options(w);
    const char *info = cmark_node_get_fence_info(n);
    if (!mo->diagram || !info)
        return false;
    size_t k = 0;
    while (info[k] && !is_space(info[k]) && info[k] != '{')
        k++;
    if (!eq(info, k, "dot") && !eq(info, k, "graphviz"))
        return false;
    int line = cmark_node_get_start_line(n), col = cmark_node_get_start_column(n);
    diagram_opts o = { 0 };
    const char *brace = strchr(info + k, '{');
    for (const char *p = info + k; p < (brace ? brace : info + strlen(info)); p++)
        if (!is_space(*p)) {
            md_problem_at(w, true, line, col, "diagram: the info string holds '%s': write options in braces, "
                                              "like ```dot {#fig-x caption=\"…\" engine=neato}",
                          info + k);
            return plain(b, n);
        }
    if (brace && !parse_opts(w, brace, line, col, &o))
        return plain(b, n);
    arena *a = md_walk_arena(w);
    if (o.engine && !engine_known(o.engine, o.engine_len)) {
        md_problem_at(w, true, line, col, "diagram option engine=%.*s: want dot, neato, fdp, sfdp, circo, twopi, "
                                          "osage or patchwork",
                      (int)o.engine_len, o.engine);
        return plain(b, n);
    }
    const char *code = cmark_node_get_literal(n);
    if (!code)
        code = "";
    md_diagram d = { code, strlen(code), o.engine ? arena_strndup(a, o.engine, o.engine_len) : NULL };
    const char *error = NULL;
    int at = 0;
    const char *svg = mo->diagram(mo->diagram_ctx, &d, a, &error, &at);
    if (!svg) {
        if (at > 0) /* the source starts on the line after the fence */
            md_problem_at(w, true, line, col, "dot: %s (line %d of the diagram, line %d of the file)",
                          error ? error : "cannot be rendered", at, md_file_line(w, line + at));
        else
            md_problem_at(w, true, line, col, "dot: %s", error ? error : "cannot be rendered");
        return plain(b, n);
    }
    bool figure = o.id || o.caption;
    const char *number = o.id ? figure_label(w, &o, line, col) : NULL;
    md_cr(b);
    if (figure) {
        buf_puts(b, "<figure");
        if (o.id) {
            buf_puts(b, " id=\"");
            md_put_escaped(b, o.id, o.id_len);
            buf_putc(b, '"');
        }
        buf_puts(b, " class=\"diagram\">");
    } else {
        buf_puts(b, "<div class=\"diagram\">");
    }
    const char *label = mo->label_diagram ? mo->label_diagram : "Diagram";
    buf_puts(b, "<div class=\"diagram-scroll\" tabindex=\"0\" role=\"group\" aria-label=\"");
    md_put_escaped_cstr(b, label);
    buf_puts(b, "\"><svg aria-label=\"");
    if (o.caption && o.caption_len)
        md_put_escaped(b, o.caption, o.caption_len);
    else
        md_put_escaped_cstr(b, label);
    buf_putc(b, '"');
    buf_puts(b, svg + 4); /* after "<svg" */
    buf_puts(b, "</div>");
    if (o.caption || number) {
        buf_puts(b, "<figcaption>");
        if (number)
            md_label_caption(w, b, MD_LABEL_FIG, number);
        if (o.caption)
            md_write_markdown(w, arena_strndup(md_walk_arena(w), o.caption, o.caption_len), line, col);
        buf_puts(b, "</figcaption>");
    }
    buf_puts(b, figure ? "</figure>\n" : "</div>\n");
    return true;
}

/* No switch of its own: on when the caller gives a diagram hook. */
const md_ext md_ext_diagrams = { .reference_off = true, .code_block = diagram };

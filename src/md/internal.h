/* md/internal.h: what the files of md/ share — the walk's state, the HTML
 * writing helpers, source positions, and the shape of an extension. Not
 * for use outside md/. */
#ifndef SHEAF_MD_INTERNAL_H
#define SHEAF_MD_INTERNAL_H

#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "md/extensions.h"
#include "md/md.h"
#include "util/buf.h"

typedef struct md_walk md_walk;

/* ---- extensions ---------------------------------------------------------
 *
 * A descriptor: what an extension brings to the parser and to the walk.
 * Every hook may be NULL, but each extension has at least one (a switch
 * with nothing to do is no extension). The walk asks the extensions that
 * are on in registry order (md/extensions.h), and names none of them. */
typedef struct md_ext {
    /* CMARK_OPT_* bits the parser needs (footnotes are an option of
     * cmark-gfm's core). */
    int options;
    /* Off when md_options.reference asks for exactly what cmark-gfm
     * writes: cmark-gfm has no such thing. */
    bool reference_off;
    /* Bytes of state the extension keeps for one page: zeroed before the
     * page is parsed, freed after it; md_ext_state gives it. */
    size_t state_size;

    /* ---- parsing ---- */

    /* Readies a new parser: attaches the cmark-gfm syntax extension(s) it
     * needs (cmark_find_syntax_extension, or one made here). */
    void (*attach)(cmark_parser *p);
    /* Like attach, for an extension that needs the page's walk while
     * parsing (its arena, its allocator), on the thread that parses. These
     * run before every `attach`, so their block starts are tried first. */
    void (*attach_walk)(md_walk *w, cmark_parser *p);
    /* After the parse, before the walk: a pass over the whole tree (it may
     * change it). */
    void (*prepare)(md_walk *w, cmark_node *doc);

    /* ---- nodes of its own ---- */

    /* Whether `render` writes this node (a node of the extension's own
     * types, or one it has marked, like a task list item). */
    bool (*owns)(cmark_node *n);
    /* Writes the node's HTML to `out` on entering and on leaving it, as
     * cmark-gfm's renderer does. Leaving must not depend on anything but
     * the node: it is also used to close the elements still open at a
     * `<!--more-->` inside the node. */
    void (*render)(md_walk *w, buf *out, cmark_node *n, bool entering);

    /* ---- core nodes (the walk writes them unless a hook does) ---- */

    /* The core node types the three hooks below are asked about:
     * MD_NODE(CMARK_NODE_…) bits. */
    unsigned nodes;
    /* Entering such a node, before the walk writes it: writes it (its
     * opening, for a container) to `out` and returns true, then neither
     * later extensions nor the walk do; or returns false (having perhaps
     * noted something, like a heading's attributes, md_heading_attrs). */
    bool (*enter)(md_walk *w, buf *out, cmark_node *n);
    /* Leaving such a node, before its end is written: what goes before
     * the end tag (a heading's self-link, a footnote's back-references). */
    void (*leave)(md_walk *w, buf *out, cmark_node *n);
    /* Writes the end of such a node in place of the walk (true), or false.
     * Markup only, no state changed: it also closes the elements still
     * open at a `<!--more-->`. */
    bool (*exit)(md_walk *w, buf *out, cmark_node *n);
    /* Writes a text node's literal `lit` (what is left of it to write) in
     * place of the walk's escaping: true when it did. */
    bool (*text)(md_walk *w, buf *out, cmark_node *n, const char *lit);

    /* ---- code blocks ---- */

    /* Writes code block n (fenced or indented) to `out`, or returns false
     * (nothing written) when it is not one of the extension's. A code
     * block is offered to these in the order of the code-block chain
     * (MD_CODE_BLOCK_CHAIN); the first that writes it wins; a block none
     * takes is written as cmark-gfm writes it. */
    bool (*code_block)(md_walk *w, buf *out, cmark_node *n);

    /* ---- the page ---- */

    /* After the walk, before the page's HTML is put together: what closes
     * the page (the footnotes' section). */
    void (*finish)(md_walk *w, buf *out);
} md_ext;

/* A core node type's bit in md_ext.nodes: blocks in the low half, inlines
 * in the high; 0 for the node types of syntax extensions, which `owns`
 * and `render` are for. */
#define MD_NODE_VALUE(t) ((unsigned)(t) & CMARK_NODE_VALUE_MASK)
#define MD_NODE(t)                                                                                   \
    (MD_NODE_VALUE(t) < 16 ? 1u << (MD_NODE_VALUE(t) + (((unsigned)(t) & CMARK_NODE_TYPE_MASK)     \
                                                        == CMARK_NODE_TYPE_INLINE ? 16 : 0))      \
                           : 0u)

enum {
#define MD_EXT_ENUM(id, ...) MD_EXT_##id,
    MD_EXTENSIONS(MD_EXT_ENUM)
    MD_EXT_COUNT, /* the extensions with a switch */
    MD_EXT_SWITCHLESS = MD_EXT_COUNT - 1,
    MD_EXTENSIONS_ALWAYS(MD_EXT_ENUM)
#undef MD_EXT_ENUM
    MD_EXT_ALL
};

#define MD_EXT_DECL(id, name, desc) extern const md_ext desc;
MD_EXTENSIONS(MD_EXT_DECL)
#undef MD_EXT_DECL
#define MD_EXT_DECL(id, desc) extern const md_ext desc;
MD_EXTENSIONS_ALWAYS(MD_EXT_DECL)
#undef MD_EXT_DECL

/* The extensions a walk asks, and in which order. */
typedef struct md_registry {
    const md_ext *const *ext; /* ext[i]: extension i (MD_EXT_… for the built-in ones) */
    size_t n;                 /* at most 32 */
    size_t nswitches;         /* ext[i] for i < nswitches is on unless bit i of
                                 md_options.off; the others are always on */
    const int *chain;         /* the code-block chain: indices into ext */
    size_t nchain;
} md_registry;

/* sheaf's extensions: MD_EXTENSIONS, MD_EXTENSIONS_ALWAYS and
 * MD_CODE_BLOCK_CHAIN (md/extensions.h). */
extern const md_registry md_registry_builtin;

/* md_render with the extensions of `reg` (md_render uses the built-in
 * registry; a test may bring its own). */
void md_render_with(const md_registry *reg, str body, int first_line, const md_options *opt,
                    const md_hooks *hooks, arena *a, md_result *out);

/* Extension `id`'s state for this page (md_ext.state_size bytes), or NULL
 * when it keeps none or is off. */
void *md_ext_state(md_walk *w, int id);

/* Is extension `id` (MD_EXT_…) on for this walk? */
bool md_ext_on(const md_walk *w, int id);
/* Is paragraph p in a tight list (written without <p>)? */
static inline bool md_in_tight_list(cmark_node *p)
{
    cmark_node *gp = cmark_node_parent(cmark_node_parent(p));
    return gp && cmark_node_get_type(gp) == CMARK_NODE_LIST && cmark_node_get_list_tight(gp);
}
/* Plain text of an inline subtree: text and code spans, breaks as spaces,
 * raw HTML left out; an image contributes its alt text. */
void md_plain_text(cmark_node *n, buf *b);
/* Writing exactly what cmark-gfm writes (md_options.reference)? */
bool md_reference(const md_walk *w);

/* ---- HTML, as cmark's houdini writes it (escape.c) ---- */

/* Text and attribute values: & < > " escaped. */
void md_put_escaped(buf *b, const char *s, size_t n);
void md_put_escaped_cstr(buf *b, const char *s);
/* A URL in an attribute (houdini_escape_href). */
void md_put_href(buf *b, const char *s, size_t n);
/* cmark's _scan_dangerous_url: javascript:, vbscript:, file:, data: other
 * than four image types. */
bool md_dangerous_url(const char *u);
/* A newline unless the buffer is empty or ends with one. */
void md_cr(buf *b);

/* ---- small growable arrays (malloc; copied into the arena at the end) ---- */

typedef struct md_vec {
    void *v;
    size_t n, cap, size;
} md_vec;

/* A zeroed new element at the end. */
void *md_vec_push(md_vec *x);
/* Copies the elements into the arena and frees the vector. */
void *md_vec_to_arena(md_vec *x, arena *a);

/* ---- cmark-gfm's memory (mem.c) ---- */

/* An allocator for one page's parse on this thread, and its end: every
 * allocation made through it, the tree `doc` included, is dropped at once
 * by md_mem_end. */
cmark_mem *md_mem_begin(void);
void md_mem_end(cmark_node *doc);

/* ---- the source, for positions (source.c) ---- */

typedef struct md_source {
    str text;
    size_t *line_start; /* offsets of the lines, made on first use */
    size_t nlines;
} md_source;

/* Line `line` (cmark's numbering, from 1) without its line ending. */
bool md_source_line(md_source *s, int line, const char **p, size_t *n);
/* Where the link or image n (inside the leaf block `leaf`) starts in the
 * source: cmark's inline positions are only hints (see source.c). */
typedef struct md_link_cursor {
    cmark_node *leaf;
    int line, col, lag;
} md_link_cursor;
void md_link_position(md_source *s, md_link_cursor *cur, cmark_node *n, cmark_node *leaf,
                      bool image, int *line, int *col);
/* Where `needle` (the first line of an inline node's text) starts among
 * the lines of `leaf`, the occurrence nearest to (hint_line, hint_col);
 * false when it is not there. */
bool md_find_in_leaf(md_source *s, cmark_node *leaf, int hint_line, int hint_col,
                     const char *needle, size_t n, int *line, int *col);
/* The block (paragraph, heading, table cell) an inline node sits in. */
cmark_node *md_leaf_of(cmark_node *n);

/* ---- ids (md.c) ---- */

/* Claims an id written into the page other than an automatic heading id
 * (a footnote's, raw HTML's, a `{#id}`): later automatic ids avoid it, and
 * `#links` may target it. `explicit_heading` marks a `{#id}` (a duplicate
 * is then an error at line:col, else a warning). */
void md_claim_id(md_walk *w, const char *id, size_t n, int line, int col, bool explicit_heading);
/* Notes a problem at a line of the file (line as cmark counts, from 1). */
void md_problem_at(md_walk *w, bool error, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The bytes of the page's HTML from `start` to its current end are left
 * out of summaries (footnote references: their targets are not there). */
void md_page_only(md_walk *w, size_t start);
/* The HTML from `start` to the end, which summaries write as `repl`
 * instead (NULL: nothing). */
void md_summary_writes(md_walk *w, size_t start, const char *repl, size_t repl_len);
/* Headings. The attributes of the heading being entered, which an
 * extension's enter hook may set before the walk writes the heading: its
 * id (arena; NULL: an automatic one), classes and extra anchors (each
 * space-separated). The walk clears them once written. */
typedef struct md_heading_attrs {
    const char *id;
    buf classes, extra;
} md_heading_attrs;
md_heading_attrs *md_walk_heading_attrs(md_walk *w);
/* Writes the id of the heading last entered: as is, or, for an automatic
 * one, a hole filled once every id of the page is known. */
void md_put_heading_id(md_walk *w, buf *out);

/* The HTML written so far (the main output buffer). */
buf *md_html(md_walk *w);
/* A scratch buffer, free between nodes. */
buf *md_tmp(md_walk *w);
/* The site-wide default for line numbers in code blocks. */
bool md_linenos(const md_walk *w);

/* ---- raw HTML (rawhtml.c) ---- */

/* Writes a raw HTML block or inline literal to the page: its `href` and
 * `src` attributes go through the link resolver (and are rewritten in
 * place when it says so), its `id`s (and `name`s of <a>) are claimed.
 * Uses a real HTML tokenizer (gumbo). */
void md_raw_html(md_walk *w, buf *out, cmark_node *n);

/* The same for HTML that is not in the source (a shortcode's): every
 * link and id is reported at line:col (the tag's place). */
void md_raw_html_at(md_walk *w, buf *out, const char *html, size_t len, int line, int col);

/* ---- shortcodes (shortcode.c writes the syntax, md.c the rest) ---- */

/* Calls the caller's hook for sc (line in cmark's numbering) and notes
 * its name as used; returns the HTML or NULL with *error set. */
const char *md_call_shortcode(md_walk *w, md_shortcode *sc, const char **error);
/* A {{% %}} pair opens: what the walk writes from now on is its inner
 * HTML. Returns where it starts in the page's HTML. */
size_t md_capture_begin(md_walk *w);
/* It closes: takes the inner HTML out of the page (malloc'd, caller
 * frees). */
char *md_capture_end(md_walk *w, size_t start, size_t *len);
/* Writes a shortcode's HTML to the page (its links and ids read as raw
 * HTML's, at line:col). When inner (taken out by md_capture_end at
 * `start`) appears in it as is, it goes back in unread, with the heading
 * ids, footnotes and citations it holds; false when inner held such
 * things and the HTML does not show it as is. */
/* Does anything (an id, a cut, a citation) point into the HTML at or after
 * `from`? */
bool md_has_offsets(md_walk *w, size_t from);
bool md_put_shortcode(md_walk *w, const char *html, const char *inner, size_t inner_len, size_t start,
                      int line, int col);
/* A line of cmark's numbering as a line of the file. */
int md_file_line(const md_walk *w, int line);
/* Nodes up to n (a raw pair's closer) are not written. */
void md_skip_to(md_walk *w, cmark_node *n);

/* ---- template syntax left in the text (lint.c) ---- */

/* Warns about Liquid (`{% … %}`, `{{ site.… }}`) and Hugo shortcodes
 * (`{{< … >}}`, `{{% … %}}`) starting in text node n. */
void md_lint_text(md_walk *w, cmark_node *n);
/* The same for a whole literal (an HTML block) or a link destination, at a
 * known position: line `line`, column `col` of its first byte. */
void md_lint_literal(md_walk *w, const char *s, int line, int col);

/* ---- citations (md/cite.c: the syntax, the writer, the sentences) ---- */

/* Where a citation group's HTML is, for its sentence. */
typedef struct md_cite_span {
    size_t start, end;
    int group;
} md_cite_span;

/* A page's citations, kept by the walk until it ends. */
typedef struct md_citing {
    md_vec items; /* md_cite: every citation, in document order */
    md_vec spans; /* md_cite_span */
    int groups;   /* groups written so far */
} md_citing;
#define MD_CITING_INIT { .items = { .size = sizeof(md_cite) }, .spans = { .size = sizeof(md_cite_span) } }

md_citing *md_walk_citing(md_walk *w);
/* Calls the caller's citation hook (false: the page has none). */
bool md_call_cite(md_walk *w, const md_cite *items, size_t n, buf *out);
/* Writes a citation group through the caller's hook, records it (with its
 * position and, at the end, its sentence) and makes its summary form (the
 * same without links). */
void md_cite_write(md_walk *w, buf *out, cmark_node *n, md_cite *items, size_t n_items);
/* The walk moved the page's HTML from `from` on by `by` bytes; whether a
 * group's HTML is at or after `from`; forgetting those. */
void md_citing_shift(md_citing *c, size_t from, size_t by);
bool md_citing_after(const md_citing *c, size_t from);
void md_citing_drop_after(md_citing *c, size_t from);
/* Each citation's sentence (md_cite.context), from the page's HTML. */
void md_citing_contexts(md_citing *c, arena *a, const buf *html);
void md_citing_free(md_citing *c);
/* Whether n is a citation node, and its citations as they are written in
 * the source ("[see @a, p. 4; @b]"): for an image's alt attribute. */
bool md_cite_is(cmark_node *n);
void md_cite_source(cmark_node *n, buf *out);
/* The length of a citation key after an '@' (0: none); see cite.c. */
size_t md_cite_key_len(const char *s, size_t n, const char **key, size_t *key_len);

/* ---- the walk's link hook, for raw HTML's links ---- */

/* Records a link (dest, its position in the file) and asks the resolver;
 * returns the URL to write, or NULL to keep dest. img: for the src of an
 * <img>, where the resolver puts the attributes to add (zeroed here);
 * else NULL. */
const char *md_resolve_link(md_walk *w, const char *dest, const char *text, int line, int col,
                            bool image, md_img_attrs *img);
/* Writes ` width="…" height="…" loading="lazy" …` for what a holds, each
 * unless has(ctx, name) says the tag has it already (has may be NULL). */
void md_put_img_attrs(buf *b, const md_img_attrs *a, bool (*has)(void *ctx, const char *name),
                      void *ctx);
/* The source and the first line's offset, for positions. */
md_source *md_walk_source(md_walk *w);
/* The arena of the result, and cmark-gfm's allocator for this page. */
arena *md_walk_arena(md_walk *w);
cmark_mem *md_walk_mem(md_walk *w);
/* The options md_render was given. */
const md_options *md_walk_options(md_walk *w);
/* The first n bytes of the next text node are not to be written by the
 * walk: already written (the punctuation that md/math.c keeps with an
 * inline formula), or markup (a definition list's `: `). */
void md_take_next_text(md_walk *w, size_t n);

/* ---- math (math.c) ---- */

/* Writes a formula found in the text of a raw HTML block (md/rawhtml.c),
 * as MathJax in the browser rendered it there: its TeX as written (never
 * Markdown, so no escape is undone); (line, col) where the TeX starts. */
void md_math_in_html(md_walk *w, buf *out, const char *tex, size_t len, bool display, int line, int col);

/* Equation references: every `\label{key}` of the page's display formulas,
 * numbered in the page's order (labels, an md_vec of md_eqlabel). A
 * labelled formula shows its number after it and takes its labels as ids;
 * `\eqref{key}` and `\ref{key}` are the number, "(n)" and "n": in formulas
 * as text, in the page's text as links. */
typedef struct md_eqlabel {
    const char *key;
    size_t len, num;
} md_eqlabel;
md_vec *md_walk_eqlabels(md_walk *w);
/* What the page's code blocks used of their highlighting budget (hl/hl.h). */
struct hl_page *md_walk_hl(md_walk *w);

/* ---- labels, cross-references and alerts (xref.c) ---- */

typedef struct md_xrefs md_xrefs;
/* The page's labels and references (xref.c makes it on first use). */
md_xrefs **md_walk_xrefs(md_walk *w);

/* Registers label `id` (a key with a label prefix, md_label_kind_of) at
 * line:col (cmark's lines), in the order the walk writes the labelled
 * things: a duplicate is an error naming both places (NULL back), else
 * the key becomes an id of the page (`#links` and other pages' links to it
 * are checked as a heading's) and gets its number — `number` when given,
 * else the next of its kind ("1", "2", …), which is returned (arena).
 * `text`: a section's title, else NULL. A figure of a new kind (a diagram
 * fence with `{#fig-…}`) calls this where it writes its <figure id=…>,
 * then md_label_caption in its <figcaption>. */
const char *md_label_add(md_walk *w, const char *id, int line, int col, const char *number,
                         const char *text);
/* A label written by something else (the figure shortcode, which claims
 * the id in its HTML): registers it unclaimed, and sets *words to
 * "Figure 2" and *sep to ": " (arena) for its caption; NULL when id is no
 * figure label or a duplicate. */
const char *md_xref_label_words(md_walk *w, const char *id, int line, int col, const char **words,
                                const char **sep);
/* The head of a caption: "Figure 2: " in the page's language (the
 * number in <span class="caption-number">). */
void md_label_caption(md_walk *w, buf *out, md_label_kind kind, const char *number);

/* Before the walk (not in reference mode): finds figures (an image alone
 * in a paragraph, then `{#fig-…}`), tables' caption paragraphs and alerts
 * (`> [!NOTE]`), marks their nodes and takes their syntax out of the
 * text. */
void md_xref_prepare(md_walk *w, cmark_node *doc);
/* Writes a marked paragraph (a figure) or blockquote (an alert) on
 * entering or leaving it; false when n is not marked (the walk writes it).
 * Leaving writes markup only. */
bool md_xref_block(md_walk *w, buf *out, cmark_node *n, bool entering);
/* Is n a table's caption paragraph (written inside the table, skipped by
 * the walk)? */
bool md_xref_caption_para(cmark_node *n);
/* After `<table`: its id, `>` and <caption>, when it has a label; else `>`. */
void md_xref_table(md_walk *w, buf *out, cmark_node *table);
/* After `<hN …>`: the heading's number when sections are numbered; a
 * `{#sec-…}` id becomes a label. */
void md_xref_heading(md_walk *w, buf *out, cmark_node *h, const char *id, const char *title, int line);
/* A citation group whose keys are all label keys (file lines). */
void md_xref_write(md_walk *w, buf *out, const md_cite *c, size_t n);
/* A link with no text (just opened in out, the link n° `link` of the
 * page) whose fragment is a label key: writes its text's hole; false
 * when it is no such link. */
bool md_xref_empty_link(md_walk *w, buf *out, const char *url, size_t link, int line, int col);
/* After the walk, before the HTML is put together: the equations join
 * the labels, every reference gets its text (unknown keys: errors). */
void md_xref_finish(md_walk *w);
/* A hole's text (md.c's assemble): a reference's, or the place of a
 * link's text that the site fills. */
enum { MD_HOLE_ID, MD_HOLE_XREF, MD_HOLE_XLINK };
void md_xref_hole(md_walk *w, int kind, size_t index, bool summary, buf *out);
/* The labels and xlinks into the result; frees the state. */
void md_xref_result(md_walk *w, md_result *out);

/* A hole of `kind` at the end of the page's HTML, filled when it is put
 * together (md.c). */
void md_hole(md_walk *w, int kind, size_t index);
/* Has the page a citation hook (a bibliography)? Without one, `@key` is
 * a cross-reference when key has a label's prefix, else text. */
bool md_walk_cites(const md_walk *w);
/* Writes the inline content of paragraph p at the end of the page's
 * HTML, as the walk would (a table's caption). */
void md_write_inlines(md_walk *w, cmark_node *p);
/* Writes the Markdown s (a caption= of a figure, of a dot diagram, of the
 * figure shortcode) into the page's HTML as inline content, through the
 * page's own stage: emphasis, code, math, links (checked), citations and
 * cross-references. Its problems are reported at line:col (cmark's
 * lines). Anything but one paragraph is written as its text. */
void md_write_markdown(md_walk *w, const char *s, int line, int col);

#endif

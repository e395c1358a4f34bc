/* md: Markdown → HTML with cmark-gfm, one parse and one walk per page.
 *
 * cmark-gfm parses the body with the extensions switched on; we then walk
 * its AST once with an iterator and write the HTML ourselves, node by node,
 * exactly as cmark_render_html does (same markup, same escaping of text and
 * attributes, same URL escaping and unsafe-URL filter, same
 * `<!-- raw HTML omitted -->` when raw HTML is not allowed; tests/md checks
 * this against cmark-gfm's own renderer on its spec files). What differs
 * (none of it with md_options.reference):
 *  - headings carry an id: `<h2 id="llm-training">`, the `{#id}` an
 *    extension found (md/headings.c), else the slug of its plain text
 *    (text_slugify), "section" when that is empty, made unique within the
 *    page by suffixes (x, x-1, x-2, …) and kept clear of every other id of
 *    the page (raw HTML's, footnotes', `{#id}`s, wherever they are:
 *    automatic ids are given once the walk has seen them all);
 *  - a table sits in a box that scrolls (md/tables.c), and a code block
 *    (which scrolls too) can take the keyboard's focus; a task list's
 *    checkbox is labelled with its item's text (md/tasklists.c);
 *  - link and image destinations may be rewritten by the resolver, in raw
 *    HTML too (md/rawhtml.c).
 *
 * Along the way:
 *  - headings are collected (level, id, plain title, inline HTML, line), and
 *    every id of the page (for `#anchor` checks);
 *  - every link and image outside an image's alt text goes to the resolver
 *    with its file position (md/source.c);
 *  - the summary is the HTML before the first `<!--more-->` (an HTML block or
 *    inline HTML holding that comment, not inside a footnote), with the
 *    elements still open at that point closed, so it is well-formed; the
 *    marker itself is left out of the summary (but stays in the body, as
 *    cmark renders it). Without a marker, the summary is the first top-level
 *    paragraph. Footnote references are left out of summaries: the notes
 *    they point to are not there;
 *  - text and word count: the page's HTML as a reader sees it, by the one
 *    rule of util/html.h (html_plain_text: a line a block, a formula as its
 *    TeX, citations as written, footnote marks left out), counted with
 *    text_word_count (each CJK character one word): math and code count
 *    toward the reading time. Image alt text is not counted;
 *  - problems: duplicate ids, template syntax of other generators
 *    (md/lint.c).
 *
 * EXTENSIONS. This file names none: each brings its hooks in a descriptor
 * (md_ext, md/internal.h) listed in md/extensions.h, and the walk asks the
 * ones on, in that order: to attach to the parser, to prepare the tree, to
 * write the nodes of their own types (owns/render), to write or decorate
 * core nodes (enter/leave/exit, for the node types they name), a text
 * node's literal (text), a code block (code_block, in the order of the
 * code-block chain), and to close the page (finish). What the walk does
 * not hand out — ids, links, positions, word counts, the summary — keeps
 * working for every extension. docs/internals.md says how to add one.
 *
 * No global state besides cmark-gfm's registry of extensions (filled once):
 * pages render on several threads at once. Everything in the result lives
 * in the caller's arena; cmark-gfm's memory comes from a per-page arena of
 * its own (md/mem.c), dropped here. */
#include <cmark-gfm-core-extensions.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl/hl.h"
#include "md/cmark_private.h"
#include "md/internal.h"
#include "util/html.h"
#include "util/text.h"
#include "util/hash.h"
#include "util/xalloc.h"

/* ---- the registry ---- */

static const md_ext *const builtin[MD_EXT_ALL] = {
#define MD_EXT_ENTRY(id, name, desc) [MD_EXT_##id] = &desc,
    MD_EXTENSIONS(MD_EXT_ENTRY)
#undef MD_EXT_ENTRY
#define MD_EXT_ENTRY(id, desc) [MD_EXT_##id] = &desc,
    MD_EXTENSIONS_ALWAYS(MD_EXT_ENTRY)
#undef MD_EXT_ENTRY
};

static const int builtin_chain[] = { MD_CODE_BLOCK_CHAIN };

const md_registry md_registry_builtin = { builtin, MD_EXT_ALL, MD_EXT_COUNT, builtin_chain,
                                          sizeof builtin_chain / sizeof *builtin_chain };

static const char *const extension_names[MD_EXT_COUNT + 1] = {
#define MD_EXT_NAME(id, name, desc) [MD_EXT_##id] = #name,
    MD_EXTENSIONS(MD_EXT_NAME)
#undef MD_EXT_NAME
};

size_t md_extension_count(void) { return MD_EXT_COUNT; }

const char *md_extension_name(size_t i)
{
    return i < MD_EXT_COUNT ? extension_names[i] : NULL;
}

unsigned md_extension_bit(const char *name)
{
    for (size_t i = 0; i < MD_EXT_COUNT; i++)
        if (!strcmp(name, extension_names[i]))
            return 1u << i;
    return 0;
}

static pthread_once_t registered = PTHREAD_ONCE_INIT;

static void register_extensions(void)
{
    cmark_gfm_core_extensions_ensure_registered();
}

/* ---- a set of strings (the page's ids) ---- */

/* Each id remembers where it was claimed, and, for automatic heading ids,
 * the next suffix to try when it is taken again, so n headings with one
 * title cost O(n), not O(n^2). */
typedef struct idslot {
    const char *s;
    int next;
    int line, col;         /* where it was claimed (file lines) */
    bool explicit_heading; /* a `{#id}` */
} idslot;

typedef struct idset {
    idslot *slot;
    size_t cap, n;
} idset;

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
static idslot *idset_add(idset *set, const char *s)
{
    if ((set->n + 1) * 2 > set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 16;
        idset big = { xcalloc(cap, sizeof(idslot)), cap, 0 };
        for (size_t i = 0; i < set->cap; i++)
            if (set->slot[i].s)
                *idset_add(&big, set->slot[i].s) = set->slot[i];
        free(set->slot);
        *set = big;
    }
    size_t i = hash_str(s) & (set->cap - 1);
    while (set->slot[i].s)
        i = (i + 1) & (set->cap - 1);
    set->slot[i] = (idslot){ .s = s, .next = 1 };
    set->n++;
    return &set->slot[i];
}

/* ---- the walk ---- */

/* Where an automatic heading id goes once it is known: heading `head`'s
 * id is inserted at offset `at` of the HTML. */
typedef struct id_hole {
    size_t at;
    size_t head;
    int kind;     /* MD_HOLE_ID (head is the heading), else a reference's
                     (md/xref.c; index is its number) */
    size_t index;
} id_hole;

/* Bytes [start, end) of the HTML that summaries leave out, or write as
 * `repl` (a citation without its links). */
typedef struct cut {
    size_t start, end;
    const char *repl;
    size_t repl_len;
} cut;

struct md_walk {
    arena *a;
    bool unsafe, hard_breaks, reference, linenos;
    unsigned on;  /* bit i: extension i is on */
    int line0;    /* added to cmark's 1-based lines */
    md_source src;
    md_link_fn resolve;
    md_cite_fn cite;
    void *ctx;
    buf html, tmp;
    md_vec eqlabels;     /* md_eqlabel: the page's equation labels (md/math.c) */
    md_vec heads, holes, cuts, links, problems, anchors;
    md_citing citing;    /* the page's citations (md/cite.c) */
    idset ids;
    cmark_node *plain; /* inside this image: only its alt text is written */
    md_img_attrs img;  /* what the resolver gave that image */
    md_link_cursor cursor;
    md_heading_attrs head; /* the heading being entered (md_heading_attrs) */
    /* the registry, and the extensions on, in its order */
    const md_registry *reg;
    const md_ext *ext[32];
    size_t next;
    const md_ext *owners[32]; /* those with a render hook */
    size_t nowners;
    const md_ext *hooks[32];  /* those with hooks for core nodes */
    size_t nhooks;
    unsigned nodes;           /* the core node types they hook (MD_NODE) */
    const md_ext *texts[32];  /* those with a text hook */
    size_t ntexts;
    void *state[32];   /* each extension's state for the page (md_ext_state) */
    const md_options *opt;
    cmark_mem *mem; /* cmark-gfm's allocator for this page */
    md_shortcode_fn shortcode;
    int captures;        /* {{% %}} pairs whose inner HTML is being written */
    cmark_node *skip_to; /* inside a raw {{< >}} pair: nodes up to its closer are not written */
    md_vec sc_names;     /* the shortcodes used (const char *) */
    hl_page hl;          /* what the page's code blocks used of their budget */
    size_t text_taken;   /* bytes of the next text node not to write (md_take_next_text) */
    md_xrefs *xrefs;     /* labels and references (md/xref.c) */
};

bool md_ext_on(const md_walk *w, int id) { return (w->on >> id) & 1; }
void *md_ext_state(md_walk *w, int id) { return id >= 0 && id < 32 ? w->state[id] : NULL; }
md_heading_attrs *md_walk_heading_attrs(md_walk *w) { return &w->head; }
bool md_reference(const md_walk *w) { return w->reference; }
buf *md_html(md_walk *w) { return &w->html; }
buf *md_tmp(md_walk *w) { return &w->tmp; }
bool md_linenos(const md_walk *w) { return w->linenos; }
md_source *md_walk_source(md_walk *w) { return &w->src; }
arena *md_walk_arena(md_walk *w) { return w->a; }
cmark_mem *md_walk_mem(md_walk *w) { return w->mem; }
const md_options *md_walk_options(md_walk *w) { return w->opt; }
md_vec *md_walk_eqlabels(md_walk *w) { return &w->eqlabels; }
md_xrefs **md_walk_xrefs(md_walk *w) { return &w->xrefs; }

void md_hole(md_walk *w, int kind, size_t index)
{
    id_hole *h = md_vec_push(&w->holes);
    h->at = w->html.len;
    h->kind = kind;
    h->index = index;
}
struct hl_page *md_walk_hl(md_walk *w) { return &w->hl; }
void md_take_next_text(md_walk *w, size_t n) { w->text_taken = n; }

void md_page_only(md_walk *w, size_t start) { md_summary_writes(w, start, NULL, 0); }

void md_summary_writes(md_walk *w, size_t start, const char *repl, size_t repl_len)
{
    cut *c = md_vec_push(&w->cuts);
    c->start = start;
    c->end = w->html.len;
    c->repl = repl;
    c->repl_len = repl_len;
}

md_citing *md_walk_citing(md_walk *w) { return &w->citing; }

bool md_call_cite(md_walk *w, const md_cite *items, size_t n, buf *out)
{
    if (!w->cite)
        return false;
    w->cite(w->ctx, items, n, out);
    return true;
}

void md_problem_at(md_walk *w, bool error, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf b = BUF_INIT;
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    md_problem *p = md_vec_push(&w->problems);
    p->error = error;
    /* a place outside the text is never right (cmark-gfm gives some nodes
     * line 0): at worst, the first line */
    p->line = (line < 1 ? 1 : line) + w->line0;
    p->col = col < 1 ? 1 : col;
    p->message = arena_strndup(w->a, b.data, b.len);
    buf_release(&b);
}

void md_claim_id(md_walk *w, const char *id, size_t n, int line, int col, bool explicit_heading)
{
    char *s = arena_strndup(w->a, id, n);
    idslot *old = idset_find(&w->ids, s);
    if (old) {
        if (explicit_heading)
            md_problem_at(w, true, line, col, "id '%s' is already used on this page (line %d)", s,
                          old->line);
        else if (old->explicit_heading)
            md_problem_at(w, true, old->line - w->line0, old->col,
                          "id '%s' is used again on this page (line %d)", s, line + w->line0);
        else
            md_problem_at(w, false, line, col, "id '%s' is used twice on this page (first at line %d)",
                          s, old->line);
        return;
    }
    idslot *slot = idset_add(&w->ids, s);
    slot->line = line + w->line0;
    slot->col = col;
    slot->explicit_heading = explicit_heading;
    *(const char **)md_vec_push(&w->anchors) = s;
}

void md_plain_text(cmark_node *n, buf *b)
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
        case CMARK_NODE_FOOTNOTE_REFERENCE:
            break;
        default:
            md_plain_text(c, b);
            break;
        }
    }
}

/* Has the extension that owns n, if one does, write it. */
static void render_by_extension(md_walk *w, buf *b, cmark_node *n, bool entering)
{
    for (size_t i = 0; i < w->nowners; i++)
        if (w->owners[i]->owns(n)) {
            w->owners[i]->render(w, b, n, entering);
            return;
        }
}

/* ---- the extensions' hooks for core nodes ---- */

static inline bool offer_enter(md_walk *r, buf *b, cmark_node *n, cmark_node_type t)
{
    unsigned bit = MD_NODE(t);
    if (!(r->nodes & bit))
        return false;
    for (size_t i = 0; i < r->nhooks; i++)
        if ((r->hooks[i]->nodes & bit) && r->hooks[i]->enter && r->hooks[i]->enter(r, b, n))
            return true;
    return false;
}

static inline void offer_leave(md_walk *r, buf *b, cmark_node *n, cmark_node_type t)
{
    unsigned bit = MD_NODE(t);
    if (!(r->nodes & bit))
        return;
    for (size_t i = 0; i < r->nhooks; i++)
        if ((r->hooks[i]->nodes & bit) && r->hooks[i]->leave)
            r->hooks[i]->leave(r, b, n);
}

static inline bool offer_exit(md_walk *r, buf *b, cmark_node *n, cmark_node_type t)
{
    unsigned bit = MD_NODE(t);
    if (!(r->nodes & bit))
        return false;
    for (size_t i = 0; i < r->nhooks; i++)
        if ((r->hooks[i]->nodes & bit) && r->hooks[i]->exit && r->hooks[i]->exit(r, b, n))
            return true;
    return false;
}

static inline bool offer_text(md_walk *r, buf *b, cmark_node *n, const char *lit)
{
    for (size_t i = 0; i < r->ntexts; i++)
        if (r->texts[i]->text(r, b, n, lit))
            return true;
    return false;
}

/* The code-block chain (md/extensions.h). */
static bool offer_code_block(md_walk *r, buf *b, cmark_node *n)
{
    for (size_t i = 0; i < r->reg->nchain; i++) {
        int id = r->reg->chain[i];
        const md_ext *e = r->reg->ext[id];
        if (md_ext_on(r, id) && e->code_block && e->code_block(r, b, n))
            return true;
    }
    return false;
}

/* A code block as cmark-gfm writes it (one no extension took). */
static void plain_code_block(md_walk *r, buf *b, cmark_node *n)
{
    const char *info = cmark_node_get_fence_info(n);
    const char *code = cmark_node_get_literal(n);
    md_cr(b);
    buf_puts(b, r->reference ? "<pre>" : "<pre tabindex=\"0\">");
    if (!info || !*info) {
        buf_puts(b, "<code>");
    } else {
        size_t k = 0;
        while (info[k] && !strchr(" \t\n\r\f\v", info[k]))
            k++;
        buf_puts(b, "<code class=\"language-");
        md_put_escaped(b, info, k);
        buf_puts(b, "\">");
    }
    md_put_escaped_cstr(b, code ? code : "");
    buf_puts(b, "</code></pre>\n");
}

/* A heading's tag: before, its level (1 to 6, what cmark gives), after —
 * "<h2 id=\"" without a printf. */
static void put_heading_tag(buf *b, const char *before, int level, const char *after)
{
    buf_puts(b, before);
    buf_putc(b, '0' + level);
    buf_puts(b, after);
}

/* Writes what cmark-gfm writes when leaving n (markup only, no side
 * effects); used both by the walk and to close open elements at
 * <!--more-->. */
static void emit_exit(md_walk *r, buf *b, cmark_node *n)
{
    cmark_node_type t = cmark_node_get_type(n);
    if ((t == CMARK_NODE_BLOCK_QUOTE || t == CMARK_NODE_PARAGRAPH) && md_xref_block(r, b, n, false))
        return; /* an alert, a figure */
    if (offer_exit(r, b, n, t))
        return;
    switch (t) {
    case CMARK_NODE_BLOCK_QUOTE:
        md_cr(b);
        buf_puts(b, "</blockquote>\n");
        break;
    case CMARK_NODE_LIST:
        buf_puts(b, cmark_node_get_list_type(n) == CMARK_BULLET_LIST ? "</ul>\n" : "</ol>\n");
        break;
    case CMARK_NODE_HEADING:
        put_heading_tag(b, "</h", cmark_node_get_heading_level(n), ">\n");
        break;
    case CMARK_NODE_PARAGRAPH:
        if (!md_in_tight_list(n))
            buf_puts(b, "</p>\n");
        break;
    case CMARK_NODE_CUSTOM_BLOCK:
        if (cmark_node_get_syntax_extension(n)) {
            render_by_extension(r, b, n, false); /* a shortcode */
            break;
        }
        md_cr(b);
        buf_puts(b, cmark_node_get_on_exit(n));
        md_cr(b);
        break;
    case CMARK_NODE_CUSTOM_INLINE:
        if (cmark_node_get_syntax_extension(n))
            render_by_extension(r, b, n, false);
        else
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
            md_put_escaped_cstr(b, title);
        }
        buf_putc(b, '"');
        md_put_img_attrs(b, &r->img, NULL, NULL);
        buf_puts(b, " />");
        break;
    }
    case CMARK_NODE_ITEM:
        if (!cmark_node_get_syntax_extension(n))
            buf_puts(b, "</li>\n");
        else
            render_by_extension(r, b, n, false); /* a task list item */
        break;
    default:
        render_by_extension(r, b, n, false);
        break;
    }
}

static void put_url(md_walk *r, buf *b, const char *url)
{
    if (!url)
        url = "";
    if (r->unsafe || !md_dangerous_url(url))
        md_put_href(b, url, strlen(url));
}

/* ---- headings ---- */

/* The automatic id for a heading titled `title`, unique on the page. */
static const char *unique_id(md_walk *r, const char *title, size_t n)
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
    *(const char **)md_vec_push(&r->anchors) = id;
    return id;
}

/* Writes `<hN id="…" class="…">`, with the attributes an extension's
 * enter hook set (md_heading_attrs); records the heading. */
static void enter_heading(md_walk *r, cmark_node *n)
{
    const char *explicit_id = r->head.id;
    buf *classes = &r->head.classes, *extra = &r->head.extra;
    r->head.id = NULL;
    md_heading *h = md_vec_push(&r->heads);
    h->level = cmark_node_get_heading_level(n);
    h->line = cmark_node_get_start_line(n) + r->line0;
    h->id = explicit_id;
    buf_reset(&r->tmp);
    md_plain_text(n, &r->tmp);
    h->title = arena_strndup(r->a, r->tmp.data, r->tmp.len);
    md_cr(&r->html);
    if (r->reference) {
        put_heading_tag(&r->html, "<h", h->level, ">");
        buf_reset(classes);
        buf_reset(extra);
        return;
    }
    put_heading_tag(&r->html, "<h", h->level, " id=\"");
    if (explicit_id) {
        md_put_escaped_cstr(&r->html, explicit_id);
    } else {
        id_hole *hole = md_vec_push(&r->holes);
        hole->at = r->html.len;
        hole->head = r->heads.n - 1;
    }
    if (classes->len) {
        buf_puts(&r->html, "\" class=\"");
        md_put_escaped_cstr(&r->html, classes->data);
    }
    buf_puts(&r->html, "\">");
    /* its extra anchors: empty targets at its start */
    for (size_t a = 0; a < extra->len;) {
        size_t z = a;
        while (z < extra->len && extra->data[z] != ' ')
            z++;
        buf_puts(&r->html, "<span id=\"");
        md_put_escaped(&r->html, extra->data + a, z - a);
        buf_puts(&r->html, "\"></span>");
        a = z + 1;
    }
    buf_reset(classes);
    md_xref_heading(r, &r->html, n, explicit_id, h->title, cmark_node_get_start_line(n));
    buf_reset(extra);
}

void md_put_heading_id(md_walk *r, buf *out)
{
    const md_heading *h = (md_heading *)r->heads.v + r->heads.n - 1;
    if (h->id) {
        md_put_escaped_cstr(out, h->id);
    } else {
        id_hole *hole = md_vec_push(&r->holes);
        hole->at = out->len;
        hole->head = r->heads.n - 1;
    }
}

/* ---- the summary ---- */

static bool is_more(cmark_node *n)
{
    const char *lit = cmark_node_get_literal(n);
    if (!lit || !strstr(lit, "<!--more-->"))
        return false;
    for (cmark_node *p = cmark_node_parent(n); p; p = cmark_node_parent(p))
        if (cmark_node_get_type(p) == CMARK_NODE_FOOTNOTE_DEFINITION)
            return false;
    return true;
}

/* What the summary is, until the end, when ids are known. */
typedef struct summary_spec {
    bool set;
    size_t start, end; /* a range of the HTML */
    buf tail;          /* then these closing tags */
} summary_spec;

/* The summary at a marker: the HTML so far, with every element the marker
 * sits in closed. */
static void summary_at(md_walk *r, cmark_node *marker, summary_spec *s)
{
    s->set = true;
    s->start = 0;
    s->end = r->html.len;
    if (cmark_node_get_type(marker) == CMARK_NODE_HTML_INLINE)
        while (s->end && (r->html.data[s->end - 1] == ' ' || r->html.data[s->end - 1] == '\n'))
            s->end--;
    buf_reset(&s->tail);
    for (cmark_node *p = cmark_node_parent(marker);
         p && cmark_node_get_type(p) != CMARK_NODE_DOCUMENT; p = cmark_node_parent(p))
        emit_exit(r, &s->tail, p);
}

/* Bytes [start, end) of the HTML with the automatic ids put in (and, for
 * a summary, the page-only parts left out), appended to out. */
static void assemble(md_walk *r, size_t start, size_t end, bool summary, buf *out)
{
    const id_hole *h = r->holes.v;
    const cut *c = r->cuts.v;
    size_t nh = r->holes.n, nc = summary ? r->cuts.n : 0, ih = 0, ic = 0;
    const md_heading *heads = r->heads.v;
    while (ih < nh && h[ih].at < start)
        ih++;
    while (ic < nc && c[ic].end <= start)
        ic++;
    size_t at = start;
    for (;;) {
        size_t next_h = ih < nh && h[ih].at <= end ? h[ih].at : SIZE_MAX;
        size_t next_c = ic < nc && c[ic].start < end ? c[ic].start : SIZE_MAX;
        if (next_h == SIZE_MAX && next_c == SIZE_MAX)
            break;
        if (next_h <= next_c) {
            buf_put(out, r->html.data + at, next_h - at);
            if (h[ih].kind == MD_HOLE_ID)
                md_put_escaped_cstr(out, heads[h[ih].head].id);
            else
                md_xref_hole(r, h[ih].kind, h[ih].index, summary, out);
            at = next_h;
            ih++;
        } else {
            if (next_c > at)
                buf_put(out, r->html.data + at, next_c - at);
            if (c[ic].repl && c[ic].end <= end)
                buf_put(out, c[ic].repl, c[ic].repl_len);
            at = c[ic].end < end ? c[ic].end : end;
            ic++;
        }
    }
    if (end > at)
        buf_put(out, r->html.data + at, end - at);
}

/* ---- entering a node ---- */

const char *md_resolve_link(md_walk *w, const char *dest, const char *text, int line, int col,
                            bool image, md_img_attrs *img)
{
    md_link *l = md_vec_push(&w->links);
    l->dest = arena_strdup(w->a, dest);
    l->text = arena_strdup(w->a, text);
    l->line = line + w->line0;
    l->col = col;
    l->image = image;
    l->img_tag = img != NULL;
    if (img)
        memset(img, 0, sizeof *img);
    l->img = img;
    const char *r = w->resolve ? w->resolve(w->ctx, l) : NULL;
    l->img = NULL; /* the caller's, gone after this */
    return r;
}

void md_put_img_attrs(buf *b, const md_img_attrs *a, bool (*has)(void *ctx, const char *name),
                      void *ctx)
{
    if (a->width && a->height && (!has || (!has(ctx, "width") && !has(ctx, "height"))))
        buf_printf(b, " width=\"%u\" height=\"%u\"", a->width, a->height);
    if (a->lazy) {
        if (!has || !has(ctx, "loading"))
            buf_puts(b, " loading=\"lazy\"");
        if (!has || !has(ctx, "decoding"))
            buf_puts(b, " decoding=\"async\"");
    }
    if (a->srcset && (!has || !has(ctx, "srcset"))) {
        buf_puts(b, " srcset=\"");
        md_put_escaped_cstr(b, a->srcset);
        buf_putc(b, '"');
        if (a->sizes && (!has || !has(ctx, "sizes"))) {
            buf_puts(b, " sizes=\"");
            md_put_escaped_cstr(b, a->sizes);
            buf_putc(b, '"');
        }
    }
}

/* ---- shortcodes: calling the hook, capturing inner HTML ---- */

const char *md_call_shortcode(md_walk *w, md_shortcode *sc, const char **error)
{
    const char **names = w->sc_names.v;
    size_t i = 0;
    while (i < w->sc_names.n && strcmp(names[i], sc->name))
        i++;
    if (i == w->sc_names.n)
        *(const char **)md_vec_push(&w->sc_names) = arena_strdup(w->a, sc->name);
    /* the figure shortcode's id="fig-…" is a figure's label (md/xref.c);
     * the id itself is claimed when the HTML is read */
    if (!strcmp(sc->name, "figure"))
        for (size_t k = 0; k < sc->nargs; k++)
            if (sc->args[k].key && !strcmp(sc->args[k].key, "id"))
                md_xref_label_words(w, sc->args[k].value, sc->line, sc->col, &sc->label, &sc->label_sep);
    sc->line += w->line0;
    const char *html = NULL;
    *error = NULL;
    if (w->shortcode)
        html = w->shortcode(w->ctx, sc, w->a, error);
    sc->line -= w->line0;
    if (!html && !*error)
        *error = arena_printf(w->a, "unknown shortcode '%s' (shortcodes need templates)", sc->name);
    return html;
}

size_t md_capture_begin(md_walk *w)
{
    w->captures++;
    return w->html.len;
}

char *md_capture_end(md_walk *w, size_t start, size_t *len)
{
    w->captures--;
    *len = w->html.len - start;
    char *inner = xmalloc(*len + 1);
    memcpy(inner, w->html.data + start, *len);
    inner[*len] = 0;
    w->html.len = start;
    w->html.data[start] = 0;
    return inner;
}

void md_skip_to(md_walk *w, cmark_node *n) { w->skip_to = n; }

int md_file_line(const md_walk *w, int line) { return line + w->line0; }

/* Moves the offsets into the HTML at or after `from` by `by`. */
static void shift_offsets(md_walk *w, size_t from, size_t by)
{
    id_hole *h = w->holes.v;
    for (size_t i = 0; i < w->holes.n; i++)
        if (h[i].at >= from)
            h[i].at += by;
    cut *c = w->cuts.v;
    for (size_t i = 0; i < w->cuts.n; i++)
        if (c[i].start >= from) {
            c[i].start += by;
            c[i].end += by;
        }
    md_citing_shift(&w->citing, from, by);
}

/* Are there offsets into the HTML at or after `from`? */
bool md_has_offsets(md_walk *w, size_t from)
{
    id_hole *h = w->holes.v;
    cut *c = w->cuts.v;
    return (w->holes.n && h[w->holes.n - 1].at >= from) || (w->cuts.n && c[w->cuts.n - 1].start >= from)
           || md_citing_after(&w->citing, from);
}

bool md_put_shortcode(md_walk *w, const char *html, const char *inner, size_t inner_len, size_t start,
                      int line, int col)
{
    size_t len = strlen(html);
    const char *at = inner && inner_len ? memmem(html, len, inner, inner_len) : NULL;
    if (!at) {
        bool lost = inner && md_has_offsets(w, start);
        if (lost) { /* what pointed into the inner HTML is gone with it */
            while (w->holes.n && ((id_hole *)w->holes.v)[w->holes.n - 1].at >= start)
                w->holes.n--;
            while (w->cuts.n && ((cut *)w->cuts.v)[w->cuts.n - 1].start >= start)
                w->cuts.n--;
            md_citing_drop_after(&w->citing, start);
        }
        md_raw_html_at(w, &w->html, html, len, line, col);
        return !lost;
    }
    md_raw_html_at(w, &w->html, html, (size_t)(at - html), line, col);
    if (w->html.len != start)
        shift_offsets(w, start, w->html.len - start);
    buf_put(&w->html, inner, inner_len);
    size_t rest = (size_t)(at - html) + inner_len;
    md_raw_html_at(w, &w->html, html + rest, len - rest, line, col);
    return true;
}

static void enter_link(md_walk *r, cmark_node *n, bool image)
{
    cmark_node *leaf = md_leaf_of(n);
    const char *url = cmark_node_get_url(n);
    if (!url)
        url = "";
    buf_reset(&r->tmp);
    md_plain_text(n, &r->tmp);
    int line, col;
    md_link_position(&r->src, &r->cursor, n, leaf, image, &line, &col);
    if (strstr(url, "{{") || strstr(url, "{%"))
        md_lint_literal(r, url, line, col);
    const char *w = md_resolve_link(r, url, r->tmp.data, line, col, image, image ? &r->img : NULL);
    buf *b = &r->html;
    if (image) {
        buf_puts(b, "<img src=\"");
        put_url(r, b, w ? w : url);
        buf_puts(b, "\" alt=\"");
        r->plain = n;
    } else {
        buf_puts(b, "<a href=\"");
        put_url(r, b, w ? w : url);
        const char *title = cmark_node_get_title(n);
        if (title && *title) {
            buf_puts(b, "\" title=\"");
            md_put_escaped_cstr(b, title);
        }
        buf_puts(b, "\">");
        /* `[](#fig-a)`, `[](other.md#fig-a)`: the label's words */
        if (!cmark_node_first_child(n) && !r->reference)
            md_xref_empty_link(r, b, url, r->links.n - 1, line, col);
    }
}

static void enter_html(md_walk *r, cmark_node *n)
{
    long line = (long)cmark_node_get_start_line(n) + r->line0;
    bool trusted = cmark_node_get_type(n) == CMARK_NODE_HTML_BLOCK && line >= 1 &&
                   (size_t)line <= r->opt->ntrusted && r->opt->trusted[line - 1];
    if (r->unsafe || trusted)
        md_raw_html(r, &r->html, n);
    else
        buf_puts(&r->html, "<!-- raw HTML omitted -->");
}

/* Writes the opening HTML of a core node (or the whole of a leaf), as
 * cmark-gfm's renderer does, unless an extension's hook does; headings
 * also get their id, links and images go through the resolver, raw HTML
 * through rawhtml.c. */
static void enter(md_walk *r, cmark_node *n)
{
    buf *b = &r->html;
    cmark_node_type t = cmark_node_get_type(n);
    if ((t == CMARK_NODE_BLOCK_QUOTE || t == CMARK_NODE_PARAGRAPH) && md_xref_block(r, b, n, true))
        return; /* an alert, a figure */
    if (offer_enter(r, b, n, t))
        return;
    switch (t) {
    case CMARK_NODE_BLOCK_QUOTE:
        md_cr(b);
        buf_puts(b, "<blockquote>\n");
        break;
    case CMARK_NODE_LIST:
        md_cr(b);
        if (cmark_node_get_list_type(n) == CMARK_BULLET_LIST)
            buf_puts(b, "<ul>\n");
        else if (cmark_node_get_list_start(n) == 1)
            buf_puts(b, "<ol>\n");
        else
            buf_printf(b, "<ol start=\"%d\">\n", cmark_node_get_list_start(n));
        break;
    case CMARK_NODE_ITEM:
        if (cmark_node_get_syntax_extension(n)) {
            render_by_extension(r, b, n, true); /* a task list item */
            break;
        }
        md_cr(b);
        buf_puts(b, "<li>");
        break;
    case CMARK_NODE_HEADING:
        enter_heading(r, n);
        break;
    case CMARK_NODE_CODE_BLOCK:
        if (!offer_code_block(r, b, n))
            plain_code_block(r, b, n);
        break;
    case CMARK_NODE_HTML_BLOCK:
        md_cr(b);
        enter_html(r, n);
        md_cr(b);
        break;
    case CMARK_NODE_CUSTOM_BLOCK:
        if (cmark_node_get_syntax_extension(n)) {
            render_by_extension(r, b, n, true); /* a shortcode */
            break;
        }
        md_cr(b);
        buf_puts(b, cmark_node_get_on_enter(n));
        md_cr(b);
        break;
    case CMARK_NODE_THEMATIC_BREAK:
        md_cr(b);
        buf_puts(b, "<hr />\n");
        break;
    case CMARK_NODE_PARAGRAPH:
        if (!md_in_tight_list(n)) {
            md_cr(b);
            buf_puts(b, "<p>");
        }
        break;
    case CMARK_NODE_TEXT: {
        const char *lit = cmark_node_get_literal(n);
        if (r->text_taken) { /* written before, or markup */
            lit += strnlen(lit, r->text_taken);
            r->text_taken = 0;
        }
        if (!offer_text(r, b, n, lit))
            md_put_escaped_cstr(b, lit);
        if (strchr(lit, '{'))
            md_lint_text(r, n);
        break;
    }
    case CMARK_NODE_LINEBREAK:
    case CMARK_NODE_SOFTBREAK:
        if (t == CMARK_NODE_LINEBREAK) {
            buf_puts(b, "<br />\n");
            break;
        }
        if (r->hard_breaks)
            buf_puts(b, "<br />\n");
        else
            buf_putc(b, '\n');
        break;
    case CMARK_NODE_CODE:
        buf_puts(b, "<code>");
        md_put_escaped_cstr(b, cmark_node_get_literal(n));
        buf_puts(b, "</code>");
        break;
    case CMARK_NODE_HTML_INLINE:
        enter_html(r, n);
        break;
    case CMARK_NODE_CUSTOM_INLINE:
        if (cmark_node_get_syntax_extension(n))
            render_by_extension(r, b, n, true); /* a shortcode */
        else
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
    case CMARK_NODE_DOCUMENT:
        break;
    default:
        render_by_extension(r, b, n, true);
        break;
    }
}

/* Leaving a node: what extensions put before its end, then the end. */
static void leave(md_walk *r, cmark_node *n)
{
    offer_leave(r, &r->html, n, cmark_node_get_type(n));
    emit_exit(r, &r->html, n);
}

/* Inside an image's alt text cmark writes only the escaped text. */
static void enter_plain(md_walk *r, cmark_node *n)
{
    switch (cmark_node_get_type(n)) {
    case CMARK_NODE_TEXT:
    case CMARK_NODE_CODE:
    case CMARK_NODE_HTML_INLINE:
        md_put_escaped_cstr(&r->html, cmark_node_get_literal(n));
        break;
    case CMARK_NODE_LINEBREAK:
    case CMARK_NODE_SOFTBREAK:
        buf_putc(&r->html, ' ');
        break;
    default:
        if (md_cite_is(n)) {
            buf b = BUF_INIT;
            md_cite_source(n, &b);
            md_put_escaped(&r->html, b.data, b.len);
            buf_release(&b);
        }
        break;
    }
}

void md_write_inlines(md_walk *r, cmark_node *p)
{
    cmark_iter *it = cmark_iter_new(p);
    cmark_event_type ev;
    while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node *n = cmark_iter_get_node(it);
        if (n == p)
            continue;
        if (r->plain == n) /* leaving the image */
            r->plain = NULL;
        if (r->plain) {
            if (ev == CMARK_EVENT_ENTER)
                enter_plain(r, n);
            continue;
        }
        if (ev == CMARK_EVENT_ENTER)
            enter(r, n);
        else
            leave(r, n);
    }
    cmark_iter_free(it);
}

bool md_walk_cites(const md_walk *w) { return w->cite != NULL; }

/* A parser with the page's options and extensions, allocating from r->mem. */
static cmark_parser *new_parser(const md_options *opt, md_walk *r)
{
    int opts = CMARK_OPT_SOURCEPOS;
    if (opt->unsafe)
        opts |= CMARK_OPT_UNSAFE;
    if (opt->smart)
        opts |= CMARK_OPT_SMART;
    if (opt->hard_breaks)
        opts |= CMARK_OPT_HARDBREAKS;
    for (size_t i = 0; i < r->next; i++)
        opts |= r->ext[i]->options;
    cmark_parser *parser = cmark_parser_new_with_mem(opts, r->mem);
    /* attach_walk first: cmark-gfm stops asking about a line at the first
     * extension that claims it, and the table extension claims every line
     * after a paragraph's first (handing the paragraph back when it is no
     * table), so a block that may interrupt a paragraph (display math)
     * must be asked before it */
    for (size_t i = 0; i < r->next; i++)
        if (r->ext[i]->attach_walk)
            r->ext[i]->attach_walk(r, parser);
    for (size_t i = 0; i < r->next; i++)
        if (r->ext[i]->attach)
            r->ext[i]->attach(parser);
    return parser;
}

static cmark_node *parse(str body, const md_options *opt, md_walk *r)
{
    pthread_once(&registered, register_extensions);
    r->mem = md_mem_begin();
    cmark_parser *parser = new_parser(opt, r);
    if (body.len)
        cmark_parser_feed(parser, body.ptr, body.len);
    cmark_node *doc = cmark_parser_finish(parser);
    cmark_parser_free(parser);
    return doc;
}

void md_write_markdown(md_walk *w, const char *s, int line, int col)
{
    cmark_parser *parser = new_parser(w->opt, w);
    cmark_parser_feed(parser, s, strlen(s));
    cmark_node *doc = cmark_parser_finish(parser);
    cmark_parser_free(parser);
    cmark_node *para = cmark_node_first_child(doc);
    if (para && !cmark_node_next(para) && cmark_node_get_type(para) == CMARK_NODE_PARAGRAPH) {
        /* its places are the caption's own: its problems are at the place
         * of what holds it */
        cmark_iter *it = cmark_iter_new(doc);
        cmark_event_type ev;
        while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE)
            if (ev == CMARK_EVENT_ENTER)
                md_node_set_pos(cmark_iter_get_node(it), line, col, line, col);
        cmark_iter_free(it);
        md_write_inlines(w, para);
    } else { /* blocks (a list, a heading) are no caption: the text */
        md_put_escaped_cstr(&w->html, s);
    }
    cmark_node_free(doc);
}

/* Which extensions of the registry are on for this page (bit i: ext[i]),
 * in registry order, with their state. */
static void choose_extensions(md_walk *r, const md_registry *reg, const md_options *opt)
{
    r->reg = reg;
    r->on = 0;
    for (size_t i = 0; i < reg->n && i < 32; i++) {
        const md_ext *e = reg->ext[i];
        if ((i < reg->nswitches && ((opt->off >> i) & 1)) || (opt->reference && e->reference_off))
            continue;
        r->on |= 1u << i;
        r->ext[r->next++] = e;
        if (e->render)
            r->owners[r->nowners++] = e;
        if (e->enter || e->leave || e->exit) {
            r->hooks[r->nhooks++] = e;
            r->nodes |= e->nodes;
        }
        if (e->text)
            r->texts[r->ntexts++] = e;
        if (e->state_size)
            r->state[i] = xcalloc(1, e->state_size);
    }
}

void md_render(str body, int first_line, const md_options *opt, const md_hooks *hooks, arena *a,
               md_result *out)
{
    md_render_with(&md_registry_builtin, body, first_line, opt, hooks, a, out);
}

void md_render_with(const md_registry *reg, str body, int first_line, const md_options *opt,
                    const md_hooks *hooks, arena *a, md_result *out)
{
    memset(out, 0, sizeof *out);
    md_options none = { 0 };
    if (!opt)
        opt = &none;
    md_hooks no_hooks = { 0 };
    if (!hooks)
        hooks = &no_hooks;
    md_walk r = {
        .a = a,
        .unsafe = opt->unsafe,
        .hard_breaks = opt->hard_breaks,
        .reference = opt->reference,
        .linenos = opt->linenos,
        .opt = opt,
        .line0 = first_line - 1,
        .src = { .text = body },
        .resolve = hooks->link,
        .cite = hooks->cite,
        .shortcode = hooks->shortcode,
        .ctx = hooks->ctx,
        .html = BUF_INIT,
        .tmp = BUF_INIT,
        .heads = { .size = sizeof(md_heading) },
        .holes = { .size = sizeof(id_hole) },
        .cuts = { .size = sizeof(cut) },
        .links = { .size = sizeof(md_link) },
        .problems = { .size = sizeof(md_problem) },
        .anchors = { .size = sizeof(const char *) },
        .citing = MD_CITING_INIT,
        .sc_names = { .size = sizeof(const char *) },
        .eqlabels = { .size = sizeof(md_eqlabel) },
        .head = { .classes = BUF_INIT, .extra = BUF_INIT },
    };
    choose_extensions(&r, reg, opt);
    /* room for the HTML at once, about the size of its source: grown a
     * half at a time from nothing, it was copied again at each step */
    buf_grow(&r.html, body.len + body.len / 4 + 1024);
    cmark_node *doc = parse(body, opt, &r);
    if (!r.reference)
        md_xref_prepare(&r, doc);
    for (size_t i = 0; i < r.next; i++)
        if (r.ext[i]->prepare)
            r.ext[i]->prepare(&r, doc);
    summary_spec summary = { .tail = BUF_INIT };
    size_t head_start = 0, para_start = 0; /* where the current heading's content / top paragraph began */

    cmark_iter *it = cmark_iter_new(doc);
    cmark_event_type ev;
    while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node *n = cmark_iter_get_node(it);
        cmark_node_type t = cmark_node_get_type(n);
        if (r.skip_to) { /* inside a raw shortcode pair */
            if (n != r.skip_to || ev != CMARK_EVENT_ENTER)
                continue;
            r.skip_to = NULL;
        }
        if (t == CMARK_NODE_PARAGRAPH && md_xref_caption_para(n)) { /* in its table */
            if (ev == CMARK_EVENT_ENTER)
                cmark_iter_reset(it, n, CMARK_EVENT_EXIT);
            continue;
        }
        if (r.plain == n) /* leaving the image */
            r.plain = NULL;
        if (r.plain) {
            if (ev == CMARK_EVENT_ENTER)
                enter_plain(&r, n);
            continue;
        }
        if (ev == CMARK_EVENT_ENTER) {
            if (!out->has_more && !r.captures
                && (t == CMARK_NODE_HTML_BLOCK || t == CMARK_NODE_HTML_INLINE) && is_more(n)) {
                out->has_more = true;
                summary_at(&r, n, &summary);
            }
            bool top_para = t == CMARK_NODE_PARAGRAPH && cmark_node_parent(n) == doc && !r.captures;
            if (top_para) {
                md_cr(&r.html);
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
            leave(&r, n);
            if (t == CMARK_NODE_PARAGRAPH && cmark_node_parent(n) == doc && !summary.set
                && !r.captures) {
                summary.set = true;
                summary.start = para_start;
                summary.end = r.html.len;
            }
        }
    }
    cmark_iter_free(it);
    md_xref_finish(&r);
    md_mem_end(doc);
    free(r.eqlabels.v);
    for (size_t i = 0; i < r.next; i++)
        if (r.ext[i]->finish)
            r.ext[i]->finish(&r, &r.html);
    md_citing_contexts(&r.citing, a, &r.html);

    /* the automatic heading ids, now that every other id is known */
    md_heading *heads = r.heads.v;
    for (size_t i = 0; i < r.heads.n; i++)
        if (!heads[i].id)
            heads[i].id = r.reference ? "" : unique_id(&r, heads[i].title, strlen(heads[i].title));

    buf whole = BUF_INIT, b = BUF_INIT;
    if (r.holes.n) {
        buf_grow(&whole, r.html.len + r.html.len / 8 + 256); /* its holes filled: a little more */
        assemble(&r, 0, r.html.len, false, &whole);
    }
    if (summary.set) {
        assemble(&r, summary.start, summary.end, true, &b);
        buf_put(&b, summary.tail.data, summary.tail.len);
    }
    out->nheadings = r.heads.n;
    out->headings = md_vec_to_arena(&r.heads, a);
    out->nanchors = r.anchors.n;
    out->anchors = md_vec_to_arena(&r.anchors, a);
    out->nlinks = r.links.n;
    out->links = md_vec_to_arena(&r.links, a);
    out->ncites = r.citing.items.n;
    out->cites = md_vec_to_arena(&r.citing.items, a);
    md_xref_result(&r, out);
    /* in document order: a {{% %}} pair reports at its opening tag after
     * what its inner text reported (insertion sort: stable, nearly sorted) */
    md_problem *pv = r.problems.v;
    for (size_t i = 1; i < r.problems.n; i++) {
        md_problem x = pv[i];
        size_t k = i;
        while (k > 0 && (pv[k - 1].line > x.line || (pv[k - 1].line == x.line && pv[k - 1].col > x.col))) {
            pv[k] = pv[k - 1];
            k--;
        }
        pv[k] = x;
    }
    out->nproblems = r.problems.n;
    out->problems = md_vec_to_arena(&r.problems, a);
    out->nshortcodes = r.sc_names.n;
    out->shortcodes = md_vec_to_arena(&r.sc_names, a);
    /* the summary, the body and its text last, in this order (md.h) */
    out->summary_html = arena_strndup(a, b.data, b.len);
    out->summary_len = b.len;
    buf_release(&b);
    if (r.holes.n) {
        out->html = arena_strndup(a, whole.data, whole.len);
        out->html_len = whole.len;
    } else {
        out->html = arena_strndup(a, r.html.data, r.html.len);
        out->html_len = r.html.len;
    }
    buf_release(&whole);
    /* the text a reader sees: one rule for search, counts and snippets */
    buf t = BUF_INIT;
    buf_grow(&t, out->html_len + 2); /* the text is never longer than its HTML: no regrowth */
    html_plain_text(&t, out->html, out->html_len, true);
    out->text = arena_strndup(a, t.data ? t.data : "", t.len);
    out->text_len = t.len;
    out->word_count = text_word_count_cjk(t.data ? t.data : "", t.len, &out->cjk_count);
    buf_release(&t);

    free(r.holes.v);
    free(r.cuts.v);
    md_citing_free(&r.citing);
    buf_release(&r.html);
    buf_release(&r.tmp);
    buf_release(&summary.tail);
    free(r.src.line_start);
    free(r.ids.slot);
    buf_release(&r.head.classes);
    buf_release(&r.head.extra);
    for (size_t i = 0; i < 32; i++)
        free(r.state[i]);
}

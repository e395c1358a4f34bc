/* md: Markdown → HTML through cmark-gfm (GitHub-flavoured Markdown), in one
 * pass over the AST.
 *
 * While walking the tree it gives every heading a unique id (`{#id}` when
 * the heading says so, else the slug of its text: x, x-1, …), collects the
 * headings (for the table of contents) and every id of the page (headings,
 * footnotes, `id=`/`name=` in raw HTML: what `#anchor` links may target),
 * hands every link and image destination — Markdown's and raw HTML's
 * `href`/`src` alike — to a resolver that may rewrite it (cross-post links),
 * splits the summary at `<!--more-->` (else the first paragraph), counts
 * words (CJK characters one each) and notes problems it sees in the source
 * (duplicate ids, template syntax left over from another generator).
 * cmark-gfm and gumbo objects never leave this folder. Thread-safe: pages
 * are rendered on several threads at once.
 *
 * Extensions (tables, footnotes, …) are listed in one place, md/extensions.h;
 * adding a syntax is one new file in this folder plus one line there (see
 * the comment at the top of md.c). Each has a switch under `markdown:` in
 * site.yaml, named by md_extension_name. */
#ifndef SHEAF_MD_H
#define SHEAF_MD_H

#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/str.h"

/* A formula met by the math extension (md/math.c), for md_options.math. */
typedef struct md_formula {
    const char *tex; /* the TeX exactly as written, NUL-terminated */
    size_t len;
    bool display;    /* `$$…$$`, `\[…\]`, ```math: display math */
} md_formula;

/* Renders a formula to HTML (MathML). Returns the HTML (allocated in `a`,
 * or static); or NULL with *error set to what is wrong (in `a`) and
 * *error_at to the byte offset in f->tex the problem is at (-1 when it is
 * the whole formula). Called on the page's rendering thread. */
typedef const char *(*md_math_fn)(void *ctx, const md_formula *f, arena *a, const char **error,
                                  long *error_at);

/* What a label names, from its key's prefix (Quarto's): `fig-`, `tbl-`,
 * `eq-`, `sec-`. Such keys are cross-references, never citations. */
typedef enum md_label_kind {
    MD_LABEL_FIG,
    MD_LABEL_TBL,
    MD_LABEL_EQ,
    MD_LABEL_SEC,
    MD_LABEL_KINDS
} md_label_kind;

/* The kind of label a key names (its prefix), or -1 when it is no label
 * key. */
int md_label_kind_of(const char *key, size_t len);

/* The words md writes, in the site's language (NULL: English). A
 * reference's forms hold `{n}` where the number (or the list of numbers)
 * goes: "Figure {n}", "Figures {n}"; "图 {n}". */
typedef struct md_words {
    const char *one[MD_LABEL_KINDS];  /* "Figure {n}", "Table {n}", "Equation {n}", "Section {n}" */
    const char *many[MD_LABEL_KINDS]; /* "Figures {n}", … */
    const char *list_sep;             /* ", " between numbers */
    const char *list_and;             /* " and " before the last */
    const char *caption_sep;          /* ": " after "Figure 2" in a caption */
    const char *alert[5];             /* "Note", "Tip", "Important", "Warning", "Caution" */
    const char *in;                   /* "{ref} in {title}": a link to another page's label
                                         (the site writes it; md/ does not read it) */
} md_words;
/* A diagram met in a ```dot or ```graphviz code block (md/diagram.c), for
 * md_options.diagram. */
typedef struct md_diagram {
    const char *source; /* the dot source exactly as written, NUL-terminated */
    size_t len;
    const char *engine; /* `engine=` of the fence, NULL when none (dot) */
} md_diagram;

/* Renders a diagram to inline SVG. Returns the SVG (in `a`), which starts
 * with "<svg "; or NULL with *error set to what is wrong (in `a`) and
 * *error_line to the line of d->source it names (1-based), or 0. Called
 * on the page's rendering thread. */
typedef const char *(*md_diagram_fn)(void *ctx, const md_diagram *d, arena *a, const char **error,
                                     int *error_line);

typedef struct md_options {
    bool unsafe;      /* keep raw HTML (default true in site.yaml) */
    bool smart;       /* smart punctuation */
    bool hard_breaks; /* soft line breaks become <br /> */
    unsigned off;     /* extensions switched off: bit i is md_extension_name(i);
                         0, the zero value, has every extension on */
    bool reference;   /* write exactly what cmark-gfm's own renderer writes: no
                         heading ids, self-links or table boxes, no math
                         (for tests) */
    bool linenos;     /* code blocks get line numbers unless their fence says
                         {linenos=false} */
    md_math_fn math;  /* renders formulas; NULL writes the TeX escaped in
                         <span class="math inline">\(…\)</span> or
                         <div class="math display">\[…\]</div> */
    void *math_ctx;
    md_diagram_fn diagram; /* renders ```dot diagrams; NULL leaves them code */
    void *diagram_ctx;
    bool math_escapes; /* markdown.math_escapes: markdown — the TeX of a formula
                          is Markdown text first (a site written for Goldmark
                          or kramdown and MathJax): its backslash escapes are
                          undone (`D\_{KL}` is D_{KL}) and `\\(…\\)` is
                          inline math */
    /* the names of the boxes a wide table or display formula scrolls in
     * (role="group" aria-label=…), in the site's language; NULL: "Table",
     * "Formula" */
    const char *label_table, *label_math;
    /* lines of the file (trusted[line - 1], line < ntrusted + 1) whose raw
     * HTML block sheaf wrote itself (a notebook's prompts and outputs,
     * src/nb): kept, through the same link checks, whatever `unsafe` says */
    const unsigned char *trusted;
    size_t ntrusted;
    const md_words *words;  /* cross-references, captions, alerts; NULL: English */
    bool numbered_sections; /* number the page's headings: "Section 3.1" */
    /* a diagram's accessible name when its fence gives no caption; NULL:
     * "Diagram" */
    const char *label_diagram;
} md_options;

/* The extensions' switches, in the order of md/extensions.h: "tables",
 * "strikethrough", … (i < md_extension_count()); NULL past the end. */
size_t md_extension_count(void);
const char *md_extension_name(size_t i);
/* The bit of `off` for a switch name, or 0 when there is no such switch. */
unsigned md_extension_bit(const char *name);

typedef struct md_heading {
    int level;         /* 1..6 */
    const char *id;    /* unique within the page */
    const char *title; /* plain text of the heading */
    const char *html;  /* inline HTML of the heading's content */
    int line;          /* in the file */
} md_heading;

/* What the resolver may add to an image's tag (an <img> of Markdown, raw
 * HTML or a shortcode): each is written unless the tag has it already. */
typedef struct md_img_attrs {
    unsigned width, height; /* 0: unknown, not written */
    bool lazy;              /* loading="lazy" decoding="async" */
    const char *srcset;     /* NULL: none (then sizes is not written either) */
    const char *sizes;
} md_img_attrs;

typedef struct md_link {
    const char *dest; /* destination as cmark parsed it (unescaped); for raw
                         HTML the attribute's value, entities decoded */
    const char *text; /* plain text of the link ("" for images: alt text;
                         "" for raw HTML) */
    int line, col;    /* position in the file of the link's start ('[' or '!';
                         for raw HTML the attribute's value) */
    bool image;       /* an image (Markdown) or a `src` (raw HTML) */
    bool img_tag;     /* the `src` of an <img> (Markdown's or raw HTML's) */
    md_img_attrs *img; /* img_tag: where the resolver puts what to add to
                          the tag (all zero on entry); else NULL */
} md_link;

/* A citation (Pandoc's syntax: `[see @key, p. 4; -@other]`, narrative
 * `@key`, `@key [p. 4]`); see md/cite.c. */
typedef struct md_cite {
    const char *key;
    const char *prefix;    /* "see"; "" when none */
    const char *locator;   /* "p. 4"; "" when none */
    bool suppress_author;  /* `-@key`: the year only */
    bool narrative;        /* `@key` in running text: "Lian et al. (2017)" */
    int group;             /* citations of one `[…]` share it (0, 1, … on the page) */
    int line, col;         /* where it is in the file */
    const char *context;   /* the sentence around it, as plain text (md_result) */
} md_cite;

/* A numbered thing of the page that `@key` (or another page's
 * `[](page.md#key)`) refers to: a figure, a table, an equation, a
 * section. */
typedef struct md_label {
    const char *id;     /* "fig-arch": also the element's id */
    md_label_kind kind;
    const char *number; /* "2"; a section's "3.1", or "" when sections are not numbered */
    const char *text;   /* a section's heading as plain text; else "" */
    int line, col;      /* where the label is written, in the file */
} md_label;

/* A link with no text to a label of another page (`[](other.md#fig-a)`):
 * its text is that page's "Figure 2 in Title", which only the site knows
 * once every page is rendered; it goes at byte `at` of the HTML (and
 * `summary_at` of the summary; SIZE_MAX when not there, or when a
 * shortcode dropped the inner text it was in). */
typedef struct md_xlink {
    size_t link;       /* the index of the link in md_result.links */
    size_t at, summary_at;
} md_xlink;

/* Called once per link and image, in document order, on the rendering
 * thread. Returns the URL to write instead (allocated in the arena passed to
 * md_render, or static), or NULL to keep dest. */
typedef const char *(*md_link_fn)(void *ctx, const md_link *link);

/* A problem in the source, for the caller to report at the page's path. */
typedef struct md_problem {
    bool error;        /* else a warning */
    int line, col;
    const char *message;
} md_problem;

typedef struct md_result {
    const char *html;          /* the whole body */
    size_t html_len;
    const char *summary_html;  /* before <!--more-->, else the first paragraph
                                  (footnote references left out) */
    size_t summary_len;
    bool has_more;             /* the body has an explicit <!--more--> */
    md_heading *headings;      /* in document order */
    size_t nheadings;
    const char **anchors;      /* every id a `#link` may target: headings,
                                  footnotes (fn-LABEL, fnref-LABEL), raw HTML */
    size_t nanchors;
    md_link *links;            /* every link and image, in document order */
    size_t nlinks;
    md_cite *cites;            /* every citation, in document order */
    size_t ncites;
    md_problem *problems;      /* in document order */
    size_t nproblems;
    size_t word_count;
    const char **shortcodes;   /* the names of the shortcodes used, each once */
    size_t nshortcodes;
    size_t cjk_count;          /* how many of the words are CJK characters */
    const char *text;          /* the counted text: the HTML as a reader sees
                                  it (html_plain_text), one line a block */
    size_t text_len;
    md_label *labels;          /* figures, tables, equations, sections with a
                                  label key, in document order */
    size_t nlabels;
    md_xlink *xlinks;          /* in document order; offsets increase */
    size_t nxlinks;
} md_result;

/* Writes the HTML of one citation group (n ≥ 1 items, or one narrative
 * citation) to out, in document order; may report an unknown key. */
typedef void (*md_cite_fn)(void *ctx, const md_cite *cites, size_t n, buf *out);

/* Text or an attribute value as HTML: & < > " escaped (what md writes). */
void md_escape_html(buf *out, const char *s, size_t n);

/* A label's words: fmt ("Figure {n}", "图{n}") with `{n}` replaced by
 * inner (appended after a space when fmt has none), the space right before
 * or after `{n}` written as U+00A0 so a line never breaks between the word
 * and the number. fmt's text HTML-escaped when `escape`; inner as given. */
void md_label_form(buf *out, const char *fmt, const char *inner, size_t inner_len, bool escape);

/* A shortcode met in the page (md/shortcode.c): `{{< name args >}}`,
 * with its inner text when it is paired. */
typedef struct md_shortcode_arg {
    const char *key;   /* NULL: positional */
    const char *value; /* escapes undone */
    bool quoted;       /* written in quotes: always a string */
} md_shortcode_arg;

typedef struct md_shortcode {
    const char *name;
    const md_shortcode_arg *args;
    size_t nargs;
    bool paired;       /* closed by {{< /name >}}: inner is set */
    bool markdown;     /* {{% … %}}: inner is the HTML of its Markdown; else raw text */
    const char *inner;
    size_t inner_len;
    bool block;        /* stands on lines of its own */
    int line, col;     /* where the tag is in the file */
    /* `figure` with id="fig-…": its label's words ("Figure 2") and what
     * goes between them and the caption (": "); NULL otherwise */
    const char *label, *label_sep;
    /* `figure`'s caption="…" as the HTML of its Markdown (emphasis, math,
     * citations), for the template to print as it is; NULL otherwise */
    const char *caption_html;
} md_shortcode;

/* Renders a shortcode: returns its HTML (in `a`, or static), or NULL with
 * *error set to what is wrong (in `a`). Called on the page's rendering
 * thread, in document order. */
typedef const char *(*md_shortcode_fn)(void *ctx, const md_shortcode *sc, arena *a,
                                       const char **error);

/* What the caller does for the page while it is written: each hook may be
 * NULL, and is called with ctx. */
typedef struct md_hooks {
    md_link_fn link; /* every link and image */
    md_cite_fn cite; /* citations; NULL: `@` is plain text (no bibliography) */
    md_shortcode_fn shortcode; /* shortcodes; NULL: each one is an error */
    void *ctx;
} md_hooks;

/* Renders `body`, whose first line is line `first_line` of the file, into
 * out. Everything in out is allocated in `a`; out->summary_html, out->html
 * and out->text are its last three allocations there, in this order, so a
 * caller done with them can give them back (arena_give_back: a one-shot
 * build keeps none of them in memory).
 * hooks and opt may be NULL (opt NULL: all extensions on, no raw HTML). */
void md_render(str body, int first_line, const md_options *opt, const md_hooks *hooks, arena *a,
               md_result *out);

#endif

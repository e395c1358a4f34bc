/* md: Markdown → HTML through cmark, in one pass over the AST.
 *
 * While walking the tree it gives every heading a unique id (slug of its
 * text: x, x-1, …), collects the headings (for the table of contents and
 * anchor checks), hands every link and image destination to a resolver that
 * may rewrite it (cross-post links), splits the summary at `<!--more-->`
 * (else the first paragraph) and counts words (CJK characters one each).
 * cmark objects never leave this folder. Thread-safe: pages are rendered on
 * several threads at once. */
#ifndef SHEAF_MD_H
#define SHEAF_MD_H

#include <stdbool.h>
#include <stddef.h>

#include "util/arena.h"
#include "util/str.h"

typedef struct md_options {
    bool unsafe;      /* keep raw HTML (default true in site.yaml) */
    bool smart;       /* smart punctuation */
    bool hard_breaks; /* soft line breaks become <br /> */
} md_options;

typedef struct md_heading {
    int level;         /* 1..6 */
    const char *id;    /* unique within the page */
    const char *title; /* plain text of the heading */
    const char *html;  /* inline HTML of the heading's content */
    int line;          /* in the file */
} md_heading;

typedef struct md_link {
    const char *dest; /* destination as cmark parsed it (unescaped) */
    const char *text; /* plain text of the link ("" for images: alt text) */
    int line, col;    /* position in the file of the link's start ('[' or '!') */
    bool image;
} md_link;

/* Called once per link and image, in document order, on the rendering
 * thread. Returns the URL to write instead (allocated in the arena passed to
 * md_render, or static), or NULL to keep dest. */
typedef const char *(*md_link_fn)(void *ctx, const md_link *link);

typedef struct md_result {
    const char *html;          /* the whole body */
    size_t html_len;
    const char *summary_html;  /* before <!--more-->, else the first paragraph */
    size_t summary_len;
    bool has_more;             /* the body has an explicit <!--more--> */
    md_heading *headings;      /* in document order */
    size_t nheadings;
    md_link *links;            /* every link and image, in document order */
    size_t nlinks;
    size_t word_count;
} md_result;

/* Renders `body`, whose first line is line `first_line` of the file, into
 * out. Everything in out is allocated in `a`. `resolve` may be NULL. */
void md_render(str body, int first_line, const md_options *opt, md_link_fn resolve, void *ctx,
               arena *a, md_result *out);

#endif

/* generated: the outputs sheaf makes itself (generated.c) — home and
 * list pages and their pagination, tags, archive, feeds, sitemap, robots,
 * 404, papers, search index — and the favicon (favicon.c). */
#ifndef SHEAF_SITE_GENERATED_H
#define SHEAF_SITE_GENERATED_H

#include <stdbool.h>
#include <stddef.h>

#include "site/config.h"
#include "site/model.h"
#include "util/arena.h"
#include "diag/diag.h"

/* The outputs sheaf makes once per site, in the order they are rendered. */
typedef enum site_gen_kind {
    SITE_GEN_INDEX, SITE_GEN_TAGS, SITE_GEN_ARCHIVE, SITE_GEN_FEED, SITE_GEN_SITEMAP,
    SITE_GEN_ROBOTS, SITE_GEN_404, SITE_GEN_PAPERS, SITE_GEN_FAVICON, SITE_GEN_SEARCH,
    SITE_GEN_SEARCH_INDEX, SITE_NGENERATED
} site_gen_kind;

typedef struct site_generated {
    const char *output;   /* the file written: "tags/index.html" */
    const char *path;     /* its path in URLs, after the base path: "tags/" */
    const char *template; /* "tags.html" */
    const char *kind;     /* what page.kind says: "tags" */
    const char *title;    /* what page.title says; NULL: the site's title */
    const char *context;  /* what messages call it: "the tags index" */
} site_generated;

/* Whether `name` is one of the site's taxonomies (the tags index, tags/,
 * is made only when tags is). */
bool site_has_taxonomy(const site_config *c, const char *name);
/* Indexed by site_gen_kind. The home page's later pages are page/N/
 * (site_index_path, after `paginate_path`); each tag has
 * tags/<site_tag_slug>/. */
extern const site_generated site_generated_outputs[SITE_NGENERATED];
/* The search index (render/search.c; docs/search.md) in segments: each
 * document (a published post or page) belongs to one segment by a hash of
 * its source path, so an edit changes the files of its own segment only.
 * site_search_segments: how many for ndocs documents — a power of two,
 * the fewest that hold at most SITE_SEARCH_SEGMENT_DOCS each on average
 * (1 up to that many). site_search_segment_of: the segment of page p
 * among n. A segment's documents are numbered in the index's order (posts
 * newest first, then pages). Their texts (site_search_text), for the
 * search page's snippets, go SITE_SEARCH_TEXTS_PER_FILE documents a file
 * — document d of segment g is item d % N of file (g, d / N) — so a
 * result's snippet costs the visitor one small file, and an edit that
 * moves no page changes only its own file. site_search_segment_file is
 * the path of segment g's file ("search/seg/3.json", in a),
 * site_search_text_file that of text file k of segment g
 * ("search/text/3-0.json"); site_search_files lists them all (none
 * without `search: true`), in a, and returns how many. */
#define SITE_SEARCH_SEGMENT_DOCS 512
#define SITE_SEARCH_TEXTS_PER_FILE 4
size_t site_search_segments(size_t ndocs);
size_t site_search_segment_of(const page *p, size_t n);
const char *site_search_segment_file(arena *a, size_t g);
const char *site_search_text_file(arena *a, size_t g, size_t k);
size_t site_search_files(const site *s, arena *a, const char ***out);
/* How many pages the home page's list of posts takes (1 with no posts). */
size_t site_index_pages(const site *s);
/* The path of the home page's page n (1-based), in a: "" or "page/n/"
 * (site.yaml's `paginate_path` with n for :num). */
const char *site_index_path(const site *s, arena *a, size_t n);
/* How many pages a list of n posts takes (1 when empty), and the path of
 * page k (1-based) of a list at `base` ("notes/"): base, or base then
 * `paginate_path` with k for its :num (base/page/k/). The one rule for
 * the folder of a list's later pages (and of its page/1/ alias). */
size_t site_list_pages(const site *s, size_t n);
const char *site_list_path(const site *s, arena *a, const char *base, size_t k);
/* The folder name every list's later pages start with ("page" for
 * page/:num/), which a section or a taxonomy may not take; NULL when
 * `paginate_path`'s first part holds the number (page:num/). In a. */
const char *site_paginate_folder(const site_config *c, arena *a);
/* What sheaf writes itself in the folder /<name>/ — the context of a
 * generated output there ("the archive"), or NULL — which a section or a
 * taxonomy may not take. tags/ is not counted: it is the tags taxonomy's. */
const char *site_generated_in_folder(const char *name);

/* ---- favicon (favicon.c) --------------------------------------------- */

/* Decides the favicon after site_load: `favicon:` naming a file (one of
 * the site's output files, e.g. from static/) uses it; else a favicon.svg,
 * .ico or .png among the site's files; else favicon.svg is generated from
 * `favicon:`'s text, or the emoji the title starts with, or the title's
 * first letter. An unknown file or a text too long is an error at the
 * key. */
void site_favicon(site *s, diag_list *d);
/* Whether generated output g is made for this site (the favicon only when
 * drawn, search only with `search: true`, the tags index only when tags
 * are a taxonomy); papers are decided apart. */
bool site_generated_on(const site *s, size_t g);
/* Where a list whose first page is at `base` ("" for the home page,
 * "notes/", "tags/go/") also answers with a redirect to it, as Hugo's do:
 * base/page/1/index.html (after `paginate_path`, with 1 for :num) with
 * `first_page_alias: true`, else NULL. In a. */
const char *site_first_page_alias(const site *s, arena *a, const char *base);
/* The files of the feed of folder `dir` ("" for the site's, "posts/",
 * "tags/go/"): dir/atom.xml, then dir/<name> for each of site.yaml's
 * `feed_copies:` (an old generator's feed path, e.g. Hugo's index.xml, kept
 * answering with the same feed). Fills out (room for 1 +
 * SITE_MAX_FEED_COPIES) in a; returns how many. */
size_t site_feed_files(const site *s, arena *a, const char *dir, const char **out);
/* The feed of folder dir itself: dir/atom.xml (the first of site_feed_files). */
const char *site_feed_file(arena *a, const char *dir);

#endif

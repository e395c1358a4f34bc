/* links: the Markdown stage (links.c) — every page's Markdown with the
 * cross-post link resolver, a build session's re-render of one page, the
 * search keys and excerpt, and the link checks. */
#ifndef SHEAF_SITE_LINKS_H
#define SHEAF_SITE_LINKS_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"
#include "site/model.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/words.h"

/* Markdown for every published page, with the cross-post link resolver. */
void site_render_markdown(site *s, int jobs, diag_list *d);
/* In a build session: is `text` (the new bytes of p's file) an edit of its
 * body only — the same bytes as when p was parsed, up to where the body
 * starts? Then everything that comes from the front matter is unchanged;
 * *body and *body_line locate the new body in text. */
bool site_page_body_edit(const page *p, const char *text, size_t len, str *body, int *body_line);

/* Renders one page's Markdown again (a build session, after an edit of
 * its body): p->md and p->links, allocated in a. Needs a site whose
 * Markdown was rendered (site_render_markdown). */
void site_page_markdown(site *s, page *p, str body, int body_line, arena *a);

/* The set of every output path of s (the pages', the files', the lists'
 * and feeds'), for links written relative to a page's output: made on
 * first use (a build that renders no page's Markdown makes none), kept
 * in s until the next Markdown stage or site_free. Thread-safe. */
const struct strmap *site_outputs(const site *s);
/* A one-shot build whose cached bulk of p (site/bulk.h) did not read back:
 * p's Markdown made again from its source (read again: body_len bytes
 * at p->body_off, while its stamp is the same, else an error in d and
 * false), into out[0..3] — its summary, body, search keys and search
 * text; got[i] false for one that is NULL. p itself is not changed. */
bool site_page_bulk_again(const site *s, const page *p, size_t body_len, buf out[4], bool got[4],
                          diag_list *d);
/* Appends the search keys of p's rendered Markdown — its text, its
 * headings' titles ranked higher — to out, packed (util/words.h): what
 * page.search_keys holds. w: an empty set to use (left empty). */
void site_page_search_keys(const page *p, words_set *w, buf *out);
/* Appends to out the excerpt the search index shows with a page: the first
 * SITE_EXCERPT_MAX characters of text (or n bytes, if fewer), cut at a
 * word's end, whitespace runs as one space, no space before punctuation.
 * Plain text (the index escapes it). */
#define SITE_EXCERPT_MAX 140
void site_search_excerpt(const char *text, size_t n, buf *out);
/* Appends to out the text search results cut their snippets from: the
 * page's plain text (md.text: formulas as their TeX, citations as shown,
 * no footnote marks) on one line — every run of white space one space,
 * none at either end, no space before punctuation, as in the excerpt. */
void site_search_text(const char *text, size_t n, buf *out);
/* `sheaf check`, after rendering: each root-relative link ("/posts/a/",
 * "/files/x.pdf#p2") must name an output of the build (`produced`: output
 * paths → anything), and its #anchor, when it names a page, one of that
 * page's ids. Warnings, whatever `links:` says: such a path may be served
 * beside the site by something else. */
void site_check_root_links(const site *s, const struct strmap *produced, diag_list *d);
/* Checks every link (files, anchors, drafts) and fills backlinks. */
void site_check_links(site *s, diag_list *d);

#endif

/* load: the load stage — the walk of content/, static/ and the theme
 * (walk.c), front matter (front_matter.c), held pages (held.c), sections
 * (sections.c), data/ (data.c) — and the lookup of a content path. */
#ifndef SHEAF_SITE_LOAD_H
#define SHEAF_SITE_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"
#include "site/model.h"
#include "util/arena.h"

/* The one rule for a section's name (a folder directly under content/):
 * NULL when `name` is one the build reads as a section, else why not. */
const char *site_section_name_problem(const char *name);
/* The output folder of the section content/<name>/, its list's and its
 * posts' ("Diary" → "diary", "my.notes" → "my-notes"): each folder of a
 * page's path is slugged alike. In a. */
const char *site_section_folder(const char *name, arena *a);

/* Reads every .yaml, .yml and .json file below data/ into s->data (site.data; an empty map
 * without any). Errors at each file's line:col; false after one. */
bool site_load_data(site *s, diag_list *d);

/* The containment rule for a folder the build reads (content, static,
 * data, templates, themes/<theme> and its folders): site/prefix, after
 * every symbolic link on the way, lies inside the site folder (fs_within).
 * A missing folder is fine. Otherwise an error — at where:line:col naming
 * prefix (a config path: site.yaml's theme), or at prefix itself — and
 * false. */
bool site_folder_inside(site *s, const char *prefix, const char *where, int line, int col, diag_list *d);

/* Why page p is left out of the build (drafts, s->future, s->now), or
 * SITE_SHOWN. */
site_held site_page_held(const site *s, const page *p);
/* Walks content/ (pages and content files) and static folders; reads every
 * page and parses its front matter (in parallel, `jobs` threads); finds
 * the sections and which pages are left out (counted, with the next time
 * that changes). */
bool site_load(site *s, int jobs, diag_list *d);

/* What a page's front matter sets, by the table of its keys (front_matter.c): the
 * fields of every key (or of those a build session updates in place, like
 * the title), the front-matter map and its positions. */
/* For a front-matter key Jekyll or Hugo act on and sheaf has no
 * equivalent for (any case: "Weight"), what the warning tells to do
 * instead; NULL for any other key. (`sheaf import` drops such keys and
 * lists them with this text.) */
const char *site_key_no_equivalent(const char *key);
void site_page_copy_head(page *dst, const page *src, bool in_place_only);
/* Whether b, a new parse of a's file, leaves the page where a was: it
 * parsed, and every front-matter field but those updated in place (the
 * title, the params) is the same, so no path, order, list or tag page
 * changes. */
bool site_page_same_place(const page *a, const page *b);
/* Whether sheaf reads front-matter key `name` itself (a taxonomy may not
 * be named so, tags and categories aside). */
bool site_page_key_known(const char *name);
/* Where the value of front-matter key `key` of p is written (1:1 when it
 * is not), for messages about it after loading. */
void site_page_key_place(const page *p, const char *key, int *line, int *col);

/* Parses `text` (the new bytes of p's file, kept alive by the caller) into
 * p's front-matter fields, as the first load did; values in a. False when
 * the page has a problem (reported into d). */
bool site_reparse_page(site *s, page *p, const char *text, size_t len, arena *a, diag_list *d);

/* The file name endings that make a file under content/ a Markdown page,
 * the one list of them (Jekyll's and Hugo's: a blog moved from either keeps
 * its pages). A folder holding index<ending> is a page bundle. */
#define SITE_MARKDOWN_EXTS ".md", ".markdown", ".mdown", ".mkd", ".mkdn"
/* The length of path's Markdown ending (3 for "a.md", 9 for "a.markdown"),
 * or 0 when path is not a page's. */
size_t site_markdown_ext(const char *path);
/* The length of path's page ending: a Markdown ending, or NB_EXT for a
 * Jupyter notebook (src/nb); 0 when path is not a page's. */
size_t site_page_ext(const char *path);
/* Gives this run's diagnostics about a notebook (from index `from` of d)
 * their place in the notebook, "cell 7 (line 3:5)": their lines are of
 * the page text made of it (diag_relocate, nb_place_text). */
void site_notebook_places(const site *s, diag_list *d, size_t from);
/* Whether the file name `base` is index<ending> (a notebook too). */
bool site_is_index_page(const char *base);
/* Whether the file name `base` is _index<ending> (a section's or the home
 * page's title, intro and front matter). */
bool site_is_section_index(const char *base);

/* Looks up a content path (relative to content/) → page index or -1;
 * *file gets a file index or -1. */
int site_lookup(const site *s, const char *content_rel, int *file);

void site_free(site *s);

#endif

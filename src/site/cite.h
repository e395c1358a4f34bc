/* cite: citations — the bibliographies (cite.c), a CSL style
 * (cite_csl.c), and the papers/ pages (papers.c). */
#ifndef SHEAF_SITE_CITE_H
#define SHEAF_SITE_CITE_H

#include <stdbool.h>
#include <stddef.h>

#include "bib/bib.h"
#include "diag/diag.h"
#include "md/md.h"
#include "site/model.h"
#include "util/arena.h"
#include "util/buf.h"
#include "value/value.h"

/* Reads the site's and the pages' `bibliography:` files (after site_load),
 * each once. Without any, s->bib stays NULL and `@` is plain text. */
bool site_load_bibliography(site *s, diag_list *d);
/* Reads the site's own (site.yaml's) files now, before site_load;
 * site_load_bibliography reads the rest. (The split dates from when each
 * file was parsed in a forked child, which was cheaper in a small process;
 * bib/ now reads in-process, so the order no longer matters for speed.) */
bool site_load_site_bibliography(site *s, diag_list *d);
/* A CSL-JSON bibliography's text (a `.json` in `bibliography:`) → entries
 * of b, as bib_load reads a .bib: the JSON read by fm/json.c, the items
 * checked and mapped by bib/csljson.c (errors at path:line:col into d;
 * false on any). Everything it adds is in a. */
bool site_bib_load_csljson(bib *b, const char *text, size_t len, const char *path, arena *a, diag_list *d);

/* Does page p read citations (a bibliography of the site's or its own)? */
bool site_page_cites(const site *s, const page *p);
/* What one page's citations have numbered so far (numeric style); with a
 * CSL style, the page's document (cite_csl.c). */
typedef struct site_cite_state {
    struct strmap *num;   /* key → number */
    long n;
    struct site_csl_doc *doc; /* CSL: the clusters to write, or NULL (collecting them) */
    tpl_value csl_bib;        /* CSL: the page's bibliography site_csl_finish made */
} site_cite_state;
/* The md cite hook's work: a group's HTML for page p. */
void site_cite_html(const site *s, const page *p, site_cite_state *st, const md_cite *c, size_t n,
                    buf *out);
void site_cite_state_free(site_cite_state *st);
/* The entry page p may cite as key, or NULL. */
const bib_entry *site_cite_entry(const site *s, const page *p, const char *key);

/* ---- citations in a CSL style (cite_csl.c) ----
 *
 * With `citation_style:` naming a bundled CSL style or a .csl file, each
 * page's citations are one citeproc-js document (src/js/csl.h), its
 * clusters and bibliography kept in the build cache. The Markdown hook
 * cannot wait for the page's last citation, so a page is written with
 * what the cache holds for its text (one pass, no engine) or else twice:
 * once to collect its citations, once to write their formatted text. */

/* Reads `citation_style:`: a built-in style leaves s->csl NULL; a bundled
 * style or a .csl file (relative to the site) is read into s->csl. Then
 * each page's own (front matter; CSL styles only), into s->csl_pages. An
 * unknown name or an unreadable file is an error at the key, in
 * site.yaml or the page. */
bool site_csl_setup(site *s, diag_list *d);
/* Frees s->csl, s->csl_pages and their engines. */
void site_csl_free(site *s);
/* The hash (hex) of the CSL style's text, or "" for a built-in style:
 * what a page's cached Markdown depends on besides site.yaml's line. */
const char *site_csl_style_hash(const site *s);
/* The hash of the style page p names in its front matter when it is not
 * the site's, else "": what p's cached Markdown depends on besides its
 * text (a .csl file it names edited). */
const char *site_csl_page_hash(const site *s, const page *p);
/* Whether page p's citations are in a CSL style (its own or the site's). */
bool site_page_csl(const site *s, const page *p);
/* Whether p's `citation_style:` is one site_csl_setup read (or the
 * site's, or none): false for a page edited since to name another, which
 * only a full build reads. */
bool site_csl_page_known(const site *s, const page *p);
/* Before the Markdown of a page that cites (body: its text): looks for
 * its document in the cache by its text and sets st->doc on a hit. */
void site_csl_begin(site *s, const page *p, str body, arena *a, site_cite_state *st);
/* After it: true when the page must be written again, st now holding its
 * clusters (formatted from md's citations, through the cache or an
 * engine); false when what was written stands. Keeps the page's
 * bibliography in st->csl_bib and p->csl_bib. A failure of the engine is
 * an error in d (none when d is NULL); body.ptr NULL: the page's text is
 * not at hand (its Markdown came from a session's page cache), nothing is
 * kept by it and p is not written to. */
bool site_csl_finish(site *s, page *p, str body, site_cite_state *st, const md_result *md, arena *a,
                     diag_list *d);
/* The hook's work with a CSL style (site_cite_html calls it). */
/* `<span class="citation" data-cites="KEY …">`: how every style's
 * citation group opens (site/cite.c). */
void site_cite_open(buf *out, const md_cite *c, size_t n);
void site_csl_cite_html(const site *s, const page *p, site_cite_state *st, const md_cite *c, size_t n,
                        buf *out);
void site_csl_doc_free(struct site_csl_doc *doc);
/* The inside of citeproc-js's <div class="csl-entry">…</div> appended to
 * out; without a numeric style's number (its csl-left-margin) unless
 * keep: the entry alone, as a paper's page shows it. */
void site_csl_entry_html(const char *h, size_t n, bool keep, buf *out);
/* entry.reference of every entry, in the CSL style (render_references). */
void site_csl_references(site *s, int jobs, diag_list *d);
/* Counters for --stats: pages formatted, of them written twice (not by
 * their text from the cache), documents citeproc-js formatted (pages and
 * references), engines started. */
void site_csl_counts(const site *s, size_t *docs, size_t *twice, size_t *rendered, size_t *engines);
/* Counts page p as formatted: its bibliography came with its Markdown from
 * the build cache (mdcache.c). */
void site_csl_page_cached(const site *s, const page *p);
/* After the Markdown: unknown keys are errors at their citation; the
 * cited works and who cites them (s->papers). */
void site_check_citations(site *s, diag_list *d);
/* Template values: every entry's (s->entry_values, site.bibliography) and
 * each paper's. Part of site_build_model. */
void site_citation_values(site *s, tpl_map *site_map);
/* A paper's `cited_by` ([{title, url, date, context}], newest first),
 * made in a (any thread) when its page is rendered: the references to the
 * citing pages read their current titles (site_page_ref). */
tpl_value site_paper_cited_by(const site *s, const paper_info *pp, arena *a);
/* papers.c: an entry's `pdf` and `citing_tags` (the tags of the pages
 * citing it, {name, slug}, each once, by name), set in m before it is
 * sealed; pi is the work's index in s->papers, or -1 when nothing cites
 * it. Values in the site arena. */
void site_paper_entry_values(site *s, long pi, const bib_entry *e, tpl_map *m);
/* papers.c: site.papers_by_year ([{year, papers}], newest year first, no
 * year last; site.papers' order within a year) and site.paper_tags (every
 * tag of a citing page: {name, slug, count}, count the works its pages
 * cite), read from site.papers. Part of site_build_model. */
void site_papers_values(site *s, tpl_map *site_map);
/* papers.c: the entry as BibTeX, its fields' TeX as read (macros
 * expanded, a crossref's fields written in), in a. */
const char *site_paper_bibtex(const bib_entry *e, arena *a);
/* A page's `citations` (keys, in order) and `bibliography` (entries),
 * made in a (any thread: reads the site only). */
void site_page_citation_values(site *s, arena *a, const page *p, tpl_map *m);

#endif

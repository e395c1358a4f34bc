/* bulk: the bulk of a page's Markdown — its rendered body, its summary,
 * its search keys and its search text — read through one accessor each
 * (bulk.c), so that a one-shot build with the build cache reads from disk
 * only the pages something uses: the model, the link checks and the
 * citations need only the head of a page's entry (mdcache.c); a render
 * job, a feed or the search index asks for the rest. */
#ifndef SHEAF_SITE_BULK_H
#define SHEAF_SITE_BULK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "site/model.h"

/* Where a page's bulk is, in a one-shot build with the build cache
 * (page.bulk; NULL in any other build: the fields are in the page). Made
 * by the Markdown stage in the worker's arena. */
typedef struct site_bulk {
    _Atomic int here;     /* 1: md.html, md.summary_html, search_keys and
                             search_text are set (made by this process, or
                             read); 0: still in the cache entry */
    bool cached;          /* taken from the build cache */
    bool search;          /* the entry holds search keys and text */
    unsigned char id[16]; /* the name of its part of the entry (mdcache.c) */
    size_t slot;          /* place + 1 of its room in the spill file, or 0 */
    size_t body_len;      /* the source's body, to render it again */
    /* the lengths (SIZE_MAX: NULL) and hashes the model's values stand for */
    size_t html_len, summary_len, keys_len, text_len;
    uint64_t html_hash, summary_hash;
} site_bulk;

#define SITE_BULK_NONE ((size_t)-1)

/* p's rendered body (md.html, before the links to other pages' labels are
 * filled: site_xlink_html), its summary (md.summary_html), its search keys
 * (page.search_keys: NULL without `search: true`) and its search text
 * (page.search_text, or NULL: made from md.text then). Read from the build
 * cache on first use when not in memory (thread-safe; a part that does not
 * check is made again from the source, bulk.c); *len its length. The bytes
 * live as long as the site. */
const char *site_page_body(const site *s, const page *p, size_t *len);
const char *site_page_summary(const site *s, const page *p, size_t *len);
const char *site_page_keys(const site *s, const page *p, size_t *len);
const char *site_page_text(const site *s, const page *p, size_t *len);

/* For the model (model.c, body_values): when p's body (summary) need not
 * be read to make its value, a stand-in that names its bytes (their length
 * and hash: the render record hashes it as it would the bytes) into *v,
 * allocated in a, and true; the page's map is then made lazy by
 * site_page_lazy_map, and the first read of the entry puts the real value
 * there (value.h, "Lazy entries"). False: make the value from the bytes. */
bool site_page_lazy_value(const site *s, arena *a, const page *p, bool summary, tpl_value *v);
/* The same for the table of contents (`toc`), in a one-shot build (with
 * the build cache, or writing its output with a spill file): a stand-in naming p's headings (their count and a hash
 * of each one's level, id and title: all a toc is made of) into *v, and
 * true, when p has headings; the real toc is made on the first read of
 * the entry (site_page_toc). Made by the job that renders p's own output
 * (site_bulk_job_begin), it lives until that job ends, and the entry is
 * the stand-in again; made by any other reader (or read by one while that
 * job runs), until site_free. So no build holds every toc (one is ≈ 1 KB
 * a page: 110 MB at 100,000 posts). False: make it now. */
bool site_page_lazy_toc(const site *s, arena *a, const page *p, tpl_value *v);
/* Marks p->value lazy when it holds a stand-in (after it is sealed). */
void site_page_lazy_map(const site *s, const page *p);
/* Whether m, p's map made, holds a stand-in (site_page_lazy_map's test). */
bool site_page_lazy_entries(const site *s, const page *p, const tpl_map *m);
/* Around each render job (render/jobs.c), on the thread that runs it:
 * page is the page whose own output the job renders (-1: another job).
 * The end gives back the toc that job made for its page, unless a reader
 * of another job read it meanwhile. Nothing when s is not hooked. */
void site_bulk_job_begin(const site *s, long page);
void site_bulk_job_end(const site *s);
/* Installs (on) the hook that fills s's lazy entries, and makes the
 * page maps not made yet (site_page_value_make), or removes it when it is
 * s's (site_free calls it). */
void site_bulk_hook(site *s, bool on);

#endif

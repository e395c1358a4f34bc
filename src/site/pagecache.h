/* pagecache: the per-page part of a build session's memory (see
 * pagecache.c). Used by load.c and links.c only; the session itself holds a
 * site_page_cache (site.h). Entries are created serially (page_cache_slot);
 * afterwards each entry is touched by the one thread working on its page. */
#ifndef SHEAF_PAGECACHE_H
#define SHEAF_PAGECACHE_H

#include <stdint.h>

#include "site/site.h"

struct page_cache_entry {
    char *src;
    char *text; /* the bytes the entry was made from */
    size_t len;
    arena *a;   /* owns the parse products and the Markdown */
    bool parsed, has_md;
    int md_runs;
    unsigned run;
    page snap;  /* the page's fields after parsing */
    size_t body_off, body_len;
    uint64_t env;
    md_result md;
    link_rec *links;
    size_t nlinks;
    const char *search_keys; /* made from md (page.search_keys), or NULL */
    size_t search_keys_len;
};

/* A new run under the configuration file whose hash is `config`
 * (site_config_file_hash): entries not asked for by page_cache_slot
 * before page_cache_prune are dropped, and every entry when the
 * configuration is not the last run's. */
void page_cache_begin(site_page_cache *c, uint64_t config);
page_cache_entry *page_cache_slot(site_page_cache *c, const char *src);
void page_cache_prune(site_page_cache *c);

/* When e was parsed from exactly p->text, fills p's parsed fields. */
bool page_cache_take_parse(page_cache_entry *e, page *p);
/* Empties e and gives it a new arena to parse into. */
arena *page_cache_fresh_arena(page_cache_entry *e);
/* Remembers p (parsed into e's arena, without diagnostics). */
void page_cache_keep_parse(page_cache_entry *e, const page *p);
/* The Markdown rendered under the same link environment, if kept. */
bool page_cache_take_md(page_cache_entry *e, uint64_t env, page *p);
void page_cache_keep_md(page_cache_entry *e, uint64_t env, const page *p);

#endif

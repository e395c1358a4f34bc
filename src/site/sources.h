/* sources: reading a page's source file, and what a build session keeps
 * between its runs — source bytes (sources.c) and parsed pages
 * (pagecache.c). */
#ifndef SHEAF_SITE_SOURCES_H
#define SHEAF_SITE_SOURCES_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"
#include "site/model.h"

/* Source bytes kept between the runs of a build session (`sheaf serve`).
 * A lookup stats the file and uses the kept bytes only when its size, mtime
 * and inode still match. Thread-safe. */
site_source_cache *site_source_cache_new(void);
/* site_source_cache_free(NULL) does nothing. */
void site_source_cache_free(site_source_cache *c);
/* Forgets one file (src relative to the site folder) / every file. */
void site_source_cache_forget(site_source_cache *c, const char *src);
void site_source_cache_clear(site_source_cache *c);

/* Stamps dir/src; false when it cannot be stat'ed. */
bool site_source_stamp_of(const char *dir, const char *src, site_source_stamp *st);
/* Reads dir/src again for a page whose text a one-shot build let go after
 * its front matter (page.text_dropped): into p->text, with p->body where
 * it was, when the file's stamp is still the one it had then; else false
 * with an error in d (the file changed during the build). */
bool site_source_reread(const site *s, page *p, diag_list *d);
/* Reads dir/src into *data (malloc'd, NUL-terminated; the caller frees it),
 * from the cache when it is still current. c may be NULL. root: dir
 * resolved and open (fs_root_open), or zeroed to resolve dir here. Returns false with
 * errno set when the file cannot be read — FS_EOUTSIDE when it resolves
 * outside dir (the containment rule, fs_within). */
bool site_source_read(site_source_cache *c, const char *dir, const fs_root *root, const char *src,
                      char **data, size_t *len);

/* Front matter and Markdown of each page kept between the runs of a build
 * session: a page is parsed again only when its bytes changed, and its
 * Markdown rendered again only when its bytes or the pages it can link to
 * changed. Not thread-safe; one per session. */
site_page_cache *site_page_cache_new(void);
/* site_page_cache_free(NULL) does nothing. */
void site_page_cache_free(site_page_cache *c);
/* Forgets every page. */
void site_page_cache_clear(site_page_cache *c);

#endif

/* mdcache: the pages' Markdown in the build cache, so that the next
 * `sheaf build` process renders only the pages whose inputs changed (see
 * mdcache.c for what an entry holds and when it is used). Used by a
 * one-shot build (render/build.c opens and closes it) and the Markdown
 * stage (links.c looks pages up and stores them); a build session keeps
 * its pages in memory instead (pagecache.c). */
#ifndef SHEAF_MDCACHE_H
#define SHEAF_MDCACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "site/site.h"

/* Opens the page entries of s's build cache (s->cache, not NULL) for this
 * build: reads the cache's manifest and reports into d, as a warning,
 * why the entries it holds are not used — written by another sheaf, for
 * another site, or by a build that did not finish (killed). With write,
 * entries are stored, and the manifest is marked open from the first one
 * until site_md_disk_close. Returns NULL when the
 * entries cannot be used at all (a read-only cache that is not right);
 * owned by the caller, freed by site_md_disk_close. */
site_md_disk *site_md_disk_open(site *s, bool write, diag_list *d);
/* After the build (whether it succeeded or not: the entries it wrote are
 * right either way): marks the manifest finished, and says in d how many
 * damaged entries were met (each was a miss). Frees m; NULL does nothing. */
void site_md_disk_close(site_md_disk *m, diag_list *d);

/* The running sheaf binary's identity, for the keys of what it writes in
 * the build cache: its ELF build id, else a hash of its bytes. The caller
 * frees it. */
char *site_binary_id(void);

/* Pages taken from the cache so far (0 for NULL). */
size_t site_md_disk_hits(const site_md_disk *m);
/* The bytes of the entries this build read or wrote: the cache keeps them
 * beyond its limit (cache_keep_extra), so a large site's pages do not push
 * out each other. */
size_t site_md_disk_bytes(const site_md_disk *m);

/* Called by site_render_markdown, once, before its workers: what every
 * page's entry depends on besides its own text (env: the link
 * environment, pagecache.c's rule). */
void site_md_disk_begin(site_md_disk *m, const site *s, uint64_t env);
/* Looks up page p's Markdown (md, links, the formulas and diagrams it
 * met), by its text, else (a source not read again) by p->digest: on a hit fills p in arena a — the body, the summary and the text
 * last, in this order, as md_render does — and returns true. key is
 * scratch (made here, reused by site_md_disk_keep). */
bool site_md_disk_take(site_md_disk *m, const site *s, page *p, arena *a, buf *key,
                       size_t *formulas, size_t *diagrams);
/* Stores p's Markdown just rendered, under the key site_md_disk_take
 * made, unless it reported a problem. */
void site_md_disk_keep(site_md_disk *m, const site *s, const page *p, const buf *key,
                       size_t formulas, size_t diagrams);

/* The link environment env of a page whose Markdown used shortcodes
 * (md->shortcodes), continued with what each of them reads: their
 * templates and the site's values (links.c; the session's rule too). */
uint64_t site_shortcode_env(const site *s, uint64_t env, const md_result *md);

#endif

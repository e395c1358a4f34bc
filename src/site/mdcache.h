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
 * the build cache: its ELF build id, else a hash of its bytes (read 64 KiB
 * at a time, once a process). The caller frees it. */
char *site_binary_id(void);

/* Pages taken from the cache so far (0 for NULL). */
size_t site_md_disk_hits(const site_md_disk *m);
/* The bytes of the entries this build read or wrote: the cache keeps them
 * beyond its limit (cache_keep_extra), so a large site's pages do not push
 * out each other. */
size_t site_md_disk_bytes(const site_md_disk *m);

/* What a page's Markdown depends on besides its own text and the link
 * environment (links.c), made once a run by site_md_env_begin: the
 * configuration file's bytes, the theme's words and labels the Markdown
 * writes, the CSL style's text, and the bibliography's entries. The build
 * cache's keys hold it (site_md_disk_begin), and so does a session's
 * rendering of a page kept between runs (pagecache.c), through
 * site_md_env_page: the part of it that page p depends on (the entries
 * only when p may cite; the words of its language; a .csl file it names). */
#define SITE_MD_WORDS_KNOWN 8
typedef struct site_md_env {
    uint64_t global, bib;
    const md_words *words_of[SITE_MD_WORDS_KNOWN]; /* the words' hashes by their address */
    uint64_t words_hash[SITE_MD_WORDS_KNOWN];
    size_t nwords;
} site_md_env;
void site_md_env_begin(const site *s, site_md_env *e);
/* A hash of the configuration file's bytes (site.yaml; a fixed value
 * without one). */
uint64_t site_config_file_hash(const site *s);
uint64_t site_md_env_page(const site *s, const page *p, const site_md_env *e);

/* Called by site_render_markdown, once, before its workers: what every
 * page's entry depends on besides its own text (env: the link
 * environment, pagecache.c's rule); reads the entries of heads whole
 * (with up to `jobs` threads). */
void site_md_disk_begin(site_md_disk *m, const site *s, uint64_t env, int jobs, diag_list *d);
/* Looks up page p's Markdown (md, links, the formulas and diagrams it
 * met), by its text, else (a source not read again) by p->digest: on a
 * hit fills p in arena a with the head of its entry — all but the body,
 * the summary, the search keys and the search text: p->bulk says where
 * those are, read when first used (site/bulk.h; room for them is reserved
 * in the spill file) — and returns true. key is scratch (made here,
 * reused by site_md_disk_keep). */
bool site_md_disk_take(site_md_disk *m, site *s, page *p, arena *a, buf *key,
                       size_t *formulas, size_t *diagrams);
/* Stores p's Markdown just rendered, under the key site_md_disk_take
 * made, unless it reported a problem: the head, and the bulk (md.html,
 * md.summary_html, search_keys, search_text, still in memory) as a part
 * of its own under a name p->bulk is given here. */
void site_md_disk_keep(site_md_disk *m, site *s, const page *p, const buf *key,
                       size_t formulas, size_t diagrams);

/* Called by site_render_markdown after its workers and site_spill_map
 * (the heads written by this build wait in the spill file when there is
 * one): writes again the entries of heads that changed (a page taken from
 * the cache no more, or written), and lets go of those read. */
void site_md_disk_end(site_md_disk *m, const site *s);

/* Walks one entry of heads' value (as the cache gives it back) as a build
 * does, and reads every head's value whole: how many read back, -1 when
 * the value does not read as heads. For the fuzz target
 * (tests/fuzz/fuzz_mdheads.c) and its test; values in a. */
int site_md_heads_check(const void *value, size_t n, arena *a);

/* Reads p's bulk (p->bulk, taken from the cache) into p's fields: into
 * its room in the spill file, else into memory. A part that is missing or
 * does not check is counted as damaged and made again from the source
 * (site_page_bulk_again), and stored again; when that fails too (the
 * source changed meanwhile) an error goes to site_md_disk_begin's list and
 * the fields are empty. Called by site/bulk.c under the page's lock; m
 * NULL: the fields are left empty. */
void site_md_disk_bulk(site_md_disk *m, const site *s, page *p);

/* The link environment env of a page whose Markdown used shortcodes
 * (md->shortcodes), continued with what each of them reads: their
 * templates and the site's values (links.c; the session's rule too). */
uint64_t site_shortcode_env(const site *s, uint64_t env, const md_result *md);

#endif

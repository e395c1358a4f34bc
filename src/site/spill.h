/* spill: pages' bodies kept on disk during a large build (spill.c). */
#ifndef SHEAF_SITE_SPILL_H
#define SHEAF_SITE_SPILL_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"
#include "site/model.h"

/* ---- bodies on disk (spill.c) ---------------------------------------- *
 * A one-shot build that writes its output keeps the pages' rendered
 * bodies (md.html, ≈ 10 KB a post: a third of a build's memory), their
 * summaries, their search keys (≈ 2.4 KB) and their search text (≈ 8 KB;
 * both read once, by the search index) in an unlinked file beside the
 * output instead of in memory: each Markdown worker appends its page's
 * there and gives the arena the bytes back; after the Markdown stage the
 * file is mapped read-only and md.html, md.summary_html, search_keys and
 * search_text point into the map. The render
 * jobs call site_spill_trim now and then, so the pages already read leave
 * the process's memory (they stay in the kernel's page cache, which may
 * drop them: the file holds them). A build session (`sheaf serve`) keeps
 * them in memory, as does a build whose file could not be made. */
typedef struct site_spill site_spill;
/* Starts keeping s's bodies in an unlinked file in folder `dir`; false
 * (and bodies stay in memory) when it cannot be made there. */
bool site_spill_open(site *s, const char *dir);
/* Appends n bytes (and a NUL) to the file; returns their place + 1 (for
 * page.spill_body, spill_summary, spill_keys, spill_text), or 0 when there is no file or the
 * write failed (the caller keeps the bytes). Thread-safe. */
size_t site_spill_put(site *s, const char *data, size_t n);
/* The same for n parts (at most SITE_SPILL_PARTS: a page's body, summary,
 * search keys and search text), written in one call, their places into
 * place[]; false, and every place 0, when none was written. */
#define SITE_SPILL_PARTS 4
bool site_spill_put_parts(site *s, size_t n, const char *const data[], const size_t len[], size_t place[]);
/* Reserves n bytes of the file without writing them (a page taken from
 * the build cache: its body is written there only if something reads it,
 * site/bulk.h); returns their place + 1, or 0 (no file). Thread-safe. */
size_t site_spill_reserve(site *s, size_t n);
/* After site_spill_map: writes n bytes and a NUL at a reserved place (the
 * map shows them: it is shared). False when there is no map or the write
 * failed (the caller keeps the bytes). Thread-safe. */
bool site_spill_write(const site *s, size_t place, const char *data, size_t n);
/* The mapped address of a place (NULL before site_spill_map or without
 * a file). */
const char *site_spill_at(const site *s, size_t place);
/* After the Markdown stage: maps the file and points every moved body,
 * summary, search keys and search text into it. A failure to map is an error in d
 * (the build fails; the moved strings read as ""). */
bool site_spill_map(site *s, diag_list *d);
/* Drops the mapped pages from the process's resident memory (any thread,
 * any time: a reader faults them in again from the file). */
void site_spill_trim(const site *s);
/* Unmaps and closes, and takes away s's lazy hook (site/bulk.h) (site_free
 * calls it). */
void site_spill_free(site *s);

#endif

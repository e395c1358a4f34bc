/* relcache: every post's related posts kept in the build cache (kind
 * "related", one entry a site), so that a build where nothing the rule
 * reads changed (a body edited: the usual one) takes them from there
 * instead of scoring every post against its groups again, which grows
 * with the square of a popular tag's size (4 s at 100,000 posts).
 *
 * The entry holds a digest of exactly what the rule (related.c,
 * related_job) reads — the number asked for, the posts' order, each term's
 * and cited work's pages and whether each of a work's pages is a
 * published post — and, for each post in that order, its related posts
 * (page numbers) with how many groups each shares. A digest that differs
 * is a miss: the lists are made again and the entry written again whole.
 * An entry that checks (src/cache's HMAC) and has this digest but does
 * not read back as lists of this site is ignored with a warning. */
#ifndef SHEAF_SITE_RELCACHE_H
#define SHEAF_SITE_RELCACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/cache.h"
#include "diag/diag.h"
#include "site/model.h"

/* The digest of what the related rule reads for site s (after its terms
 * and papers are made), with want related posts a post. */
void site_related_digest(const site *s, size_t want, unsigned char out[CACHE_DIGEST_LEN]);

/* On a hit, sets every post's nrelated, related and related_shared, in
 * the slots related/shared (want each, post k's at k * want, as
 * site_find_related lays them out) and returns true. A miss (no cache, no
 * entry, another digest) changes nothing; an entry with this digest that
 * does not read back is a miss with a warning into d (d may be NULL). */
bool site_related_get(site *s, const unsigned char digest[CACHE_DIGEST_LEN], size_t want,
                      int *related, int *shared, diag_list *d);

/* Writes every post's related lists under digest (nothing without a
 * cache, or when the entry would be larger than the cache takes). */
void site_related_put(const site *s, const unsigned char digest[CACHE_DIGEST_LEN], size_t want);

#endif

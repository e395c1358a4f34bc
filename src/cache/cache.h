/* cache: the build cache on disk, `.sheaf-cache/` in the site folder, so
 * that work whose result depends only on its input (a formula rendered to
 * MathML, a highlighted code block) is done once, not on every build.
 *
 * Generic: an entry is (kind, key bytes) → value bytes. The caller puts
 * into the key everything the value depends on — the input, the options,
 * the engine and library version — so a changed engine simply misses.
 * Entries live one per file under `.sheaf-cache/v1/<kind>/`, named by a
 * 128-bit hash of the key; each file holds the key itself and an HMAC of
 * kind, key and value under a secret made with the cache, so a hash
 * collision, a truncated, damaged or edited file is a miss, never a wrong
 * value. The cache is untrusted input all the same (cache.c says how): a
 * caller checks a value is what its kind can be before using it.
 *
 * Safe with parallel workers and with other builds: a value is written to
 * a temporary file and renamed into place, so readers see a whole entry or
 * none, and a build killed midway leaves at most a temporary file (removed
 * by a later trim). Bounded: cache_trim removes entries this process did
 * not use (read, write or touch), least recently written first, until the
 * cache is at most three quarters of its limit (CACHE_DEFAULT_MAX unless
 * told otherwise): the limit bounds what the site no longer uses, and what
 * a build uses is never removed by it, even when that alone is over. A
 * build walks the cache for it only after an eighth of the limit, or of
 * the cache's size when larger, was written since the last walk.
 *
 * A cache that cannot be written is not an error: the first problem is
 * kept for the caller to show as a warning (cache_problem) and writing
 * stops; reading what is there goes on. All calls are thread-safe. */
#ifndef SHEAF_CACHE_H
#define SHEAF_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* The folder's name in the site folder. */
#define CACHE_DIR ".sheaf-cache"
/* The default size limit: 256 MiB. */
#define CACHE_DEFAULT_MAX ((size_t)256 << 20)
/* The largest entry (header, key and value) written or read: 16 MiB. */
#define CACHE_ENTRY_MAX ((size_t)16 << 20)

typedef struct cache cache;

/* The cache of the site in site_dir (its folder is made on the first
 * write). max_bytes 0 means CACHE_DEFAULT_MAX, or the environment's
 * SHEAF_CACHE_MAX (bytes: for tests). Never fails: when
 * `.sheaf-cache`, its `v1` or a folder in it is a symbolic link, the cache
 * is not used (every get misses, nothing is written) and cache_problem
 * says why. Free with cache_free. */
cache *cache_open(const char *site_dir, size_t max_bytes);
/* cache_free(NULL) does nothing. Does not trim. */
void cache_free(cache *c);
/* From now on c is only read (`sheaf check`, which writes nothing). */
void cache_read_only(cache *c);

/* Looks up (kind, key): on a hit appends the value to out and returns true.
 * kind is a short name of letters, digits, '-' and '_' ("math", "code").
 * c may be NULL (always a miss). */
bool cache_get(cache *c, const char *kind, const void *key, size_t klen, buf *out);
/* Counts (kind, key) as used by this process, as cache_get would, without
 * reading it: for a caller that knows its result is already in place
 * (an image variant kept in the output folder), so that a trim does not
 * take the entry as unused and remove it first. c may be NULL. */
void cache_touch(cache *c, const char *kind, const void *key, size_t klen);
/* What cache_touch counts of (kind, key), for a caller that keeps it
 * instead of the key (the images' record keeps its variants'), and
 * cache_touch by it: the same effect, without printing and hashing the
 * key again. 0: none (touching it does nothing). */
uint64_t cache_use_id(const char *kind, const void *key, size_t klen);
void cache_touch_id(cache *c, uint64_t id);
/* Stores (kind, key) → value. A failure is remembered (cache_problem) and
 * stops later writes; it is never an error. c may be NULL. */
void cache_put(cache *c, const char *kind, const void *key, size_t klen, const void *value,
               size_t vlen);

/* The first problem writing the cache ("cannot write .sheaf-cache/…: …",
 * or the link that made it refuse the folder), or NULL; owned by c. */
const char *cache_problem(cache *c);

/* When the builds since the last trim, this process's writes included,
 * wrote more than an eighth of the limit (counted in the cache's ledger,
 * `v1/.ledger`; a missing one counts as due), walks the cache and removes
 * entries this process neither read, wrote nor touched, oldest first,
 * until it is within three quarters of its limit, and temporary files
 * left by a killed build. Otherwise only adds what this process wrote to
 * the ledger. Returns the number of files removed. */
size_t cache_trim(cache *c);
/* Raises the limit trims keep to by `bytes` beyond the cache's own (set,
 * not added: each build says what it needs): the image variants a build
 * used, so that a site's photos never push out their own variants, nor
 * the formulas. */
void cache_keep_extra(cache *c, size_t bytes);
/* The same, whatever was written (for tests and `--stats`). */
size_t cache_trim_now(cache *c);

/* The SHA-256 of n bytes at p into out: for a caller that names a long
 * input in a key by its digest (a page's text), so that keys stay short
 * and a collision is out of reach. */
#define CACHE_DIGEST_LEN 32
void cache_digest(const void *p, size_t n, unsigned char out[CACHE_DIGEST_LEN]);

typedef struct cache_stats {
    size_t hits, misses, writes;
    size_t damaged; /* misses where an entry was there but did not check (cut short, edited) */
    size_t walks;   /* trims that walked the cache */
    size_t kept_over; /* bytes the last trim kept beyond the limit: all used by this process */
} cache_stats;
/* Counts since cache_open. */
cache_stats cache_get_stats(cache *c);

#endif

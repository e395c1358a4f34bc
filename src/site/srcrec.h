/* srcrec: what the load stage learned of each source, kept in the build
 * cache between `sheaf build` processes, so that a source whose file is
 * unchanged is only stat-ed: its front matter (the value tree and where
 * each key was written), where its body starts, its length and the
 * SHA-256 of its bytes (the Markdown cache's key, site/mdcache.c).
 * srcrec.c says what makes a record trusted. Used by a one-shot build's
 * load stage (load.c); a build session keeps its sources in memory
 * instead (sources.c, pagecache.c). */
#ifndef SHEAF_SITE_SRCREC_H
#define SHEAF_SITE_SRCREC_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"
#include "site/model.h"

/* A source file's identity: what says it is unchanged since it was read
 * (device, inode, size, modification and change times in nanoseconds). */
typedef struct site_src_ident {
    unsigned long long dev, ino;
    long long size, mtime_s, mtime_ns, ctime_s, ctime_ns;
} site_src_ident;

/* What a record gives back: the front matter and the body's place. */
typedef struct site_src_head {
    tpl_value fm;
    fm_key_pos *pos;
    size_t npos;
    size_t text_len, body_off, body_len;
    int body_line;
    int head_line; /* where the front matter starts (for a message) */
} site_src_head;

typedef struct site_src_records site_src_records;

/* Stats s->dir/src (following links, as a read does) into *id; false when
 * it cannot be stat-ed or is no regular file. */
bool site_src_ident_of(const site *s, const char *src, site_src_ident *id);
/* The same for path relative to the folder open as dirfd (AT_FDCWD: the
 * current one): the load stage stats each page relative to content/
 * held open, so the kernel does not look up the site folder's path again
 * for every source. */
bool site_src_ident_at(int dirfd, const char *path, site_src_ident *id);

/* Reads the records of s's build cache (s->cache, not NULL) for the n
 * pages about to be loaded; takes the clock that decides which files are
 * too recent to trust next time. A record the cache holds that does not
 * read back whole is ignored and counted (site_src_records_close warns).
 * The shards are read and checked on `jobs` threads. Owned by the caller, freed by site_src_records_close. */
site_src_records *site_src_records_open(site *s, size_t n, int jobs);
/* Page p (number i)'s record, when it exists and id is the identity it
 * was taken with and that identity is not too recent to trust (the racy
 * rule, srcrec.c): its head, in arena a, into *h, and p's digest. Thread
 * safe for distinct i. */
bool site_src_records_take(site_src_records *r, size_t i, page *p, const site_src_ident *id, arena *a,
                           site_src_head *h);
/* Records page p (number i), just read cleanly with identity id (stat-ed
 * before the read): text, its front matter and body as parsed. Computes
 * p's digest. Thread safe for distinct i. */
void site_src_records_keep(site_src_records *r, size_t i, page *p, const site_src_ident *id,
                           const site_src_head *h);
/* Reads every record of one shard's value (as the cache gives it back),
 * whatever its identity: how many read back whole, -1 when the value is
 * not one. For the fuzz target (tests/fuzz/fuzz_srcrec.c); values in a. */
int site_src_records_check(const void *value, size_t n, arena *a);
/* Writes the records of this build's pages when any changed, warns in d
 * when a record could not be read back, and frees r (NULL does nothing). */
void site_src_records_close(site_src_records *r, site *s, diag_list *d);

#endif

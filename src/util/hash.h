/* hash: FNV-1a, the one hash of sheaf — for the hash tables (strmap, the
 * template engine's maps and name table, Markdown's heading ids) and for
 * the build session's fingerprints of what a page's links depend on. Not
 * for anything an attacker must not be able to collide. */
#ifndef SHEAF_HASH_H
#define SHEAF_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_SEED 1469598103934665603ull

/* h continued over n bytes at p (start with HASH_SEED). */
static inline uint64_t hash_add(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

static inline uint64_t hash_bytes(const void *p, size_t n) { return hash_add(HASH_SEED, p, n); }

/* The hash of a NUL-terminated string (its bytes, not the NUL). */
static inline uint64_t hash_str(const char *s)
{
    uint64_t h = HASH_SEED;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

#endif

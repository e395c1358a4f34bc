/* hash: FNV-1a, the one hash of sheaf — for the template engine's maps and
 * name table, Markdown's heading ids, and the build session's fingerprints
 * of what a page's links depend on — and, where keys are looked up
 * hundreds of thousands of times a build (strmap's paths, the search keys'
 * tables: util/words.c, render/search.c), its 8-bytes-a-step form,
 * hash_blocks. Neither is for anything an attacker must not be able to
 * collide. */
#ifndef SHEAF_HASH_H
#define SHEAF_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* One 8-byte block x mixed into h: a multiply, then the high bits folded
 * down. For tables that read their keys 8 bytes at a time. */
static inline uint64_t hash_mix(uint64_t h, uint64_t x)
{
    h = (h ^ x) * 0x9E3779B97F4A7C15ull;
    return h ^ h >> 29;
}

/* The n bytes at p, 8 at a time (the bytes in machine order), never read
 * past p + n: the last block is read in parts, zero above them. Its low
 * bits are as mixed as its high ones. */
static inline uint64_t hash_blocks(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = n, x;
    size_t i = 0;
    for (; n - i >= 8; i += 8) {
        memcpy(&x, s + i, 8);
        h = hash_mix(h, x);
    }
    if (i < n) {
        size_t r = n - i;
        const unsigned char *t = s + i;
        x = 0;
        if (r & 4) {
            uint32_t v;
            memcpy(&v, t, 4);
            x = v;
            t += 4;
        }
        if (r & 2) {
            uint16_t v;
            memcpy(&v, t, 2);
            x = x << 16 | v;
            t += 2;
        }
        if (r & 1)
            x = x << 8 | *t;
        h = hash_mix(h, x);
    }
    return h ^ h >> 32;
}

#endif

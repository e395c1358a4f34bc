/* strmap: hashed 8 bytes a step (hash_blocks), linear probing, grows at 50%
 * load. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/strmap.h"
#include "util/xalloc.h"

typedef struct slot {
    const char *key;
    long value;
    uint64_t hash;
} slot;

struct strmap {
    slot *v;
    size_t cap, n;
};

strmap *strmap_new(size_t hint)
{
    strmap *m = xcalloc(1, sizeof *m);
    m->cap = 16;
    while (m->cap < hint * 2)
        m->cap *= 2;
    m->v = xcalloc_written(m->cap, sizeof *m->v);
    return m;
}

void strmap_free(strmap *m)
{
    if (!m)
        return;
    free(m->v);
    free(m);
}

static void grow(strmap *m)
{
    slot *old = m->v;
    size_t oc = m->cap;
    m->cap *= 2;
    m->v = xcalloc_written(m->cap, sizeof *m->v);
    for (size_t i = 0; i < oc; i++) {
        if (!old[i].key)
            continue;
        size_t j = old[i].hash & (m->cap - 1);
        while (m->v[j].key)
            j = (j + 1) & (m->cap - 1);
        m->v[j] = old[i];
    }
    free(old);
}

/* A key's hash: 8 bytes a step, not FNV-1a's byte a step (a key is most
 * often an output path of 30–60 bytes, and the maps of paths are asked
 * hundreds of thousands of times a build at 100,000 posts). */
static inline uint64_t key_hash(const char *key) { return hash_blocks(key, strlen(key)); }

/* The slot holding key (hash h), or the empty one where it would go. */
static slot *find(const strmap *m, const char *key, uint64_t h)
{
    size_t j = h & (m->cap - 1);
    while (m->v[j].key && !(m->v[j].hash == h && !strcmp(m->v[j].key, key)))
        j = (j + 1) & (m->cap - 1);
    return &m->v[j];
}

long strmap_put(strmap *m, const char *key, long value)
{
    if ((m->n + 1) * 2 > m->cap)
        grow(m);
    uint64_t h = key_hash(key);
    slot *e = find(m, key, h);
    if (e->key)
        return e->value;
    e->key = key;
    e->value = value;
    e->hash = h;
    m->n++;
    return value;
}

long strmap_get(const strmap *m, const char *key)
{
    const slot *e = find(m, key, key_hash(key));
    return e->key ? e->value : -1;
}

size_t strmap_count(const strmap *m) { return m->n; }

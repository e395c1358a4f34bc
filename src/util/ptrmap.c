/* ptrmap: addresses → numbers (ptrmap.h) */
#include "util/ptrmap.h"

#include <stdlib.h>

#include "util/xalloc.h"

static size_t slot(const ptrmap *m, const void *p)
{
    uintptr_t x = (uintptr_t)p;
    return (size_t)((x >> 4) * 0x9E3779B97F4A7C15u >> 20) & (m->cap - 1);
}

bool ptrmap_get(const ptrmap *m, const void *p, uint64_t *out)
{
    if (!m || !m->cap)
        return false;
    for (size_t i = slot(m, p);; i = (i + 1) & (m->cap - 1)) {
        if (!m->keys[i])
            return false;
        if (m->keys[i] == p) {
            *out = m->vals[i];
            return true;
        }
    }
}

void ptrmap_put(ptrmap *m, const void *p, uint64_t v)
{
    if (2 * (m->n + 1) > m->cap) {
        ptrmap old = *m;
        m->cap = old.cap ? old.cap * 2 : 64;
        m->keys = xcalloc_written(m->cap, sizeof *m->keys);
        m->vals = xcalloc_written(m->cap, sizeof *m->vals);
        m->n = 0;
        for (size_t i = 0; i < old.cap; i++)
            if (old.keys[i])
                ptrmap_put(m, old.keys[i], old.vals[i]);
        free(old.keys);
        free(old.vals);
    }
    size_t i = slot(m, p);
    while (m->keys[i] && m->keys[i] != p)
        i = (i + 1) & (m->cap - 1);
    if (!m->keys[i])
        m->n++;
    m->keys[i] = p;
    m->vals[i] = v;
}

void ptrmap_release(ptrmap *m)
{
    free(m->keys);
    free(m->vals);
    *m = (ptrmap)PTRMAP_INIT;
}

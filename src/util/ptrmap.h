/* ptrmap: a set of addresses, each with a number — what a walk over a
 * value tree has met already (site/srcrec.c numbers the lists and maps it
 * writes, so a shared one is read back shared; render/record.c keeps the
 * hashes of the model's large values). Open addressing, linear probing,
 * at most half full; never an address NULL. Not thread-safe: one writer,
 * or readers only. */
#ifndef SHEAF_PTRMAP_H
#define SHEAF_PTRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ptrmap {
    const void **keys;
    uint64_t *vals;
    size_t n, cap; /* cap: 0 or a power of two */
} ptrmap;

#define PTRMAP_INIT { NULL, NULL, 0, 0 }

/* The number of p, into *out: false when p is not in the map. */
bool ptrmap_get(const ptrmap *m, const void *p, uint64_t *out);
/* Sets the number of p (added, or replaced). */
void ptrmap_put(ptrmap *m, const void *p, uint64_t v);
void ptrmap_release(ptrmap *m);

#endif

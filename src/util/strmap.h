/* strmap: a string → integer hash map (open addressing). Keys are not
 * copied: they must outlive the map. Used for the site's path indexes. */
#ifndef SHEAF_STRMAP_H
#define SHEAF_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct strmap strmap;

strmap *strmap_new(size_t hint);
void strmap_free(strmap *m);
/* Inserts key → value unless present; returns the value stored for key
 * (the old one when it was already there). */
long strmap_put(strmap *m, const char *key, long value);
/* The value for key, or -1. */
long strmap_get(const strmap *m, const char *key);
size_t strmap_count(const strmap *m);

#endif

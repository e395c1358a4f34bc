/* str: a non-owning view {ptr, len} into bytes owned by someone else
 * (usually a file's contents). Not NUL-terminated in general. */
#ifndef SHEAF_STR_H
#define SHEAF_STR_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef struct str {
    const char *ptr;
    size_t len;
} str;

#define STR_LIT(s) ((str){ (s), sizeof(s) - 1 })

static inline str str_from(const char *s) { return (str){ s, strlen(s) }; }
static inline str str_make(const char *p, size_t n) { return (str){ p, n }; }
static inline bool str_eq(str a, str b)
{
    return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}
static inline bool str_eq_cstr(str a, const char *s) { return str_eq(a, str_from(s)); }
static inline bool str_starts_with(str a, const char *prefix)
{
    size_t n = strlen(prefix);
    return a.len >= n && memcmp(a.ptr, prefix, n) == 0;
}
static inline bool str_ends_with(str a, const char *suffix)
{
    size_t n = strlen(suffix);
    return a.len >= n && memcmp(a.ptr + a.len - n, suffix, n) == 0;
}

#endif

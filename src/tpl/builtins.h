/* builtins: what the files of the template built-ins share: filters.c
 * (Jinja2's filters and the table of all of them), filters_sheaf.c (sheaf's
 * filters), tests.c and methods.c, with the string helpers (strings.c) and
 * value operations (valueops.c) they use. Nothing outside src/tpl/
 * includes this file. */
#ifndef SHEAF_TPL_BUILTINS_H
#define SHEAF_TPL_BUILTINS_H

#include <stdio.h>
#include <string.h>
#include <utf8proc.h>

#include "tpl/internal.h"

/* ---- UTF-8 and Python string helpers ---------------------------------- */

static inline size_t next_cp(const char *s, size_t n, size_t i, int32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s + i;
    if (u[0] < 0x80) {
        *cp = u[0];
        return 1;
    }
    /* the three-byte form (most of the BMP, CJK among it) decoded here when
     * it is well-formed: not overlong, not a surrogate */
    if ((u[0] & 0xF0) == 0xE0 && n - i >= 3 && (u[1] & 0xC0) == 0x80 && (u[2] & 0xC0) == 0x80) {
        int32_t c = (u[0] & 0x0F) << 12 | (u[1] & 0x3F) << 6 | (u[2] & 0x3F);
        if (c >= 0x800 && (c < 0xD800 || c > 0xDFFF)) {
            *cp = c;
            return 3;
        }
    }
    utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(n - i), cp);
    if (k <= 0) {
        *cp = (unsigned char)s[i];
        return 1;
    }
    return (size_t)k;
}

/* strings.c */
void put_cp(buf *b, int32_t cp);

/* Python's str.isspace() */
static inline bool is_space_cp(int32_t cp)
{
    if (cp == ' ' || (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x1f) || cp == 0x85)
        return true;
    /* past ASCII, the separators (Zs, Zl, Zp) are U+00A0, U+1680 and
     * U+2000–U+3000 */
    if (cp < 0xA0 || (cp > 0xA0 && cp < 0x1680) || (cp > 0x1680 && cp < 0x2000) || cp > 0x3000)
        return false;
    utf8proc_category_t c = utf8proc_category(cp);
    return c == UTF8PROC_CATEGORY_ZS || c == UTF8PROC_CATEGORY_ZL || c == UTF8PROC_CATEGORY_ZP;
}

/* strings.c */
bool is_word_cp(int32_t cp);

static inline size_t cp_count(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            k++;
    return k;
}

/* cp_count(s, n), or limit + 1 when it is more than limit: what truncate
 * needs of a long text (a page's plain text, cut at 200) without counting
 * all of it */
static inline size_t cp_count_upto(const char *s, size_t n, size_t limit)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k <= limit; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            k++;
    return k;
}

/* byte offset of code point number `cp` (clamped to n) */
static inline size_t cp_offset(const char *s, size_t n, size_t cp)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (k == cp)
                return i;
            k++;
        }
    }
    return n;
}

static inline tpl_value mkstr(arena *a, const char *s, size_t n, bool safe)
{
    tpl_value v = tpl_str_copy(a, s, n);
    if (safe)
        v.flags |= TPL_SAFE;
    return v;
}

/* A string of n bytes in the arena, for the caller to fill (NUL added). */
static inline tpl_value arena_string(arena *a, size_t n, bool safe, char **data)
{
    char *d = arena_alloc(a, n + 1);
    d[n] = '\0';
    *data = d;
    tpl_value v = tpl_strn(d, n);
    if (safe)
        v.flags |= TPL_SAFE;
    return v;
}

static inline tpl_value from_buf(arena *a, buf *b, bool safe)
{
    tpl_value v = mkstr(a, b->data, b->len, safe);
    buf_release(b);
    return v;
}

/* The same for a buffer from tpl_r_take_buf, which goes back for reuse:
 * the filters on every page's path build their results without a malloc. */
static inline tpl_value keep_buf(tpl_render_state *r, buf *b, bool safe)
{
    tpl_value v = mkstr(tpl_r_arena(r), b->data, b->len, safe);
    tpl_r_give_buf(r, b);
    return v;
}

/* Python's case mapping (strings.c). */
enum { CASE_LOWER, CASE_UPPER, CASE_TITLE };
void put_case(buf *b, int32_t cp, int mode);
bool is_cased_cp(int32_t cp);
bool final_sigma(const char *s, size_t n, size_t i, size_t k);
void map_case_at(buf *b, const char *s, size_t n, size_t from, int mode);
static inline void map_case(buf *b, const char *s, size_t n, int mode)
{
    map_case_at(b, s, n, 0, mode);
}

/* ---- value helpers ---------------------------------------------------- */

/* Stable merge sort of values by a key. */
typedef struct sort_item {
    tpl_value key, val;
} sort_item;

/* valueops.c */
bool msort(sort_item *v, sort_item *tmp, size_t n, bool ci, bool rev);
bool sort_items(tpl_render_state *r, const node *at, sort_item *v, size_t n, bool ci,
                bool rev);

/* ---- argument helpers ------------------------------------------------- */

#define ARG(i, dflt) (a->given[i] ? a->v[i] : (dflt))

static inline bool want_int(tpl_render_state *r, const node *at, const char *what, tpl_value v,
                            int64_t *out)
{
    if (v.kind == TPL_INT) {
        *out = v.u.i;
        return true;
    }
    if (v.kind == TPL_BOOL) {
        *out = v.u.b;
        return true;
    }
    return tpl_r_error(r, at, "%s must be an integer, not %s", what,
                       v.kind == TPL_STRING ? "a string" : "that value");
}

static inline bool want_str(tpl_render_state *r, const node *at, const char *what, tpl_value v)
{
    if (v.kind == TPL_STRING)
        return true;
    return tpl_r_error(r, at, "%s must be a string", what);
}

static inline const tpl_list *want_iter(tpl_render_state *r, const node *at, tpl_value v)
{
    if (!tpl_r_chars_fit(r, at, v))
        return NULL;
    const tpl_list *l = tpl_iterable(tpl_r_arena(r), v);
    if (!l)
        tpl_r_error(r, at, "filter '%s' needs a list, map or string", at->s ? at->s : "?");
    return l;
}

/* The attribute getter of sort/map/…: "a.b" paths, ints as indexes. */
static inline tpl_value attr_of(tpl_value item, tpl_value attribute)
{
    if (attribute.kind == TPL_INT) {
        char tmp[32];
        snprintf(tmp, sizeof tmp, "%lld", (long long)attribute.u.i);
        return tpl_getattr(item, tmp, strlen(tmp));
    }
    if (attribute.kind != TPL_STRING)
        return tpl_undefined();
    return tpl_getattr_path(item, attribute.u.s);
}

static inline tpl_value list_of(arena *ar, const tpl_value *v, size_t n)
{
    tpl_list *l = tpl_list_new(ar, n);
    if (n)
        memcpy(l->items, v, n * sizeof *v);
    return tpl_list_value(l);
}

/* A (key, value) tuple. */
static inline tpl_value pair_of(arena *ar, const tpl_value *v)
{
    tpl_value t = list_of(ar, v, 2);
    t.flags |= TPL_TUPLE;
    return t;
}

/* ---- filters more than one file uses --------------------------------- */

#define FILTER_FN(name) \
    bool f_##name(tpl_render_state *r, const node *at, tpl_value v, const tpl_args *a, \
                  tpl_value *out)

/* filters.c: what methods.c calls (str.lower(), .title(), .strip(), …) */
bool case_filter(tpl_render_state *r, tpl_value v, int mode, tpl_value *out);
FILTER_FN(capitalize);
tpl_value py_title(arena *ar, tpl_value s);
tpl_value strip(arena *ar, tpl_value s, tpl_value chars, bool left, bool right);
FILTER_FN(join);
FILTER_FN(replace);
/* filters.c: a groupby group, for group_by in filters_sheaf.c too */
tpl_value group_value(arena *ar, tpl_value key, tpl_list *items);

/* filters_sheaf.c: sheaf's filters, for the table in filters.c */
FILTER_FN(date);
FILTER_FN(rfc3339);
FILTER_FN(slugify);
FILTER_FN(absolute_links);
FILTER_FN(plaintext);
FILTER_FN(absolute_url);
FILTER_FN(relative_url);
FILTER_FN(group_by);
FILTER_FN(limit);
FILTER_FN(xml_escape);
FILTER_FN(used_ranges);

#endif

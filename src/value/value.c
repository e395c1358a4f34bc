/* value: construction, lookup, equality and printing of template values
 * (see value.h for the ownership rule). */
#include "value/value.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/date.h"
#include "util/hash.h"
#include "util/vec.h"
#include "util/xalloc.h"

tpl_value tpl_str_copy(arena *a, const char *s, size_t n)
{
    return tpl_strn(arena_strndup(a, s, n), n);
}

tpl_value tpl_safe_strn(const char *s, size_t n)
{
    tpl_value v = tpl_strn(s, n);
    v.flags |= TPL_SAFE;
    return v;
}

tpl_value tpl_date(int64_t t, int32_t offset_min, uint8_t flags)
{
    tpl_value v = { 0 };
    v.kind = TPL_DATE;
    v.flags = flags & (TPL_HAS_TIME | TPL_HAS_ZONE);
    v.len = (uint32_t)offset_min;
    v.u.t = t;
    return v;
}

tpl_list *tpl_list_new(arena *a, size_t n)
{
    tpl_list *l = arena_alloc(a, sizeof *l + n * sizeof(tpl_value));
    l->len = n;
    memset(l->items, 0, n * sizeof(tpl_value));
    return l;
}

tpl_map *tpl_map_new(arena *a, size_t cap_hint)
{
    tpl_map *m = arena_calloc(a, sizeof *m);
    m->cap = cap_hint ? cap_hint : 4;
    m->entries = arena_alloc(a, m->cap * sizeof *m->entries);
    return m;
}

/* The entry of key, or -1; *free_slot (when not NULL): where the index's
 * probe for it ended, an empty slot, when the map has an index and no
 * such entry (so that tpl_map_set puts it there without hashing again). */
static long find_str_slot(const tpl_map *m, const char *key, size_t klen, size_t *free_slot)
{
    tpl_map_ready(m);
    if (m->index) {
        size_t mask = m->index_cap - 1;
        for (size_t i = hash_bytes(key, klen) & mask;; i = (i + 1) & mask) {
            uint32_t e = m->index[i];
            if (e == 0) {
                if (free_slot)
                    *free_slot = i;
                return -1;
            }
            const tpl_value *k = &m->entries[e - 1].key;
            if (k->kind == TPL_STRING && k->len == klen && memcmp(k->u.s, key, klen) == 0)
                return (long)e - 1;
        }
    }
    for (size_t i = 0; i < m->len; i++) {
        const tpl_value *k = &m->entries[i].key;
        if (k->kind == TPL_STRING && k->len == klen &&
            (klen == 0 || (k->u.s[0] == key[0] && memcmp(k->u.s, key, klen) == 0)))
            return (long)i;
    }
    return -1;
}

static long find_str(const tpl_map *m, const char *key, size_t klen) { return find_str_slot(m, key, klen, NULL); }

static long find_value(const tpl_map *m, tpl_value key, size_t *free_slot)
{
    if (key.kind == TPL_STRING)
        return find_str_slot(m, key.u.s, key.len, free_slot);
    tpl_map_ready(m);
    for (size_t i = 0; i < m->len; i++)
        if (tpl_value_equal(m->entries[i].key, key))
            return (long)i;
    return -1;
}

void tpl_map_set(arena *a, tpl_map *m, tpl_value key, tpl_value value)
{
    size_t slot = SIZE_MAX;
    long at = find_value(m, key, &slot);
    if (at >= 0) {
        m->entries[at].value = value;
        return;
    }
    if (m->len == m->cap) {
        size_t cap = m->cap * 2;
        tpl_map_entry *e = arena_alloc(a, cap * sizeof *e);
        memcpy(e, m->entries, m->len * sizeof *e);
        m->entries = e;
        m->cap = cap;
    }
    m->entries[m->len].key = key;
    m->entries[m->len].value = value;
    m->len++;
    /* keep the hash index current, so building a big map stays linear */
    if (m->index && key.kind == TPL_STRING && m->len * 2 <= m->index_cap) {
        m->index[slot] = (uint32_t)m->len; /* (the empty slot the look-up above ended at) */
    } else if (m->len >= 12 && (m->index || key.kind == TPL_STRING)) {
        m->index = NULL;
        tpl_map_seal(a, m);
    } else {
        m->index = NULL; /* stale: rebuilt by tpl_map_seal */
    }
}

void tpl_map_update(const tpl_map *m, size_t index, tpl_value value)
{
    /* the map is const to every reader; this is the one writer (value.h) */
    ((tpl_map *)m)->entries[index].value = value;
}

void tpl_map_seal(arena *a, tpl_map *m)
{
    if (m->len < 12 || m->index) /* tpl_map_set keeps an index current or drops it */
        return;
    size_t cap = 16;
    while (cap < m->len * 2)
        cap *= 2;
    uint32_t *idx = arena_calloc(a, cap * sizeof *idx);
    size_t mask = cap - 1;
    for (size_t e = 0; e < m->len; e++) {
        const tpl_value *k = &m->entries[e].key;
        if (k->kind != TPL_STRING)
            return; /* mixed keys: keep scanning */
        size_t i = hash_bytes(k->u.s, k->len) & mask;
        while (idx[i])
            i = (i + 1) & mask;
        idx[i] = (uint32_t)e + 1;
    }
    m->index = idx;
    m->index_cap = cap;
}

tpl_value tpl_map_get(const tpl_map *m, const char *key, size_t klen)
{
    long at = find_str(m, key, klen);
    if (at >= 0)
        tpl_map_touch(m, at);
    return at < 0 ? tpl_undefined() : m->entries[at].value;
}

tpl_value tpl_map_get_value(const tpl_map *m, tpl_value key)
{
    long at = find_value(m, key, NULL);
    if (at >= 0)
        tpl_map_touch(m, at);
    return at < 0 ? tpl_undefined() : m->entries[at].value;
}

long tpl_map_find(const tpl_map *m, const char *key) { return find_str(m, key, strlen(key)); }
/* memcmp(a, b, n) == 0 for the short keys of maps, without the call: up
 * to 16 bytes as two overlapping words (the head and the tail of the key),
 * never reading past either key */
static inline bool same_bytes(const char *a, const char *b, size_t n)
{
    if (n > 16)
        return !memcmp(a, b, n);
    if (n >= 8) {
        uint64_t x0, y0, x1, y1;
        memcpy(&x0, a, 8);
        memcpy(&y0, b, 8);
        memcpy(&x1, a + n - 8, 8);
        memcpy(&y1, b + n - 8, 8);
        return ((x0 ^ y0) | (x1 ^ y1)) == 0;
    }
    if (n >= 4) {
        uint32_t x0, y0, x1, y1;
        memcpy(&x0, a, 4);
        memcpy(&y0, b, 4);
        memcpy(&x1, a + n - 4, 4);
        memcpy(&y1, b + n - 4, 4);
        return ((x0 ^ y0) | (x1 ^ y1)) == 0;
    }
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

tpl_value tpl_map_get_hinted(const tpl_map *m, const char *key, size_t klen, tpl_map_hint *hint)
{
    tpl_map_ready(m);
    unsigned h = atomic_load_explicit(&hint->index, memory_order_relaxed);
    long at = -1;
    if (h < m->len) {
        const tpl_value *k = &m->entries[h].key;
        if (k->kind == TPL_STRING && k->len == klen && same_bytes(k->u.s, key, klen))
            at = (long)h;
    }
    if (at < 0) {
        at = find_str(m, key, klen);
        if (at < 0)
            return tpl_undefined();
        if (at < 0xffff)
            atomic_store_explicit(&hint->index, (uint16_t)at, memory_order_relaxed);
    }
    tpl_map_touch(m, at);
    return m->entries[at].value;
}

static _Thread_local tpl_deps *deps_current;

tpl_deps *tpl_deps_use(tpl_deps *d)
{
    tpl_deps *old = deps_current;
    deps_current = d;
    return old;
}

static tpl_lazy_fn lazy_fn;
static void *lazy_ctx;

void tpl_lazy_hook(tpl_lazy_fn fn, void *ctx)
{
    lazy_ctx = ctx;
    lazy_fn = fn;
}

void tpl_map_make(const tpl_map *m)
{
    if (lazy_fn)
        lazy_fn(lazy_ctx, m, TPL_LAZY_MAKE);
}

void tpl_deps_note(const tpl_map *m, long index)
{
    if (lazy_fn && atomic_load_explicit(&((tpl_map *)m)->lazy, memory_order_acquire))
        lazy_fn(lazy_ctx, m, index);
    tpl_deps_record(m, index);
}

void tpl_deps_record(const tpl_map *m, long index)
{
    if (!m->owner)
        return;
    tpl_deps *d = deps_current;
    if (!d)
        return;
    uint64_t e = (uint64_t)m->owner << 16 | (uint64_t)(index & 0xffff);
    if (d->n && d->v[d->n - 1] == e)
        return;
    VEC_PUSH(d->v, d->n, d->cap, 16, e);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void tpl_deps_finish(tpl_deps *d)
{
    if (!d->n)
        return;
    vec_sort(d->v, d->n, sizeof *d->v, cmp_u64);
    size_t u = 1;
    for (size_t i = 1; i < d->n; i++)
        if (d->v[i] != d->v[u - 1])
            d->v[u++] = d->v[i];
    d->n = u;
}

void tpl_deps_release(tpl_deps *d)
{
    free(d->v);
    d->v = NULL;
    d->n = d->cap = 0;
}

static bool is_number(tpl_value v)
{
    return v.kind == TPL_INT || v.kind == TPL_FLOAT || v.kind == TPL_BOOL;
}

static double as_double(tpl_value v)
{
    return v.kind == TPL_FLOAT ? v.u.f : v.kind == TPL_INT ? (double)v.u.i : (double)v.u.b;
}

static bool equal_at(tpl_value a, tpl_value b, int depth);

bool tpl_value_equal(tpl_value a, tpl_value b) { return equal_at(a, b, 0); }

static bool equal_at(tpl_value a, tpl_value b, int depth)
{
    if (is_number(a) && is_number(b)) {
        if (a.kind != TPL_FLOAT && b.kind != TPL_FLOAT) {
            int64_t x = a.kind == TPL_INT ? a.u.i : a.u.b;
            int64_t y = b.kind == TPL_INT ? b.u.i : b.u.b;
            return x == y;
        }
        return as_double(a) == as_double(b);
    }
    if (a.kind != b.kind)
        return false;
    switch ((tpl_kind)a.kind) {
    case TPL_UNDEFINED:
    case TPL_NONE:
        return true;
    case TPL_STRING:
        return a.len == b.len && memcmp(a.u.s, b.u.s, a.len) == 0;
    case TPL_DATE:
        return a.u.t == b.u.t;
    case TPL_LIST:
        if (a.u.list->len != b.u.list->len || ((a.flags ^ b.flags) & TPL_TUPLE))
            return false;
        if (a.u.list == b.u.list) /* the same list, as Python's `is` before `==` */
            return true;
        if (depth >= TPL_VALUE_MAX_DEPTH)
            return false;
        for (size_t i = 0; i < a.u.list->len; i++)
            if (!equal_at(a.u.list->items[i], b.u.list->items[i], depth + 1))
                return false;
        return true;
    case TPL_MAP:
        tpl_map_touch_all(a.u.map);
        tpl_map_touch_all(b.u.map);
        if (a.u.map->len != b.u.map->len)
            return false;
        if (a.u.map == b.u.map)
            return true;
        if (depth >= TPL_VALUE_MAX_DEPTH)
            return false;
        for (size_t i = 0; i < a.u.map->len; i++) {
            const tpl_map_entry *e = &a.u.map->entries[i];
            tpl_value o = tpl_map_get_value(b.u.map, e->key);
            if (o.kind == TPL_UNDEFINED || !equal_at(e->value, o, depth + 1))
                return false;
        }
        return true;
    default:
        return a.u.obj == b.u.obj;
    }
}

bool tpl_value_truthy(tpl_value v)
{
    switch ((tpl_kind)v.kind) {
    case TPL_UNDEFINED:
    case TPL_NONE:
        return false;
    case TPL_BOOL:
        return v.u.b;
    case TPL_INT:
        return v.u.i != 0;
    case TPL_FLOAT:
        return v.u.f != 0.0;
    case TPL_STRING:
        return v.len != 0;
    case TPL_LIST:
        return v.u.list->len != 0;
    case TPL_MAP:
        return v.u.map->len != 0;
    default:
        return true;
    }
}

/* Python's repr() of a float: the shortest digits that round-trip, fixed
 * notation for exponents in [-4, 16), else d.ddde+XX. */
static void float_repr(double f, buf *out)
{
    if (isnan(f)) {
        buf_puts(out, "nan");
        return;
    }
    if (isinf(f)) {
        buf_puts(out, f < 0 ? "-inf" : "inf");
        return;
    }
    char tmp[64];
    int prec;
    for (prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, f);
        if (strtod(tmp, NULL) == f)
            break;
    }
    /* tmp is [-]d[.ddd]e[+-]XX */
    const char *p = tmp;
    bool neg = *p == '-';
    if (neg)
        p++;
    char digits[32];
    size_t nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p != '.')
            digits[nd++] = *p;
    int exp = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    if (neg)
        tpl_putc(out, (char)'-');
    if (exp >= -4 && exp < 16) {
        if (exp < 0) {
            buf_puts(out, "0.");
            for (int i = -1; i > exp; i--)
                tpl_putc(out, (char)'0');
            buf_put(out, digits, nd);
        } else {
            for (int i = 0; i <= exp; i++)
                tpl_putc(out, (size_t)i < nd ? digits[i] : (char)0x30);
            tpl_putc(out, (char)'.');
            if ((size_t)exp + 1 < nd)
                buf_put(out, digits + exp + 1, nd - (size_t)exp - 1);
            else
                tpl_putc(out, (char)'0');
        }
    } else {
        tpl_putc(out, (char)digits[0]);
        if (nd > 1) {
            tpl_putc(out, (char)'.');
            buf_put(out, digits + 1, nd - 1);
        }
        buf_printf(out, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    }
}

/* Python's repr() of a str. */
static void str_repr(const char *s, size_t n, buf *out)
{
    bool has_sq = memchr(s, '\'', n) != NULL, has_dq = memchr(s, '"', n) != NULL;
    char q = has_sq && !has_dq ? '"' : '\'';
    tpl_putc(out, (char)q);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == (unsigned char)q || c == '\\') {
            tpl_putc(out, (char)'\\');
            tpl_putc(out, (char)c);
        } else if (c == '\n') {
            buf_puts(out, "\\n");
        } else if (c == '\r') {
            buf_puts(out, "\\r");
        } else if (c == '\t') {
            buf_puts(out, "\\t");
        } else if (c < 0x20 || c == 0x7f) {
            buf_printf(out, "\\x%02x", c);
        } else {
            tpl_putc(out, (char)c);
        }
    }
    tpl_putc(out, (char)q);
}

static void to_str_at(tpl_value v, buf *out, int depth);

static void repr_at(tpl_value v, buf *out, int depth)
{
    if (v.kind == TPL_STRING && (v.flags & TPL_SAFE)) {
        buf_puts(out, "Markup(");
        str_repr(v.u.s, v.len, out);
        tpl_putc(out, ')');
    } else if (v.kind == TPL_STRING)
        str_repr(v.u.s, v.len, out);
    else
        to_str_at(v, out, depth);
}

void tpl_value_repr(tpl_value v, buf *out) { repr_at(v, out, 0); }

static void date_str(tpl_value v, buf *out)
{
    int32_t off = tpl_date_offset(v);
    time_t t = (time_t)(v.u.t + (int64_t)off * 60);
    struct tm tm;
    gmtime_r(&t, &tm);
    buf_printf(out, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
    if (!(v.flags & TPL_HAS_TIME))
        return;
    buf_printf(out, " %02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
    if (v.flags & TPL_HAS_ZONE) {
        int a = off < 0 ? -off : off;
        buf_printf(out, "%c%02d:%02d", off < 0 ? '-' : '+', a / 60, a % 60);
    }
}

void tpl_value_to_str(tpl_value v, buf *out) { to_str_at(v, out, 0); }

void tpl_put_int(buf *out, int64_t i)
{
    char tmp[24], *e = tmp + sizeof tmp, *d = e;
    uint64_t u = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
    do
        *--d = (char)('0' + u % 10);
    while (u /= 10);
    if (i < 0)
        *--d = '-';
    buf_put(out, d, (size_t)(e - d));
}

static void to_str_at(tpl_value v, buf *out, int depth)
{
    if ((v.kind == TPL_LIST || v.kind == TPL_MAP) && depth >= TPL_VALUE_MAX_DEPTH) {
        buf_puts(out, v.kind == TPL_LIST ? "[...]" : "{...}");
        return;
    }
    switch ((tpl_kind)v.kind) {
    case TPL_UNDEFINED:
        break;
    case TPL_NONE:
        buf_puts(out, "None");
        break;
    case TPL_BOOL:
        buf_puts(out, v.u.b ? "True" : "False");
        break;
    case TPL_INT:
        tpl_put_int(out, v.u.i);
        break;
    case TPL_FLOAT:
        float_repr(v.u.f, out);
        break;
    case TPL_STRING:
        buf_put(out, v.u.s, v.len);
        break;
    case TPL_DATE:
        date_str(v, out);
        break;
    case TPL_LIST: {
        bool tuple = v.flags & TPL_TUPLE;
        tpl_putc(out, (char)tuple ? '(' : '[');
        for (size_t i = 0; i < v.u.list->len && out->len <= TPL_VALUE_TEXT_MAX; i++) {
            if (i)
                buf_puts(out, ", ");
            repr_at(v.u.list->items[i], out, depth + 1);
        }
        if (tuple && v.u.list->len == 1)
            tpl_putc(out, (char)',');
        tpl_putc(out, (char)tuple ? ')' : ']');
        break;
    }
    case TPL_MAP:
        tpl_map_touch_all(v.u.map);
        if ((v.flags & TPL_GROUP) && v.u.map->len == 2) {
            /* groupby's namedtuple prints as a tuple */
            tpl_putc(out, '(');
            repr_at(v.u.map->entries[0].value, out, depth + 1);
            buf_puts(out, ", ");
            repr_at(v.u.map->entries[1].value, out, depth + 1);
            tpl_putc(out, ')');
            break;
        }
        tpl_putc(out, (char)'{');
        for (size_t i = 0; i < v.u.map->len && out->len <= TPL_VALUE_TEXT_MAX; i++) {
            if (i)
                buf_puts(out, ", ");
            repr_at(v.u.map->entries[i].key, out, depth + 1);
            buf_puts(out, ": ");
            repr_at(v.u.map->entries[i].value, out, depth + 1);
        }
        tpl_putc(out, (char)'}');
        break;
    case TPL_OBJECT:
        buf_puts(out, "<object>");
        break;
    }
}

bool tpl_value_as_date(tpl_value v, sheaf_date *out)
{
    if (v.kind == TPL_DATE) {
        out->t = v.u.t;
        out->offset_min = tpl_date_offset(v);
        out->has_time = (v.flags & TPL_HAS_TIME) != 0;
        out->has_zone = (v.flags & TPL_HAS_ZONE) != 0;
        return true;
    }
    if (v.kind == TPL_STRING)
        return date_parse_loose(v.u.s, v.len, out);
    return false;
}

/* valueops: the value operations of the built-ins and the evaluator
 * (declared in internal.h): numbers, str(), HTML escaping, length,
 * iteration, Python ordering and sorting, attribute lookup. */
#include <stdlib.h>
#include <string.h>

#include "tpl/builtins.h"
#include "util/date.h"
#include "util/scan.h"

bool tpl_is_number(tpl_value v)
{
    return v.kind == TPL_INT || v.kind == TPL_FLOAT || v.kind == TPL_BOOL;
}

double tpl_as_double(tpl_value v)
{
    return v.kind == TPL_INT ? (double)v.u.i : v.kind == TPL_FLOAT ? v.u.f : v.kind == TPL_BOOL ? v.u.b : 0;
}

tpl_value tpl_to_string_other(arena *a, tpl_value v)
{
    buf b = BUF_INIT;
    tpl_value_to_str(v, &b);
    return from_buf(a, &b, false);
}

tpl_value tpl_escape_value(arena *a, tpl_value v)
{
    if (v.kind == TPL_STRING && (v.flags & TPL_SAFE))
        return v;
    v = tpl_to_string(a, v);
    buf b = BUF_INIT;
    tpl_escape_html(&b, v.u.s, v.len);
    return from_buf(a, &b, true);
}

/* What HTML escaping puts for a byte (padded to 8 bytes, copied whole) and
 * its real length; 0 for bytes kept as they are. XML's (xml_escape) names
 * the quotes. */
static const char esc_rep[256][8] = { ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;",
                                      ['"'] = "&#34;", ['\''] = "&#39;" };
static const unsigned char esc_len[256] = { ['&'] = 5, ['<'] = 4, ['>'] = 4, ['"'] = 5,
                                            ['\''] = 5 };
static const char xml_rep[256][8] = { ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;",
                                      ['"'] = "&quot;", ['\''] = "&apos;" };
static const unsigned char xml_len[256] = { ['&'] = 5, ['<'] = 4, ['>'] = 4, ['"'] = 6,
                                            ['\''] = 6 };

/* Appends s with & < > " ' replaced by rep (each at most `most` bytes). */
static inline void escape_with(buf *out, const char *s, size_t n, const char (*rep)[8],
                               const unsigned char *len, size_t most)
{
    size_t i = scan_html_special(s, 0, n);
    if (i == n) {
        buf_put(out, s, n);
        return;
    }
    /* room for the worst case (every byte left replaced) and for whole
     * blocks and replacements written past the end, then raw writes */
    buf_grow(out, i + (n - i) * most + SCAN_STEP + 8);
    char *w = out->data + out->len;
    copy_bytes(w, s, i);
    w += i;
    /* while a whole block follows the one at i, the block's pieces between
     * its special bytes are copied as whole blocks (the next piece
     * overwrites what a copy wrote past its piece), without branching on
     * their lengths or scanning again */
    while (n - i >= 2 * SCAN_STEP) {
        unsigned m = scan_html_block(s + i), at = 0;
        while (m) {
            unsigned k = (unsigned)__builtin_ctz(m);
            scan_copy_step(w, s + i + at);
            w += k - at;
            unsigned char c = (unsigned char)s[i + k];
            memcpy(w, rep[c], 8);
            w += len[c];
            at = k + 1;
            m &= m - 1;
        }
        scan_copy_step(w, s + i + at);
        w += SCAN_STEP - at;
        i += SCAN_STEP;
    }
    for (;;) { /* the rest: plain stretch, replacement */
        size_t j = scan_html_special(s, i, n);
        copy_bytes(w, s + i, j - i);
        w += j - i;
        if (j == n)
            break;
        unsigned char c = (unsigned char)s[j];
        memcpy(w, rep[c], 8);
        w += len[c];
        i = j + 1;
    }
    *w = '\0';
    out->len = (size_t)(w - out->data);
}

void tpl_escape_html(buf *out, const char *s, size_t n)
{
    escape_with(out, s, n, esc_rep, esc_len, 5);
}

void tpl_escape_xml(buf *out, const char *s, size_t n)
{
    escape_with(out, s, n, xml_rep, xml_len, 6);
}

long tpl_length(tpl_value v)
{
    switch (v.kind) {
    case TPL_UNDEFINED: return 0;
    case TPL_STRING: return (long)cp_count(v.u.s, v.len);
    case TPL_LIST: return (long)v.u.list->len;
    case TPL_MAP: tpl_map_ready(v.u.map); return (long)v.u.map->len;
    default: return -1;
    }
}

const tpl_list *tpl_iterable(arena *a, tpl_value v)
{
    switch (v.kind) {
    case TPL_UNDEFINED:
        return tpl_list_new(a, 0);
    case TPL_LIST:
        return v.u.list;
    case TPL_MAP: {
        tpl_map_touch_all(v.u.map);
        if (v.flags & TPL_GROUP) {
            tpl_list *l = tpl_list_new(a, 2);
            l->items[0] = v.u.map->entries[0].value;
            l->items[1] = v.u.map->entries[1].value;
            return l;
        }
        tpl_list *l = tpl_list_new(a, v.u.map->len);
        for (size_t i = 0; i < v.u.map->len; i++)
            l->items[i] = v.u.map->entries[i].key;
        return l;
    }
    case TPL_STRING: {
        /* as many pieces as the loop below cuts (a stray continuation byte
         * at the start is a piece of its own) */
        size_t n = cp_count(v.u.s, v.len) + (v.len && ((unsigned char)v.u.s[0] & 0xC0) == 0x80);
        tpl_list *l = tpl_list_new(a, n);
        size_t k = 0;
        for (size_t i = 0; i < v.len;) {
            size_t j = i + 1;
            while (j < v.len && ((unsigned char)v.u.s[j] & 0xC0) == 0x80)
                j++;
            l->items[k] = tpl_strn(v.u.s + i, j - i); /* str(Markup) chars are plain */
            k++;
            i = j;
        }
        l->len = k;
        return l;
    }
    default:
        return NULL;
    }
}

static int cmp_bytes_ci(tpl_value a, tpl_value b)
{
    buf x = BUF_INIT, y = BUF_INIT;
    map_case(&x, a.u.s, a.len, CASE_LOWER);
    map_case(&y, b.u.s, b.len, CASE_LOWER);
    size_t n = x.len < y.len ? x.len : y.len;
    int c = memcmp(x.data, y.data, n);
    if (!c)
        c = x.len < y.len ? -1 : x.len > y.len;
    buf_release(&x);
    buf_release(&y);
    return c;
}

static int compare_at(tpl_value a, tpl_value b, bool ci, bool *err, int depth);

int tpl_compare(tpl_value a, tpl_value b, bool ci, bool *err) { return compare_at(a, b, ci, err, 0); }

static int compare_at(tpl_value a, tpl_value b, bool ci, bool *err, int depth)
{
    if (tpl_is_number(a) && tpl_is_number(b)) {
        if (a.kind != TPL_FLOAT && b.kind != TPL_FLOAT) {
            int64_t x = a.kind == TPL_BOOL ? a.u.b : a.u.i, y = b.kind == TPL_BOOL ? b.u.b : b.u.i;
            return x < y ? -1 : x > y;
        }
        double x = tpl_as_double(a), y = tpl_as_double(b);
        return x < y ? -1 : x > y;
    }
    if (a.kind == TPL_STRING && b.kind == TPL_STRING) {
        if (ci)
            return cmp_bytes_ci(a, b);
        size_t n = a.len < b.len ? a.len : b.len;
        int c = memcmp(a.u.s, b.u.s, n);
        if (c)
            return c < 0 ? -1 : 1;
        return a.len < b.len ? -1 : a.len > b.len;
    }
    if (a.kind == TPL_DATE && b.kind == TPL_DATE)
        return a.u.t < b.u.t ? -1 : a.u.t > b.u.t;
    if (a.kind == TPL_LIST && b.kind == TPL_LIST && depth < TPL_VALUE_MAX_DEPTH) {
        size_t n = a.u.list->len < b.u.list->len ? a.u.list->len : b.u.list->len;
        for (size_t i = 0; i < n; i++) {
            if (tpl_value_equal(a.u.list->items[i], b.u.list->items[i]))
                continue;
            int c = compare_at(a.u.list->items[i], b.u.list->items[i], ci, err, depth + 1);
            if (c || *err)
                return c;
        }
        return a.u.list->len < b.u.list->len ? -1 : a.u.list->len > b.u.list->len;
    }
    *err = true;
    return 0;
}

bool msort(sort_item *v, sort_item *tmp, size_t n, bool ci, bool rev)
{
    if (n < 2)
        return true;
    size_t h = n / 2;
    if (!msort(v, tmp, h, ci, rev) || !msort(v + h, tmp, n - h, ci, rev))
        return false;
    size_t i = 0, j = h, k = 0;
    bool err = false;
    while (i < h && j < n) {
        int c = tpl_compare(v[j].key, v[i].key, ci, &err);
        if (err)
            return false;
        if (rev ? c > 0 : c < 0)
            tmp[k++] = v[j++];
        else
            tmp[k++] = v[i++];
    }
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
    return true;
}

bool sort_items(tpl_render_state *r, const node *at, sort_item *v, size_t n, bool ci,
                bool rev)
{
    sort_item *tmp = arena_alloc(tpl_r_arena(r), (n + 1) * sizeof *tmp);
    if (!msort(v, tmp, n, ci, rev))
        return tpl_r_error(r, at, "cannot sort: the items are of types that do not compare");
    return true;
}

tpl_value tpl_getattr(tpl_value v, const char *name, size_t n)
{
    switch (v.kind) {
    case TPL_MAP:
        return tpl_map_get(v.u.map, name, n);
    case TPL_LIST: {
        char *end;
        long i = strtol(name, &end, 10);
        if (end != name && *end == 0) {
            if (i < 0)
                i += (long)v.u.list->len;
            if (i >= 0 && (size_t)i < v.u.list->len)
                return v.u.list->items[i];
        }
        return tpl_undefined();
    }
    case TPL_DATE: {
        sheaf_date d = { v.u.t, tpl_date_offset(v), (v.flags & TPL_HAS_TIME) != 0,
                         (v.flags & TPL_HAS_ZONE) != 0 };
        const char *fmt = !strcmp(name, "year") ? "%Y" : !strcmp(name, "month") ? "%m"
                        : !strcmp(name, "day") ? "%d" : !strcmp(name, "hour") ? "%H"
                        : !strcmp(name, "minute") ? "%M" : !strcmp(name, "second") ? "%S" : NULL;
        if (!fmt)
            return tpl_undefined();
        buf b = BUF_INIT;
        date_format(&b, &d, fmt);
        tpl_value r = tpl_int(strtoll(b.data, NULL, 10));
        buf_release(&b);
        return r;
    }
    default:
        return tpl_undefined();
    }
}

tpl_value tpl_getattr_path(tpl_value v, const char *path)
{
    while (*path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        char tmp[128];
        if (n >= sizeof tmp)
            return tpl_undefined();
        memcpy(tmp, path, n);
        tmp[n] = 0;
        v = tpl_getattr(v, tmp, n);
        if (v.kind == TPL_UNDEFINED || !dot)
            return v;
        path = dot + 1;
    }
    return v;
}

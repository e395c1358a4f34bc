/* filters: Jinja2's built-in filters, tests and the string/map methods
 * templates may call, each as Jinja2 3.1 defines it (Python semantics for
 * values), plus sheaf's own filters (date, slugify, absolute_url,
 * relative_url, group_by, limit, xml_escape, rfc3339).
 *
 * This file holds Jinja2's filters and the table of every filter; sheaf's
 * own are in filters_sheaf.c, the tests in tests.c, the methods in
 * methods.c, and what they share in builtins.h (string helpers: strings.c,
 * value operations: valueops.c).
 *
 * Strings are UTF-8; lengths, indexes and truncation count code points, as
 * Python does. Markup (the TPL_SAFE flag) is kept where markupsafe keeps it. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpl/builtins.h"
#include "util/ckd.h"
#include "util/date.h"
#include "util/html.h"
#include "util/scan.h"

/* A filter of this file only (FILTER_FN in builtins.h: one other files name). */
#define FILTER(name) static FILTER_FN(name)

FILTER(safe)
{
    (void)a;
    if (v.kind == TPL_UNDEFINED) {
        *out = mkstr(tpl_r_arena(r), "", 0, true);
        return true;
    }
    (void)at;
    *out = tpl_to_string(tpl_r_arena(r), v);
    out->flags |= TPL_SAFE;
    return true;
}

FILTER(escape)
{
    (void)a;
    (void)at;
    *out = tpl_escape_value(tpl_r_arena(r), v);
    return true;
}

FILTER(forceescape)
{
    (void)a;
    (void)at;
    v.flags &= (uint8_t)~TPL_SAFE;
    *out = tpl_escape_value(tpl_r_arena(r), v);
    return true;
}

FILTER(length)
{
    (void)a;
    long n = tpl_length(v);
    if (n < 0)
        return tpl_r_error(r, at, "object of this type has no length");
    *out = tpl_int(n);
    return true;
}

bool case_filter(tpl_render_state *r, tpl_value v, int mode, tpl_value *out)
{
    tpl_value s = tpl_to_string(tpl_r_arena(r), v);
    char *d;
    tpl_value res = arena_string(tpl_r_arena(r), s.len, s.flags & TPL_SAFE, &d);
    /* the common case, all ASCII, straight into the arena in one pass */
    if (mode == CASE_LOWER ? scan_flip_case(d, s.u.s, s.len, 'A', 'Z')
                           : scan_flip_case(d, s.u.s, s.len, 'a', 'z')) {
        *out = res;
        return true;
    }
    arena_shrink(tpl_r_arena(r), d, s.len + 1, 0);
    buf b = tpl_r_take_buf(r);
    map_case(&b, s.u.s, s.len, mode);
    *out = keep_buf(r, &b, s.flags & TPL_SAFE);
    return true;
}

FILTER(lower)
{
    (void)a;
    (void)at;
    return case_filter(r, v, CASE_LOWER, out);
}

FILTER(upper)
{
    (void)a;
    (void)at;
    return case_filter(r, v, CASE_UPPER, out);
}

FILTER_FN(capitalize)
{
    (void)a;
    (void)at;
    tpl_value s = tpl_to_string(tpl_r_arena(r), v);
    buf b = tpl_r_take_buf(r);
    if (s.len) {
        int32_t cp;
        size_t k = next_cp(s.u.s, s.len, 0, &cp);
        put_case(&b, cp, CASE_TITLE);
        map_case_at(&b, s.u.s, s.len, k, CASE_LOWER);
    }
    *out = keep_buf(r, &b, s.flags & TPL_SAFE);
    return true;
}

/* Jinja2's title: the string cut at runs of whitespace and -({[<, each piece
 * as piece[0].upper() + piece[1:].lower(). */
FILTER(title)
{
    (void)a;
    (void)at;
    tpl_value s = tpl_to_string(tpl_r_arena(r), v);
    buf b = tpl_r_take_buf(r);
    for (size_t i = 0; i < s.len;) {
        int32_t cp;
        size_t k = next_cp(s.u.s, s.len, i, &cp);
        bool sep = cp == '-' || cp == '(' || cp == '{' || cp == '[' || cp == '<' || is_space_cp(cp);
        if (sep) {
            buf_put(&b, s.u.s + i, k);
            i += k;
            continue;
        }
        size_t e = i + k;
        while (e < s.len) {
            int32_t c;
            size_t m = next_cp(s.u.s, s.len, e, &c);
            if (c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || is_space_cp(c))
                break;
            e += m;
        }
        put_case(&b, cp, CASE_UPPER);
        map_case_at(&b, s.u.s + i + k, e - i - k, 0, CASE_LOWER);
        i = e;
    }
    *out = keep_buf(r, &b, false); /* "".join(…): no longer Markup */
    return true;
}

/* Python's str.title(): title case after an uncased character, else lower. */
tpl_value py_title(arena *ar, tpl_value s)
{
    buf b = BUF_INIT;
    bool prev_cased = false;
    for (size_t i = 0; i < s.len;) {
        int32_t cp;
        size_t k = next_cp(s.u.s, s.len, i, &cp);
        if (prev_cased && cp == 0x3A3)
            buf_puts(&b, final_sigma(s.u.s, s.len, i, k) ? "\xcf\x82" : "\xcf\x83");
        else
            put_case(&b, cp, prev_cased ? CASE_LOWER : CASE_TITLE);
        prev_cased = is_cased_cp(cp);
        i += k;
    }
    return from_buf(ar, &b, s.flags & TPL_SAFE);
}

static bool in_chars(int32_t cp, tpl_value chars)
{
    if (chars.kind != TPL_STRING)
        return is_space_cp(cp);
    for (size_t i = 0; i < chars.len;) {
        int32_t c;
        i += next_cp(chars.u.s, chars.len, i, &c);
        if (c == cp)
            return true;
    }
    return false;
}

tpl_value strip(arena *ar, tpl_value s, tpl_value chars, bool left, bool right)
{
    size_t b = 0, e = s.len;
    while (left && b < e) {
        int32_t cp;
        size_t k = next_cp(s.u.s, s.len, b, &cp);
        if (!in_chars(cp, chars))
            break;
        b += k;
    }
    while (right && e > b) {
        size_t p = e - 1;
        while (p > b && ((unsigned char)s.u.s[p] & 0xC0) == 0x80)
            p--;
        int32_t cp;
        next_cp(s.u.s, s.len, p, &cp);
        if (!in_chars(cp, chars))
            break;
        e = p;
    }
    (void)ar;
    tpl_value out = tpl_strn(s.u.s + b, e - b);
    out.flags = s.flags & TPL_SAFE;
    return out;
}

tpl_value tpl_trim(tpl_value s) { return strip(NULL, s, tpl_none(), true, true); }

FILTER(trim)
{
    (void)at;
    tpl_value s = tpl_to_string(tpl_r_arena(r), v);
    tpl_value chars = ARG(0, tpl_none());
    if (chars.kind != TPL_NONE && chars.kind != TPL_STRING)
        return tpl_r_error(r, at, "trim(chars) needs a string");
    *out = strip(tpl_r_arena(r), s, chars, true, true);
    /* the result must be NUL-terminated for later C-string uses */
    *out = mkstr(tpl_r_arena(r), out->u.s, out->len, out->flags & TPL_SAFE);
    return true;
}

FILTER(default)
{
    (void)r;
    (void)at;
    bool boolean = tpl_value_truthy(ARG(1, tpl_bool(false)));
    if (v.kind == TPL_UNDEFINED || (boolean && !tpl_value_truthy(v)))
        *out = ARG(0, tpl_str(""));
    else
        *out = v;
    return true;
}

FILTER_FN(join)
{
    arena *ar = tpl_r_arena(r);
    const tpl_list *l = want_iter(r, at, v);
    if (!l)
        return false;
    tpl_value sep = ARG(0, tpl_str(""));
    tpl_value attribute = ARG(1, tpl_none());
    tpl_value *items = arena_alloc(ar, (l->len + 1) * sizeof *items);
    bool any_safe = (sep.kind == TPL_STRING && (sep.flags & TPL_SAFE));
    for (size_t i = 0; i < l->len; i++) {
        items[i] = l->items[i];
        if (attribute.kind != TPL_NONE)
            items[i] = attr_of(items[i], attribute);
        items[i] = tpl_to_string(ar, items[i]);
        any_safe |= (items[i].flags & TPL_SAFE) != 0;
    }
    sep = tpl_to_string(ar, sep);
    uint64_t total = l->len ? ckd_mul_sat(sep.len, l->len - 1) : 0;
    for (size_t i = 0; i < l->len; i++)
        total = ckd_add_sat(total, items[i].len);
    if (!tpl_r_string_fits(r, at, "join: the result is", total)) /* escaping may add more: checked after */
        return false;
    if (!any_safe) { /* plain strings: the lengths add up, straight into the arena */
        size_t len = (size_t)total;
        char *d;
        *out = arena_string(ar, len, false, &d);
        for (size_t i = 0; i < l->len; i++) {
            if (i) {
                copy_bytes(d, sep.u.s, sep.len);
                d += sep.len;
            }
            copy_bytes(d, items[i].u.s, items[i].len);
            d += items[i].len;
        }
        return true;
    }
    buf b = tpl_r_take_buf(r);
    for (size_t i = 0; i < l->len; i++) {
        if (i) {
            if (any_safe && !(sep.flags & TPL_SAFE))
                tpl_escape_html(&b, sep.u.s, sep.len);
            else
                buf_put(&b, sep.u.s, sep.len);
        }
        if (any_safe && !(items[i].flags & TPL_SAFE))
            tpl_escape_html(&b, items[i].u.s, items[i].len);
        else
            buf_put(&b, items[i].u.s, items[i].len);
    }
    *out = keep_buf(r, &b, any_safe);
    return true;
}

FILTER(first)
{
    (void)a;
    const tpl_list *l = want_iter(r, at, v);
    if (!l)
        return false;
    *out = l->len ? l->items[0] : tpl_undefined();
    return true;
}

FILTER(last)
{
    (void)a;
    const tpl_list *l = want_iter(r, at, v);
    if (!l)
        return false;
    *out = l->len ? l->items[l->len - 1] : tpl_undefined();
    if (v.kind == TPL_STRING && l->len) /* reversed(Markup) indexes: stays Markup */
        out->flags |= v.flags & TPL_SAFE;
    return true;
}

FILTER(reverse)
{
    (void)a;
    arena *ar = tpl_r_arena(r);
    if (v.kind == TPL_STRING) {
        if (!tpl_r_chars_fit(r, at, v))
            return false;
        const tpl_list *l = tpl_iterable(ar, v);
        buf b = BUF_INIT;
        for (size_t i = l->len; i-- > 0;)
            buf_put(&b, l->items[i].u.s, l->items[i].len);
        *out = from_buf(ar, &b, v.flags & TPL_SAFE);
        return true;
    }
    const tpl_list *l = want_iter(r, at, v);
    if (!l)
        return false;
    tpl_list *o = tpl_list_new(ar, l->len);
    for (size_t i = 0; i < l->len; i++)
        o->items[i] = l->items[l->len - 1 - i];
    *out = tpl_list_value(o);
    return true;
}

FILTER(sort)
{
    arena *ar = tpl_r_arena(r);
    const tpl_list *l = want_iter(r, at, v);
    if (!l)
        return false;
    bool rev = tpl_value_truthy(ARG(0, tpl_bool(false)));
    bool cs = tpl_value_truthy(ARG(1, tpl_bool(false)));
    tpl_value attribute = ARG(2, tpl_none());
    sort_item *items = arena_alloc(ar, (l->len + 1) * sizeof *items);
    /* attribute="a,b.c" sorts by several attributes (Jinja2 3.1) */
    size_t nattr = 1;
    const char *attrs[16];
    tpl_value attrv[16];
    if (attribute.kind == TPL_STRING && strchr(attribute.u.s, ',')) {
        nattr = 0;
        for (const char *p = attribute.u.s; nattr < 16;) {
            const char *c = strchr(p, ',');
            size_t len = c ? (size_t)(c - p) : strlen(p);
            attrv[nattr] = tpl_str_copy(ar, p, len);
            attrs[nattr] = attrv[nattr].u.s;
            nattr++;
            if (!c)
                break;
            p = c + 1;
        }
        (void)attrs;
    }
    for (size_t i = 0; i < l->len; i++) {
        items[i].val = l->items[i];
        if (nattr > 1) {
            tpl_list *k = tpl_list_new(ar, nattr);
            for (size_t j = 0; j < nattr; j++)
                k->items[j] = attr_of(l->items[i], attrv[j]);
            items[i].key = tpl_list_value(k);
        } else {
            items[i].key = attribute.kind == TPL_NONE ? l->items[i] : attr_of(l->items[i], attribute);
        }
    }
    if (!sort_items(r, at, items, l->len, !cs, rev))
        return false;
    tpl_list *o = tpl_list_new(ar, l->len);
    for (size_t i = 0; i < l->len; i++)
        o->items[i] = items[i].val;
    *out = tpl_list_value(o);
    return true;
}

FILTER(dictsort)
{
    arena *ar = tpl_r_arena(r);
    if (v.kind != TPL_MAP)
        return tpl_r_error(r, at, "dictsort needs a map");
    bool cs = tpl_value_truthy(ARG(0, tpl_bool(false)));
    tpl_value by = ARG(1, tpl_str("key"));
    bool rev = tpl_value_truthy(ARG(2, tpl_bool(false)));
    bool by_value;
    if (by.kind == TPL_STRING && !strcmp(by.u.s, "key"))
        by_value = false;
    else if (by.kind == TPL_STRING && !strcmp(by.u.s, "value"))
        by_value = true;
    else
        return tpl_r_error(r, at, "dictsort: 'by' must be 'key' or 'value'");
    tpl_map_touch_all(v.u.map);
    size_t n = v.u.map->len;
    sort_item *items = arena_alloc(ar, (n + 1) * sizeof *items);
    for (size_t i = 0; i < n; i++) {
        tpl_value pair[2] = { v.u.map->entries[i].key, v.u.map->entries[i].value };
        items[i].val = pair_of(ar, pair);
        items[i].key = by_value ? pair[1] : pair[0];
    }
    if (!sort_items(r, at, items, n, !cs, rev))
        return false;
    tpl_list *o = tpl_list_new(ar, n);
    for (size_t i = 0; i < n; i++)
        o->items[i] = items[i].val;
    *out = tpl_list_value(o);
    return true;
}

FILTER(items)
{
    (void)a;
    arena *ar = tpl_r_arena(r);
    if (v.kind == TPL_UNDEFINED) {
        *out = tpl_list_value(tpl_list_new(ar, 0));
        return true;
    }
    if (v.kind != TPL_MAP)
        return tpl_r_error(r, at, "items needs a map");
    tpl_map_touch_all(v.u.map);
    tpl_list *o = tpl_list_new(ar, v.u.map->len);
    for (size_t i = 0; i < v.u.map->len; i++) {
        tpl_value pair[2] = { v.u.map->entries[i].key, v.u.map->entries[i].value };
        o->items[i] = pair_of(ar, pair);
    }
    *out = tpl_list_value(o);
    return true;
}

FILTER(truncate)
{
    arena *ar = tpl_r_arena(r);
    tpl_value s = tpl_to_string(ar, v);
    int64_t length = 255, leeway = 5;
    if (a->given[0] && !want_int(r, at, "truncate length", a->v[0], &length))
        return false;
    bool killwords = tpl_value_truthy(ARG(1, tpl_bool(false)));
    tpl_value end = ARG(2, tpl_str("..."));
    if (!want_str(r, at, "truncate end", end))
        return false;
    if (a->given[3] && a->v[3].kind != TPL_NONE && !want_int(r, at, "leeway", a->v[3], &leeway))
        return false;
    size_t elen = cp_count(end.u.s, end.len);
    if (length < (int64_t)elen)
        return tpl_r_error(r, at, "truncate: expected length >= %zu, got %lld", elen,
                           (long long)length);
    if (leeway < 0)
        return tpl_r_error(r, at, "truncate: leeway must be >= 0");
    int64_t keep; /* length + leeway; when that overflows, nothing is longer */
    if (ckd_add(&keep, length, leeway) || s.len <= (uint64_t)keep ||
        cp_count_upto(s.u.s, s.len, (size_t)keep) <= (size_t)keep) {
        *out = s;
        return true;
    }
    size_t cut = cp_offset(s.u.s, s.len, (size_t)(length - (int64_t)elen));
    if (!killwords) { /* rsplit(" ", 1)[0] */
        size_t k = cut;
        while (k > 0 && s.u.s[k - 1] != ' ')
            k--;
        cut = k ? k - 1 : cut;
    }
    char *d;
    *out = arena_string(ar, cut + end.len, false, &d);
    memcpy(d, s.u.s, cut);
    memcpy(d + cut, end.u.s, end.len);
    return true;
}

/* How striptags' main loop reads a byte: part of a word, Python whitespace
 * (in ASCII), '<', or the lead of something non-ASCII. */
enum { ST_WORD, ST_SPACE, ST_LT, ST_HIGH };
static const unsigned char strip_class[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1,
    1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
};

static bool starts_comment(const char *p, size_t n, size_t i)
{
    return n - i >= 4 && p[i + 1] == '!' && p[i + 2] == '-' && p[i + 3] == '-';
}

/* The '>' that ends the tag opened at p[i], or NULL. Tags are mostly a few
 * bytes: those are looked through here, longer ones with memchr. */
static inline const char *tag_end(const char *p, size_t i, size_t n, bool *inner_lt)
{
    size_t e = n - i > 16 ? i + 16 : n;
    bool lt = false;
    for (size_t k = i + 1; k < e; k++) {
        if (p[k] == '>') {
            *inner_lt = lt;
            return p + k;
        }
        lt |= p[k] == '<';
    }
    const char *gt = e < n ? memchr(p + e, '>', n - e) : NULL;
    *inner_lt = lt || (gt && memchr(p + e, '<', (size_t)(gt - (p + e))));
    return gt;
}

/* Tags dropped and the words of what is left joined with single spaces
 * (" ".join(s.split())), written to d, which has room for n bytes (the
 * result is never longer). Returns the length, or (size_t)-1 when the text
 * holds a "<!--": markupsafe removes comments before tags, which differs
 * when a comment holds a '>' or sits inside a tag — the caller does that
 * and calls again with comments_gone. */
static size_t strip_tags_words(const char *p, size_t n, char *d, bool comments_gone)
{
    size_t w = 0;
    bool sp = true;   /* nothing written yet, or a space last: spaces now add nothing */
    bool tags = true; /* false once a '<' has no '>' after it: no tag follows */
    for (size_t i = 0; i < n;) {
        size_t e = scan_plain_text(p, i, n, sp); /* copied as it is */
        if (e > i) {
            copy_bytes(d + w, p + i, e - i);
            w += e - i;
            sp = p[e - 1] == ' ';
            i = e;
            if (i == n)
                break;
        }
        unsigned char c = (unsigned char)p[i];
        unsigned cls = strip_class[c];
        if (cls <= ST_SPACE) { /* without a branch: a space is written, kept if it is the first */
            bool is_sp = cls == ST_SPACE;
            d[w] = is_sp ? ' ' : (char)c;
            w += !(is_sp & sp);
            sp = is_sp;
            i++;
            continue;
        }
        if (cls == ST_LT) {
            bool inner_lt = false; /* another '<' before the '>' */
            const char *gt = tags ? tag_end(p, i, n, &inner_lt) : NULL;
            if (gt) {
                if (!comments_gone && starts_comment(p, n, i))
                    return (size_t)-1;
                if (!comments_gone && inner_lt)
                    for (const char *q = p + i + 1; (q = memchr(q, '<', (size_t)(gt - q))); q++)
                        if (starts_comment(p, n, (size_t)(q - p)))
                            return (size_t)-1;
                i = (size_t)(gt - p) + 1;
                continue;
            }
            tags = false; /* a '<' without a '>' is text */
            d[w++] = '<';
            sp = false;
            i++;
            continue;
        }
        int32_t cp;
        size_t k = next_cp(p, n, i, &cp);
        if (is_space_cp(cp)) {
            d[w] = ' ';
            w += !sp;
            sp = true;
        } else {
            memcpy(d + w, p + i, k);
            w += k;
            sp = false;
        }
        i += k;
    }
    return w && sp ? w - 1 : w; /* no trailing space */
}

/* Whether html.unescape could change s: some '&' starts a reference. */
static bool may_hold_entity(const char *s, size_t n)
{
    for (const char *amp = s; (amp = memchr(amp, '&', n - (size_t)(amp - s))); amp++)
        if ((size_t)(amp - s) + 1 < n && !strchr("\t\n\f <&;", amp[1]))
            return true;
    return false;
}

/* markupsafe's striptags (2.1, as Debian's Jinja2 uses): drop every
 * <!--…--> (also across lines), then every <…>, join the words with single
 * spaces, then html.unescape. */
FILTER(striptags)
{
    (void)a;
    (void)at;
    arena *ar = tpl_r_arena(r);
    tpl_value s = tpl_to_string(ar, v);
    const char *p = s.u.s;
    size_t n = s.len;
    char *d = arena_alloc(ar, n + 1);
    size_t w = strip_tags_words(p, n, d, false);
    if (w == (size_t)-1) {
        /* every <!--…--> first, each match searched left to right */
        buf nc = BUF_INIT;
        size_t i = 0;
        for (const char *cm = memmem(p, n, "<!--", 4); cm; cm = memmem(p + i, n - i, "<!--", 4)) {
            size_t at_c = (size_t)(cm - p);
            const char *e = memmem(cm + 4, n - at_c - 4, "-->", 3);
            if (!e)
                break;
            buf_put(&nc, p + i, at_c - i);
            i = (size_t)(e - p) + 3;
        }
        buf_put(&nc, p + i, n - i);
        w = strip_tags_words(nc.data, nc.len, d, true);
        buf_release(&nc);
    }
    d[w] = '\0';
    arena_shrink(ar, d, n + 1, w + 1);
    if (!may_hold_entity(d, w)) {
        *out = tpl_strn(d, w);
        return true;
    }
    buf x = BUF_INIT;
    buf_grow(&x, w);
    for (size_t i = 0; i < w;) {
        const char *amp = memchr(d + i, '&', w - i);
        if (!amp) {
            buf_put(&x, d + i, w - i);
            break;
        }
        size_t ai = (size_t)(amp - d);
        buf_put(&x, d + i, ai - i);
        size_t k = html_unescape_ref(d + ai, w - ai, &x);
        if (k) {
            i = ai + k;
        } else {
            tpl_putc(&x, '&');
            i = ai + 1;
        }
    }
    *out = from_buf(ar, &x, false);
    return true;
}

static void url_quote(buf *b, const char *s, size_t n, const char *safe, bool plus)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (isalnum(c) || c == '_' || c == '.' || c == '-' || c == '~' || (c && strchr(safe, c)))
            tpl_putc(b, (char)c);
        else if (plus && c == ' ')
            tpl_putc(b, (char)'+');
        else
            buf_printf(b, "%%%02X", c);
    }
}

FILTER(urlencode)
{
    (void)a;
    (void)at;
    arena *ar = tpl_r_arena(r);
    buf b = BUF_INIT;
    if (v.kind == TPL_MAP || v.kind == TPL_LIST) {
        const tpl_list *l = NULL;
        if (v.kind == TPL_MAP)
            tpl_map_touch_all(v.u.map);
        size_t n = v.kind == TPL_MAP ? v.u.map->len : v.u.list->len;
        if (v.kind == TPL_LIST)
            l = v.u.list;
        for (size_t i = 0; i < n; i++) {
            tpl_value k, val;
            if (v.kind == TPL_MAP) {
                k = v.u.map->entries[i].key;
                val = v.u.map->entries[i].value;
            } else {
                tpl_value it = l->items[i];
                if (it.kind != TPL_LIST || it.u.list->len != 2) {
                    buf_release(&b);
                    return tpl_r_error(r, at, "urlencode needs a string, a map or a list of pairs");
                }
                k = it.u.list->items[0];
                val = it.u.list->items[1];
            }
            if (i)
                tpl_putc(&b, (char)'&');
            k = tpl_to_string(ar, k);
            val = tpl_to_string(ar, val);
            url_quote(&b, k.u.s, k.len, "", true);
            tpl_putc(&b, (char)'=');
            url_quote(&b, val.u.s, val.len, "", true);
        }
    } else {
        tpl_value s = tpl_to_string(ar, v);
        url_quote(&b, s.u.s, s.len, "/", false);
    }
    *out = from_buf(ar, &b, false);
    return true;
}

FILTER_FN(replace)
{
    arena *ar = tpl_r_arena(r);
    tpl_value s = tpl_to_string(ar, v);
    if (!a->given[0] || !a->given[1])
        return tpl_r_error(r, at, "replace needs two arguments: old and new");
    tpl_value old = tpl_to_string(ar, a->v[0]), new = tpl_to_string(ar, a->v[1]);
    int64_t count = -1;
    if (a->given[2] && a->v[2].kind != TPL_NONE && !want_int(r, at, "replace count", a->v[2], &count))
        return false;
    bool safe = false;
    if ((old.flags & TPL_SAFE) || ((new.flags & TPL_SAFE) && !(s.flags & TPL_SAFE))) {
        s = tpl_escape_value(ar, s);
        safe = true;
    } else if (s.flags & TPL_SAFE) {
        old = tpl_escape_value(ar, old);
        new = tpl_escape_value(ar, new);
        safe = true;
    }
    if (new.len > old.len) { /* the result grows: bound it before making it */
        uint64_t hits = old.len ? s.len / old.len : cp_count(s.u.s, s.len) + 1; /* at most */
        if (count >= 0 && (uint64_t)count < hits)
            hits = (uint64_t)count;
        if (ckd_add_sat(s.len, ckd_mul_sat(hits, new.len - old.len)) > TPL_MAX_STRING && old.len) {
            /* count them, up to as many as make it too large (memchr, not
             * memmem: a sanitizer checks memmem's whole haystack per call) */
            uint64_t found = 0, enough = s.len < TPL_MAX_STRING
                                             ? (TPL_MAX_STRING - s.len) / (new.len - old.len) + 1
                                             : 0;
            if (enough < hits)
                hits = enough;
            for (size_t i = 0; found < hits && i + old.len <= s.len;) {
                const char *p = memchr(s.u.s + i, old.u.s[0], s.len - old.len + 1 - i);
                if (!p)
                    break;
                i = (size_t)(p - s.u.s);
                if (!memcmp(p, old.u.s, old.len)) {
                    found++;
                    i += old.len;
                } else {
                    i++;
                }
            }
            hits = found;
        }
        if (ckd_add_sat(s.len, ckd_mul_sat(hits, new.len - old.len)) > TPL_MAX_STRING)
            return tpl_r_error(r, at, "replace: the result is too large (over %u bytes)",
                               TPL_MAX_STRING);
    }
    buf b = BUF_INIT;
    if (old.len == 0) {
        /* Python inserts `new` between every character and at both ends */
        int64_t done = 0;
        for (size_t i = 0; i <= s.len;) {
            if (count < 0 || done < count) {
                buf_put(&b, new.u.s, new.len);
                done++;
            }
            if (i == s.len)
                break;
            int32_t cp;
            size_t k = next_cp(s.u.s, s.len, i, &cp);
            buf_put(&b, s.u.s + i, k);
            i += k;
        }
    } else {
        size_t i = 0;
        int64_t done = 0;
        while (i < s.len) {
            const char *p = (count < 0 || done < count) ? memmem(s.u.s + i, s.len - i, old.u.s, old.len) : NULL;
            if (!p) {
                buf_put(&b, s.u.s + i, s.len - i);
                break;
            }
            buf_put(&b, s.u.s + i, (size_t)(p - s.u.s) - i);
            buf_put(&b, new.u.s, new.len);
            i = (size_t)(p - s.u.s) + old.len;
            done++;
        }
    }
    *out = from_buf(ar, &b, safe);
    return true;
}

/* Python's int(str, base): 1 when s is an integer literal of that base
 * (base 0: by its prefix), 0 when it is not, 2 when it does not fit 64 bits. */
static int parse_py_int(const char *s, size_t n, int base, int64_t *out)
{
    while (n && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    bool neg = false;
    if (n && (*s == '+' || *s == '-')) {
        neg = *s == '-';
        s++;
        n--;
    }
    bool prefixed = false;
    if (n >= 2 && s[0] == '0') {
        char p = (char)tolower((unsigned char)s[1]);
        int pb = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 0;
        if (pb && (base == 0 || base == pb)) {
            base = pb;
            s += 2;
            n -= 2;
            prefixed = true;
        }
    }
    if (base == 0) {
        base = 10;
        /* "010" is not a base-0 literal, "000" is */
        bool nonzero = false;
        for (size_t i = 0; i < n; i++)
            nonzero |= s[i] != '0' && s[i] != '_';
        if (n > 1 && s[0] == '0' && nonzero)
            return 0;
    }
    if (!n || base < 2 || base > 36)
        return 0;
    uint64_t x = 0;
    bool overflow = false;
    size_t digits = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '_') {
            /* one underscore between digits, or right after a prefix */
            if (i + 1 == n || s[i + 1] == '_' || (i == 0 && !prefixed))
                return 0;
            continue;
        }
        int d = isdigit((unsigned char)s[i]) ? s[i] - '0'
              : isalpha((unsigned char)s[i]) ? tolower((unsigned char)s[i]) - 'a' + 10 : 99;
        if (d >= base)
            return 0;
        if (x > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            overflow = true;
        else
            x = x * (uint64_t)base + (uint64_t)d;
        digits++;
    }
    if (!digits)
        return 0;
    if (overflow || x > (uint64_t)INT64_MAX + (neg ? 1 : 0))
        return 2;
    *out = neg ? (int64_t)(0 - x) : (int64_t)x;
    return 1;
}

/* Python float(str) */
static bool parse_py_float(const char *s, size_t n, double *out)
{
    char tmp[128];
    while (n && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (!n || n >= sizeof tmp)
        return false;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '_') {
            if (i == 0 || i + 1 == n || !isdigit((unsigned char)s[i - 1]) || !isdigit((unsigned char)s[i + 1]))
                return false;
            continue;
        }
        if (!(isdigit((unsigned char)s[i]) || strchr("+-.eEinfatyINFATY", s[i])))
            return false;
        tmp[k++] = s[i];
    }
    tmp[k] = 0;
    const char *t = tmp + (tmp[0] == '+' || tmp[0] == '-');
    if (!strcasecmp(t, "inf") || !strcasecmp(t, "infinity") || !strcasecmp(t, "nan")) {
        *out = strtod(tmp, NULL);
        return true;
    }
    if (isalpha((unsigned char)*t) || strpbrk(t, "nNaAtTyYfFiI"))
        return false;
    char *end;
    *out = strtod(tmp, &end);
    return *end == 0 && end != tmp;
}

FILTER(int)
{
    tpl_value dflt = ARG(0, tpl_int(0));
    int64_t base = 10;
    if (a->given[1] && !want_int(r, at, "int base", a->v[1], &base))
        return false;
    switch (v.kind) {
    case TPL_INT:
        *out = v;
        return true;
    case TPL_BOOL:
        *out = tpl_int(v.u.b);
        return true;
    case TPL_FLOAT:
        if (isnan(v.u.f) || isinf(v.u.f)) {
            *out = dflt;
            return true;
        }
        if (fabs(v.u.f) >= 9.2e18)
            return tpl_r_error(r, at, "int: %g does not fit a 64-bit integer", v.u.f);
        *out = tpl_int((int64_t)v.u.f);
        return true;
    case TPL_STRING: {
        int64_t x;
        int ok = parse_py_int(v.u.s, v.len, (int)base, &x);
        if (ok == 2)
            return tpl_r_error(r, at, "int: '%s' does not fit a 64-bit integer", v.u.s);
        if (ok) {
            *out = tpl_int(x);
            return true;
        }
        double f;
        if (parse_py_float(v.u.s, v.len, &f) && !isnan(f) && !isinf(f)) {
            if (fabs(f) >= 9.2e18)
                return tpl_r_error(r, at, "int: '%s' does not fit a 64-bit integer", v.u.s);
            *out = tpl_int((int64_t)f);
            return true;
        }
        *out = dflt;
        return true;
    }
    default:
        *out = dflt;
        return true;
    }
}

FILTER(float)
{
    (void)at;
    (void)r;
    tpl_value dflt = ARG(0, tpl_float(0.0));
    switch (v.kind) {
    case TPL_INT:
    case TPL_BOOL:
        *out = tpl_float(tpl_as_double(v));
        return true;
    case TPL_FLOAT:
        *out = v;
        return true;
    case TPL_STRING: {
        double f;
        *out = parse_py_float(v.u.s, v.len, &f) ? tpl_float(f) : dflt;
        return true;
    }
    default:
        *out = dflt;
        return true;
    }
}

FILTER(string)
{
    (void)a;
    (void)at;
    *out = tpl_to_string(tpl_r_arena(r), v);
    return true;
}

FILTER(list)
{
    (void)a;
    const tpl_list *l = want_iter(r, at, v);
    if (!l)
        return false;
    *out = tpl_list_value(l);
    return true;
}

FILTER(abs)
{
    (void)a;
    if (v.kind == TPL_INT) {
        if (v.u.i == INT64_MIN)
            return tpl_r_error(r, at, "integer overflow");
        *out = tpl_int(v.u.i < 0 ? -v.u.i : v.u.i);
    } else if (v.kind == TPL_BOOL) {
        *out = tpl_int(v.u.b);
    } else if (v.kind == TPL_FLOAT) {
        *out = tpl_float(fabs(v.u.f));
    } else {
        return tpl_r_error(r, at, "abs needs a number");
    }
    return true;
}

/* Python round(x, n): correctly rounded, ties to even. */
static double py_round(double x, int64_t n)
{
    if (isnan(x) || isinf(x))
        return x;
    if (n > 300)
        return x;
    if (n < -300)
        return copysign(0.0, x);
    char tmp[512];
    if (n >= 0) {
        snprintf(tmp, sizeof tmp, "%.*f", (int)n, x);
        return strtod(tmp, NULL);
    }
    double p = pow(10.0, (double)-n);
    double y = x / p;
    snprintf(tmp, sizeof tmp, "%.0f", y);
    return strtod(tmp, NULL) * p;
}

FILTER(round)
{
    int64_t prec = 0;
    if (a->given[0] && !want_int(r, at, "round precision", a->v[0], &prec))
        return false;
    tpl_value method = ARG(1, tpl_str("common"));
    if (method.kind != TPL_STRING || (strcmp(method.u.s, "common") && strcmp(method.u.s, "ceil") &&
                                      strcmp(method.u.s, "floor")))
        return tpl_r_error(r, at, "round: method must be 'common', 'ceil' or 'floor'");
    if (!tpl_is_number(v))
        return tpl_r_error(r, at, "round needs a number");
    if (!strcmp(method.u.s, "common")) {
        if (v.kind != TPL_FLOAT) {
            int64_t x = v.kind == TPL_BOOL ? v.u.b : v.u.i;
            if (prec < 0) {
                double y = py_round((double)x, prec);
                *out = tpl_int((int64_t)y);
            } else {
                *out = tpl_int(x);
            }
            return true;
        }
        *out = tpl_float(py_round(v.u.f, prec));
        return true;
    }
    double p = pow(10.0, (double)prec);
    double x = tpl_as_double(v) * p;
    x = !strcmp(method.u.s, "ceil") ? ceil(x) : floor(x);
    *out = tpl_float(x / p);
    return true;
}

static bool minmax(tpl_render_state *r, const node *at, tpl_value v, const tpl_args *a, bool max,
                   tpl_value *out)
{
    const tpl_list *l = want_iter(r, at, v);
    if (!l)
        return false;
    bool cs = tpl_value_truthy(ARG(0, tpl_bool(false)));
    tpl_value attribute = ARG(1, tpl_none());
    if (!l->len) {
        *out = tpl_undefined();
        return true;
    }
    size_t best = 0;
    tpl_value bk = attribute.kind == TPL_NONE ? l->items[0] : attr_of(l->items[0], attribute);
    for (size_t i = 1; i < l->len; i++) {
        tpl_value k = attribute.kind == TPL_NONE ? l->items[i] : attr_of(l->items[i], attribute);
        bool err = false;
        int c = tpl_compare(k, bk, !cs, &err);
        if (err)
            return tpl_r_error(r, at, "cannot compare the items");
        if (max ? c > 0 : c < 0) {
            best = i;
            bk = k;
        }
    }
    *out = l->items[best];
    return true;
}

FILTER(min) { return minmax(r, at, v, a, false, out); }
FILTER(max) { return minmax(r, at, v, a, true, out); }

FILTER(sum)
{
    const tpl_list *l = want_iter(r, at, v);
    if (!l)
        return false;
    tpl_value attribute = ARG(0, tpl_none());
    tpl_value acc = ARG(1, tpl_int(0));
    for (size_t i = 0; i < l->len; i++) {
        tpl_value x = attribute.kind == TPL_NONE ? l->items[i] : attr_of(l->items[i], attribute);
        if (!tpl_is_number(x) || !tpl_is_number(acc))
            return tpl_r_error(r, at, "sum needs numbers");
        if (acc.kind != TPL_FLOAT && x.kind != TPL_FLOAT) {
            int64_t s;
            int64_t p = acc.kind == TPL_BOOL ? acc.u.b : acc.u.i, q = x.kind == TPL_BOOL ? x.u.b : x.u.i;
            if (__builtin_add_overflow(p, q, &s))
                return tpl_r_error(r, at, "integer overflow");
            acc = tpl_int(s);
        } else {
            acc = tpl_float(tpl_as_double(acc) + tpl_as_double(x));
        }
    }
    *out = acc;
    return true;
}

FILTER(unique)
{
    arena *ar = tpl_r_arena(r);
    const tpl_list *l = want_iter(r, at, v);
    if (!l)
        return false;
    bool cs = tpl_value_truthy(ARG(0, tpl_bool(false)));
    tpl_value attribute = ARG(1, tpl_none());
    tpl_list *o = tpl_list_new(ar, l->len);
    tpl_value *keys = arena_alloc(ar, (l->len + 1) * sizeof *keys);
    size_t n = 0;
    for (size_t i = 0; i < l->len; i++) {
        tpl_value k = attribute.kind == TPL_NONE ? l->items[i] : attr_of(l->items[i], attribute);
        if (!cs && k.kind == TPL_STRING) {
            buf b = BUF_INIT;
            map_case(&b, k.u.s, k.len, CASE_LOWER);
            k = from_buf(ar, &b, false);
        }
        bool seen = false;
        for (size_t j = 0; j < n && !seen; j++)
            seen = tpl_value_equal(keys[j], k);
        if (!seen) {
            keys[n] = k;
            o->items[n++] = l->items[i];
        }
    }
    o->len = n;
    *out = tpl_list_value(o);
    return true;
}

FILTER(batch)
{
    arena *ar = tpl_r_arena(r);
    const tpl_list *l = want_iter(r, at, v);
    if (!l)
        return false;
    int64_t count = 0;
    if (!a->given[0] || !want_int(r, at, "batch size", a->v[0], &count))
        return a->given[0] ? false : tpl_r_error(r, at, "batch needs a size");
    if (count <= 0)
        return tpl_r_error(r, at, "batch size must be positive");
    bool fill = a->given[1] && a->v[1].kind != TPL_NONE;
    if (fill && count > (int64_t)TPL_MAX_LIST)
        return tpl_r_error(r, at, "batch: a size of %lld with a fill value is too large (at most %u)",
                           (long long)count, TPL_MAX_LIST);
    size_t nb = (l->len + (size_t)count - 1) / (size_t)count;
    tpl_list *o = tpl_list_new(ar, nb);
    for (size_t b = 0; b < nb; b++) {
        size_t st = b * (size_t)count, en = st + (size_t)count;
        if (en > l->len)
            en = l->len;
        size_t len = fill ? (size_t)count : en - st;
        tpl_list *x = tpl_list_new(ar, len);
        for (size_t i = 0; i < len; i++)
            x->items[i] = st + i < en ? l->items[st + i] : a->v[1];
        o->items[b] = tpl_list_value(x);
    }
    *out = tpl_list_value(o);
    return true;
}

FILTER(slice)
{
    arena *ar = tpl_r_arena(r);
    const tpl_list *l = want_iter(r, at, v);
    if (!l)
        return false;
    int64_t slices = 0;
    if (!a->given[0])
        return tpl_r_error(r, at, "slice needs a number of slices");
    if (!want_int(r, at, "slice count", a->v[0], &slices))
        return false;
    if (slices <= 0)
        return tpl_r_error(r, at, "slice count must be positive");
    if (slices > (int64_t)TPL_MAX_LIST)
        return tpl_r_error(r, at, "slice: a count of %lld is too large (at most %u)",
                           (long long)slices, TPL_MAX_LIST);
    bool fill = a->given[1] && a->v[1].kind != TPL_NONE;
    size_t len = l->len, per = len / (size_t)slices, extra = len % (size_t)slices, offset = 0;
    tpl_list *o = tpl_list_new(ar, (size_t)slices);
    for (size_t s = 0; s < (size_t)slices; s++) {
        size_t st = offset + s * per;
        if (s < extra)
            offset++;
        size_t en = offset + (s + 1) * per;
        bool f = fill && s >= extra;
        tpl_list *x = tpl_list_new(ar, en - st + f);
        for (size_t i = st; i < en; i++)
            x->items[i - st] = l->items[i];
        if (f)
            x->items[en - st] = a->v[1];
        o->items[s] = tpl_list_value(x);
    }
    *out = tpl_list_value(o);
    return true;
}

tpl_value group_value(arena *ar, tpl_value key, tpl_list *items)
{
    tpl_map *m = tpl_map_new(ar, 2);
    tpl_map_set_str(ar, m, "grouper", key);
    tpl_map_set_str(ar, m, "list", tpl_list_value(items));
    tpl_value v = tpl_map_value(m);
    v.flags |= TPL_GROUP;
    return v;
}

FILTER(groupby)
{
    arena *ar = tpl_r_arena(r);
    const tpl_list *l = want_iter(r, at, v);
    if (!l)
        return false;
    if (!a->given[0])
        return tpl_r_error(r, at, "groupby needs an attribute");
    tpl_value attribute = a->v[0], dflt = ARG(1, tpl_none());
    bool cs = tpl_value_truthy(ARG(2, tpl_bool(false)));
    size_t n = l->len;
    sort_item *items = arena_alloc(ar, (n + 1) * sizeof *items);
    for (size_t i = 0; i < n; i++) {
        tpl_value k = attr_of(l->items[i], attribute);
        if (k.kind == TPL_UNDEFINED && a->given[1])
            k = dflt;
        items[i].key = k;
        items[i].val = l->items[i];
    }
    if (!sort_items(r, at, items, n, !cs, false))
        return false;
    tpl_list *o = tpl_list_new(ar, n);
    size_t ng = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        for (; j < n; j++) {
            bool err = false;
            if (tpl_compare(items[j].key, items[i].key, !cs, &err) != 0 || err)
                break;
        }
        tpl_list *g = tpl_list_new(ar, j - i);
        for (size_t k = i; k < j; k++)
            g->items[k - i] = items[k].val;
        o->items[ng++] = group_value(ar, items[i].key, g);
        i = j;
    }
    o->len = ng;
    *out = tpl_list_value(o);
    return true;
}

/* map / select / reject / selectattr / rejectattr take
 * (a0..a5 positional, attribute=, default=). */
static size_t positional(const tpl_args *a, tpl_value *pos)
{
    size_t n = 0;
    while (n < 6 && a->given[n]) {
        pos[n] = a->v[n];
        n++;
    }
    return n;
}

FILTER(map)
{
    arena *ar = tpl_r_arena(r);
    const tpl_list *l = want_iter(r, at, v);
    if (!l)
        return false;
    tpl_list *o = tpl_list_new(ar, l->len);
    if (a->given[6]) {
        for (size_t i = 0; i < l->len; i++) {
            tpl_value x = attr_of(l->items[i], a->v[6]);
            if (x.kind == TPL_UNDEFINED && a->given[7])
                x = a->v[7];
            o->items[i] = x;
        }
        *out = tpl_list_value(o);
        return true;
    }
    tpl_value pos[6];
    size_t np = positional(a, pos);
    if (!np || pos[0].kind != TPL_STRING)
        return tpl_r_error(r, at, "map needs a filter name or attribute=");
    int idx = tpl_filter_find(pos[0].u.s);
    if (idx < 0)
        return tpl_r_error(r, at, "map: unknown filter '%s'", pos[0].u.s);
    for (size_t i = 0; i < l->len; i++)
        if (!tpl_r_apply_filter(r, at, idx, l->items[i], pos + 1, np - 1, &o->items[i]))
            return false;
    *out = tpl_list_value(o);
    return true;
}

/* select, reject, selectattr and rejectattr: keep the items (by_attr: whose
 * attribute) for which the named test — or truthiness, with no test —
 * gives `keep`. */
static bool select_impl(tpl_render_state *r, const node *at, tpl_value v, const tpl_args *a,
                        bool by_attr, bool keep, tpl_value *out)
{
    arena *ar = tpl_r_arena(r);
    const tpl_list *l = want_iter(r, at, v);
    if (!l)
        return false;
    tpl_value pos[6];
    size_t np = positional(a, pos);
    tpl_value attribute = tpl_none();
    if (by_attr) {
        if (!np)
            return tpl_r_error(r, at, "%s needs an attribute name", at->s);
        attribute = pos[0];
        memmove(pos, pos + 1, (np - 1) * sizeof *pos);
        np--;
    }
    int idx = -1;
    if (np) {
        if (pos[0].kind != TPL_STRING)
            return tpl_r_error(r, at, "%s: the test name must be a string", at->s);
        idx = tpl_test_find(pos[0].u.s);
        if (idx < 0)
            return tpl_r_error(r, at, "%s: unknown test '%s'", at->s, pos[0].u.s);
    }
    tpl_list *o = tpl_list_new(ar, l->len);
    size_t k = 0;
    for (size_t i = 0; i < l->len; i++) {
        tpl_value x = by_attr ? attr_of(l->items[i], attribute) : l->items[i];
        bool res;
        if (idx < 0)
            res = tpl_value_truthy(x);
        else if (!tpl_r_apply_test(r, at, idx, x, pos + 1, np - 1, &res))
            return false;
        if (res == keep)
            o->items[k++] = l->items[i];
    }
    o->len = k;
    *out = tpl_list_value(o);
    return true;
}

FILTER(select) { return select_impl(r, at, v, a, false, true, out); }
FILTER(reject) { return select_impl(r, at, v, a, false, false, out); }
FILTER(selectattr) { return select_impl(r, at, v, a, true, true, out); }
FILTER(rejectattr) { return select_impl(r, at, v, a, true, false, out); }

/* \w for an ASCII byte: letters, digits, '_' (0 or 1) */
static inline unsigned ascii_word(unsigned char c)
{
    return ((unsigned char)(c - '0') < 10) | ((unsigned char)((c | 0x20) - 'a') < 26) | (c == '_');
}

/* Jinja2's wordcount: len(re.findall(r"\w+", s)). A word starts where a \w
 * character follows a non-\w one; all-ASCII blocks are counted whole
 * (scan.h). */
FILTER(wordcount)
{
    (void)a;
    (void)at;
    tpl_value s = tpl_to_string(tpl_r_arena(r), v);
    const unsigned char *p = (const unsigned char *)s.u.s;
    size_t n = s.len;
    int64_t count = 0;
    unsigned in = 0; /* whether the character before i is \w */
    for (size_t i = 0; i < n;) {
        count += (int64_t)scan_ascii_words(s.u.s, &i, n, &in);
        /* a character at a time through the block that stopped the scan */
        for (size_t end = n - i > 16 ? i + 16 : n; i < end;) {
            unsigned w;
            if (p[i] < 0x80) {
                w = ascii_word(p[i]);
                i++;
            } else {
                int32_t cp;
                i += next_cp(s.u.s, n, i, &cp);
                w = is_word_cp(cp);
            }
            count += w & ~in;
            in = w;
        }
    }
    *out = tpl_int(count);
    return true;
}

/* Python str.splitlines() boundaries we honour: \n \r \r\n \v \f */
FILTER(indent)
{
    arena *ar = tpl_r_arena(r);
    tpl_value s = tpl_to_string(ar, v);
    tpl_value w = ARG(0, tpl_int(4));
    bool first = tpl_value_truthy(ARG(1, tpl_bool(false)));
    bool blank = tpl_value_truthy(ARG(2, tpl_bool(false)));
    buf ind = BUF_INIT;
    if (w.kind == TPL_STRING) {
        buf_put(&ind, w.u.s, w.len);
    } else {
        int64_t k = 0;
        if (!want_int(r, at, "indent width", w, &k)) {
            buf_release(&ind);
            return false;
        }
        if (k > (int64_t)TPL_MAX_STRING)
            return tpl_r_error(r, at, "indent: a width of %lld is too large (at most %u)",
                               (long long)k, TPL_MAX_STRING);
        for (int64_t i = 0; i < k; i++)
            tpl_putc(&ind, (char)' ');
    }
    /* s += "\n"; lines = s.splitlines() */
    buf src = BUF_INIT;
    buf_put(&src, s.u.s, s.len);
    tpl_putc(&src, (char)'\n');
    buf b = BUF_INIT;
    size_t i = 0, line = 0;
    while (i < src.len) {
        size_t e = i;
        while (e < src.len && !strchr("\n\r\v\f", src.data[e]))
            e++;
        size_t next = e + 1;
        if (src.data[e] == '\r' && e + 1 < src.len && src.data[e + 1] == '\n')
            next = e + 2;
        bool empty = e == i;
        if (line > 0)
            tpl_putc(&b, (char)'\n');
        if ((line == 0 && first) || (line > 0 && (blank || !empty)))
            buf_put(&b, ind.data, ind.len);
        buf_put(&b, src.data + i, e - i);
        i = next;
        line++;
        if (b.len > TPL_MAX_STRING) {
            buf_release(&src);
            buf_release(&ind);
            buf_release(&b);
            return tpl_r_error(r, at, "indent: the result is too large (over %u bytes)",
                               TPL_MAX_STRING);
        }
    }
    buf_release(&src);
    buf_release(&ind);
    *out = from_buf(ar, &b, s.flags & TPL_SAFE);
    return true;
}

FILTER(center)
{
    arena *ar = tpl_r_arena(r);
    tpl_value s = tpl_to_string(ar, v);
    int64_t width = 80;
    if (a->given[0] && !want_int(r, at, "center width", a->v[0], &width))
        return false;
    int64_t len = (int64_t)cp_count(s.u.s, s.len);
    if (width <= len) {
        *out = s;
        return true;
    }
    if (width > (int64_t)TPL_MAX_STRING)
        return tpl_r_error(r, at, "center: a width of %lld is too large (at most %u)",
                           (long long)width, TPL_MAX_STRING);
    int64_t marg = width - len, left = marg / 2 + (marg & width & 1);
    buf b = BUF_INIT;
    for (int64_t i = 0; i < left; i++)
        tpl_putc(&b, (char)' ');
    buf_put(&b, s.u.s, s.len);
    for (int64_t i = 0; i < marg - left; i++)
        tpl_putc(&b, (char)' ');
    *out = from_buf(ar, &b, s.flags & TPL_SAFE);
    return true;
}

/* The bytes json_value writes as they are: printable ASCII but for
 * '"', '\\' and the HTML-sensitive <, >, &, '. */
static const bool json_plain[256] = {
    [' '] = 1, ['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['('] = 1, [')'] = 1, ['*'] = 1,
    ['+'] = 1, [','] = 1, ['-'] = 1, ['.'] = 1, ['/'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1,
    ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, [':'] = 1,
    [';'] = 1, ['='] = 1, ['?'] = 1, ['@'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1,
    ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1,
    ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1,
    ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['['] = 1, [']'] = 1,
    ['^'] = 1, ['_'] = 1, ['`'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1,
    ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1,
    ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1,
    ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1, ['{'] = 1, ['|'] = 1, ['}'] = 1,
    ['~'] = 1,
};

/* The end of the run of json_plain bytes at s[i..n): 16 bytes a step
 * (SSE2), else 8 (the portable masks of util/scan.h), then byte by byte. */
static size_t json_plain_end(const char *s, size_t i, size_t n)
{
#ifdef SCAN_SSE2
    for (; n - i >= 16; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(s + i));
        /* signed: bytes >= 0x80 are negative, so "< 0x20" takes them too */
        __m128i bad = _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)),
                                   _mm_cmpeq_epi8(x, _mm_set1_epi8(0x7F)));
        bad = _mm_or_si128(bad, _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
                                             _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));
        bad = _mm_or_si128(bad, _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('<')),
                                             _mm_cmpeq_epi8(x, _mm_set1_epi8('>'))));
        bad = _mm_or_si128(bad, _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('&')),
                                             _mm_cmpeq_epi8(x, _mm_set1_epi8('\''))));
        unsigned k = sse_mask(bad);
        if (k)
            return i + (unsigned)__builtin_ctz(k);
    }
#else
    for (; n - i >= 8; i += 8) {
        uint64_t x = swar_load(s + i);
        uint64_t m = (~swar_ge(x, 0x20) & ~x & SWAR_HIGH) | swar_high(x) | swar_eq(x, 0x7F) |
                     swar_eq(x, '"') | swar_eq(x, '\\') | swar_eq(x, '<') | swar_eq(x, '>') |
                     swar_eq(x, '&') | swar_eq(x, '\'');
        if (m)
            return i + swar_first(m);
    }
#endif
    while (i < n && json_plain[(unsigned char)s[i]])
        i++;
    return i;
}

/* tojson's json.dumps(v, sort_keys=True, indent=…), written to b: maps by
 * sorted keys (keys of mixed types are an error), HTML-sensitive
 * characters escaped as Jinja2's htmlsafe_json_dumps does. */
/* \uXXXX (lower-case hex, as json.dumps writes it) without printf: most
 * characters of a CJK text go through here. */
static void put_u_escape(buf *b, unsigned u)
{
    static const char hex[] = "0123456789abcdef";
    char e[6] = { '\\', 'u', hex[u >> 12 & 15], hex[u >> 8 & 15], hex[u >> 4 & 15], hex[u & 15] };
    buf_put(b, e, 6);
}

static bool json_value(tpl_render_state *r, const node *at, tpl_value v, buf *b, int64_t indent,
                       int level)
{
    switch (v.kind) {
    case TPL_NONE:
    case TPL_UNDEFINED:
        buf_puts(b, "null");
        return true;
    case TPL_BOOL:
        buf_puts(b, v.u.b ? "true" : "false");
        return true;
    case TPL_INT:
        tpl_put_int(b, v.u.i);
        return true;
    case TPL_FLOAT:
        if (isnan(v.u.f))
            buf_puts(b, "NaN");
        else if (isinf(v.u.f))
            buf_puts(b, v.u.f < 0 ? "-Infinity" : "Infinity");
        else
            tpl_value_to_str(v, b);
        return true;
    case TPL_DATE: {
        sheaf_date d = { v.u.t, tpl_date_offset(v), (v.flags & TPL_HAS_TIME) != 0,
                         (v.flags & TPL_HAS_ZONE) != 0 };
        tpl_putc(b, (char)'"');
        date_format_rfc3339(b, &d);
        tpl_putc(b, (char)'"');
        return true;
    }
    case TPL_STRING:
        tpl_putc(b, (char)'"');
        for (size_t i = 0; i < v.len;) {
            /* a run of printable ASCII that needs no escape, copied at once */
            size_t j = json_plain_end(v.u.s, i, v.len);
            if (j > i) {
                buf_put(b, v.u.s + i, j - i);
                i = j;
                continue;
            }
            int32_t cp;
            size_t k = next_cp(v.u.s, v.len, i, &cp);
            if (k == 1 && cp >= 0x80)
                cp = 0xFFFD; /* not UTF-8 (cmark-gfm writes &#xFFFE; so): as HTML5 reads it */
            i += k;
            switch (cp) {
            case '"': buf_puts(b, "\\\""); break;
            case '\\': buf_puts(b, "\\\\"); break;
            case '\n': buf_puts(b, "\\n"); break;
            case '\r': buf_puts(b, "\\r"); break;
            case '\t': buf_puts(b, "\\t"); break;
            case '\b': buf_puts(b, "\\b"); break;
            case '\f': buf_puts(b, "\\f"); break;
            case '<': buf_puts(b, "\\u003c"); break;
            case '>': buf_puts(b, "\\u003e"); break;
            case '&': buf_puts(b, "\\u0026"); break;
            case '\'': buf_puts(b, "\\u0027"); break;
            default:
                if (cp < 0x20 || cp > 0x7e) {
                    if (cp >= 0x10000) {
                        int32_t c = cp - 0x10000;
                        put_u_escape(b, (unsigned)(0xD800 + (c >> 10)));
                        put_u_escape(b, (unsigned)(0xDC00 + (c & 0x3FF)));
                    } else {
                        put_u_escape(b, (unsigned)cp);
                    }
                } else {
                    tpl_putc(b, (char)cp);
                }
            }
        }
        tpl_putc(b, (char)'"');
        return true;
    case TPL_LIST:
    case TPL_MAP: {
        if (level >= TPL_VALUE_MAX_DEPTH)
            return tpl_r_error(r, at, "tojson: lists and maps nested more than %d deep",
                               TPL_VALUE_MAX_DEPTH);
        bool map = v.kind == TPL_MAP;
        if (map)
            tpl_map_touch_all(v.u.map);
        size_t n = map ? v.u.map->len : v.u.list->len;
        tpl_putc(b, (char)map ? '{' : '[');
        if (!n) {
            tpl_putc(b, (char)map ? '}' : ']');
            return true;
        }
        size_t *order = arena_alloc(tpl_r_arena(r), n * sizeof *order);
        for (size_t i = 0; i < n; i++)
            order[i] = i;
        if (map) {
            /* sort_keys=True: insertion sort by key */
            for (size_t i = 1; i < n; i++) {
                size_t x = order[i], j = i;
                while (j > 0) {
                    bool err = false;
                    int c = tpl_compare(v.u.map->entries[order[j - 1]].key, v.u.map->entries[x].key, false, &err);
                    if (err)
                        return tpl_r_error(r, at, "tojson: map keys of different types");
                    if (c <= 0)
                        break;
                    order[j] = order[j - 1];
                    j--;
                }
                order[j] = x;
            }
        }
        for (size_t i = 0; i < n; i++) {
            if (b->len > TPL_MAX_STRING) /* a list that holds the same list many times */
                return tpl_r_string_fits(r, at, "tojson: the result is", b->len);
            if (i)
                tpl_putc(b, (char)',');
            if (indent >= 0) {
                tpl_putc(b, (char)'\n');
                for (int64_t k = 0; k < indent * (level + 1); k++)
                    tpl_putc(b, (char)' ');
            } else if (i) {
                tpl_putc(b, (char)' ');
            }
            if (map) {
                tpl_value k = v.u.map->entries[order[i]].key;
                if (k.kind != TPL_STRING)
                    k = tpl_to_string(tpl_r_arena(r), k);
                json_value(r, at, k, b, indent, level + 1);
                buf_puts(b, ": ");
                if (!json_value(r, at, v.u.map->entries[order[i]].value, b, indent, level + 1))
                    return false;
            } else if (!json_value(r, at, v.u.list->items[i], b, indent, level + 1)) {
                return false;
            }
        }
        if (indent >= 0) {
            tpl_putc(b, (char)'\n');
            for (int64_t k = 0; k < indent * level; k++)
                tpl_putc(b, (char)' ');
        }
        tpl_putc(b, (char)map ? '}' : ']');
        return true;
    }
    default:
        return tpl_r_error(r, at, "tojson: this value cannot be written as JSON");
    }
}

FILTER(tojson)
{
    int64_t indent = -1;
    if (a->given[0] && a->v[0].kind != TPL_NONE && !want_int(r, at, "tojson indent", a->v[0], &indent))
        return false;
    if (indent > 1000) /* indent * depth must fit; json.dumps allows more, nobody needs it */
        return tpl_r_error(r, at, "tojson: an indent of %lld is too large (at most 1000)",
                           (long long)indent);
    buf b = tpl_r_take_buf(r);
    if (!json_value(r, at, v, &b, indent, 0)) {
        tpl_r_give_buf(r, &b);
        return false;
    }
    *out = keep_buf(r, &b, true);
    return true;
}

FILTER(attr)
{
    if (!a->given[0] || a->v[0].kind != TPL_STRING)
        return tpl_r_error(r, at, "attr needs an attribute name");
    /* getattr() only: a map's keys are items, not attributes */
    *out = v.kind == TPL_MAP || v.kind == TPL_LIST ? tpl_undefined()
                                                   : tpl_getattr(v, a->v[0].u.s, a->v[0].len);
    return true;
}

FILTER(filesizeformat)
{
    bool binary = tpl_value_truthy(ARG(0, tpl_bool(false)));
    double bytes;
    if (tpl_is_number(v))
        bytes = tpl_as_double(v);
    else if (v.kind == TPL_STRING && parse_py_float(v.u.s, v.len, &bytes))
        ;
    else
        return tpl_r_error(r, at, "filesizeformat needs a number");
    double base = binary ? 1024 : 1000;
    static const char *dec[] = { "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB" };
    static const char *bin[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB" };
    buf b = BUF_INIT;
    if (bytes == 1) {
        buf_puts(&b, "1 Byte");
    } else if (bytes < base) {
        buf_printf(&b, "%d Bytes", (int)bytes);
    } else {
        double unit = base;
        int i;
        for (i = 0; i < 8; i++) {
            unit = pow(base, i + 2);
            if (bytes < unit || i == 7)
                break;
        }
        buf_printf(&b, "%.1f %s", base * bytes / unit, binary ? bin[i] : dec[i]);
    }
    *out = from_buf(tpl_r_arena(r), &b, false);
    return true;
}

/* Python's "%s" % args, for the common conversions. */
/* Appends s padded to `width` code points (Python's %-formatting). */
static void pad_str(buf *b, const char *s, size_t n, long width, bool left)
{
    long len = (long)cp_count(s, n);
    if (!left)
        for (long i = len; i < width; i++)
            tpl_putc(b, (char)' ');
    buf_put(b, s, n);
    if (left)
        for (long i = len; i < width; i++)
            tpl_putc(b, (char)' ');
}

/* Jinja2's format: Python's `str % args` (or `% kwargs` for %(name)s). A
 * safe format string escapes the arguments, as Markup's % does. */
FILTER(format)
{
    arena *ar = tpl_r_arena(r);
    tpl_value s = tpl_to_string(ar, v);
    const tpl_list *args = a->given[0] ? a->v[0].u.list : NULL;
    const tpl_map *kw = a->given[1] ? a->v[1].u.map : NULL;
    if (args && args->len && kw)
        return tpl_r_error(r, at, "format: cannot mix positional and keyword arguments");
    bool markup = s.flags & TPL_SAFE;
    size_t np = args ? args->len : 0, k = 0;
    buf b = BUF_INIT;
    const char *p = s.u.s;
    for (size_t i = 0; i < s.len; i++) {
        if (p[i] != '%') {
            tpl_putc(&b, (char)p[i]);
            continue;
        }
        i++;
        tpl_value x = tpl_undefined();
        bool have = false;
        if (i < s.len && p[i] == '(') {
            const char *e = memchr(p + i, ')', s.len - i);
            if (!e || !kw) {
                buf_release(&b);
                return tpl_r_error(r, at, "format: %%(name) needs keyword arguments");
            }
            x = tpl_map_get(kw, p + i + 1, (size_t)(e - p) - i - 1);
            if (x.kind == TPL_UNDEFINED) {
                buf_release(&b);
                return tpl_r_error(r, at, "format: no argument '%.*s'", (int)((e - p) - (long)i - 1),
                                   p + i + 1);
            }
            have = true;
            i = (size_t)(e - p) + 1;
        }
        char flags[8];
        size_t nf = 0;
        while (i < s.len && strchr("-+ #0", p[i]) && nf < 7)
            flags[nf++] = p[i++];
        flags[nf] = 0;
        long width = 0, prec = -1;
        while (i < s.len && isdigit((unsigned char)p[i]) && width < 100000)
            width = width * 10 + (p[i++] - '0');
        if (i < s.len && p[i] == '.') {
            i++;
            prec = 0;
            while (i < s.len && isdigit((unsigned char)p[i]) && prec < 100000)
                prec = prec * 10 + (p[i++] - '0');
        }
        while (i < s.len && strchr("hlL", p[i]))
            i++;
        if (width >= 100000 || prec >= 100000) {
            buf_release(&b);
            return tpl_r_error(r, at, "format: a width or precision of 100000 or more is too large");
        }
        if (i >= s.len) {
            buf_release(&b);
            return tpl_r_error(r, at, "format: incomplete format");
        }
        char conv = p[i];
        if (conv == '%') {
            tpl_putc(&b, (char)'%');
            continue;
        }
        if (!have) {
            if (kw && !args) {
                x = tpl_map_value(kw);
            } else {
                if (k >= np) {
                    buf_release(&b);
                    return tpl_r_error(r, at, "format: not enough arguments for format string");
                }
                x = args->items[k++];
            }
        }
        bool left = strchr(flags, '-') != NULL;
        switch (conv) {
        case 's':
        case 'r': {
            buf t = BUF_INIT;
            if (conv == 'r')
                tpl_value_repr(x, &t);
            else
                tpl_value_to_str(x, &t);
            if (markup && !(x.kind == TPL_STRING && (x.flags & TPL_SAFE) && conv == 's')) {
                buf e = BUF_INIT;
                tpl_escape_html(&e, t.data, t.len);
                buf_release(&t);
                t = e;
            }
            size_t n = t.len;
            if (prec >= 0)
                n = cp_offset(t.data, t.len, (size_t)prec);
            pad_str(&b, t.data, n, width, left);
            buf_release(&t);
            break;
        }
        case 'c': {
            buf t = BUF_INIT;
            if (x.kind == TPL_INT && x.u.i >= 0 && x.u.i <= 0x10FFFF)
                put_cp(&t, (int32_t)x.u.i);
            else if (x.kind == TPL_STRING && cp_count(x.u.s, x.len) == 1)
                buf_put(&t, x.u.s, x.len);
            else {
                buf_release(&b);
                return tpl_r_error(r, at, "format: %%c needs a number or one character");
            }
            pad_str(&b, t.data, t.len, width, left);
            buf_release(&t);
            break;
        }
        case 'd':
        case 'i':
        case 'u':
        case 'x':
        case 'X':
        case 'o': {
            bool intonly = conv == 'x' || conv == 'X' || conv == 'o';
            if (!tpl_is_number(x) || (intonly && x.kind == TPL_FLOAT)) {
                buf_release(&b);
                return tpl_r_error(r, at, "format: %%%c needs %s", conv,
                                   intonly ? "an integer" : "a number");
            }
            if (x.kind == TPL_FLOAT && (isnan(x.u.f) || isinf(x.u.f) || fabs(x.u.f) >= 9.2e18)) {
                buf_release(&b);
                return tpl_r_error(r, at, "format: %%%c cannot format %g", conv, x.u.f);
            }
            char spec[48];
            snprintf(spec, sizeof spec, "%%%s%ld%s%.0ld%s", flags, width, prec >= 0 ? "." : "",
                     prec >= 0 ? prec : 0L, conv == 'i' || conv == 'u' ? "lld" : conv == 'd' ? "lld"
                     : conv == 'x' ? "llx" : conv == 'X' ? "llX" : "llo");
            if (prec == 0) /* "%.0ld" printed nothing: keep ".0" */
                snprintf(spec, sizeof spec, "%%%s%ld.0%s", flags, width,
                         conv == 'x' ? "llx" : conv == 'X' ? "llX" : conv == 'o' ? "llo" : "lld");
            long long val = x.kind == TPL_FLOAT ? (long long)x.u.f : x.kind == TPL_BOOL ? x.u.b : x.u.i;
            if (conv == 'o' && strchr(flags, '#')) {
                /* Python writes 0o17 */
                char digits[64];
                snprintf(digits, sizeof digits, "%s0o%llo", val < 0 ? "-" : "",
                         (unsigned long long)(val < 0 ? -val : val));
                pad_str(&b, digits, strlen(digits), width, left);
            } else {
                buf_printf(&b, spec, val);
            }
            break;
        }
        case 'f':
        case 'F':
        case 'e':
        case 'E':
        case 'g':
        case 'G': {
            if (!tpl_is_number(x)) {
                buf_release(&b);
                return tpl_r_error(r, at, "format: %%%c needs a number", conv);
            }
            char spec[48];
            if (prec >= 0)
                snprintf(spec, sizeof spec, "%%%s%ld.%ld%c", flags, width, prec, conv);
            else
                snprintf(spec, sizeof spec, "%%%s%ld%c", flags, width, conv);
            buf_printf(&b, spec, tpl_as_double(x));
            break;
        }
        default:
            buf_release(&b);
            return tpl_r_error(r, at, "format: unsupported conversion '%%%c'", conv);
        }
    }
    if (k < np) {
        buf_release(&b);
        return tpl_r_error(r, at, "format: not all arguments converted during string formatting");
    }
    *out = from_buf(ar, &b, markup);
    return true;
}

/* pprint's repr: as repr(), but dictionaries with sorted keys. */
static void pp_repr(arena *ar, tpl_value v, buf *b, int depth)
{
    if ((v.kind == TPL_LIST || v.kind == TPL_MAP) && depth >= TPL_VALUE_MAX_DEPTH) {
        buf_puts(b, v.kind == TPL_LIST ? "[...]" : "{...}");
    } else if (v.kind == TPL_LIST) {
        bool tuple = v.flags & TPL_TUPLE;
        tpl_putc(b, (char)tuple ? '(' : '[');
        for (size_t i = 0; i < v.u.list->len && b->len <= TPL_MAX_STRING; i++) {
            if (i)
                buf_puts(b, ", ");
            pp_repr(ar, v.u.list->items[i], b, depth + 1);
        }
        if (tuple && v.u.list->len == 1)
            tpl_putc(b, (char)',');
        tpl_putc(b, (char)tuple ? ')' : ']');
    } else if (v.kind == TPL_MAP && !(v.flags & TPL_GROUP)) {
        tpl_map_touch_all(v.u.map);
        size_t n = v.u.map->len;
        sort_item *it = arena_alloc(ar, (n + 1) * sizeof *it);
        for (size_t i = 0; i < n; i++) {
            it[i].key = v.u.map->entries[i].key;
            it[i].val = v.u.map->entries[i].value;
        }
        sort_item *tmp = arena_alloc(ar, (n + 1) * sizeof *tmp);
        if (!msort(it, tmp, n, false, false)) { /* unorderable keys: as written */
            for (size_t i = 0; i < n; i++) {
                it[i].key = v.u.map->entries[i].key;
                it[i].val = v.u.map->entries[i].value;
            }
        }
        tpl_putc(b, (char)'{');
        for (size_t i = 0; i < n && b->len <= TPL_MAX_STRING; i++) {
            if (i)
                buf_puts(b, ", ");
            pp_repr(ar, it[i].key, b, depth + 1);
            buf_puts(b, ": ");
            pp_repr(ar, it[i].val, b, depth + 1);
        }
        tpl_putc(b, (char)'}');
    } else {
        tpl_value_repr(v, b);
    }
}

FILTER(pprint)
{
    (void)a;
    (void)at;
    buf b = BUF_INIT;
    pp_repr(tpl_r_arena(r), v, &b, 0);
    *out = from_buf(tpl_r_arena(r), &b, false);
    return true;
}

FILTER(xmlattr)
{
    arena *ar = tpl_r_arena(r);
    bool autospace = tpl_value_truthy(ARG(0, tpl_bool(true)));
    if (v.kind != TPL_MAP)
        return tpl_r_error(r, at, "xmlattr needs a map");
    tpl_map_touch_all(v.u.map);
    buf b = BUF_INIT;
    bool any = false;
    for (size_t i = 0; i < v.u.map->len; i++) {
        tpl_value val = v.u.map->entries[i].value;
        if (val.kind == TPL_NONE || val.kind == TPL_UNDEFINED)
            continue;
        tpl_value k = tpl_to_string(ar, v.u.map->entries[i].key);
        if (any)
            tpl_putc(&b, (char)' ');
        tpl_escape_html(&b, k.u.s, k.len);
        buf_puts(&b, "=\"");
        tpl_value ev = tpl_escape_value(ar, val);
        buf_put(&b, ev.u.s, ev.len);
        tpl_putc(&b, (char)'"');
        any = true;
    }
    buf c = BUF_INIT;
    if (any && autospace)
        tpl_putc(&c, (char)' ');
    buf_put(&c, b.data, b.len);
    buf_release(&b);
    *out = from_buf(ar, &c, true);
    return true;
}

#define SELECT_PARAMS "a0,a1,a2,a3,a4,a5,attribute,default"

/* Every filter: its name, its parameters (for binding keyword arguments)
 * and its function. SORTED by name in byte order: tpl_filter_find bisects
 * it, and tests/unit/test_tables.c checks the order. */
static const tpl_filter_def filters[] = {
    { "abs", "", f_abs },
    { "absolute_links", "", f_absolute_links },
    { "absolute_url", "", f_absolute_url },
    { "attr", "name", f_attr },
    { "batch", "linecount,fill_with", f_batch },
    { "capitalize", "", f_capitalize },
    { "center", "width", f_center },
    { "count", "", f_length },
    { "d", "default_value,boolean", f_default },
    { "date", "format", f_date },
    { "default", "default_value,boolean", f_default },
    { "dictsort", "case_sensitive,by,reverse", f_dictsort },
    { "e", "", f_escape },
    { "escape", "", f_escape },
    { "filesizeformat", "binary", f_filesizeformat },
    { "first", "", f_first },
    { "float", "default", f_float },
    { "forceescape", "", f_forceescape },
    { "format", "*args,**kwargs", f_format },
    { "group_by", "attribute", f_group_by },
    { "groupby", "attribute,default,case_sensitive", f_groupby },
    { "indent", "width,first,blank", f_indent },
    { "int", "default,base", f_int },
    { "items", "", f_items },
    { "join", "d,attribute", f_join },
    { "last", "", f_last },
    { "length", "", f_length },
    { "limit", "n", f_limit },
    { "list", "", f_list },
    { "lower", "", f_lower },
    { "map", SELECT_PARAMS, f_map },
    { "max", "case_sensitive,attribute", f_max },
    { "min", "case_sensitive,attribute", f_min },
    { "plaintext", "", f_plaintext },
    { "pprint", "", f_pprint },
    { "reject", SELECT_PARAMS, f_reject },
    { "rejectattr", SELECT_PARAMS, f_rejectattr },
    { "relative_url", "", f_relative_url },
    { "replace", "old,new,count", f_replace },
    { "reverse", "", f_reverse },
    { "rfc3339", "", f_rfc3339 },
    { "round", "precision,method", f_round },
    { "safe", "", f_safe },
    { "select", SELECT_PARAMS, f_select },
    { "selectattr", SELECT_PARAMS, f_selectattr },
    { "slice", "slices,fill_with", f_slice },
    { "slugify", "", f_slugify },
    { "sort", "reverse,case_sensitive,attribute", f_sort },
    { "string", "", f_string },
    { "striptags", "", f_striptags },
    { "sum", "attribute,start", f_sum },
    { "title", "", f_title },
    { "tojson", "indent", f_tojson },
    { "trim", "chars", f_trim },
    { "truncate", "length,killwords,end,leeway", f_truncate },
    { "unique", "case_sensitive,attribute", f_unique },
    { "upper", "", f_upper },
    { "urlencode", "", f_urlencode },
    { "used_ranges", "parts,within", f_used_ranges },
    { "wordcount", "", f_wordcount },
    { "xml_escape", "", f_xml_escape },
    { "xmlattr", "autospace", f_xmlattr },
};

int tpl_filter_find(const char *name)
{
    return tpl_bisect_name(filters, tpl_filter_count(), sizeof filters[0], name);
}

size_t tpl_filter_count(void) { return sizeof filters / sizeof filters[0]; }
const tpl_filter_def *tpl_filter_get(int i) { return &filters[i]; }

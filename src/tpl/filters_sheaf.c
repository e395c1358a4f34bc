/* filters_sheaf: sheaf's own filters (date, rfc3339, slugify, absolute_url,
 * relative_url, group_by, limit, xml_escape), listed with Jinja2's in
 * filters.c's table. */
#include <ctype.h>
#include <string.h>

#include "tpl/builtins.h"
#include "util/date.h"
#include "util/html.h"
#include "util/scan.h"
#include "util/text.h"
#include "util/url.h"
#include "util/xmlchar.h"

FILTER_FN(date)
{
    if (v.kind == TPL_UNDEFINED || v.kind == TPL_NONE) {
        *out = tpl_undefined();
        return true;
    }
    sheaf_date d;
    if (!tpl_value_as_date(v, &d))
        return tpl_r_error(r, at, "date needs a date (or a string like 2024-03-18)");
    tpl_value fmt = ARG(0, tpl_str("%b %-d, %Y"));
    if (!want_str(r, at, "date format", fmt))
        return false;
    buf b = tpl_r_take_buf(r);
    date_format(&b, &d, fmt.u.s);
    *out = keep_buf(r, &b, false);
    return true;
}

FILTER_FN(rfc3339)
{
    (void)a;
    if (v.kind == TPL_UNDEFINED || v.kind == TPL_NONE) {
        *out = tpl_undefined();
        return true;
    }
    sheaf_date d;
    if (!tpl_value_as_date(v, &d))
        return tpl_r_error(r, at, "rfc3339 needs a date");
    buf b = tpl_r_take_buf(r);
    date_format_rfc3339(&b, &d);
    *out = keep_buf(r, &b, false);
    return true;
}

FILTER_FN(slugify)
{
    (void)a;
    (void)at;
    arena *ar = tpl_r_arena(r);
    tpl_value s = tpl_to_string(ar, v);
    if (scan_is_ascii(s.u.s, s.len)) { /* the common case, straight into the arena */
        char *d = arena_alloc(ar, s.len + 16);
        size_t n = text_slugify_ascii(d, s.u.s, s.len);
        d[n] = '\0';
        arena_shrink(ar, d, s.len + 16, n + 1);
        *out = tpl_strn(d, n);
        return true;
    }
    buf b = BUF_INIT;
    text_slugify(&b, s.u.s, s.len);
    *out = from_buf(ar, &b, false);
    return true;
}

static bool is_absolute_url(const char *s)
{
    if (!strncmp(s, "//", 2))
        return true;
    const char *p = s;
    while (*p && (isalnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.'))
        p++;
    return p != s && *p == ':';
}

void tpl_split_base(const char *base, tpl_base *out)
{
    const char *p = base + url_origin_len(base);
    out->url = base;
    out->origin_len = (size_t)(p - base);
    out->path = *p ? p : "/";
    out->path_len = strlen(out->path);
}

static bool url_filter(tpl_render_state *r, tpl_value v, bool absolute, tpl_value *out)
{
    arena *ar = tpl_r_arena(r);
    tpl_value s = tpl_to_string(ar, v);
    if (is_absolute_url(s.u.s)) {
        *out = s;
        return true;
    }
    const tpl_base *b = tpl_r_base(r);
    size_t plen = b->path_len;
    /* origin + s when s is already under the base path, else origin + path
     * (with its '/') + s without its leading slashes */
    bool under = s.len >= plen && s.u.s[0] == '/' && plen > 1 && !memcmp(s.u.s, b->path, plen);
    const char *rest = s.u.s;
    if (!under)
        while (*rest == '/')
            rest++;
    size_t rlen = s.len - (size_t)(rest - s.u.s);
    bool slash = !under && b->path[plen - 1] != '/';
    size_t olen = absolute ? b->origin_len : 0;
    size_t n = olen + (under ? 0 : plen + slash) + rlen;
    char *d;
    *out = arena_string(ar, n, false, &d);
    copy_bytes(d, b->url, olen);
    d += olen;
    if (!under) {
        copy_bytes(d, b->path, plen);
        d += plen;
        if (slash)
            *d++ = '/';
    }
    copy_bytes(d, rest, rlen);
    return true;
}

FILTER_FN(absolute_url)
{
    (void)a;
    (void)at;
    return url_filter(r, v, true, out);
}

FILTER_FN(relative_url)
{
    (void)a;
    (void)at;
    return url_filter(r, v, false, out);
}

/* HTML with the site's own links made absolute: every href="/…" and
 * src="/…" (not "//…") gets the base URL's scheme and host, for HTML that
 * is read elsewhere (a feed reader, a mail). The URLs sheaf writes into a
 * page already carry the base path. Keeps the input's safety. */
FILTER_FN(absolute_links)
{
    (void)a;
    (void)at;
    tpl_value s = tpl_to_string(tpl_r_arena(r), v);
    const tpl_base *base = tpl_r_base(r);
    buf b = tpl_r_take_buf(r);
    buf_grow(&b, s.len + 1);
    /* each '=' that may end href or src and start "/…": p is what is
     * copied up to, q where the search for the next '=' goes on */
    const char *p = s.u.s, *q = s.u.s, *end = s.u.s + s.len, *e;
    while ((e = memchr(q, '=', (size_t)(end - q)))) {
        q = e + 1;
        if (end - e < 3 || e[1] != '"' || e[2] != '/')
            continue;
        const char *name = e - s.u.s >= 4 && !memcmp(e - 4, "href", 4) ? e - 4
                           : e - s.u.s >= 3 && !memcmp(e - 3, "src", 3) ? e - 3
                                                                         : NULL;
        if (!name)
            continue;
        if (end - e > 3 && e[3] == '/') /* "//host/…" */
            continue;
        if (name > s.u.s && (isalnum((unsigned char)name[-1]) || name[-1] == '-')) /* data-href=… */
            continue;
        buf_put(&b, p, (size_t)(e + 2 - p));
        buf_put(&b, base->url, base->origin_len);
        p = q = e + 2;
    }
    buf_put(&b, p, (size_t)(end - p));
    *out = keep_buf(r, &b, s.flags & TPL_SAFE);
    return true;
}

/* A page's HTML as the plain text a reader sees (util/html.h): a formula
 * once, as its TeX; footnote marks and hidden parts left out; one line. For
 * descriptions, feed summaries and snippets. Not safe: it is text. */
FILTER_FN(plaintext)
{
    (void)a;
    (void)at;
    tpl_value s = tpl_to_string(tpl_r_arena(r), v);
    buf b = tpl_r_take_buf(r);
    html_plain_text(&b, s.u.s, s.len, false);
    *out = keep_buf(r, &b, false);
    return true;
}

FILTER_FN(group_by)
{
    arena *ar = tpl_r_arena(r);
    const tpl_list *l = want_iter(r, at, v);
    if (!l)
        return false;
    if (!a->given[0])
        return tpl_r_error(r, at, "group_by needs an attribute");
    tpl_value *keys = arena_alloc(ar, (l->len + 1) * sizeof *keys);
    size_t *counts = arena_calloc(ar, (l->len + 1) * sizeof *counts);
    size_t *gidx = arena_alloc(ar, (l->len + 1) * sizeof *gidx);
    size_t ng = 0;
    for (size_t i = 0; i < l->len; i++) {
        tpl_value k = attr_of(l->items[i], a->v[0]);
        size_t g;
        for (g = 0; g < ng; g++)
            if (tpl_value_equal(keys[g], k))
                break;
        if (g == ng)
            keys[ng++] = k;
        counts[g]++;
        gidx[i] = g;
    }
    tpl_list *o = tpl_list_new(ar, ng);
    tpl_list **lists = arena_alloc(ar, (ng + 1) * sizeof *lists);
    for (size_t g = 0; g < ng; g++) {
        lists[g] = tpl_list_new(ar, counts[g]);
        lists[g]->len = 0;
    }
    for (size_t i = 0; i < l->len; i++)
        lists[gidx[i]]->items[lists[gidx[i]]->len++] = l->items[i];
    for (size_t g = 0; g < ng; g++)
        o->items[g] = group_value(ar, keys[g], lists[g]);
    *out = tpl_list_value(o);
    return true;
}

FILTER_FN(limit)
{
    arena *ar = tpl_r_arena(r);
    const tpl_list *l = want_iter(r, at, v);
    if (!l)
        return false;
    int64_t n = 0;
    if (!a->given[0])
        return tpl_r_error(r, at, "limit needs a number");
    if (!want_int(r, at, "limit", a->v[0], &n))
        return false;
    if (n < 0)
        n = 0;
    size_t k = (size_t)n < l->len ? (size_t)n : l->len;
    *out = list_of(ar, l->items, k);
    return true;
}

FILTER_FN(xml_escape)
{
    (void)a;
    (void)at;
    tpl_value s = tpl_to_string(tpl_r_arena(r), v);
    buf b = tpl_r_take_buf(r);
    tpl_escape_xml(&b, s.u.s, s.len); /* whole blocks between the replacements */
    xml_forbidden_strip(&b); /* not even &#7; is XML: util/xmlchar.h */
    *out = keep_buf(r, &b, true);
    return true;
}

/* filters_sheaf: sheaf's own filters (date, rfc3339, slugify, absolute_url,
 * relative_url, group_by, limit, xml_escape), listed with Jinja2's in
 * filters.c's table. */
#include <ctype.h>
#include <string.h>

#include "tpl/builtins.h"
#include "util/date.h"
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
    buf b = BUF_INIT;
    const char *p = s.u.s, *end = s.u.s + s.len;
    while (p < end) {
        const char *q = p;
        size_t skip = 0;
        while (q < end) {
            if ((q[0] == 'h' && end - q >= 7 && !memcmp(q, "href=\"/", 7)) ||
                (q[0] == 's' && end - q >= 6 && !memcmp(q, "src=\"/", 6))) {
                skip = q[0] == 'h' ? 6 : 5;
                if (q + skip + 1 < end && q[skip + 1] == '/') { /* "//host/…" */
                    q++;
                    skip = 0;
                    continue;
                }
                if (q > s.u.s && (isalnum((unsigned char)q[-1]) || q[-1] == '-')) { /* data-href=… */
                    q++;
                    skip = 0;
                    continue;
                }
                break;
            }
            q++;
        }
        buf_put(&b, p, (size_t)(q - p));
        if (q >= end)
            break;
        buf_put(&b, q, skip);
        buf_put(&b, base->url, base->origin_len);
        p = q + skip;
    }
    *out = from_buf(tpl_r_arena(r), &b, s.flags & TPL_SAFE);
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
    buf b = BUF_INIT;
    for (size_t i = 0; i < s.len; i++) {
        switch (s.u.s[i]) {
        case '&': buf_puts(&b, "&amp;"); break;
        case '<': buf_puts(&b, "&lt;"); break;
        case '>': buf_puts(&b, "&gt;"); break;
        case '"': buf_puts(&b, "&quot;"); break;
        case '\'': buf_puts(&b, "&apos;"); break;
        default: tpl_putc(&b, (char)s.u.s[i]);
        }
    }
    xml_forbidden_strip(&b); /* not even &#7; is XML: util/xmlchar.h */
    *out = from_buf(tpl_r_arena(r), &b, true);
    return true;
}

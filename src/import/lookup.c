/* import/lookup.c: finding the page an old link names — by its old URL
 * (with or without the base path, the old host, index.html, %-escapes) or by its
 * source file — and the relative .md path from one imported page to
 * another, which sheaf checks. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "import/internal.h"
#include "util/url.h"

const char *import_relative(imp *m, const import_page *from, const char *dest_rel)
{
    const char *a = from->dest_rel, *b = dest_rel;
    /* the common folders */
    size_t common = 0;
    for (size_t i = 0; a[i] && a[i] == b[i]; i++)
        if (a[i] == '/')
            common = i + 1;
    buf r = BUF_INIT;
    for (const char *q = a + common; *q; q++)
        if (*q == '/')
            buf_puts(&r, "../");
    buf_puts(&r, b + common);
    const char *s = arena_strdup(m->a, r.data);
    buf_release(&r);
    return s;
}

/* "/a/b/index.html" → "/a/b/"; the old base path and host taken off */
static size_t url_key(imp *m, const char *url, size_t n, buf *out)
{
    if (m->base_url) {
        size_t bn = strlen(m->base_url);
        if (n >= bn && !strncmp(url, m->base_url, bn)) {
            buf_putc(out, '/');
            url_percent_decode(out, url + bn, n - bn, false);
            return out->len;
        }
    }
    if (!n || url[0] != '/' || (n > 1 && url[1] == '/'))
        return 0;
    size_t bp = strlen(m->base_path);
    if (bp > 1 && n >= bp && !strncmp(url, m->base_path, bp)) {
        url += bp - 1;
        n -= bp - 1;
    }
    /* old URLs are kept decoded ("/web dev/x/"), as the folders they name */
    url_percent_decode(out, url, n, false);
    if (out->len >= 11 && !strcmp(out->data + out->len - 11, "/index.html"))
        buf_truncate(out, out->len - 10);
    return out->len;
}

/* Does old URL u answer key k ("/a/b/" also as "/a/b")? */
static bool url_is(const char *u, const buf *k)
{
    size_t un = u ? strlen(u) : 0;
    return u && (!strcmp(u, k->data) || (un == k->len + 1 && u[un - 1] == '/' && !strncmp(u, k->data, k->len)));
}

import_page *import_page_by_url(imp *m, const char *url, size_t n)
{
    buf k = BUF_INIT;
    import_page *r = NULL;
    if (url_key(m, url, n, &k)) {
        for (size_t i = 0; i < m->npages && !r; i++)
            if (url_is(m->pages[i]->old_url, &k))
                r = m->pages[i];
        /* then a draft's: the link was broken on the old site, and the
         * build says why (a draft) instead of "no such file" */
        for (size_t i = 0; i < m->npages && !r; i++)
            if (url_is(m->pages[i]->hidden_url, &k))
                r = m->pages[i];
    }
    buf_release(&k);
    return r;
}

import_page *import_page_by_src(imp *m, const char *src_rel, size_t n)
{
    for (size_t i = 0; i < m->npages; i++)
        if (strlen(m->pages[i]->src_rel) == n && !strncmp(m->pages[i]->src_rel, src_rel, n))
            return m->pages[i];
    return NULL;
}

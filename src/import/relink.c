/* import/relink.c: Markdown links and images written root-relative to
 * another page's old URL (or relative to the page's old URL) become
 * relative .md links, which sheaf checks. Code blocks and code spans are
 * left alone. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "import/internal.h"
#include "site/site.h"

/* A URL relative to the page's old one ("../b/" in /posts/a/ is
 * /posts/b/), resolved as a browser does; NULL for one with a scheme, a
 * fragment or query alone, a Markdown file (sheaf reads that relative to
 * the source itself), or one climbing above the root. */
static const char *resolve_relative(imp *m, const import_page *p, const char *u, size_t n)
{
    if (!n || !p->old_url || strchr("/#?", u[0]) || site_markdown_ext(arena_strndup(m->a, u, n)))
        return NULL;
    size_t colon = strcspn(arena_strndup(m->a, u, n), ":/");
    if (colon < n && u[colon] == ':')
        return NULL;
    const char *base = p->old_url;
    size_t dir = (size_t)(strrchr(base, '/') - base); /* old URLs start with '/' */
    buf b = BUF_INIT;
    buf_put(&b, base, dir);
    size_t at = 0;
    while (at < n) {
        size_t k = at;
        while (k < n && u[k] != '/')
            k++;
        size_t sn = k - at;
        if (sn == 2 && u[at] == '.' && u[at + 1] == '.') {
            if (!b.len) {
                buf_release(&b);
                return NULL;
            }
            while (b.len && b.data[b.len - 1] != '/')
                b.len--;
            b.len--; /* the '/' */
        } else if (!(sn == 1 && u[at] == '.') && sn) {
            buf_putc(&b, '/');
            buf_put(&b, u + at, sn);
        }
        at = k + 1;
    }
    /* "x/", "x/." and "x/.." name a folder */
    if (u[n - 1] == '/' || u[n - 1] == '.' || !b.len)
        buf_putc(&b, '/');
    const char *r = arena_strndup(m->a, b.data, b.len);
    buf_release(&b);
    return r;
}

/* A link destination starting at s[i] (after "](" or "]: "): rewritten when
 * it is an old URL of a page, root-relative, absolute or relative to the
 * page's old URL. */
static size_t link_dest(imp *m, import_page *p, const char *s, size_t n, size_t i, buf *out)
{
    size_t e = i;
    while (e < n && !isspace((unsigned char)s[e]) && s[e] != ')')
        e++;
    size_t un = e - i;
    const char *hash = memchr(s + i, '#', un);
    size_t pn = hash ? (size_t)(hash - (s + i)) : un;
    import_page *to = NULL;
    if (pn && (s[i] == '/' || (m->base_url && !strncmp(s + i, m->base_url, strlen(m->base_url))))) {
        to = import_page_by_url(m, s + i, pn);
    } else if (pn && !memchr(s + i, '?', pn)) {
        const char *abs = resolve_relative(m, p, s + i, pn);
        to = abs ? import_page_by_url(m, abs, strlen(abs)) : NULL;
    }
    if (!to)
        return 0;
    import_put_link(m, p, out, to, hash ? arena_strndup(m->a, hash, un - pn) : NULL);
    return un;
}

void import_relink(imp *m, import_page *p, const char *s, size_t n, buf *out)
{
    size_t i = 0;
    char fch = 0;
    size_t flen = 0;
    bool bol = true;
    while (i < n) {
        if (bol) {
            char ch = 0;
            size_t f = import_fence_at(s, n, i, &ch);
            if (!import_fence_toggle(f, ch, &flen, &fch) && !flen) {
                /* [label]: /url */
                size_t k = import_indent_end(s, i, n);
                if (k < n && s[k] == '[') {
                    const char *c = memchr(s + k, ']', n - k);
                    if (c && (size_t)(c - s) + 2 < n && c[1] == ':' && c[2] == ' ') {
                        size_t d = (size_t)(c - s) + 3;
                        while (d < n && s[d] == ' ')
                            d++;
                        buf_put(out, s + i, d - i);
                        size_t used = link_dest(m, p, s, n, d, out);
                        i = d + used;
                        bol = false;
                        continue;
                    }
                }
            }
        }
        bol = s[i] == '\n';
        if (flen) {
            buf_putc(out, s[i++]);
            continue;
        }
        if (s[i] == '`') {
            /* a code span: as written */
            size_t stop = import_code_span_end(s, n, i);
            buf_put(out, s + i, stop - i);
            i = stop;
            continue;
        }
        if (s[i] == ']' && i + 1 < n && s[i + 1] == '(') {
            buf_puts(out, "](");
            i += 2;
            i += link_dest(m, p, s, n, i, out);
            continue;
        }
        buf_putc(out, s[i++]);
    }
}

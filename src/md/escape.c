/* md/escape.c: writing HTML as cmark-gfm's renderer writes it — the
 * escaping of text and attributes (houdini_escape_html0 with secure = 0),
 * of URLs (houdini_escape_href) and its unsafe-URL filter — plus the small
 * growable arrays the walk collects into. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "md/internal.h"
#include "util/vec.h"
#include "util/xalloc.h"

static const char *escape_of(char c)
{
    switch (c) {
    case '"': return "&quot;";
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    default: return NULL;
    }
}

void md_put_escaped(buf *b, const char *s, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        const char *rep = escape_of(s[i]);
        if (!rep)
            continue;
        buf_put(b, s + start, i - start);
        buf_puts(b, rep);
        start = i + 1;
    }
    buf_put(b, s + start, n - start);
}

void md_escape_html(buf *out, const char *s, size_t n) { md_put_escaped(out, s, n); }

/* The same for a NUL-terminated string (most text): strcspn skips the
 * plain stretches many bytes at a time. */
void md_put_escaped_cstr(buf *b, const char *s)
{
    if (!s)
        return;
    for (;;) {
        size_t k = strcspn(s, "\"&<>");
        buf_put(b, s, k);
        if (!s[k])
            return;
        buf_puts(b, escape_of(s[k]));
        s += k + 1;
    }
}

/* Bytes houdini_escape_href writes as they are. */
static bool href_safe(unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return c != 0 && strchr("!#$%()*+,-./:;=?@_~", c) != NULL;
}

void md_put_href(buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n; i++) {
        if (href_safe(p[i])) {
            buf_putc(b, (char)p[i]);
        } else if (p[i] == '&') {
            buf_puts(b, "&amp;");
        } else if (p[i] == '\'') {
            buf_puts(b, "&#x27;");
        } else {
            char e[3] = { '%', hex[p[i] >> 4], hex[p[i] & 15] };
            buf_put(b, e, 3);
        }
    }
}

static bool starts_ci(const char *s, const char *prefix)
{
    return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

bool md_dangerous_url(const char *u)
{
    static const char *const ok[] = { "data:image/png", "data:image/gif", "data:image/jpeg",
                                      "data:image/webp" };
    static const char *const bad[] = { "javascript:", "vbscript:", "file:", "data:" };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        if (starts_ci(u, ok[i]))
            return false;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (starts_ci(u, bad[i]))
            return true;
    return false;
}

void md_cr(buf *b)
{
    if (b->len && b->data[b->len - 1] != '\n')
        buf_putc(b, '\n');
}

void *md_vec_push(md_vec *x)
{
    if (x->n == x->cap)
        x->v = vec_grow(x->v, &x->cap, 8, x->size);
    void *p = (char *)x->v + x->size * x->n++;
    memset(p, 0, x->size);
    return p;
}

void *md_vec_to_arena(md_vec *x, arena *a)
{
    void *p = NULL;
    if (x->n) {
        p = arena_alloc(a, x->n * x->size);
        memcpy(p, x->v, x->n * x->size);
    }
    free(x->v);
    x->v = NULL;
    return p;
}

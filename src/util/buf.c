/* buf: growable byte buffer (see buf.h). */
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

char buf_empty_[1];

void buf_grow(buf *b, size_t n)
{
    if (b->len + n + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + n + 1)
        cap = cap / 2 * 3 + 16;
    if (b->cap == 0) {
        char *p = xmalloc(cap);
        memcpy(p, b->data, b->len + 1);
        b->data = p;
    } else {
        b->data = xrealloc(b->data, cap);
    }
    b->cap = cap;
}

/* The slow paths of the inline buf_put and buf_putc (buf.h): grow first. */
void buf_put_grow_(buf *b, const void *p, size_t n)
{
    if (n == 0)
        return;
    buf_grow(b, n);
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void buf_putc_grow_(buf *b, int c)
{
    buf_grow(b, 1);
    b->data[b->len++] = (char)c;
    b->data[b->len] = '\0';
}

void buf_vprintf(buf *b, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(b->data + b->len, b->cap ? b->cap - b->len : 0, fmt, cp);
    va_end(cp);
    if (n < 0)
        return;
    if ((size_t)n + 1 > (b->cap ? b->cap - b->len : 0)) {
        buf_grow(b, (size_t)n);
        vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    }
    b->len += (size_t)n;
}

void buf_printf(buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void buf_truncate(buf *b, size_t n)
{
    if (n >= b->len)
        return;
    b->len = n;
    b->data[n] = '\0';
}

void buf_reset(buf *b)
{
    if (b->cap)
        b->data[0] = '\0';
    b->len = 0;
}

void buf_release(buf *b)
{
    if (b->cap)
        free(b->data);
    b->data = buf_empty_;
    b->len = b->cap = 0;
}

char *buf_detach(buf *b, size_t *len)
{
    char *p = b->cap ? b->data : xstrdup("");
    if (len)
        *len = b->len;
    b->data = buf_empty_;
    b->len = b->cap = 0;
    return p;
}

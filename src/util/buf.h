/* buf: a growable, owning byte buffer.
 *
 * `data` is never NULL and always NUL-terminated, so a buf can be handed to
 * any C string function. Start with BUF_INIT; buf_reset keeps the capacity,
 * buf_release frees it, buf_detach hands the bytes to the caller. */
#ifndef SHEAF_BUF_H
#define SHEAF_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct buf {
    char *data;
    size_t len;
    size_t cap; /* 0 while data points at the shared empty string */
} buf;

extern char buf_empty_[1];
#define BUF_INIT { buf_empty_, 0, 0 }

/* Makes room for at least n more bytes (plus the NUL). */
void buf_grow(buf *b, size_t n);
void buf_put_grow_(buf *b, const void *p, size_t n);
void buf_putc_grow_(buf *b, int c);
/* memcpy for the short copies of the hot paths (template text between
 * tags, filter results): up to 16 bytes as two overlapping moves inline,
 * longer ones through memcpy. (GCC, inlining it where the source is a
 * 4-byte array, warns about the 8-byte branch it cannot see is not taken.) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
static inline void copy_bytes(void *d, const void *s, size_t n)
{
    unsigned char *dd = d;
    const unsigned char *ss = s;
    if (n > 16) {
        memcpy(dd, ss, n);
    } else if (n >= 8) {
        uint64_t a, z;
        memcpy(&a, ss, 8);
        memcpy(&z, ss + n - 8, 8);
        memcpy(dd, &a, 8);
        memcpy(dd + n - 8, &z, 8);
    } else if (n >= 4) {
        uint32_t a, z;
        memcpy(&a, ss, 4);
        memcpy(&z, ss + n - 4, 4);
        memcpy(dd, &a, 4);
        memcpy(dd + n - 4, &z, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            dd[i] = ss[i];
    }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* Appending is inline while there is room: it is on every hot path. */
static inline void buf_put(buf *b, const void *p, size_t n)
{
    if (b->len + n < b->cap) {
        copy_bytes(b->data + b->len, p, n);
        b->len += n;
        b->data[b->len] = '\0';
    } else {
        buf_put_grow_(b, p, n);
    }
}
static inline void buf_puts(buf *b, const char *s) { buf_put(b, s, strlen(s)); }
static inline void buf_putc(buf *b, int c)
{
    if (b->len + 1 < b->cap) {
        b->data[b->len++] = (char)c;
        b->data[b->len] = '\0';
    } else {
        buf_putc_grow_(b, c);
    }
}
void buf_printf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Sets the length to n (n <= len). */
void buf_truncate(buf *b, size_t n);
/* Empties the buffer, keeping its memory. */
void buf_reset(buf *b);
/* Frees the memory; the buffer is BUF_INIT again. */
void buf_release(buf *b);
/* Returns the bytes (NUL-terminated, never NULL); the caller frees them with
 * free(). The buffer is BUF_INIT again. */
char *buf_detach(buf *b, size_t *len);

#endif

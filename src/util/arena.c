/* arena: bump allocation in a chain of blocks (see arena.h).
 *
 * struct arena is in arena.h (for the inline arena_alloc). Blocks grow
 * geometrically up to 1 MiB; a request larger than a quarter of
 * the block size gets a block of its own so big strings do not waste space. */
#include "util/arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define FIRST_BLOCK (16 * 1024)
#define MAX_BLOCK (1024 * 1024)

typedef struct arena_block {
    struct arena_block *next;
    size_t size;
    int big; /* a block of its own for one large object */
    _Alignas(16) unsigned char data[];
} block;

arena *arena_new(void)
{
    arena *a = xcalloc(1, sizeof *a);
    a->next_size = FIRST_BLOCK;
    return a;
}

void arena_free(arena *a)
{
    if (!a)
        return;
    block *b = a->head;
    while (b) {
        block *n = b->next;
        free(b);
        b = n;
    }
    free(a);
}

static block *new_block(size_t size)
{
    block *b = xmalloc(sizeof *b + size);
    b->next = NULL;
    b->big = 0;
    b->size = size;
    return b;
}

/* arena_alloc when the current block has no room. */
void *arena_alloc_slow_(arena *a, size_t n)
{
    n = arena_round_(n);
    a->total += n;
    if (n > a->next_size / 4) {
        /* A big object gets its own block, placed behind the current one so
         * the current block's free space stays usable. */
        block *b = new_block(n);
        b->big = 1;
        if (a->head) {
            b->next = a->head->next;
            a->head->next = b;
        } else {
            a->head = b;
            a->next = a->end = b->data + n;
        }
        return b->data;
    }
    block *b = new_block(a->next_size);
    if (a->next_size < MAX_BLOCK)
        a->next_size *= 2;
    b->next = a->head;
    a->head = b;
    a->next = b->data + n;
    a->end = b->data + b->size;
    return b->data;
}

void *arena_calloc(arena *a, size_t n)
{
    void *p = arena_alloc(a, n);
    memset(p, 0, n);
    return p;
}

char *arena_strndup(arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

/* arena_printf's common case, a format whose only conversions are up to 8
 * of %s, %.*s and %zu ("%spage/%zu/", "%s%.*s%zu%s"): the pieces
 * concatenated directly, without vsnprintf's two passes over the format
 * (≈ 3,000 instructions a call). NULL when the format has another
 * conversion, or a string argument is NULL (printf's own business). Reads
 * the arguments from ap, a copy the caller ends. */
static char *concat_strings(arena *a, const char *fmt, va_list ap)
{
    const char *args[8];
    size_t lens[8], n = 0, total = 0;
    char digits[8][24];
    for (const char *f = fmt; *f; f++) {
        if (*f != '%') {
            total++;
            continue;
        }
        if (n == 8)
            return NULL;
        if (f[1] == 's') {
            f++;
            args[n] = va_arg(ap, const char *);
            if (!args[n])
                return NULL;
            lens[n] = strlen(args[n]);
        } else if (f[1] == '.' && f[2] == '*' && f[3] == 's') {
            f += 3;
            int prec = va_arg(ap, int);
            args[n] = va_arg(ap, const char *);
            if (!args[n])
                return NULL;
            lens[n] = prec < 0 ? strlen(args[n]) : strnlen(args[n], (size_t)prec);
        } else if (f[1] == 'z' && f[2] == 'u') {
            f += 2;
            size_t v = va_arg(ap, size_t), k = sizeof digits[n];
            do {
                digits[n][--k] = (char)('0' + v % 10);
                v /= 10;
            } while (v);
            args[n] = digits[n] + k;
            lens[n] = sizeof digits[n] - k;
        } else {
            return NULL;
        }
        total += lens[n++];
    }
    char *p = arena_alloc(a, total + 1), *w = p;
    size_t k = 0;
    for (const char *f = fmt; *f; f++) {
        if (*f == '%') {
            memcpy(w, args[k], lens[k]);
            w += lens[k++];
            f += f[1] == 's' ? 1 : f[1] == '.' ? 3 : 2;
        } else {
            *w++ = *f;
        }
    }
    *w = '\0';
    return p;
}

char *arena_printf(arena *a, const char *fmt, ...)
{
    va_list ap, cp;
    va_start(ap, fmt);
    va_copy(cp, ap);
    char *quick = concat_strings(a, fmt, cp);
    va_end(cp);
    if (quick) {
        va_end(ap);
        return quick;
    }
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    char *p = arena_alloc(a, n > 0 ? (size_t)n + 1 : 1);
    if (n >= 0)
        vsnprintf(p, (size_t)n + 1, fmt, ap);
    else
        p[0] = '\0';
    va_end(ap);
    return p;
}

void arena_shrink(arena *a, void *p, size_t old_n, size_t new_n)
{
    size_t o = arena_round_(old_n), k = arena_round_(new_n);
    if (k >= o || (unsigned char *)p + o != a->next)
        return;
    a->next -= o - k;
    a->total -= o - k;
}

int arena_give_back(arena *a, void *p, size_t n)
{
    size_t o = arena_round_(n);
    if ((unsigned char *)p + o != a->next)
        return 0;
    a->next -= o;
    a->total -= o;
    return 1;
}

void arena_reset(arena *a)
{
    /* Keep the newest regular block (the largest) for reuse. */
    block *keep = NULL, *b = a->head;
    while (b) {
        block *n = b->next;
        if (!keep && !b->big)
            keep = b;
        else
            free(b);
        b = n;
    }
    if (keep)
        keep->next = NULL;
    a->head = keep;
    a->next = keep ? keep->data : NULL;
    a->end = keep ? keep->data + keep->size : NULL;
    a->total = 0;
}

size_t arena_used(const arena *a)
{
    return a->total;
}

/* md/mem.c: cmark-gfm's memory for one page, from a bump arena.
 *
 * cmark-gfm allocates every node, every text buffer and every growth of
 * one with calloc/realloc and frees each again; a page makes thousands of
 * them, and malloc/free were a fifth of the Markdown stage's instructions.
 * Through cmark_parser_new_with_mem it takes an allocator instead: here a
 * page's allocations are bumped out of a few large chunks and all dropped
 * at once when the page is done. cmark_mem's functions take no context, so
 * the arena of the page being rendered is found through a thread-local
 * pointer (pages render on several threads at once, one page per thread at
 * a time). Each thread keeps its chunks for its next page; they are freed
 * when the thread ends.
 *
 * realloc grows the last allocation in place when it can (cmark's buffers
 * grow at the end of the arena most of the time), else copies; free gives
 * back only the last allocation. Out of memory aborts, as xmalloc does.
 *
 * Under AddressSanitizer the arena is left out (cmark-gfm's own allocator
 * is used and the tree freed node by node), so that every allocation is
 * one ASan watches. */
#include <pthread.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md/internal.h"
#include "util/xalloc.h"

#if defined(__SANITIZE_ADDRESS__)
#define NO_ARENA 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_ARENA 1
#endif
#endif

typedef struct chunk {
    struct chunk *next;
    size_t cap, used;
    alignas(max_align_t) unsigned char data[];
} chunk;

/* Before each allocation: its size (the header keeps the data aligned). */
typedef struct header {
    alignas(max_align_t) size_t size;
} header;

typedef struct page_mem {
    chunk *first, *cur;
    unsigned char *last; /* the last allocation's data, for realloc and free */
} page_mem;

static _Thread_local page_mem *current;

static pthread_key_t kept_key; /* a thread's chunks between pages */
static pthread_once_t kept_once = PTHREAD_ONCE_INIT;

static void free_chunks(void *p)
{
    for (chunk *c = p, *next; c; c = next) {
        next = c->next;
        free(c);
    }
}

static void make_key(void)
{
    if (pthread_key_create(&kept_key, free_chunks) != 0) {
        fputs("sheaf: cannot create a thread-local key\n", stderr);
        abort();
    }
}

#define ROUND(n) (((n) + sizeof(header) - 1) / sizeof(header) * sizeof(header))

static chunk *new_chunk(size_t want)
{
    size_t cap = 256 * 1024;
    while (cap < want)
        cap *= 2;
    chunk *c = xmalloc(sizeof(chunk) + cap);
    c->next = NULL;
    c->cap = cap;
    c->used = 0;
    return c;
}

/* bump's way when the current chunk has no room (or the size overflows):
 * on to the next chunk, made when there is none. */
__attribute__((noinline)) static void *bump_slow(size_t size)
{
    page_mem *m = current;
    size_t need = sizeof(header) + ROUND(size ? size : 1);
    if (need < size) { /* overflow */
        fputs("sheaf: out of memory\n", stderr);
        abort();
    }
    chunk *c = m->cur;
    while (c->used + need > c->cap) {
        if (!c->next)
            c->next = new_chunk(need);
        c = c->next;
        c->used = 0;
    }
    m->cur = c;
    header *h = (header *)(c->data + c->used);
    h->size = size;
    c->used += need;
    m->last = (unsigned char *)(h + 1);
    return h + 1;
}

/* An allocation: inline, as it runs once for every node and buffer of a
 * page, with the chunk's room tested once. */
static inline void *bump(size_t size)
{
    page_mem *m = current;
    chunk *c = m->cur;
    size_t need = sizeof(header) + ROUND(size ? size : 1);
    if (need < size || c->cap - c->used < need)
        return bump_slow(size);
    header *h = (header *)(c->data + c->used);
    h->size = size;
    c->used += need;
    m->last = (unsigned char *)(h + 1);
    return h + 1;
}

static void *mem_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) {
        fputs("sheaf: out of memory\n", stderr);
        abort();
    }
    void *p = bump(n * size);
    memset(p, 0, n * size);
    return p;
}

static void *mem_realloc(void *p, size_t size)
{
    if (!p)
        return bump(size);
    header *h = (header *)p - 1;
    page_mem *m = current;
    if (p == m->last) {
        /* the last allocation: grow (or shrink) it where it is */
        chunk *c = m->cur;
        size_t start = (size_t)((unsigned char *)h - c->data);
        size_t need = sizeof(header) + ROUND(size ? size : 1);
        if (start + need <= c->cap) {
            c->used = start + need;
            h->size = size;
            return p;
        }
    }
    if (size <= h->size) {
        h->size = size;
        return p;
    }
    void *q = bump(size);
    memcpy(q, p, h->size);
    return q;
}

static void mem_free(void *p)
{
    page_mem *m = current;
    if (p && p == m->last) {
        header *h = (header *)p - 1;
        m->cur->used = (size_t)((unsigned char *)h - m->cur->data);
        m->last = NULL;
    }
}

static cmark_mem allocator = { mem_calloc, mem_realloc, mem_free };

/* The page's arena for this thread: set up by md_mem_begin, dropped by
 * md_mem_end (both on the rendering thread, around one page). */
cmark_mem *md_mem_begin(void)
{
#ifdef NO_ARENA
    return cmark_get_default_mem_allocator();
#endif
    pthread_once(&kept_once, make_key);
    page_mem *m = xmalloc(sizeof *m);
    m->first = pthread_getspecific(kept_key);
    if (!m->first)
        m->first = new_chunk(0);
    pthread_setspecific(kept_key, NULL);
    m->first->used = 0;
    m->cur = m->first;
    m->last = NULL;
    current = m;
    return &allocator;
}

void md_mem_end(cmark_node *doc)
{
#ifdef NO_ARENA
    cmark_node_free(doc);
    return;
#endif
    (void)doc; /* it goes with the arena: no need to walk it freeing each node */
    page_mem *m = current;
    current = NULL;
    /* keep the chunks for this thread's next page */
    pthread_setspecific(kept_key, m->first);
    free(m);
}

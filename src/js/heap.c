/* js/heap.c: Duktape's allocator with a budget (see heap.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "js/heap.h"
#include "util/xalloc.h"

/* Each block starts with a header that keeps the alignment: its size, and
 * its place in the heap's list of live blocks. A jump out of Duktape can
 * leave a block it had just allocated linked to none of its own lists, so
 * duk_destroy_heap would not free it; the list lets js_heap_destroy free
 * whatever Duktape left (found by fuzz_formula under LeakSanitizer). */
typedef union head {
    struct {
        union head *prev, *next;
        size_t size;
    } b;
    max_align_t align;
} head;

struct js_heap {
    size_t used, cap;       /* bytes held; cap 0: none */
    long long deadline_ns;  /* thread CPU time; 0: none */
    unsigned calls;
    bool out_of_memory, out_of_time;
    jmp_buf *escape;        /* where to go past a bound; NULL: return NULL */
    head *live;             /* the blocks allocated and not freed */
};

static void link_block(js_heap *h, head *p)
{
    p->b.prev = NULL;
    p->b.next = h->live;
    if (h->live)
        h->live->b.prev = p;
    h->live = p;
}

static void unlink_block(js_heap *h, head *p)
{
    if (p->b.prev)
        p->b.prev->b.next = p->b.next;
    else
        h->live = p->b.next;
    if (p->b.next)
        p->b.next->b.prev = p->b.prev;
}

static long long cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static bool refuse(js_heap *h, size_t more)
{
    if (!h->out_of_memory && !h->out_of_time) {
        if (h->cap && more > h->cap - h->used && more > 0)
            h->out_of_memory = true;
        else if (h->deadline_ns && ++h->calls >= 64) {
            h->calls = 0;
            h->out_of_time = cpu_ns() > h->deadline_ns;
        }
    }
    if ((h->out_of_memory || h->out_of_time) && h->escape)
        longjmp(*h->escape, 1);
    return h->out_of_memory || h->out_of_time;
}

static void *heap_alloc(void *udata, duk_size_t size)
{
    js_heap *h = udata;
    if (refuse(h, size) || size > SIZE_MAX - sizeof(head))
        return NULL;
    head *p = malloc(sizeof(head) + size);
    if (!p)
        return NULL;
    p->b.size = size;
    link_block(h, p);
    h->used += size;
    return p + 1;
}

static void heap_free(void *udata, void *ptr)
{
    js_heap *h = udata;
    if (!ptr)
        return;
    head *p = (head *)ptr - 1;
    h->used -= p->b.size;
    unlink_block(h, p);
    free(p);
}

static void *heap_realloc(void *udata, void *ptr, duk_size_t size)
{
    js_heap *h = udata;
    if (!ptr)
        return heap_alloc(udata, size);
    head *p = (head *)ptr - 1;
    size_t old = p->b.size;
    if (size == 0) { /* Duktape's contract: free, and return NULL */
        heap_free(udata, ptr);
        return NULL;
    }
    if ((size > old && refuse(h, size - old)) || size > SIZE_MAX - sizeof(head))
        return NULL;
    unlink_block(h, p);
    head *q = realloc(p, sizeof(head) + size);
    if (!q) {
        link_block(h, p);
        return NULL;
    }
    link_block(h, q);
    q->b.size = size;
    h->used = h->used - old + size;
    return q + 1;
}

static void fatal(void *udata, const char *msg)
{
    (void)udata;
    fprintf(stderr, "sheaf: the JavaScript engine failed: %s\n", msg ? msg : "?");
    abort();
}

duk_context *js_heap_create(js_heap **hp)
{
    js_heap *h = xcalloc(1, sizeof *h);
    duk_context *ctx = duk_create_heap(heap_alloc, heap_realloc, heap_free, h, fatal);
    if (!ctx) {
        free(h);
        h = NULL;
    }
    *hp = h;
    return ctx;
}

void js_heap_destroy(duk_context *ctx, js_heap *h)
{
    if (!h)
        return;
    h->escape = NULL;
    h->cap = 0;
    h->deadline_ns = 0;
    h->out_of_memory = h->out_of_time = false;
    if (ctx)
        duk_destroy_heap(ctx);
    /* what a jump out of Duktape left off its lists (a spent engine) */
    for (head *p = h->live, *next; p; p = next) {
        next = p->b.next;
        free(p);
    }
    free(h);
}

void js_heap_arm(js_heap *h, size_t more, long cpu_ms, jmp_buf *escape)
{
    h->cap = h->used + more;
    h->deadline_ns = cpu_ns() + (long long)cpu_ms * 1000000LL;
    h->calls = 0;
    h->escape = escape;
}

void js_heap_disarm(js_heap *h, bool *out_of_memory, bool *out_of_time)
{
    h->escape = NULL;
    *out_of_memory = h->out_of_memory;
    *out_of_time = h->out_of_time;
    h->cap = 0;
    h->deadline_ns = 0;
    h->out_of_memory = h->out_of_time = false;
}

size_t js_heap_used(const js_heap *h) { return h->used; }

bool js_run_source(duk_context *ctx, const char *src, size_t len, const char *name, buf *error)
{
    duk_push_lstring(ctx, src, len);
    duk_push_string(ctx, name);
    if (duk_pcompile(ctx, 0) != 0 || duk_pcall(ctx, 0) != 0) {
        buf_printf(error, "%s: %s", name, duk_safe_to_string(ctx, -1));
        duk_pop(ctx);
        return false;
    }
    duk_pop(ctx);
    return true;
}

bool js_run_bytecode(duk_context *ctx, const unsigned char *bytecode, size_t len)
{
    if (!len)
        return false;
    duk_eval_string(ctx, "Duktape.version");
    bool same = duk_get_number(ctx, -1) == (double)DUK_VERSION;
    duk_pop(ctx);
    if (!same)
        return false;
    void *p = duk_push_fixed_buffer(ctx, len);
    memcpy(p, bytecode, len);
    duk_load_function(ctx);
    if (duk_pcall(ctx, 0) != 0) {
        duk_pop(ctx);
        return false;
    }
    duk_pop(ctx);
    return true;
}

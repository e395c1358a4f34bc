/* bulk: one accessor for each of a page's body, summary, search keys and
 * search text (bulk.h), and the lazy entries of the pages' maps that stand
 * for the body and the summary until a render reads them.
 *
 * In a one-shot build with the build cache every page has a site_bulk.
 * A page whose Markdown this process rendered has its bulk in memory or in
 * the spill file (spill.c) from the start (`here`). A page taken from the
 * cache has only the head of its entry read by the Markdown stage; the
 * first accessor call reads the rest from the cache (mdcache.c,
 * site_md_disk_bulk: its own HMAC checked; one that does not check is made
 * again from the source) into the room the Markdown stage reserved for it
 * in the spill file, or into memory without one. Loads take one of a few
 * locks, by page; `here` is set (release) once the fields are.
 *
 * The model gives a page's `content` and `summary` a stand-in naming the
 * bytes' length and hash (so the render record hashes the page without
 * reading it, and the same in a build that rendered the page and in one
 * that took it from the cache), and the map is marked lazy: the first
 * read of either entry, by any template, fills both (value.h). Its `toc`
 * likewise, in any page with headings: a stand-in naming them until the
 * first read of content, summary or toc makes the list. */
#include <pthread.h>
#include <string.h>

#include "site/bulk.h"
#include "site/mdcache.h"
#include "site/site.h"
#include "util/arena.h"
#include "util/hash.h"

#define LOCKS 64
static pthread_mutex_t locks[LOCKS] = {
#define L4 PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER
#define L16 L4, L4, L4, L4
    L16, L16, L16, L16
#undef L16
#undef L4
};

static void ensure(const site *s, const page *p)
{
    site_bulk *b = p->bulk;
    if (!b || atomic_load_explicit(&b->here, memory_order_acquire))
        return;
    pthread_mutex_t *mu = &locks[(size_t)p->index % LOCKS];
    pthread_mutex_lock(mu);
    if (!atomic_load_explicit(&b->here, memory_order_relaxed)) {
        site_md_disk_bulk(s->md_disk, s, (page *)p); /* on failure: empty, and an error said */
        atomic_store_explicit(&b->here, 1, memory_order_release);
    }
    pthread_mutex_unlock(mu);
}

/* The tables of contents made on first read (fill), for the hooked site:
 * one arena, one lock (the pages' locks are taken first). */
static pthread_mutex_t toc_lock = PTHREAD_MUTEX_INITIALIZER;
static arena *toc_arena;

static const char *field(const char *v, size_t n, size_t *len)
{
    *len = v ? n : 0;
    return v;
}

const char *site_page_body(const site *s, const page *p, size_t *len)
{
    ensure(s, p);
    return field(p->md.html, p->md.html_len, len);
}

const char *site_page_summary(const site *s, const page *p, size_t *len)
{
    ensure(s, p);
    return field(p->md.summary_html, p->md.summary_len, len);
}

const char *site_page_keys(const site *s, const page *p, size_t *len)
{
    ensure(s, p);
    return field(p->search_keys, p->search_keys_len, len);
}

const char *site_page_text(const site *s, const page *p, size_t *len)
{
    ensure(s, p);
    return field(p->search_text, p->search_text_len, len);
}

/* ---- the lazy entries of a page's map ------------------------------- */

/* The stand-ins are made for every page of every build (three a page):
 * written here digit by digit rather than by arena_printf, whose
 * vsnprintf cost more than the rest of the page's map (at 10,000 posts,
 * about 100 M instructions a build). The bytes are the same as "%zx" and
 * "%016llx" would write. */
#define STANDIN_MAX 64

static char *put(char *e, const char *s)
{
    size_t n = strlen(s);
    memcpy(e, s, n);
    return e + n;
}

/* x in lower-case hexadecimal, at least width digits (0: as few as
 * "%x" writes, one for 0). */
static char *hex(char *e, uint64_t x, int width)
{
    char d[16];
    int n = 0;
    do {
        d[n++] = "0123456789abcdef"[x & 15];
        x >>= 4;
    } while (x);
    while (n < width)
        d[n++] = '0';
    while (n)
        *e++ = d[--n];
    return e;
}

bool site_page_lazy_value(const site *s, arena *a, const page *p, bool summary, tpl_value *v)
{
    (void)s;
    const site_bulk *b = p->bulk;
    if (!b || p->md.nxlinks) /* the links to labels are filled in from the bytes */
        return false;
    size_t n = summary ? b->summary_len : b->html_len;
    uint64_t h = summary ? b->summary_hash : b->html_hash;
    if (n == SITE_BULK_NONE)
        n = 0, h = 0;
    char *t = arena_alloc(a, STANDIN_MAX), *e = t;
    e = put(e, summary ? "\x01sheaf-s:" : "\x01sheaf-b:");
    e = hex(e, n, 0);
    *e++ = ':';
    e = hex(e, h, 16);
    *e = 0;
    *v = tpl_safe_strn(t, (size_t)(e - t));
    return true;
}

/* The stand-ins' first bytes: no Markdown or template makes a string that
 * starts with \x01, but a `toc` is a list, so only its kind is looked at. */
#define TOC_STANDIN "\x01sheaf-t:"

bool site_page_lazy_toc(const site *s, arena *a, const page *p, tpl_value *v)
{
    if (!s->md_disk || !p->md.nheadings)
        return false;
    /* two hashes of one encoding (each field's length, then its bytes):
     * a different toc gives the same stand-in by accident only */
    uint64_t h1 = HASH_SEED, h2 = p->md.nheadings;
    for (size_t i = 0; i < p->md.nheadings; i++) {
        const md_heading *x = &p->md.headings[i];
        const char *f[2] = { x->id ? x->id : "", x->title ? x->title : "" };
        uint64_t w[3] = { (uint64_t)x->level, strlen(f[0]), strlen(f[1]) };
        h1 = hash_add(h1, w, sizeof w);
        h2 = hash_mix(h2, hash_blocks(w, sizeof w));
        for (int k = 0; k < 2; k++) {
            h1 = hash_add(h1, f[k], (size_t)w[k + 1]);
            h2 = hash_mix(h2, hash_blocks(f[k], (size_t)w[k + 1]));
        }
    }
    char *t = arena_alloc(a, STANDIN_MAX), *e = t;
    e = put(e, TOC_STANDIN);
    e = hex(e, p->md.nheadings, 0);
    *e++ = ':';
    e = hex(e, h1, 16);
    e = hex(e, h2, 16);
    *e = 0;
    *v = tpl_strn(t, (size_t)(e - t));
    return true;
}

/* Whether p's map holds a stand-in for its body and summary (made by
 * site_page_lazy_value: on the same condition). */
static bool lazy_body(const page *p) { return p->bulk && !p->md.nxlinks; }

/* The entry of m whose value is a toc's stand-in, or -1. */
static long lazy_toc_at(const tpl_map *m)
{
    long t = tpl_map_find(m, "toc");
    return t >= 0 && m->entries[t].value.kind == TPL_STRING ? t : -1;
}

void site_page_lazy_map(const site *s, const page *p)
{
    (void)s;
    if (p->value && (lazy_body(p) || lazy_toc_at(p->value) >= 0))
        atomic_store_explicit(&p->value->lazy, 1, memory_order_release);
}

static tpl_value safe(const char *t, size_t n) { return tpl_safe_strn(t ? t : "", t ? n : 0); }

static void fill(void *ctx, const tpl_map *m, long index)
{
    const site *s = ctx;
    uint32_t owner = m->owner;
    if (!owner || (owner & SITE_REF_OWNER) || owner > s->npages)
        return;
    const page *p = &s->pages[owner - 1];
    if (p->value != m)
        return; /* not a page's own map */
    bool body = lazy_body(p);
    long c = body ? tpl_map_find(m, "content") : -1, sm = body ? tpl_map_find(m, "summary") : -1;
    long tc = tpl_map_find(m, "toc");
    if (index != (long)TPL_DEPS_ALL && index != c && index != sm && index != tc)
        return;
    if (body)
        ensure(s, p); /* the bytes first: it takes the page's lock too */
    pthread_mutex_t *mu = &locks[(size_t)p->index % LOCKS];
    pthread_mutex_lock(mu);
    if (atomic_load_explicit(&((tpl_map *)m)->lazy, memory_order_relaxed)) {
        if (c >= 0)
            tpl_map_update(m, (size_t)c, safe(p->md.html, p->md.html_len));
        if (sm >= 0 && !p->summary_text)
            tpl_map_update(m, (size_t)sm, safe(p->md.summary_html, p->md.summary_len));
        if (tc >= 0 && m->entries[tc].value.kind == TPL_STRING) {
            pthread_mutex_lock(&toc_lock);
            tpl_value t = site_page_toc(toc_arena, p);
            pthread_mutex_unlock(&toc_lock);
            tpl_map_update(m, (size_t)tc, t);
        }
        atomic_store_explicit(&((tpl_map *)m)->lazy, 0, memory_order_release);
    }
    pthread_mutex_unlock(mu);
}

static site *hooked; /* the site whose maps the hook fills */

void site_bulk_hook(site *s, bool on)
{
    if (on) {
        if (hooked != s) {
            arena_free(toc_arena);
            toc_arena = arena_new();
        }
        hooked = s;
        tpl_lazy_hook(fill, s);
    } else if (hooked == s) {
        hooked = NULL;
        tpl_lazy_hook(NULL, NULL);
        arena_free(toc_arena); /* the tables of contents made: s's maps are freed with it */
        toc_arena = NULL;
    }
}

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
#include <stdlib.h>
#include <string.h>

#include "site/bulk.h"
#include "site/mdcache.h"
#include "site/site.h"
#include "util/arena.h"
#include "util/hash.h"
#include "util/xalloc.h"

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

/* Whether p's toc is a stand-in until read: in a one-shot build (with the
 * build cache, or one that writes its output with a spill file: no
 * session, nothing kept after), when p has headings. Decided from the
 * site and the page, never from the entry, which a job's end may write
 * while others read the map. */
static bool lazy_toc(const site *s, const page *p) { return (s->md_disk || s->spill) && p->md.nheadings; }

/* The stand-ins' first bytes: no Markdown or template makes a string that
 * starts with \x01, but a `toc` is a list, so only its kind is looked at. */
#define TOC_STANDIN "\x01sheaf-t:"

bool site_page_lazy_toc(const site *s, arena *a, const page *p, tpl_value *v)
{
    if (!lazy_toc(s, p))
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

bool site_page_lazy_entries(const site *s, const page *p, const tpl_map *m)
{
    return lazy_body(p) || (lazy_toc(s, p) && tpl_map_find(m, "toc") >= 0);
}

void site_page_lazy_map(const site *s, const page *p)
{
    if (p->value && site_page_lazy_entries(s, p, p->value))
        atomic_store_explicit(&p->value->lazy, TPL_LAZY_ENTRIES, memory_order_release);
}

static tpl_value safe(const char *t, size_t n) { return tpl_safe_strn(t ? t : "", t ? n : 0); }

/* ---- whose toc it is ------------------------------------------------- *
 * Nearly always only the page's own output reads its toc, and a full
 * render made every page's toc and kept it to the end (≈ 1 KB a page:
 * 110 MB at 100,000 posts, at the render's peak). So what a page's map
 * holds for its toc has one of three states (st[], by page, changed under
 * the page's lock):
 * - the stand-in (none of the bits below);
 * - OWN: made by the job that renders the page's own output (the thread's
 *   `own`, site_bulk_job_begin), in an arena of that job's. The map stays
 *   marked lazy, so every other reader of the toc comes through fill;
 *   when the job ends (site_bulk_job_end) the entry is the stand-in
 *   again and the arena is freed: no reader of another job can hold the
 *   list, as one that read it would have made it KEPT;
 * - KEPT: read by another job (a list of posts showing their tocs, a
 *   template reading the map whole) or outside a page's job: it lives as
 *   long as the site, in toc_arena, or in the owning job's arena, which
 *   the job's end then keeps (a reader of another job may hold the list).
 * BODY: content and summary are the real values. The map's lazy mark is
 * cleared once nothing is left to make (BODY, or no lazy body; KEPT, or no
 * lazy toc). */
enum { BODY = 1, OWN = 2, KEPT = 4 };
static _Atomic unsigned char *st; /* by page, for the hooked site */
static size_t nst;
static arena **kept;              /* owners' arenas that hold a KEPT toc */
static size_t nkept, capkept;

/* The job this thread runs: the page whose own output it renders (-1:
 * none), the arena of that page's toc once made, and the entry's stand-in
 * put back at the job's end. */
static _Thread_local long own = -1;
static _Thread_local arena *own_arena;
static _Thread_local tpl_value own_standin;

static bool key_is(const tpl_map *m, long i, const char *k, size_t n)
{
    const tpl_value *v = &m->entries[i].key;
    return v->kind == TPL_STRING && v->len == n && !memcmp(v->u.s, k, n);
}

static void fill(void *ctx, const tpl_map *m, long index)
{
    site *s = ctx;
    uint32_t owner = m->owner;
    if (!owner || (owner & SITE_REF_OWNER) || owner > s->npages || !st)
        return;
    const page *p = &s->pages[owner - 1];
    if (p->value != m)
        return; /* not a page's own map */
    site_page_value_make(s, p); /* its entries first, when they are not made (TPL_LAZY_MAP) */
    if (index == TPL_LAZY_MAKE)
        return;
    bool body = lazy_body(p), toc = lazy_toc(s, p);
    bool all = index == (long)TPL_DEPS_ALL;
    /* what this read needs made: the keys never change, so no lock yet */
    bool want_body = body && (all || key_is(m, index, "content", 7) || key_is(m, index, "summary", 7));
    bool want_toc = toc && (all || key_is(m, index, "toc", 3));
    if (!want_body && !want_toc)
        return;
    size_t i = (size_t)p->index;
    bool mine = own == (long)i;
    unsigned f = atomic_load_explicit(&st[i], memory_order_acquire);
    if ((!want_body || (f & BODY)) && (!want_toc || (f & KEPT) || (mine && (f & OWN))))
        return; /* made already (the job's own toc: read again by the job) */
    if (want_body)
        ensure(s, p); /* the bytes first: it takes the page's lock too */
    pthread_mutex_t *mu = &locks[(size_t)p->index % LOCKS];
    pthread_mutex_lock(mu);
    f = atomic_load_explicit(&st[i], memory_order_relaxed);
    if (want_body && !(f & BODY)) {
        long c = tpl_map_find(m, "content"), sm = tpl_map_find(m, "summary");
        if (c >= 0)
            tpl_map_update(m, (size_t)c, safe(p->md.html, p->md.html_len));
        if (sm >= 0 && !p->summary_text)
            tpl_map_update(m, (size_t)sm, safe(p->md.summary_html, p->md.summary_len));
        f |= BODY;
    }
    long tc = want_toc ? tpl_map_find(m, "toc") : -1;
    if (tc >= 0 && (f & OWN) && !mine) {
        f = (f & ~OWN) | KEPT; /* another job holds it now: the owner's end keeps its arena */
    } else if (tc >= 0 && !(f & (OWN | KEPT))) {
        if (mine) {
            own_standin = m->entries[tc].value;
            if (!own_arena)
                own_arena = arena_new();
            tpl_map_update(m, (size_t)tc, site_page_toc(own_arena, p));
            f |= OWN;
        } else {
            pthread_mutex_lock(&toc_lock);
            tpl_value t = site_page_toc(toc_arena, p);
            pthread_mutex_unlock(&toc_lock);
            tpl_map_update(m, (size_t)tc, t);
            f |= KEPT;
        }
    }
    atomic_store_explicit(&st[i], (unsigned char)f, memory_order_release);
    if ((!body || (f & BODY)) && (!toc || (f & KEPT)))
        atomic_store_explicit(&((tpl_map *)m)->lazy, 0, memory_order_release);
    pthread_mutex_unlock(mu);
}

static site *hooked; /* the site whose maps the hook fills */

void site_bulk_job_begin(const site *s, long page)
{
    own = s == hooked && st && page >= 0 && (size_t)page < nst ? page : -1;
}

void site_bulk_job_end(const site *s)
{
    long i = own;
    own = -1;
    if (i < 0 || s != hooked || !own_arena)
        return;
    const page *p = &s->pages[i];
    pthread_mutex_t *mu = &locks[(size_t)p->index % LOCKS];
    pthread_mutex_lock(mu);
    unsigned f = atomic_load_explicit(&st[i], memory_order_relaxed);
    bool keep = !(f & OWN); /* made, then read by another job: KEPT */
    if (f & OWN) {
        long tc = tpl_map_find(p->value, "toc");
        tpl_map_update(p->value, (size_t)tc, own_standin);
        atomic_store_explicit(&st[i], (unsigned char)(f & ~OWN), memory_order_release);
    }
    pthread_mutex_unlock(mu);
    if (keep) {
        pthread_mutex_lock(&toc_lock);
        if (nkept == capkept) {
            capkept = capkept ? 2 * capkept : 16;
            kept = xrealloc(kept, capkept * sizeof *kept);
        }
        kept[nkept++] = own_arena;
        pthread_mutex_unlock(&toc_lock);
    } else {
        arena_free(own_arena);
    }
    own_arena = NULL;
}

static void unhook(void)
{
    arena_free(toc_arena); /* the tables of contents made: the site's maps are freed with it */
    toc_arena = NULL;
    for (size_t k = 0; k < nkept; k++)
        arena_free(kept[k]);
    free(kept);
    kept = NULL;
    nkept = capkept = 0;
    free((void *)st);
    st = NULL;
    nst = 0;
}

void site_bulk_hook(site *s, bool on)
{
    if (on) {
        if (hooked != s) {
            unhook();
            toc_arena = arena_new();
            nst = s->npages;
            st = xcalloc(nst + 1, sizeof *st);
        }
        hooked = s;
        tpl_lazy_hook(fill, s);
    } else if (hooked == s) {
        hooked = NULL;
        tpl_lazy_hook(NULL, NULL);
        unhook();
    }
}

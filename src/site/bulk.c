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
 * read of either entry, by any template, fills both (value.h). */
#include <pthread.h>
#include <string.h>

#include "site/bulk.h"
#include "site/mdcache.h"
#include "site/site.h"

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
    const char *t = arena_printf(a, "\x01sheaf-%c:%zx:%016llx", summary ? 's' : 'b', n, (unsigned long long)h);
    *v = tpl_safe_strn(t, strlen(t));
    return true;
}

void site_page_lazy_map(const site *s, const page *p)
{
    (void)s;
    if (p->bulk && !p->md.nxlinks && p->value)
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
    long c = tpl_map_find(m, "content"), sm = tpl_map_find(m, "summary");
    if (index != (long)TPL_DEPS_ALL && index != c && index != sm)
        return;
    ensure(s, p); /* the bytes first: it takes the page's lock too */
    pthread_mutex_t *mu = &locks[(size_t)p->index % LOCKS];
    pthread_mutex_lock(mu);
    if (atomic_load_explicit(&((tpl_map *)m)->lazy, memory_order_relaxed)) {
        if (c >= 0)
            tpl_map_update(m, (size_t)c, safe(p->md.html, p->md.html_len));
        if (sm >= 0 && !p->summary_text)
            tpl_map_update(m, (size_t)sm, safe(p->md.summary_html, p->md.summary_len));
        atomic_store_explicit(&((tpl_map *)m)->lazy, 0, memory_order_release);
    }
    pthread_mutex_unlock(mu);
}

static site *hooked; /* the site whose maps the hook fills */

void site_bulk_hook(site *s, bool on)
{
    if (on) {
        hooked = s;
        tpl_lazy_hook(fill, s);
    } else if (hooked == s) {
        hooked = NULL;
        tpl_lazy_hook(NULL, NULL);
    }
}

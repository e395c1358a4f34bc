/* model: the collections and the values templates see, built once from
 * indexes (no per-page scans of all posts): posts newest first with
 * prev/next, tags with their posts, and a `page` map for every published
 * page. See docs/variables.md for every field. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "site/bulk.h"
#include "site/cite.h"
#include "site/generated.h"
#include "site/i18n.h"
#include "site/media.h"
#include "site/model.h"
#include "site/paths.h"
#include "site/pool.h"
#include "site/related.h"
#include "util/hash.h"
#include "util/strmap.h"
#include "util/text.h"
#include "util/vec.h"
#include "util/xalloc.h"

static const site *sort_site;

static int cmp_posts(const void *x, const void *y)
{
    const page *a = &sort_site->pages[*(const int *)x], *b = &sort_site->pages[*(const int *)y];
    if (a->date.t != b->date.t)
        return a->date.t > b->date.t ? -1 : 1;
    return strcmp(a->src, b->src);
}

static int cmp_plain(const void *x, const void *y)
{
    const page *a = &sort_site->pages[*(const int *)x], *b = &sort_site->pages[*(const int *)y];
    return strcmp(a->path, b->path);
}

/* Tags by name, ignoring ASCII case ("alpha" < "Beta" < "gamma"); names
 * equal but for case fall back to the slug, which is unique. */
static int cmp_tags(const void *x, const void *y)
{
    const tag_info *a = x, *b = y;
    int c = strcasecmp(a->name, b->name);
    return c ? c : strcmp(a->slug, b->slug);
}

tpl_value site_date_value(const sheaf_date *d)
{
    return tpl_date(d->t, d->offset_min,
                    (uint8_t)((d->has_time ? TPL_HAS_TIME : 0) | (d->has_zone ? TPL_HAS_ZONE : 0)));
}

static tpl_value str_v(const char *s) { return tpl_str(s ? s : ""); }

static tpl_value safe_v(const char *s, size_t n) { return tpl_safe_strn(s ? s : "", s ? n : 0); }

/* Appends (key, v) to m, made with room for it and too small to be
 * indexed, whose keys the caller knows differ: tpl_map_set_str without
 * looking for the key first. */
static void put_new(tpl_map *m, const char *key, tpl_value v)
{
    m->entries[m->len].key = tpl_str(key);
    m->entries[m->len].value = v;
    m->len++;
}

/* A page's title and URL as values, made once for every reference to it
 * (a post is the prev/next, a related post or a backlink of several
 * others; measuring its title and building its URL for each was a read of
 * memory long gone cold, each time). url is undefined for a page without
 * a path. */
typedef struct page_refv {
    tpl_value title, url;
    tpl_map *ref; /* its {title, url, date}, shared by its neighbours' prev and next */
    uint64_t h;   /* a hash of its title, URL and date: what a reference shows (page_inputs) */
} page_refv;

/* {title, url, date} for prev/next and backlinks, in a, with room for
 * `more` entries; owned by SITE_REF_OWNER | p's owner, title first, so a
 * session knows who read p's title through it. */
static tpl_map *ref_map(arena *a, const page *p, tpl_value title, tpl_value url, size_t more)
{
    tpl_map *m = tpl_map_new(a, 3 + more);
    put_new(m, "title", title);
    put_new(m, "url", url);
    if (p->has_date)
        put_new(m, "date", site_date_value(&p->date));
    m->owner = SITE_REF_OWNER | site_page_owner(p);
    return m;
}

/* ref_map with refs: every page's page_refv */
static tpl_map *page_ref(site *s, arena *a, const page *p, const page_refv *refs, size_t more)
{
    const page_refv *r = &refs[p->index];
    return ref_map(a, p, r->title,
                   r->url.kind == TPL_STRING ? r->url : str_v(site_url_in(s, a, p->path)), more);
}

tpl_map *site_page_ref(const site *s, arena *a, const page *p, size_t more)
{
    return ref_map(a, p, str_v(p->title), str_v(site_url_in(s, a, p->path)), more);
}

/* Sets the title of a {title, url, date[, text]} reference if it is to p. */
static void retitle_ref(tpl_value v, const page *p)
{
    if (v.kind != TPL_MAP || v.u.map->owner != (SITE_REF_OWNER | site_page_owner(p)))
        return;
    long at = tpl_map_find(v.u.map, "title");
    if (at >= 0)
        tpl_map_update(v.u.map, (size_t)at, str_v(p->title));
}

size_t site_update_head_fields(site *s, page *p, long *changed, bool *ref_changed)
{
    size_t n = 0;
    long at = tpl_map_find(p->value, "title");
    tpl_value t = str_v(p->title);
    bool retitled = at >= 0 && !tpl_value_equal(p->value->entries[at].value, t);
    if (retitled) {
        tpl_map_update(p->value, (size_t)at, t);
        changed[n++] = at;
    }
    at = tpl_map_find(p->value, "params");
    tpl_value pv = p->fm.kind == TPL_MAP ? p->fm : tpl_map_value(tpl_map_new(s->a, 0));
    if (at >= 0 && !tpl_value_equal(p->value->entries[at].value, pv)) {
        tpl_map_update(p->value, (size_t)at, pv);
        changed[n++] = at;
    }
    /* retitled: the jobs that read its title through a reference render
     * again (a paper's page makes its references to the citing pages when
     * it is rendered, so there are none to set for it) */
    *ref_changed = retitled;
    if (!retitled)
        return n;
    /* the references to p: its neighbours' prev/next, its targets' backlinks */
    if (p->prev >= 0)
        retitle_ref(tpl_map_get_cstr(s->pages[p->prev].value, "next"), p);
    if (p->next >= 0)
        retitle_ref(tpl_map_get_cstr(s->pages[p->next].value, "prev"), p);
    for (size_t i = 0; i < p->nlinks; i++) {
        if (p->links[i].kind != LINK_PAGE)
            continue;
        tpl_value bl = tpl_map_get_cstr(s->pages[p->links[i].target].value, "backlinks");
        for (size_t k = 0; bl.kind == TPL_LIST && k < bl.u.list->len; k++)
            retitle_ref(bl.u.list->items[k], p);
    }
    /* the posts that list p as related (a post's related posts are few) */
    for (size_t k = 0; k < s->nposts; k++) {
        const page *q = &s->pages[s->posts[k]];
        for (size_t i = 0; i < q->nrelated; i++)
            if (q->related[i] == p->index)
                retitle_ref(tpl_map_get_cstr(q->value, "related").u.list->items[i], p);
    }
    return n;
}

/* The list with no items, shared by every empty list the model makes (a
 * heading's children, a page's backlinks or related posts): an arena list
 * of none is 16 bytes, and most headings have no children. */
static tpl_list no_items;

static tpl_list *new_list(arena *a, size_t n)
{
    return n ? tpl_list_new(a, n) : &no_items;
}

static tpl_value toc_build(arena *a, const md_heading *h, size_t *i, size_t n, int parent)
{
    /* the children are the headings up to the next one at parent's level,
     * each taking the deeper ones after it as its own */
    size_t k = 0;
    int below = 0; /* the last child's level (0: none yet) */
    for (size_t j = *i; j < n && h[j].level > parent; j++)
        if (!k || h[j].level <= below) {
            k++;
            below = h[j].level;
        }
    if (!k)
        return tpl_list_value(&no_items);
    tpl_list *l = tpl_list_new(a, k);
    for (size_t c = 0; c < k; c++) {
        const md_heading *x = &h[*i];
        (*i)++;
        tpl_map *m = tpl_map_new(a, 4);
        put_new(m, "level", tpl_int(x->level));
        put_new(m, "id", str_v(x->id));
        put_new(m, "title", str_v(x->title));
        put_new(m, "children", toc_build(a, h, i, n, x->level));
        l->items[c] = tpl_map_value(m);
    }
    return tpl_list_value(l);
}

tpl_value site_page_toc(arena *a, const page *p)
{
    size_t hi = 0;
    return toc_build(a, p->md.headings, &hi, p->md.nheadings, 0);
}

/* Whether Hugo's path of a term is one sheaf writes as it is. */
static bool hugo_term_ok(const buf *b)
{
    if (!b->len || strpbrk(b->data, "#%\\"))
        return false;
    for (const char *q = b->data;;) {
        size_t n = strcspn(q, "/");
        if (!site_url_part_safe(q, n))
            return false;
        if (!q[n])
            return true;
        q += n + 1;
    }
}

/* site_tag_slug into b (reset first). */
static void tag_slug(const site_config *c, buf *b, const char *name)
{
    buf_reset(b);
    if (c && c->term_slugs_hugo) {
        text_hugo_path(b, name, strlen(name), true);
        if (!hugo_term_ok(b))
            buf_reset(b);
    }
    if (!b->len)
        text_slugify(b, name, strlen(name));
    if (!b->len)
        buf_puts(b, "tag"); /* a name without letters or digits ("!!!") */
}

const char *site_tag_slug(const site_config *c, arena *a, const char *name)
{
    buf b = BUF_INIT;
    tag_slug(c, &b, name);
    const char *r = arena_strndup(a, b.data, b.len);
    buf_release(&b);
    return r;
}

int64_t site_reading_time(size_t words, size_t cjk)
{
    /* minutes = cjk / 400 + other / 230, rounded up, at least 1 */
    uint64_t other = words - cjk;
    uint64_t num = (uint64_t)cjk * SITE_READ_WORDS + other * SITE_READ_CJK;
    uint64_t per = (uint64_t)SITE_READ_WORDS * SITE_READ_CJK;
    uint64_t m = (num + per - 1) / per;
    return m < 1 ? 1 : (int64_t)m;
}

/* The fields of a page's value that come from its body, in this order. */
static const char *const body_keys[SITE_BODY_FIELDS] = { "content", "summary", "has_more", "toc",
                                                         "word_count", "reading_time" };

static void body_values(const site *s, arena *a, const page *p, tpl_value v[SITE_BODY_FIELDS])
{
    size_t len;
    const char *html;
    if (!site_page_lazy_value(s, a, p, false, &v[0])) { /* site/bulk.h */
        html = site_xlink_html(s, p, false, a, &len);
        v[0] = safe_v(html, len);
    }
    if (p->summary_text) {
        buf b = BUF_INIT;
        buf_puts(&b, "<p>");
        for (const char *q = p->summary_text; *q; q++) {
            switch (*q) {
            case '&': buf_puts(&b, "&amp;"); break;
            case '<': buf_puts(&b, "&lt;"); break;
            case '>': buf_puts(&b, "&gt;"); break;
            default: buf_putc(&b, *q);
            }
        }
        buf_puts(&b, "</p>\n");
        v[1] = tpl_safe_strn(arena_strndup(a, b.data, b.len), b.len);
        buf_release(&b);
    } else if (!site_page_lazy_value(s, a, p, true, &v[1])) {
        html = site_xlink_html(s, p, true, a, &len);
        v[1] = safe_v(html, len);
    }
    v[2] = tpl_bool(p->md.has_more);
    if (!site_page_lazy_toc(s, a, p, &v[3])) /* site/bulk.h */
        v[3] = site_page_toc(a, p);
    v[4] = tpl_int((int64_t)p->md.word_count);
    v[5] = tpl_int(site_reading_time(p->md.word_count, p->md.cjk_count));
}

size_t site_update_body_fields(site *s, page *p, long *changed)
{
    tpl_value v[SITE_BODY_FIELDS];
    body_values(s, s->a, p, v);
    size_t n = 0;
    for (size_t i = 0; i < SITE_BODY_FIELDS; i++) {
        long at = tpl_map_find(p->value, body_keys[i]);
        if (at < 0 || tpl_value_equal(p->value->entries[at].value, v[i]))
            continue;
        tpl_map_update(p->value, (size_t)at, v[i]);
        changed[n++] = at;
    }
    return n;
}

/* Builds p->value, the `page` map templates see (docs/variables.md lists
 * its entries), in the site arena; tag_index maps a tag's name to its
 * tag_info. The body's entries come from body_values, so a fast rebuild
 * (site_update_body_fields) sets exactly the same ones. */
/* The key of a term in the index build_terms returns: "<taxonomy>/<slug>". */
static const char *term_key(buf *b, size_t tax, const char *slug)
{
    buf_reset(b);
    buf_printf(b, "%zu/%s", tax, slug);
    return b->data;
}

/* A term's {name, slug, url} as a page lists it. */
static tpl_map *term_ref(site *s, arena *a, const char *name, const tag_info *t, const char *slug)
{
    tpl_map *tm = tpl_map_new(a, 3);
    tpl_map_set_str(a, tm, "name", str_v(name));
    tpl_map_set_str(a, tm, "slug", str_v(t ? t->slug : slug));
    if (t)
        tpl_map_set_str(a, tm, "url", str_v(site_url_in(s, a, t->path)));
    return tm;
}

/* The terms of a page: `shared` holds each term's reference made once,
 * for the pages that spell the term as its name does (nearly all).
 * known: a post's terms of this taxonomy as indexes into s->terms
 * (post_terms), or NULL: each is found by its slug. */
static tpl_value term_refs(site *s, arena *a, const char *const *names, size_t n, size_t tax,
                           const strmap *term_index, tpl_map *const *shared, buf *key, const int *known)
{
    tpl_list *l = tpl_list_new(a, n);
    buf slug = BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (known) { /* a post's: the term build_terms put it in */
            const tag_info *t = &s->terms[known[i]];
            l->items[i] = tpl_map_value(!strcmp(names[i], t->name) ? shared[known[i]]
                                                                   : term_ref(s, a, names[i], t, NULL));
            continue;
        }
        tag_slug(&s->cfg, &slug, names[i]);
        long ti = tax < s->ntaxonomies ? strmap_get(term_index, term_key(key, tax, slug.data)) : -1;
        const tag_info *t = ti >= 0 ? &s->terms[ti] : NULL;
        if (t && !strcmp(names[i], t->name))
            l->items[i] = tpl_map_value(shared[ti]);
        else
            l->items[i] = tpl_map_value(term_ref(s, a, names[i], t, t ? NULL : arena_strndup(a, slug.data, slug.len)));
    }
    buf_release(&slug);
    return tpl_list_value(l);
}

/* site_page_head_fields, with p's URL when the caller has it (NULL: made
 * here): the permalink is the same escaped path after base_url instead of
 * base_path, so it is not escaped again. */
static void head_fields(const site *s, const page *p, arena *a, tpl_map *m, const char *url)
{
    tpl_map_set_str(a, m, "title", str_v(p->title));
    tpl_map_set_str(a, m, "description", str_v(p->description));
    if (p->has_date)
        tpl_map_set_str(a, m, "date", site_date_value(&p->date));
    if (p->has_updated)
        tpl_map_set_str(a, m, "updated", site_date_value(&p->updated));
    const char *path = p->path ? p->path : "";
    if (!url)
        url = site_url_in(s, a, path);
    tpl_map_set_str(a, m, "url", str_v(url));
    size_t bp = strlen(s->cfg.base_path), bu = strlen(s->cfg.base_url), ul = strlen(url);
    char *perma = arena_alloc(a, bu + ul - bp + 1);
    memcpy(perma, s->cfg.base_url, bu);
    memcpy(perma + bu, url + bp, ul - bp + 1);
    tpl_map_set_str(a, m, "permalink", tpl_str(perma));
    /* slug: the last part of the path */
    size_t pl = strlen(path);
    const char *end = path + (pl && path[pl - 1] == '/' ? pl - 1 : pl);
    const char *st = end;
    while (st > path && st[-1] != '/')
        st--;
    tpl_map_set_str(a, m, "slug", tpl_str_copy(a, st, (size_t)(end - st)));
}

void site_page_head_fields(const site *s, const page *p, arena *a, tpl_map *m)
{
    head_fields(s, p, a, m, NULL);
}

void site_page_tail_fields(const page *p, arena *a, tpl_map *m)
{
    tpl_map_set_str(a, m, "params", p->fm.kind == TPL_MAP ? p->fm : tpl_map_value(tpl_map_new(a, 0)));
    tpl_map_set_str(a, m, "source", str_v(p->src));
    tpl_map_set_str(a, m, "draft", tpl_bool(p->draft));
}

/* The entries of a page's map, at most: it is built in room on the stack
 * (a map that grows leaves its old entries behind in the arena, and so
 * does its hash index each time it is made larger), then copied to the
 * arena with no spare room: 0.35 KB a page less than building it there. */
#define PAGE_VALUE_ENTRIES 32

/* Whether x and y have the same keys in the same order. */
static bool same_keys(const tpl_map *x, const tpl_map *y)
{
    if (x->len != y->len)
        return false;
    for (size_t i = 0; i < x->len; i++) {
        const tpl_value *k = &x->entries[i].key, *l = &y->entries[i].key;
        if (k->kind != TPL_STRING || l->kind != TPL_STRING || k->len != l->len ||
            (k->u.s != l->u.s && memcmp(k->u.s, l->u.s, k->len)))
            return false;
    }
    return true;
}

/* m's entries in a, exactly as many as it has, indexed as tpl_map_seal
 * indexes them. The index names entries by their place only, so a map
 * with the same keys in the same order as *last (nearly every page's map
 * has its neighbour's) uses *last's index, which no one changes (the
 * pages' maps are never added to): 0.25 KB a page less. */
static tpl_map *map_copy_exact(arena *a, const tpl_map *m, tpl_map **last)
{
    tpl_map *c = tpl_map_new(a, m->len);
    memcpy(c->entries, m->entries, m->len * sizeof *m->entries);
    c->len = m->len;
    if (*last && (*last)->index && same_keys(*last, c)) {
        c->index = (*last)->index;
        c->index_cap = (*last)->index_cap;
        return c;
    }
    tpl_map_seal(a, c);
    *last = c;
    return c;
}

/* ---- what a page's map is made of ------------------------------------- *
 * The render record (render/record.c) hashes every entry of every page's
 * map on every build, to find which outputs read a value that changed.
 * Most pages' maps are the last build's, and page_inputs lets it see so
 * without reading them: a hash of what page_value below reads of the page
 * and of the others, beside what the record's global fingerprint already
 * holds (site.yaml's bytes, the `site` value with its terms and sections,
 * the base URL, the theme's strings, the templates, every page's place).
 * What comes from the page's own source — its front matter (title, dates,
 * description, terms' names, params, draft, summary) and its Markdown
 * (the body's and summary's stand-ins, headings, counts) — counts by
 * identity: the SHA-256 of its bytes (p->digest) and its Markdown's
 * (p->md_id: everything the result depends on, other pages' titles and
 * anchors its links show among them). What comes from other pages counts
 * by value: the title, URL and date of each page it lists as previous,
 * next, related (and how many terms they share) or backlink (with the
 * link's text); so does its image and its size (from the image's file).
 * A page whose map holds what neither says is never taken as known (0): a
 * page without a digest or Markdown id (no build cache), one whose body
 * shows other pages' labels (nxlinks), one that cites or has a
 * bibliography of its own. A value page_value comes to read must be
 * added here. */
static uint64_t mix_date(uint64_t h, bool has, const sheaf_date *d)
{
    h = hash_mix(h, has);
    if (!has)
        return h;
    h = hash_mix(h, (uint64_t)d->t);
    return hash_mix(h, (uint64_t)(uint32_t)d->offset_min << 2 | (uint64_t)d->has_time << 1 | d->has_zone);
}

static uint64_t mix_cstr(uint64_t h, const char *s)
{
    return s ? hash_mix(h, hash_blocks(s, strlen(s))) : hash_mix(h, 0x6e756c6cu);
}

static uint64_t mix_value_str(uint64_t h, tpl_value v)
{
    return v.kind == TPL_STRING ? hash_mix(h, hash_blocks(v.u.s, v.len)) : hash_mix(h, v.kind);
}

/* What page q shows as another's reference, its title, URL and date
 * (ref_map): made once a page, with its refs (refv_job). */
static uint64_t ref_hash(const page *q, const page_refv *r)
{
    uint64_t h = mix_value_str(mix_value_str(HASH_SEED, r->title), r->url);
    return mix_date(h, q->has_date, &q->date);
}

/* Another page q as a reference shows it (its index: the pages are the
 * last build's, in the same order, when the global fingerprint is). */
static uint64_t mix_ref(uint64_t h, const page_refv *refs, int q)
{
    return hash_mix(hash_mix(h, (uint64_t)q), refs[q].h);
}

static uint64_t page_inputs(const site *s, const page *p, const page_refv *refs, const char *image, unsigned iw,
                            unsigned ih)
{
    if (!p->has_digest || !p->md_id || p->md.nxlinks || p->md.ncites || p->nbibs)
        return 0;
    uint64_t h = hash_mix(HASH_SEED, hash_blocks(p->digest, sizeof p->digest));
    h = hash_mix(h, p->md_id);
    h = mix_cstr(h, p->src);
    h = hash_mix(h, (uint64_t)p->is_post | (uint64_t)p->is_index << 1 | (uint64_t)(p->bulk != NULL) << 2 |
                        (uint64_t)(s->md_disk != NULL) << 3 | (uint64_t)(s->spill != NULL) << 4);
    h = mix_cstr(h, p->section >= 0 ? s->sections[p->section].name : NULL);
    h = mix_value_str(h, refs[p->index].url);
    h = hash_mix(h, (uint64_t)(int64_t)p->prev);
    if (p->prev >= 0)
        h = mix_ref(h, refs, p->prev);
    h = hash_mix(h, (uint64_t)(int64_t)p->next);
    if (p->next >= 0)
        h = mix_ref(h, refs, p->next);
    h = hash_mix(h, p->nbacklinks);
    for (size_t i = 0; i < p->nbacklinks; i++)
        h = mix_cstr(mix_ref(h, refs, p->backlinks[i]), p->backlink_text[i]);
    h = hash_mix(h, p->nrelated);
    for (size_t i = 0; i < p->nrelated; i++)
        h = hash_mix(mix_ref(h, refs, p->related[i]), (uint64_t)p->related_shared[i]);
    h = mix_cstr(h, image);
    h = hash_mix(hash_mix(h, iw), ih);
    return h ? h : 1;
}

/* How many shared terms a related post's map is made once for. */
#define RELATED_SHARED_MAX 4

/* What page_value and the maps made when read take from the model: the
 * page values are made in parallel, each in its worker's arena (which
 * lives as long as the site): page_value reads the site and other pages,
 * and writes only its own page. Kept on the site (s->values) until
 * site_free when a map was left to be made, else freed with the model. */
typedef struct site_values {
    site *s;
    strmap *term_index;
    int *order; /* the pages to make values for */
    size_t n;
    page_refv *refs; /* every page's, made first (refv_job) */
    tpl_map **terms; /* every term's reference from a page (term_ref), made first */
    size_t *term_at; /* a post's terms are term_ix[term_at[i]…] (build_terms); SIZE_MAX: not a post */
    int *term_ix;
    /* the map {title, url, date, shared} of post q as a related post that
     * shares n terms: related[q * RELATED_SHARED_MAX + n - 1], made by the
     * first page map that lists it (related_ref) */
    _Atomic(tpl_map *) *related;
    tpl_map **last; /* per worker: the last page map it indexed (map_copy_exact) */
    /* the maps made when read, while renders run: one at a time, in a
     * (made when a map was left to be made) */
    pthread_mutex_t mu;
    arena *a;
    tpl_map *last_made;
} site_values;

/* A page's social image: from its links, so a fast rebuild (same links)
 * never changes it. */
typedef struct page_image {
    bool has;
    const char *url;
    unsigned w, h;
} page_image;

static page_image image_of(site *s, const page *p)
{
    page_image im = { 0 };
    im.has = site_page_image(s, p, &im.url, &im.w, &im.h);
    return im;
}

/* Post q's map as a related post that shares `shared` terms with the
 * page that lists it, {title, url, date, shared}: one for each post and
 * number, listed by every post that has it so (one for each listing was
 * 0.9 KB a post at five related posts), made in a by the first page map
 * made that lists it; two made at once are alike, and one of them is
 * kept. Made only for the maps made: a one-edit build makes few. */
static tpl_map *related_ref(site *s, site_values *c, arena *a, int q, int shared)
{
    _Atomic(tpl_map *) *slot = shared >= 1 && shared <= RELATED_SHARED_MAX
                                   ? &c->related[(size_t)q * RELATED_SHARED_MAX + (size_t)shared - 1]
                                   : NULL;
    tpl_map *r = slot ? atomic_load_explicit(slot, memory_order_acquire) : NULL;
    if (r)
        return r;
    r = page_ref(s, a, &s->pages[q], c->refs, 1);
    tpl_map_set_str(a, r, "shared", tpl_int(shared));
    tpl_map *none = NULL;
    if (slot &&
        !atomic_compare_exchange_strong_explicit(slot, &none, r, memory_order_acq_rel, memory_order_acquire))
        r = none; /* another worker's, made meanwhile */
    return r;
}

/* Page p's map in a, with its owner; *last as map_copy_exact's. */
static tpl_map *page_value(site *s, arena *a, const page *p, site_values *c, const page_image *im,
                           tpl_map **last)
{
    const page_refv *refs = c->refs;
    const int *known = c->term_at[p->index] == SIZE_MAX ? NULL : c->term_ix + c->term_at[p->index];
    tpl_map_entry room[PAGE_VALUE_ENTRIES];
    uint32_t slots[2 * PAGE_VALUE_ENTRIES] = { 0 };
    tpl_map building = { .cap = PAGE_VALUE_ENTRIES, .entries = room, .index = slots,
                         .index_cap = 2 * PAGE_VALUE_ENTRIES };
    tpl_map *m = &building;
    tpl_map_set_str(a, m, "kind", tpl_str(p->is_post ? "post" : p->is_index ? "section" : "page"));
    if (p->section >= 0)
        tpl_map_set_str(a, m, "section", str_v(s->sections[p->section].name));
    head_fields(s, p, a, m, refs[p->index].url.kind == TPL_STRING ? refs[p->index].url.u.s : NULL);
    /* each taxonomy's terms {name, slug, url}; page.tags even when tags is
     * not a taxonomy (then without url) */
    buf key = BUF_INIT;
    tpl_map *tx = tpl_map_new(a, s->ntaxonomies + 1);
    tpl_value tags = tpl_undefined();
    for (size_t t = 0; t < s->ntaxonomies; t++) {
        tpl_value l = term_refs(s, a, p->terms[t], p->nterms[t], t, c->term_index, c->terms, &key, known);
        if (known)
            known += p->nterms[t];
        tpl_map_set_str(a, tx, s->taxonomies[t].name, l);
        if (!strcmp(s->taxonomies[t].name, "tags"))
            tags = l;
    }
    if (tags.kind == TPL_UNDEFINED)
        tags = term_refs(s, a, p->tags, p->ntags, (size_t)-1, c->term_index, c->terms, &key, NULL);
    buf_release(&key);
    tpl_map_seal(a, tx);
    tpl_map_set_str(a, m, "tags", tags);
    tpl_map_set_str(a, m, "taxonomies", tpl_map_value(tx));
    tpl_value body[SITE_BODY_FIELDS];
    body_values(s, a, p, body);
    for (size_t i = 0; i < SITE_BODY_FIELDS; i++)
        tpl_map_set_str(a, m, body_keys[i], body[i]);
    if (im->has) {
        tpl_map_set_str(a, m, "image", str_v(im->url));
        if (im->w) {
            tpl_map_set_str(a, m, "image_width", tpl_int(im->w));
            tpl_map_set_str(a, m, "image_height", tpl_int(im->h));
        }
    }
    if (p->prev >= 0)
        tpl_map_set_str(a, m, "prev", tpl_map_value(refs[p->prev].ref));
    if (p->next >= 0)
        tpl_map_set_str(a, m, "next", tpl_map_value(refs[p->next].ref));
    tpl_list *bl = new_list(a, p->nbacklinks);
    for (size_t i = 0; i < p->nbacklinks; i++) {
        tpl_map *r = page_ref(s, a, &s->pages[p->backlinks[i]], refs, 1);
        tpl_map_set_str(a, r, "text", str_v(p->backlink_text[i]));
        bl->items[i] = tpl_map_value(r);
    }
    tpl_map_set_str(a, m, "backlinks", tpl_list_value(bl));
    tpl_list *rel = new_list(a, p->nrelated);
    for (size_t i = 0; i < p->nrelated; i++)
        rel->items[i] = tpl_map_value(related_ref(s, c, a, p->related[i], p->related_shared[i]));
    tpl_map_set_str(a, m, "related", tpl_list_value(rel));
    site_page_tail_fields(p, a, m);
    site_page_citation_values(s, a, p, m);
    m = map_copy_exact(a, m, last);
    m->owner = site_page_owner(p); /* reads of it are recorded in build sessions */
    return m;
}

static void refv_job(void *ctx, size_t i, int worker)
{
    site_values *c = ctx;
    const page *p = &c->s->pages[i];
    c->refs[i].title = str_v(p->title);
    c->refs[i].url = p->path ? str_v(site_url_in(c->s, c->s->wa[worker], p->path)) : tpl_undefined();
    /* one map for both neighbours: the same entries, the same owner (a
     * session's retitle_ref sets its title once for both) */
    if (p->prev >= 0 || p->next >= 0)
        c->refs[i].ref = page_ref(c->s, c->s->wa[worker], p, c->refs, 0);
    c->refs[i].h = ref_hash(p, &c->refs[i]);
}

/* A page whose inputs are the last build's (s->known_inputs) gets a map
 * without entries, made when first read (value.h, TPL_LAZY_MAP): in a
 * one-edit build, nearly every page's map is read by no output. An
 * _index.md's is read by its list's value (site_index_fields): made now. */
static void value_job(void *ctx, size_t i, int worker)
{
    site_values *c = ctx;
    site *s = c->s;
    int k = c->order[i];
    page *p = &s->pages[k];
    page_image im = image_of(s, p);
    p->inputs = page_inputs(s, p, c->refs, im.has ? im.url : NULL, im.w, im.h);
    p->value_known = s->known_inputs && p->inputs && p->inputs == s->known_inputs[k] && !p->is_index;
    if (p->value_known) {
        tpl_map *m = arena_calloc(s->wa[worker], sizeof *m);
        m->owner = site_page_owner(p);
        atomic_store_explicit(&m->lazy, TPL_LAZY_MAP, memory_order_relaxed); /* (seen after the join) */
        p->value = m;
        return;
    }
    p->value = page_value(s, s->wa[worker], p, c, &im, &c->last[worker]);
    site_page_lazy_map(s, p);
}

/* The entries of p's map not made yet (value_known), in a. */
static void make_known(site *s, const page *p, arena *a, tpl_map **last)
{
    tpl_deps *d = tpl_deps_use(NULL); /* what it reads is the model's, no job's */
    page_image im = image_of(s, p);
    const tpl_map *made = page_value(s, a, p, s->values, &im, last);
    tpl_map *m = p->value;
    m->entries = made->entries;
    m->len = made->len;
    m->cap = made->cap;
    m->index = made->index;
    m->index_cap = made->index_cap;
    atomic_store_explicit(&m->lazy, site_page_lazy_entries(s, p, made) ? TPL_LAZY_ENTRIES : 0,
                          memory_order_release);
    tpl_deps_use(d);
}

void site_page_value_make(site *s, const page *p)
{
    site_values *c = s->values;
    if (!c || !p->value || tpl_map_made(p->value))
        return;
    pthread_mutex_lock(&c->mu);
    if (!tpl_map_made(p->value))
        make_known(s, p, c->a, &c->last_made);
    pthread_mutex_unlock(&c->mu);
}

static void make_job(void *ctx, size_t i, int worker)
{
    site_values *c = ctx;
    const page *p = &c->s->pages[i];
    if (p->value_known && !tpl_map_made(p->value))
        make_known(c->s, p, c->s->wa[worker], &c->last[worker]);
}

void site_make_values(site *s)
{
    if (s->values)
        site_parallel(s->npages, s->nwa, make_job, s->values);
}

void site_values_free(site *s)
{
    site_values *c = s->values;
    if (!c)
        return;
    strmap_free(c->term_index);
    free(c->order);
    free(c->refs);
    free(c->terms);
    free(c->term_at);
    free(c->term_ix);
    free((void *)c->related);
    free(c->last);
    pthread_mutex_destroy(&c->mu);
    arena_free(c->a);
    free(c);
    s->values = NULL;
}

/* The terms of every taxonomy (s->terms, s->taxonomies, s->tags), each
 * with its posts, newest first; a term's first spelling seen (the newest
 * post's) names it. Returns an index "<taxonomy>/<slug>" → term, which
 * the caller frees, and in *at and *ix (the caller frees them) each
 * post's terms, every taxonomy's in turn, as indexes into s->terms: post
 * page i's from ix[at[i]] (at[i] is SIZE_MAX for a page that is no
 * published post), so its value needs no slug made and looked up again. */
static strmap *build_terms(site *s, size_t **at, int **ix)
{
    arena *a = s->a;
    size_t nt = 0, cap = 0;
    tag_info *v = NULL;
    buf key = BUF_INIT;
    size_t *pos = xmalloc((s->npages + 1) * sizeof *pos), nix = 0;
    for (size_t i = 0; i <= s->npages; i++)
        pos[i] = SIZE_MAX;
    for (size_t k = 0; k < s->nposts; k++) {
        if (k + 16 < s->nposts)
            __builtin_prefetch(&s->pages[s->posts[k + 16]].nterms[0]);
        const page *p = &s->pages[s->posts[k]];
        pos[s->posts[k]] = nix;
        for (size_t t = 0; t < s->cfg.ntaxonomies; t++)
            nix += p->nterms[t];
    }
    int *known = xcalloc(nix + 1, sizeof *known);
    size_t *fill = xcalloc(s->npages + 1, sizeof *fill); /* a post's terms found so far */
    s->ntaxonomies = s->cfg.ntaxonomies;
    for (size_t t = 0; t < s->ntaxonomies; t++) {
        taxonomy_info *x = &s->taxonomies[t];
        x->name = s->cfg.taxonomies[t];
        x->path = arena_printf(a, "%s/", x->name);
        buf title = BUF_INIT;
        buf_puts(&title, x->name);
        if (title.data[0] >= 'a' && title.data[0] <= 'z')
            title.data[0] = (char)(title.data[0] - 'a' + 'A');
        x->title = arena_strndup(a, title.data, title.len);
        buf_release(&title);
        strmap *index = strmap_new(64);
        /* a term's spellings met so far, each to its term: a slug depends
         * on the name alone, so a spelling is slugified once, not once for
         * each post that names it (nearly every post's are met before) */
        strmap *by_name = strmap_new(64);
        x->first = nt;
        for (size_t k = 0; k < s->nposts; k++) {
            /* the posts are newest first, their pages in source order:
             * each read of a post's terms missed the cache, one after
             * another (at 100,000 posts, 50 → 21 ms of the serial model).
             * Asked for ahead, in stages: the page's counts and lists,
             * the list of taxonomy t, the names. (Here, not in a function
             * of their own: GCC takes one that only prefetches for one
             * without effects, and drops the call.) */
            if (k + 24 < s->nposts) {
                __builtin_prefetch(&s->pages[s->posts[k + 24]].terms[t]);
                __builtin_prefetch(&s->pages[s->posts[k + 24]].nterms[t]);
            }
            if (k + 16 < s->nposts)
                __builtin_prefetch(s->pages[s->posts[k + 16]].terms[t]);
            if (k + 8 < s->nposts) {
                const page *q = &s->pages[s->posts[k + 8]];
                for (size_t i = 0; i < q->nterms[t] && i < 4; i++)
                    __builtin_prefetch(q->terms[t][i]);
            }
            page *p = &s->pages[s->posts[k]];
            for (size_t i = 0; i < p->nterms[t]; i++) {
                long ti = strmap_get(by_name, p->terms[t][i]);
                if (ti < 0) {
                    const char *slug = site_tag_slug(&s->cfg, a, p->terms[t][i]);
                    ti = strmap_get(index, slug);
                    if (ti < 0) {
                        tag_info *tg = VEC_ADD(v, nt, cap, 16);
                        memset(tg, 0, sizeof *tg);
                        ti = (long)nt - 1;
                        tg->name = p->terms[t][i];
                        tg->slug = slug;
                        tg->tax = (int)t;
                        tg->path = arena_printf(a, "%s%s/", x->path, slug);
                        tg->newest = k; /* s->posts is newest first */
                        tg->made = (size_t)ti;
                        strmap_put(index, slug, ti);
                    }
                    strmap_put(by_name, p->terms[t][i], ti); /* the page's string: kept */
                }
                known[pos[s->posts[k]] + fill[s->posts[k]]++] = (int)ti;
                tag_info *tg = &v[ti];
                /* a post that names a term twice (`[GPU, gpu]`, `[a, a]`)
                 * is one of its posts: listed, counted and related once */
                if (!tg->nposts || tg->posts[tg->nposts - 1] != s->posts[k])
                    VEC_PUSH(tg->posts, tg->nposts, tg->capposts, 8, s->posts[k]);
            }
        }
        x->n = nt - x->first;
        if (x->n) /* v may be NULL (no terms): no v + 0 */
            vec_sort(v + x->first, x->n, sizeof *v, cmp_tags);
        strmap_free(index);
        strmap_free(by_name);
    }
    s->terms = v;
    s->nterms = nt;
    /* the posts' terms were found before each taxonomy's were sorted */
    size_t *now = xcalloc(nt + 1, sizeof *now);
    for (size_t i = 0; i < nt; i++)
        now[v[i].made] = i;
    for (size_t i = 0; i < nix; i++)
        known[i] = (int)now[known[i]];
    free(now);
    free(fill);
    *at = pos;
    *ix = known;
    s->tags = NULL;
    s->ntags = 0;
    strmap *all = strmap_new(nt + 1);
    for (size_t t = 0; t < s->ntaxonomies; t++) {
        const taxonomy_info *x = &s->taxonomies[t];
        if (!strcmp(x->name, "tags")) {
            s->tags = v ? v + x->first : NULL; /* no terms at all: v is NULL */
            s->ntags = x->n;
        }
        for (size_t i = x->first; i < x->first + x->n; i++)
            strmap_put(all, arena_strdup(a, term_key(&key, t, v[i].slug)), (long)i); /* keys are kept, not copied */
    }
    buf_release(&key);
    return all;
}

/* Terms (indexes into s->terms) by their newest post, newest first; two
 * whose newest post is the same by name (their order in s->terms). */
static int cmp_recent(const void *x, const void *y)
{
    const tag_info *a = &sort_site->terms[*(const size_t *)x], *b = &sort_site->terms[*(const size_t *)y];
    if (a->newest != b->newest)
        return a->newest < b->newest ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* A taxonomy's value and its terms' (docs/variables.md). */
static void taxonomy_value(site *s, taxonomy_info *x)
{
    arena *a = s->a;
    tpl_list *terms = tpl_list_new(a, x->n);
    for (size_t i = 0; i < x->n; i++) {
        tag_info *t = &s->terms[x->first + i];
        tpl_map *m = tpl_map_new(a, 10);
        tpl_map_set_str(a, m, "name", str_v(t->name));
        tpl_map_set_str(a, m, "slug", str_v(t->slug));
        tpl_map_set_str(a, m, "url", str_v(site_url(s, t->path)));
        tpl_map_set_str(a, m, "permalink", str_v(site_permalink(s, t->path)));
        /* a term is as new as its newest post (Hugo dates a term page so) */
        tpl_map_set_str(a, m, "date", site_date_value(&s->pages[t->posts[0]].date));
        tpl_list *tp = tpl_list_new(a, t->nposts);
        for (size_t k = 0; k < t->nposts; k++)
            tp->items[k] = tpl_map_value(s->pages[t->posts[k]].value);
        tpl_map_set_str(a, m, "posts", tpl_list_value(tp));
        tpl_map_set_str(a, m, "count", tpl_int((int64_t)t->nposts));
        tpl_map_set_str(a, m, "feed_url", str_v(site_url_in(s, a, site_feed_file(a, t->path))));
        tpl_map_set_str(a, m, "taxonomy", str_v(x->name));
        t->value = m;
        terms->items[i] = tpl_map_value(m);
    }
    /* the feed of its terms lists the ones with the newest posts first */
    size_t *order = xcalloc(x->n + 1, sizeof *order);
    for (size_t i = 0; i < x->n; i++)
        order[i] = x->first + i;
    sort_site = s;
    vec_sort(order, x->n, sizeof *order, cmp_recent);
    tpl_list *recent = tpl_list_new(a, x->n);
    for (size_t i = 0; i < x->n; i++)
        recent->items[i] = tpl_map_value(s->terms[order[i]].value);
    free(order);
    x->recent = tpl_list_value(recent);
    tpl_map *m = tpl_map_new(a, 7);
    tpl_map_set_str(a, m, "name", str_v(x->name));
    tpl_map_set_str(a, m, "title", str_v(x->title));
    tpl_map_set_str(a, m, "url", str_v(site_url(s, x->path)));
    tpl_map_set_str(a, m, "permalink", str_v(site_permalink(s, x->path)));
    if (x->n) /* the feed of its terms is written once it has some */
        tpl_map_set_str(a, m, "feed_url",
                        str_v(site_url_in(s, a, site_feed_file(a, x->path))));
    tpl_map_set_str(a, m, "terms", tpl_list_value(terms));
    tpl_map_set_str(a, m, "count", tpl_int((int64_t)x->n));
    tpl_map_seal(a, m);
    x->value = m;
}

/* A section's value (docs/variables.md): its name, title, URLs, its
 * posts, and what its _index.md says (content, summary, params). */
static void section_value(site *s, section_info *sec)
{
    arena *a = s->a;
    tpl_map *m = tpl_map_new(a, 12);
    tpl_map_set_str(a, m, "name", str_v(sec->name));
    tpl_map_set_str(a, m, "title", str_v(sec->title));
    tpl_map_set_str(a, m, "url", str_v(site_url(s, sec->path)));
    tpl_map_set_str(a, m, "permalink", str_v(site_permalink(s, sec->path)));
    tpl_map_set_str(a, m, "feed_url", str_v(site_url_in(s, a, site_feed_file(a, sec->path))));
    tpl_list *l = tpl_list_new(a, sec->nposts);
    for (size_t k = 0; k < sec->nposts; k++)
        l->items[k] = tpl_map_value(s->pages[sec->posts[k]].value);
    tpl_map_set_str(a, m, "posts", tpl_list_value(l));
    tpl_map_set_str(a, m, "count", tpl_int((int64_t)sec->nposts));
    site_index_fields(s, sec->index_page, a, m);
    tpl_map_seal(a, m);
    sec->value = m;
}

void site_index_fields(const site *s, int index_page, arena *a, tpl_map *m)
{
    const page *ip = index_page >= 0 ? &s->pages[index_page] : NULL;
    const tpl_map *iv = ip && !ip->failed ? ip->value : NULL;
    tpl_map_set_str(a, m, "content", iv ? tpl_map_get_cstr(iv, "content") : tpl_safe_strn("", 0));
    tpl_map_set_str(a, m, "summary", iv ? tpl_map_get_cstr(iv, "summary") : tpl_safe_strn("", 0));
    tpl_map_set_str(a, m, "params", iv ? tpl_map_get_cstr(iv, "params") : tpl_map_value(tpl_map_new(a, 0)));
    tpl_map_set_str(a, m, "source", iv ? tpl_map_get_cstr(iv, "source") : tpl_str(""));
    static const char *const image[] = { "image", "image_width", "image_height" };
    for (size_t k = 0; iv && k < 3; k++)
        if (tpl_map_find(iv, image[k]) >= 0)
            tpl_map_set_str(a, m, image[k], tpl_map_get_cstr(iv, image[k]));
}

void site_build_model(site *s, diag_list *d)
{
    arena *a = s->a;
    size_t np = 0, nplain = 0;
    s->posts = xcalloc(s->npages + 1, sizeof *s->posts);
    s->plain = xcalloc(s->npages + 1, sizeof *s->plain);
    for (size_t i = 0; i < s->npages; i++) {
        page *p = &s->pages[i];
        if (p->failed || p->excluded || !p->path || p->is_index)
            continue;
        if (p->is_post)
            s->posts[np++] = (int)i;
        else
            s->plain[nplain++] = (int)i;
    }
    s->nposts = np;
    s->nplain = nplain;
    sort_site = s;
    vec_sort(s->posts, np, sizeof *s->posts, cmp_posts);
    vec_sort(s->plain, nplain, sizeof *s->plain, cmp_plain);
    /* each section's posts, newest first; prev/next within the section */
    for (size_t i = 0; i < s->nsections; i++)
        s->sections[i].nposts = 0;
    for (size_t k = 0; k < np; k++) {
        page *p = &s->pages[s->posts[k]];
        section_info *sec = &s->sections[p->section];
        p->next = sec->nposts ? sec->posts[sec->nposts - 1] : -1;
        p->prev = -1;
        if (p->next >= 0)
            s->pages[p->next].prev = s->posts[k];
        VEC_PUSH(sec->posts, sec->nposts, sec->capposts, 16, s->posts[k]);
    }
    size_t *term_at;
    int *term_ix;
    strmap *term_index = build_terms(s, &term_at, &term_ix);
    site_find_related(s, d);

    tpl_map *sm = tpl_map_new(a, 20);
    site_citation_values(s, sm); /* before the pages: their bibliographies */
    site_papers_values(s, sm);
    /* every page's value, in parallel: posts, pages, the _index.md of the
     * home page and of sections */
    site_values *vj = xcalloc(1, sizeof *vj);
    *vj = (site_values){ .s = s, .term_index = term_index, .order = xcalloc(s->npages + 1, sizeof *vj->order),
                         .refs = xcalloc(s->npages + 1, sizeof *vj->refs),
                         .terms = xcalloc(s->nterms + 1, sizeof *vj->terms), .term_at = term_at,
                         .term_ix = term_ix, .last = xcalloc((size_t)s->nwa + 1, sizeof *vj->last) };
    pthread_mutex_init(&vj->mu, NULL);
    for (size_t i = 0; i < s->nterms; i++)
        vj->terms[i] = term_ref(s, a, s->terms[i].name, &s->terms[i], NULL);
    site_parallel(s->npages, s->nwa, refv_job, vj);
    vj->related = xcalloc(s->npages * RELATED_SHARED_MAX + 1, sizeof *vj->related);
    /* the published posts and pages, and the _index.md of the home page
     * and of sections, in the pages' order (the posts' is all over
     * memory: at 100,000 posts, 15 ms more) */
    for (size_t i = 0; i < s->npages; i++) {
        const page *p = &s->pages[i];
        if (!p->failed && p->path && (p->is_index || !p->excluded))
            vj->order[vj->n++] = (int)i;
    }
    /* the lazy hook that makes a map when read is site/bulk.c's */
    if (!s->md_disk && !s->spill)
        s->known_inputs = NULL;
    site_parallel(vj->n, s->nwa, value_job, vj);
    s->values = vj;
    bool unmade = false;
    for (size_t k = 0; k < vj->n && !unmade; k++)
        unmade = s->pages[vj->order[k]].value_known;
    if (unmade)
        vj->a = arena_new();

    tpl_list *posts = tpl_list_new(a, np);
    for (size_t k = 0; k < np; k++)
        posts->items[k] = tpl_map_value(s->pages[s->posts[k]].value);
    tpl_list *plain = tpl_list_new(a, nplain);
    for (size_t k = 0; k < nplain; k++)
        plain->items[k] = tpl_map_value(s->pages[s->plain[k]].value);
    tpl_map *taxonomies = tpl_map_new(a, s->ntaxonomies + 1);
    tpl_value tags = tpl_list_value(tpl_list_new(a, 0));
    for (size_t t = 0; t < s->ntaxonomies; t++) {
        taxonomy_value(s, &s->taxonomies[t]);
        tpl_map_set_str(a, taxonomies, s->taxonomies[t].name, tpl_map_value(s->taxonomies[t].value));
        if (!strcmp(s->taxonomies[t].name, "tags"))
            tags = tpl_map_get_cstr(s->taxonomies[t].value, "terms");
    }
    tpl_map_seal(a, taxonomies);

    const site_config *c = &s->cfg;
    tpl_map_set_str(a, sm, "title", str_v(c->title));
    tpl_map_set_str(a, sm, "description", str_v(c->description));
    tpl_map_set_str(a, sm, "base_url", str_v(c->base_url));
    tpl_map_set_str(a, sm, "base_path", str_v(c->base_path));
    tpl_map_set_str(a, sm, "author", str_v(c->author));
    tpl_map_set_str(a, sm, "language", str_v(c->language));
    tpl_map *fav = tpl_map_new(a, 3);
    tpl_map_set_str(a, fav, "url", str_v(site_url(s, s->favicon_path ? s->favicon_path : "favicon.svg")));
    tpl_map_set_str(a, fav, "text", s->favicon_text ? str_v(s->favicon_text) : tpl_none());
    tpl_map_set_str(a, fav, "emoji", tpl_bool(s->favicon_text &&
                                              text_leading_emoji(s->favicon_text, strlen(s->favicon_text))));
    tpl_map_set_str(a, sm, "favicon", tpl_map_value(fav));
    tpl_map_set_str(a, sm, "search", tpl_bool(c->search));
    tpl_map_set_str(a, sm, "params", c->params);
    tpl_map_set_str(a, sm, "data", s->data.kind == TPL_MAP ? s->data : tpl_map_value(tpl_map_new(a, 0)));
    tpl_map_set_str(a, sm, "posts", tpl_list_value(posts));
    tpl_map_set_str(a, sm, "pages", tpl_list_value(plain));
    tpl_map_set_str(a, sm, "tags", tags);
    tpl_map_set_str(a, sm, "taxonomies", tpl_map_value(taxonomies));
    tpl_list *sections = tpl_list_new(a, s->nsections);
    for (size_t i = 0; i < s->nsections; i++) {
        section_value(s, &s->sections[i]);
        sections->items[i] = tpl_map_value(s->sections[i].value);
    }
    tpl_map_set_str(a, sm, "sections", tpl_list_value(sections));
    if (s->home_index >= 0 && s->pages[s->home_index].value)
        tpl_map_set_str(a, sm, "home", tpl_map_value(s->pages[s->home_index].value));
    /* build_date: the newest post's date keeps output reproducible; a site
     * without posts gets the Unix epoch */
    sheaf_date bd = { 0, 0, true, false };
    if (np)
        bd = s->pages[s->posts[0]].has_updated && s->pages[s->posts[0]].updated.t > s->pages[s->posts[0]].date.t
                 ? s->pages[s->posts[0]].updated : s->pages[s->posts[0]].date;
    tpl_map_set_str(a, sm, "build_date", site_date_value(&bd));
    tpl_map_seal(a, sm);
    s->site_value = tpl_map_value(sm);
    if (!unmade) /* every map is made: what they are made from is not needed */
        site_values_free(s);
}

/* Posts by year, newest year first. The year is the one each post was
 * written in (its own offset), so posts sorted by instant need not come in
 * year runs: bucket them, keeping the newest-first order inside a year. */
static int cmp_year_desc(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return a < b ? 1 : a > b ? -1 : 0;
}

tpl_value site_archive_years(site *s)
{
    arena *a = s->a;
    int *year = xcalloc(s->nposts + 1, sizeof *year);
    int *distinct = xcalloc(s->nposts + 1, sizeof *distinct);
    size_t nd = 0;
    for (size_t k = 0; k < s->nposts; k++) {
        year[k] = (int)date_year(&s->pages[s->posts[k]].date);
        distinct[nd++] = year[k];
    }
    vec_sort(distinct, nd, sizeof *distinct, cmp_year_desc);
    size_t u = 0;
    for (size_t k = 0; k < nd; k++)
        if (!u || distinct[u - 1] != distinct[k])
            distinct[u++] = distinct[k];
    /* count, then fill each year's list in post order */
    size_t *count = xcalloc(u + 1, sizeof *count), *fill = xcalloc(u + 1, sizeof *fill);
    size_t *slot = xcalloc(s->nposts + 1, sizeof *slot);
    for (size_t k = 0; k < s->nposts; k++) {
        size_t lo = 0, hi = u; /* binary search in the descending list */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (distinct[mid] > year[k])
                lo = mid + 1;
            else
                hi = mid;
        }
        slot[k] = lo;
        count[lo]++;
    }
    tpl_list **lists = xcalloc(u + 1, sizeof *lists);
    for (size_t i = 0; i < u; i++)
        lists[i] = tpl_list_new(a, count[i]);
    for (size_t k = 0; k < s->nposts; k++)
        lists[slot[k]]->items[fill[slot[k]]++] = tpl_map_value(s->pages[s->posts[k]].value);
    tpl_list *l = tpl_list_new(a, u);
    for (size_t i = 0; i < u; i++) {
        tpl_map *m = tpl_map_new(a, 2);
        tpl_map_set_str(a, m, "year", tpl_int(distinct[i]));
        tpl_map_set_str(a, m, "posts", tpl_list_value(lists[i]));
        tpl_map_seal(a, m);
        l->items[i] = tpl_map_value(m);
    }
    free(year);
    free(distinct);
    free(count);
    free(fill);
    free(slot);
    free(lists);
    return tpl_list_value(l);
}

/* bulk_toc: a page's table of contents in a one-shot build with the build
 * cache (site/bulk.h). The model gives a page with headings a stand-in for
 * its `toc`; the first read makes the list. Made by the render job of the
 * page's own output, it is let go when that job ends (the entry is the
 * stand-in again, and a later read makes it again); read by another job
 * meanwhile, or made outside the page's own job, it lives as long as the
 * site. Under ASan a list let go while a reader still holds it is a
 * use after free here. */
#include <pthread.h>
#include <string.h>

#include "harness.h"
#include "site/bulk.h"
#include "site/site.h"
#include "util/arena.h"

static md_heading heads[2][2] = {
    { { 2, "a0", "A zero", NULL, 1 }, { 3, "b0", "B zero", NULL, 3 } },
    { { 2, "a1", "A one", NULL, 1 }, { 2, "b1", "B one", NULL, 3 } },
};

static char disk; /* only whether the site has a build cache is looked at */

/* Two pages whose maps are {title, toc: stand-in}, as the model makes them
 * in a build with the cache, and the hook that fills them. */
static void make(site *s, page pg[2], arena *a)
{
    memset(s, 0, sizeof *s);
    memset(pg, 0, 2 * sizeof *pg);
    s->pages = pg;
    s->npages = 2;
    s->md_disk = (site_md_disk *)&disk;
    for (int i = 0; i < 2; i++) {
        pg[i].index = i;
        pg[i].md.headings = heads[i];
        pg[i].md.nheadings = 2;
        tpl_map *m = tpl_map_new(a, 4);
        tpl_map_set_str(a, m, "title", tpl_str("T"));
        tpl_value v;
        OK(site_page_lazy_toc(s, a, &pg[i], &v));
        tpl_map_set_str(a, m, "toc", v);
        m->owner = site_page_owner(&pg[i]);
        pg[i].value = m;
        site_page_lazy_map(s, &pg[i]);
    }
    site_bulk_hook(s, true);
}

static tpl_value entry(const tpl_map *m) { return m->entries[tpl_map_find(m, "toc")].value; }

static tpl_value toc(const page *p) { return tpl_map_get(p->value, "toc", 3); }

/* The first heading's title of a toc (a list of maps). */
static const char *first_title(tpl_value t)
{
    if (t.kind != TPL_LIST || !t.u.list->len || t.u.list->items[0].kind != TPL_MAP)
        return NULL;
    tpl_value v = tpl_map_get(t.u.list->items[0].u.map, "title", 5);
    return v.kind == TPL_STRING ? v.u.s : NULL;
}

TEST(own_job_lets_go)
{
    arena *a = arena_new();
    site s;
    page pg[2];
    make(&s, pg, a);
    tpl_value standin = entry(pg[0].value);
    EQ_INT(standin.kind, TPL_STRING);
    site_bulk_job_begin(&s, 0);
    (void)tpl_map_get(pg[0].value, "title", 5); /* not the toc: nothing made */
    EQ_INT(entry(pg[0].value).kind, TPL_STRING);
    tpl_value t = toc(&pg[0]);
    EQ_STR(first_title(t), "A zero");
    EQ_INT(t.u.list->len, 1); /* B zero is its child */
    EQ_STR(first_title(toc(&pg[0])), "A zero"); /* read again by the job */
    OK(atomic_load(&pg[0].value->lazy)); /* others still come through the hook */
    site_bulk_job_end(&s);
    /* let go: the stand-in again, the same bytes */
    tpl_value e = entry(pg[0].value);
    EQ_INT(e.kind, TPL_STRING);
    OK(e.u.s == standin.u.s);
    OK(atomic_load(&pg[0].value->lazy));
    /* read outside the page's own job (a list of posts): made again, kept */
    t = toc(&pg[0]);
    EQ_STR(first_title(t), "A zero");
    EQ_INT(entry(pg[0].value).kind, TPL_LIST);
    OK(!atomic_load(&pg[0].value->lazy));
    site_bulk_job_begin(&s, 0);
    OK(toc(&pg[0]).u.list == t.u.list);
    site_bulk_job_end(&s);
    EQ_STR(first_title(t), "A zero");
    site_bulk_hook(&s, false);
    arena_free(a);
}

typedef struct other {
    site *s;
    page *p;
    tpl_value got;
} other;

/* Another render job, on another thread, reads page 1's toc. */
static void *other_job(void *v)
{
    other *o = v;
    site_bulk_job_begin(o->s, 0);
    o->got = toc(o->p);
    site_bulk_job_end(o->s);
    return NULL;
}

TEST(read_by_another_job_is_kept)
{
    arena *a = arena_new();
    site s;
    page pg[2];
    make(&s, pg, a);
    site_bulk_job_begin(&s, 1);
    tpl_value t = toc(&pg[1]);
    EQ_STR(first_title(t), "A one");
    other o = { &s, &pg[1], { 0 } };
    pthread_t th;
    OK(pthread_create(&th, NULL, other_job, &o) == 0);
    pthread_join(th, NULL);
    OK(o.got.kind == TPL_LIST && o.got.u.list == t.u.list); /* the same list */
    site_bulk_job_end(&s);
    /* the other job holds it: still there, in the map and in its hands */
    EQ_INT(entry(pg[1].value).kind, TPL_LIST);
    OK(!atomic_load(&pg[1].value->lazy));
    EQ_STR(first_title(o.got), "A one");
    EQ_INT(o.got.u.list->len, 2);
    site_bulk_hook(&s, false);
    arena_free(a);
}

TEST(whole_map_read_by_another_job)
{
    arena *a = arena_new();
    site s;
    page pg[2];
    make(&s, pg, a);
    site_bulk_job_begin(&s, 1);
    tpl_map_touch_all(pg[0].value); /* page 0's map printed or compared in page 1's job */
    site_bulk_job_end(&s);
    EQ_INT(entry(pg[0].value).kind, TPL_LIST);
    EQ_STR(first_title(entry(pg[0].value)), "A zero");
    OK(!atomic_load(&pg[0].value->lazy));
    site_bulk_hook(&s, false);
    arena_free(a);
}

int main(void)
{
    RUN(own_job_lets_go);
    RUN(read_by_another_job_is_kept);
    RUN(whole_map_read_by_another_job);
    return harness_done();
}

/* srcrec: the load stage's records of sources in the build cache — a
 * record is given back whole (the front matter tree, aliases shared, key
 * places naming its maps) for the identity it was taken with, and never
 * for another identity, a racily clean one or another site's. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache/cache.h"
#include "fm/fm.h"
#include "harness.h"
#include "site/srcrec.h"
#include "util/fs.h"

static const char *FM = "title: T\nx: &a {k: 1, deep: [1, 2.5, true, null, 2024-03-18T10:20:00+08:00]}\n"
                        "y: *a\ntags: [one, two]\n";
static const char *TEXT = "---\ntitle: T\n---\nBody.\n";

typedef struct fixture {
    char dir[64];
    site s;
    page p;
    arena *a;
} fixture;

static void setup(fixture *f, const char *dir)
{
    memset(f, 0, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "%s", dir);
    f->a = arena_new();
    f->s.dir = f->dir;
    f->s.cache = cache_open(f->dir, 0);
    f->p.src = "content/a.md";
    f->s.pages = &f->p;
    f->s.npages = 1;
}

static void teardown(fixture *f)
{
    cache_free(f->s.cache);
    arena_free(f->a);
}

static site_src_ident ident(long long mtime, long long ctime)
{
    site_src_ident id = { 1, 2, (long long)strlen(TEXT), mtime, 5, ctime, 7 };
    return id;
}

/* Records page a.md, parsed from FM, with identity id. */
static void keep(fixture *f, const site_src_ident *id, tpl_value *fm_out)
{
    site_src_head h = { 0 };
    OK(fm_parse_yaml_pos(str_make(FM, strlen(FM)), 2, "a.md", f->a, &h.fm, &h.pos, &h.npos, NULL));
    h.text_len = strlen(TEXT);
    h.body_off = 18;
    h.body_len = h.text_len - 18;
    h.body_line = 4;
    f->p.text = (char *)TEXT;
    f->p.text_len = strlen(TEXT);
    site_src_records *r = site_src_records_open(&f->s, 1, 1);
    site_src_records_keep(r, 0, &f->p, id, &h);
    OK(f->p.has_digest);
    site_src_records_close(r, &f->s, NULL);
    f->p.text = NULL;
    *fm_out = h.fm;
}

static bool take(fixture *f, const site_src_ident *id, site_src_head *h)
{
    page q = { .src = "content/a.md" };
    site_src_records *r = site_src_records_open(&f->s, 1, 1);
    bool ok = site_src_records_take(r, 0, &q, id, f->a, h);
    if (ok)
        OK(q.has_digest);
    site_src_records_close(r, &f->s, NULL);
    return ok;
}

TEST(record_back_whole)
{
    char tmpl[] = "/tmp/sheaf-srcrec-XXXXXX";
    OK(mkdtemp(tmpl) != NULL);
    fixture f;
    setup(&f, tmpl);
    long long now = (long long)time(NULL);
    site_src_ident id = ident(now - 100, now - 100);
    tpl_value fm;
    keep(&f, &id, &fm);
    site_src_head h;
    OK(take(&f, &id, &h));
    OK(tpl_value_equal(h.fm, fm));
    EQ_INT((long)h.body_off, 18);
    EQ_INT((long)h.body_line, 4);
    /* the alias is one map, as the parse gave it */
    tpl_value x = tpl_map_get_cstr(h.fm.u.map, "x"), y = tpl_map_get_cstr(h.fm.u.map, "y");
    OK(x.kind == TPL_MAP && x.u.map == y.u.map);
    /* every key place names a map of the tree read back */
    EQ_INT((long)h.npos, 6);
    const fm_key_pos *title = fm_key_find(h.pos, h.npos, h.fm.u.map, "title");
    OK(title && title->line == 2 && title->vcol == 8);
    OK(fm_key_find(h.pos, h.npos, x.u.map, "deep") != NULL);
    /* any other identity: not this record */
    site_src_ident other = id;
    other.ctime_ns++;
    OK(!take(&f, &other, &h));
    other = id;
    other.ino++;
    OK(!take(&f, &other, &h));
    other = id;
    other.size--;
    OK(!take(&f, &other, &h));
    teardown(&f);
    /* another site folder: its records are not found */
    char tmpl2[] = "/tmp/sheaf-srcrec-XXXXXX";
    OK(mkdtemp(tmpl2) != NULL);
    fixture g;
    setup(&g, tmpl2);
    cache_free(g.s.cache);
    g.s.cache = cache_open(tmpl, 0); /* the first site's cache, copied */
    OK(!take(&g, &id, &h));
    teardown(&g);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", tmpl, tmpl2);
    OK(system(cmd) == 0);
}

TEST(racily_clean_not_trusted)
{
    char tmpl[] = "/tmp/sheaf-srcrec-XXXXXX";
    OK(mkdtemp(tmpl) != NULL);
    fixture f;
    setup(&f, tmpl);
    long long now = (long long)time(NULL);
    tpl_value fm;
    site_src_head h;
    /* written a second before the record was taken: in its granule */
    site_src_ident m = ident(now - 1, now - 100);
    keep(&f, &m, &fm);
    OK(!take(&f, &m, &h));
    site_src_ident c = ident(now - 100, now);
    keep(&f, &c, &fm);
    OK(!take(&f, &c, &h));
    /* older than the window: trusted */
    site_src_ident old = ident(now - 3, now - 3);
    keep(&f, &old, &fm);
    OK(take(&f, &old, &h));
    teardown(&f);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpl);
    OK(system(cmd) == 0);
}

/* The records are given to the pages by a merge in page order (srcrec.c
 * index_shard): pages added before others, removed, or moved put it out
 * of step, and every page still gets its own record (each page's
 * identity differs, so a page given another's record is refused). */
#define MANY 80
TEST(records_follow_pages_out_of_order)
{
    char tmpl[] = "/tmp/sheaf-srcrec-XXXXXX";
    OK(mkdtemp(tmpl) != NULL);
    fixture f;
    setup(&f, tmpl);
    long long now = (long long)time(NULL);
    site_src_head h = { 0 };
    OK(fm_parse_yaml_pos(str_make(FM, strlen(FM)), 2, "a.md", f.a, &h.fm, &h.pos, &h.npos, NULL));
    h.text_len = strlen(TEXT);
    h.body_off = 18;
    h.body_len = h.text_len - 18;
    h.body_line = 4;
    static page pages[MANY + 2];
    static char names[MANY + 2][32];
    site_src_ident ids[MANY + 2];
    for (int i = 0; i < MANY + 2; i++) {
        snprintf(names[i], sizeof names[i], "content/p%02d.md", i);
        memset(&pages[i], 0, sizeof pages[i]);
        pages[i].src = names[i];
        pages[i].text = (char *)TEXT;
        pages[i].text_len = strlen(TEXT);
        ids[i] = ident(now - 100, now - 100);
        ids[i].ino = 1000 + (unsigned long long)i;
    }
    /* the last build: pages 0 .. MANY-1 */
    f.s.pages = pages;
    f.s.npages = MANY;
    site_src_records *r = site_src_records_open(&f.s, MANY, 2);
    for (int i = 0; i < MANY; i++)
        site_src_records_keep(r, (size_t)i, &pages[i], &ids[i], &h);
    site_src_records_close(r, &f.s, NULL);
    /* this build: MANY and MANY+1 added first and in the middle, 3 and
     * 60 removed, 10 .. 49 in the reverse order */
    page now_pages[MANY + 2];
    int from[MANY + 2], n = 0;
    from[n++] = MANY;
    for (int i = 0; i < MANY; i++) {
        if (i == 3 || i == 60)
            continue;
        if (i == 30)
            from[n++] = MANY + 1;
        from[n++] = i >= 10 && i <= 49 ? 59 - i : i;
    }
    for (int k = 0; k < n; k++) {
        memset(&now_pages[k], 0, sizeof now_pages[k]);
        now_pages[k].src = names[from[k]];
    }
    f.s.pages = now_pages;
    f.s.npages = (size_t)n;
    r = site_src_records_open(&f.s, (size_t)n, 2);
    int taken = 0;
    for (int k = 0; k < n; k++) {
        site_src_head got;
        bool ok = site_src_records_take(r, (size_t)k, &now_pages[k], &ids[from[k]], f.a, &got);
        if (from[k] < MANY) {
            OK(ok);
            taken += ok;
        } else {
            OK(!ok);
        }
    }
    EQ_INT(taken, MANY - 2);
    site_src_records_close(r, &f.s, NULL);
    f.s.pages = &f.p;
    f.s.npages = 1;
    teardown(&f);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpl);
    OK(system(cmd) == 0);
}

int main(void)
{
    RUN(record_back_whole);
    RUN(racily_clean_not_trusted);
    RUN(records_follow_pages_out_of_order);
    return harness_done();
}

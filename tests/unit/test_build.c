/* Unit tests for render/build: a build session (what `sheaf serve` runs)
 * writes exactly what a fresh build_site writes, after edits it was told
 * about and after edits it was not told about. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/build.h"
#include "render/output.h"
#include "site/site.h"
#include "util/buf.h"

#include "sitefiles.h"

static void rm(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/site/%s", root, rel);
    unlink(path);
}

/* A fresh one-shot build into root/fresh; then diff -r against root/out. */
static bool same_as_fresh(void)
{
    char cmd[800], site[300], fresh[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/fresh'", root);
    if (system(cmd) != 0)
        return false;
    snprintf(site, sizeof site, "%s/site", root);
    snprintf(fresh, sizeof fresh, "%s/fresh", root);
    build_options o = { .site_dir = site, .out_dir = fresh, .write = true, .jobs = 2 };
    diag_list *d = diag_list_new();
    bool ok = build_site(&o, d, NULL);
    diag_list_free(d);
    snprintf(cmd, sizeof cmd, "diff -r '%s/fresh' '%s/out' >&2", root, root);
    return ok && system(cmd) == 0;
}

static bool exists(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/out/%s", root, rel);
    struct stat st;
    return stat(path, &st) == 0;
}

TEST(reading_time)
{
    EQ_INT(site_reading_time(0, 0), 1);
    EQ_INT(site_reading_time(230, 0), 1);
    EQ_INT(site_reading_time(231, 0), 2);
    EQ_INT(site_reading_time(400, 400), 1);   /* 400 CJK characters */
    EQ_INT(site_reading_time(401, 401), 2);
    EQ_INT(site_reading_time(630, 400), 2);   /* 1 + 1 */
    EQ_INT(site_reading_time(4600, 0), 20);
}

TEST(session_matches_build_site)
{
    snprintf(root, sizeof root, "/tmp/sheaf-test-build-XXXXXX");
    OK(mkdtemp(root) != NULL);
    put("site.yaml", "title: Session\nbase_url: https://example.org/\n");
    put("content/posts/2024-01-01-a.md", "---\ntitle: A\ntags: [x]\n---\nA links to [b](2024-01-02-b.md#part).\n");
    put("content/posts/2024-01-02-b.md", "---\ntitle: B\n---\n## Part\n\nB.\n");
    put("content/about.md", "---\ntitle: About\n---\nAbout.\n");
    char site[300], out[300];
    snprintf(site, sizeof site, "%s/site", root);
    snprintf(out, sizeof out, "%s/out", root);
    build_options o = { .site_dir = site, .out_dir = out, .write = true, .jobs = 2 };
    build_session *s = build_session_new(&o);
    diag_list *d = diag_list_new();
    build_stats st;

    OK(build_session_run(s, NULL, 0, d, &st));
    EQ_INT(diag_count(d), 0);
    EQ_INT(st.posts, 2);
    OK(same_as_fresh());

    /* an edit the session is told about */
    put("content/posts/2024-01-02-b.md", "---\ntitle: B2\n---\n## Part\n\nB, longer now.\n");
    const char *ch1[] = { "content/posts/2024-01-02-b.md" };
    OK(build_session_run(s, ch1, 1, d, &st));
    OK(same_as_fresh());

    /* an edit it is not told about (a lost event) is still seen */
    put("content/about.md", "---\ntitle: About us\n---\nAbout, edited.\n");
    const char *ch2[] = { "templates/base.html" };
    OK(build_session_run(s, ch2, 1, d, &st));
    OK(same_as_fresh());

    /* a new post and a deleted page */
    put("content/posts/2024-01-03-c.md", "---\ntitle: C\ntags: [y]\n---\nC.\n");
    rm("content/about.md");
    const char *ch3[] = { "content/posts/2024-01-03-c.md", "content/about.md" };
    OK(build_session_run(s, ch3, 2, d, &st));
    EQ_INT(st.posts, 3);
    OK(!exists("about/index.html"));
    OK(exists("tags/y/index.html"));
    OK(same_as_fresh());

    /* an error keeps the previous output; fixing it builds again */
    put("content/posts/2024-01-03-c.md", "---\ntitle: C\n---\nC links to [nowhere](x.md).\n");
    OK(!build_session_run(s, ch3, 1, d, &st));
    OK(diag_error_count(d) == 1);
    OK(exists("tags/y/index.html"));
    diag_clear(d);
    put("content/posts/2024-01-03-c.md", "---\ntitle: C\n---\nC.\n");
    OK(build_session_run(s, ch3, 1, d, &st));
    OK(!exists("tags/y/index.html"));
    OK(same_as_fresh());

    /* the target of a cached page's link loses its heading: the cached
     * link is checked again and fails; restoring it fixes the build */
    put("content/posts/2024-01-02-b.md", "---\ntitle: B2\n---\n## Other\n\nB.\n");
    const char *ch5[] = { "content/posts/2024-01-02-b.md" };
    OK(!build_session_run(s, ch5, 1, d, &st));
    EQ_INT(diag_error_count(d), 1);
    diag_clear(d);
    put("content/posts/2024-01-02-b.md", "---\ntitle: B2\n---\n## Part\n\nB.\n");
    OK(build_session_run(s, ch5, 1, d, &st));
    OK(same_as_fresh());

    /* a new slug moves the target: the unchanged page linking to it must
     * get the new URL */
    put("content/posts/2024-01-02-b.md", "---\ntitle: B2\nslug: bee\n---\n## Part\n\nB.\n");
    OK(build_session_run(s, ch5, 1, d, &st));
    OK(exists("posts/bee/index.html"));
    OK(!exists("posts/b/index.html"));
    OK(same_as_fresh());

    /* front matter only: a title and a tag */
    put("content/posts/2024-01-01-a.md", "---\ntitle: A renamed\ntags: [x, z]\n---\nA links to [b](2024-01-02-b.md#part).\n");
    const char *ch6[] = { "content/posts/2024-01-01-a.md" };
    OK(build_session_run(s, ch6, 1, d, &st));
    OK(exists("tags/z/index.html"));
    OK(same_as_fresh());

    /* a page with a front-matter error reports it on every run */
    put("content/posts/2024-01-04-bad.md", "---\ntitle: [x\n---\n");
    const char *ch7[] = { "content/posts/2024-01-04-bad.md" };
    OK(!build_session_run(s, ch7, 1, d, &st));
    EQ_INT(diag_error_count(d), 1);
    diag_clear(d);
    OK(!build_session_run(s, ch6, 1, d, &st));
    EQ_INT(diag_error_count(d), 1);
    diag_clear(d);
    rm("content/posts/2024-01-04-bad.md");
    OK(build_session_run(s, ch7, 1, d, &st));
    OK(same_as_fresh());

    /* drafts: hidden, then published */
    put("content/posts/2024-01-05-d.md", "---\ntitle: D\ndraft: true\n---\nD to [a](2024-01-01-a.md).\n");
    const char *ch8[] = { "content/posts/2024-01-05-d.md" };
    OK(build_session_run(s, ch8, 1, d, &st));
    OK(!exists("posts/d/index.html"));
    OK(same_as_fresh());
    put("content/posts/2024-01-05-d.md", "---\ntitle: D\n---\nD to [a](2024-01-01-a.md).\n");
    OK(build_session_run(s, ch8, 1, d, &st));
    OK(exists("posts/d/index.html"));
    OK(same_as_fresh());

    /* site.yaml changes everything */
    put("site.yaml", "title: Renamed\nbase_url: https://example.org/sub/\n");
    const char *ch4[] = { "site.yaml" };
    OK(build_session_run(s, ch4, 1, d, &st));
    OK(same_as_fresh());
    EQ_INT(diag_count(d), 0);
    /* and a full run after all that */
    OK(build_session_run(s, NULL, 0, d, &st));
    OK(same_as_fresh());

    diag_list_free(d);
    build_session_free(s);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    OK(system(cmd) == 0);
}

/* Edits of a page's body only are rebuilt from the last run's model,
 * rendering just the outputs that read what changed; the result must still
 * be exactly a fresh build's, whatever the templates read. */
TEST(session_body_edits)
{
    snprintf(root, sizeof root, "/tmp/sheaf-test-build-XXXXXX");
    OK(mkdtemp(root) != NULL);
    put("site.yaml", "title: Fast\nbase_url: https://example.org/\n");
    put("content/posts/2024-01-01-a.md", "---\ntitle: A\ntags: [x]\n---\nA links to [b](2024-01-02-b.md#part).\n");
    put("content/posts/2024-01-02-b.md", "---\ntitle: B\ntags: [x, y]\n---\nFirst paragraph of B.\n\n## Part\n\nB.\n");
    put("content/posts/2024-01-03-c.md", "---\ntitle: C\n---\nC.\n");
    put("content/about.md", "---\ntitle: About\n---\nAbout.\n");
    /* templates that read body fields of other pages in unusual ways */
    put("templates/archive.html",
        "{% for p in site.posts %}{{ p.title }} {{ p.word_count }}|{% endfor %}\n");
    put("templates/tags.html",
        "{% for t in site.tags %}{% for p in t.posts %}{% for k, v in p.items() %}"
        "{% if k == 'word_count' %}{{ v }}{% endif %}{% endfor %}{% endfor %}{% endfor %}\n");
    put("templates/404.html", "{{ site.pages | map(attribute='content') | join('') | length }}\n");
    char site[300], out[300];
    snprintf(site, sizeof site, "%s/site", root);
    snprintf(out, sizeof out, "%s/out", root);
    build_options o = { .site_dir = site, .out_dir = out, .write = true, .jobs = 2 };
    build_session *s = build_session_new(&o);
    diag_list *d = diag_list_new();
    build_stats st;
    OK(build_session_run(s, NULL, 0, d, &st));
    EQ_INT(diag_count(d), 0);
    size_t all = st.rendered;
    OK(all > 10);

    /* more words at the end of B: B's page, and whatever reads its word
     * count (archive, tags index), but not C's or the tag pages */
    const char *chb[] = { "content/posts/2024-01-02-b.md" };
    put("content/posts/2024-01-02-b.md", "---\ntitle: B\ntags: [x, y]\n---\nFirst paragraph of B.\n\n## Part\n\nB, and many more words than before.\n");
    OK(build_session_run(s, chb, 1, d, &st));
    EQ_INT(diag_count(d), 0);
    OK(st.rendered > 0 && st.rendered < all);
    OK(same_as_fresh());

    /* B's summary (its first paragraph) changes: the lists showing it too */
    put("content/posts/2024-01-02-b.md", "---\ntitle: B\ntags: [x, y]\n---\nA new first paragraph.\n\n## Part\n\nB, and many more words than before.\n");
    OK(build_session_run(s, chb, 1, d, &st));
    OK(st.rendered < all);
    OK(same_as_fresh());

    /* a plain page's body: the 404 page reads it through site.pages */
    const char *cha[] = { "content/about.md" };
    put("content/about.md", "---\ntitle: About\n---\nAbout us, at length.\n");
    OK(build_session_run(s, cha, 1, d, &st));
    OK(st.rendered < all);
    OK(same_as_fresh());

    /* `sed -i` and editors save through a temporary file in the folder:
     * gone by the time of the rebuild, and no reason for a full one */
    put("content/about.md", "---\ntitle: About\n---\nAbout us, at length, by sed.\n");
    const char *chs[] = { "content/about.md", "content/sedX1b2c3" };
    OK(build_session_run(s, chs, 2, d, &st));
    OK(st.rendered < all);
    OK(same_as_fresh());

    /* nothing that shows changes (the same HTML): nothing is rendered */
    put("content/about.md", "---\ntitle: About\n---\nAbout us,   at length.\n");
    OK(build_session_run(s, cha, 1, d, &st));
    OK(same_as_fresh());

    /* a new title: the page, the lists, the neighbours' prev/next and the
     * backlinks that show it; A links to B, so B shows A's title */
    const char *cha3[] = { "content/posts/2024-01-01-a.md" };
    put("content/posts/2024-01-01-a.md", "---\ntitle: A, renamed\ntags: [x]\n---\nA links to [b](2024-01-02-b.md#part).\n");
    OK(build_session_run(s, cha3, 1, d, &st));
    EQ_INT(diag_count(d), 0);
    OK(st.rendered > 1 && st.rendered < all);
    OK(same_as_fresh());
    put("content/posts/2024-01-02-b.md", "---\ntitle: B, renamed\ntags: [x, y]\n---\nA new first paragraph.\n\n## Part\n\nB, and many more words than before.\n");
    OK(build_session_run(s, chb, 1, d, &st));
    OK(st.rendered < all);
    OK(same_as_fresh());
    /* params (a subtitle: `description:` is the summary too, which moves
     * lists) and the title back from the file name */
    put("content/posts/2024-01-02-b.md", "---\nsubtitle: About B.\ntags: [x, y]\n---\nA new first paragraph.\n\n## Part\n\nB, and many more words than before.\n");
    OK(build_session_run(s, chb, 1, d, &st));
    OK(st.rendered < all);
    OK(same_as_fresh());
    /* a new tag or date moves the page: full rebuilds */
    put("content/posts/2024-01-02-b.md", "---\nsubtitle: About B.\ntags: [x]\n---\nA new first paragraph.\n\n## Part\n\nB, and many more words than before.\n");
    OK(build_session_run(s, chb, 1, d, &st));
    EQ_INT(st.rendered, all - 2); /* tag y is gone: its page and its feed */
    OK(same_as_fresh());
    put("content/posts/2024-01-02-b.md", "---\ndate: 2023-12-31\ntags: [x]\n---\nA new first paragraph.\n\n## Part\n\nB, and many more words than before.\n");
    OK(build_session_run(s, chb, 1, d, &st));
    OK(same_as_fresh());
    all = st.rendered;

    /* a new heading id, a new link: full rebuilds; then a quick title */
    put("content/posts/2024-01-03-c.md", "---\ntitle: C\n---\n## New\n\nC.\n");
    const char *chc[] = { "content/posts/2024-01-03-c.md" };
    OK(build_session_run(s, chc, 1, d, &st));
    EQ_INT(st.rendered, all);
    OK(same_as_fresh());
    put("content/posts/2024-01-03-c.md", "---\ntitle: C\n---\n## New\n\nC, see [a](2024-01-01-a.md).\n");
    OK(build_session_run(s, chc, 1, d, &st));
    EQ_INT(st.rendered, all);
    OK(same_as_fresh());
    put("content/posts/2024-01-03-c.md", "---\ntitle: C2\n---\n## New\n\nC, see [a](2024-01-01-a.md).\n");
    OK(build_session_run(s, chc, 1, d, &st));
    OK(st.rendered < all);
    OK(same_as_fresh());

    /* a body edit that breaks a link: a full build reports it, writes nothing */
    put("content/posts/2024-01-01-a.md", "---\ntitle: A\ntags: [x]\n---\nA links to [b](2024-01-02-b.md#nope).\n");
    const char *cha2[] = { "content/posts/2024-01-01-a.md" };
    OK(!build_session_run(s, cha2, 1, d, &st));
    EQ_INT(diag_error_count(d), 1);
    diag_clear(d);
    put("content/posts/2024-01-01-a.md", "---\ntitle: A\ntags: [x]\n---\nA links to [b](2024-01-02-b.md#part), again.\n");
    OK(build_session_run(s, cha2, 1, d, &st));
    OK(same_as_fresh());
    /* and the next body edit is quick again */
    put("content/posts/2024-01-01-a.md", "---\ntitle: A\ntags: [x]\n---\nA links to [b](2024-01-02-b.md#part), once more.\n");
    OK(build_session_run(s, cha2, 1, d, &st));
    OK(st.rendered < all);
    OK(same_as_fresh());
    EQ_INT(diag_count(d), 0);

    diag_list_free(d);
    build_session_free(s);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    OK(system(cmd) == 0);
}

/* Scheduling against a given clock: a post dated after it is left out
 * (unless `future`), a page whose expiry is at or before it is left out;
 * next_change is when the next of those changes, so that a session can
 * run again then; a session run after that moment builds the post. */
TEST(scheduling)
{
    snprintf(root, sizeof root, "/tmp/sheaf-test-build-XXXXXX");
    OK(mkdtemp(root) != NULL);
    put("content/posts/2024-01-01-now.md", "---\ntitle: Now\n---\nx\n");
    put("content/posts/2024-02-01-soon.md", "---\ntitle: Soon\ndate: 2024-02-01T12:00:00Z\n---\nx\n");
    put("content/posts/2024-03-01-later.md", "---\ntitle: Later\n---\nx\n");
    put("content/posts/2023-01-01-offer.md", "---\ntitle: Offer\nexpiry: 2024-01-20\n---\nx\n");
    put("content/posts/2023-01-02-gone.md", "---\ntitle: Gone\nexpiry: 2023-06-01\n---\nx\n");
    char site[300], out[300];
    snprintf(site, sizeof site, "%s/site", root);
    snprintf(out, sizeof out, "%s/out", root);
    const long long jan10 = 1704844800; /* 2024-01-10T00:00:00Z */
    build_options o = { .site_dir = site, .out_dir = out, .write = true, .jobs = 2, .now = jan10 };
    diag_list *d = diag_list_new();
    build_stats st;
    OK(build_site(&o, d, &st));
    EQ_INT(st.posts, 2); /* now, offer */
    EQ_INT(st.scheduled, 2);
    EQ_INT(st.expired, 1);
    OK(st.next_change == 1705708800); /* the offer's expiry, 2024-01-20 */
    OK(exists("posts/offer/index.html") && !exists("posts/soon/index.html"));

    o.now = 1705708800; /* the offer expires at that very second */
    OK(build_site(&o, d, &st));
    EQ_INT(st.posts, 1);
    EQ_INT(st.expired, 2);
    OK(st.next_change == 1706788800); /* soon: 2024-02-01T12:00:00Z */
    OK(!exists("posts/offer/index.html"));

    o.future = true;
    OK(build_site(&o, d, &st));
    EQ_INT(st.posts, 3);
    EQ_INT(st.scheduled, 0);
    OK(st.next_change == 0);
    OK(exists("posts/later/index.html"));
    EQ_INT(diag_count(d), 0);

    /* a session: the run after the moment builds the post that came due */
    o.future = false;
    o.now = 0; /* the real clock: these dates are long past */
    build_session *bs = build_session_new(&o);
    OK(build_session_run(bs, NULL, 0, d, &st));
    EQ_INT(st.posts, 3);
    OK(build_session_rerun(bs, d, &st));
    EQ_INT(st.posts, 3);
    build_session_free(bs);
    diag_list_free(d);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    OK(system(cmd) == 0);
}

/* A one-shot build lets a page's file go after its front matter and reads
 * it again for the Markdown (site_source_reread): the body comes back
 * where it was; a file changed in between is an error, never half of
 * each version. */
TEST(reread_after_front_matter)
{
    snprintf(root, sizeof root, "/tmp/sheaf-test-build-XXXXXX");
    OK(mkdtemp(root) != NULL);
    const char *text = "---\ntitle: A\n---\nThe body.\n";
    put("content/a.md", text);
    char dir[300];
    snprintf(dir, sizeof dir, "%s/site", root);
    site s = { 0 };
    s.dir = dir;
    page p = { 0 };
    p.src = "content/a.md";
    OK(site_source_stamp_of(dir, p.src, &p.stamp));
    p.text_dropped = true;
    p.body_off = strlen("---\ntitle: A\n---\n");
    p.body.len = strlen("The body.\n");
    diag_list *d = diag_list_new();
    OK(site_source_reread(&s, &p, d));
    EQ_INT(diag_count(d), 0);
    OK(p.body.ptr && p.body.len == 10 && !memcmp(p.body.ptr, "The body.\n", 10));
    OK(!p.text_dropped);
    free(p.text);
    p.text = NULL;

    /* the same size, another mtime: changed */
    p.text_dropped = true;
    p.stamp.mtime_ns ^= 1;
    OK(!site_source_reread(&s, &p, d));
    EQ_INT(diag_error_count(d), 1);
    buf b = BUF_INIT;
    diag_format(diag_get(d, 0), &b);
    EQ_STR(b.data, "content/a.md: error: changed while sheaf was building the site: build again");
    buf_release(&b);
    OK(p.text == NULL);
    diag_list_free(d);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    OK(system(cmd) == 0);
}

/* The pages' maps (site/model.c, map_copy_exact): a map whose keys are its
 * neighbour's, in the same order, uses its neighbour's hash index; one
 * with other keys has its own; every key of each is found at its place. */
static int shared_index_pairs, maps_checked;
static bool all_found = true;

static void check_model(void *ctx, const tpl_value *site)
{
    (void)ctx;
    tpl_value posts = tpl_map_get_cstr(site->u.map, "posts");
    if (posts.kind != TPL_LIST)
        return;
    const tpl_map *prev = NULL;
    for (size_t i = 0; i < posts.u.list->len; i++) {
        const tpl_map *m = posts.u.list->items[i].u.map;
        maps_checked++;
        if (prev && m->index && m->index == prev->index)
            shared_index_pairs++;
        for (size_t e = 0; e < m->len; e++) {
            const tpl_value *k = &m->entries[e].key;
            if (tpl_map_find(m, k->u.s) != (long)e)
                all_found = false;
        }
        if (!m->index)
            all_found = false; /* a page's map is large enough to be indexed */
        prev = m;
    }
}

TEST(page_maps_share_index)
{
    snprintf(root, sizeof root, "/tmp/sheaf-test-build-XXXXXX");
    OK(mkdtemp(root) != NULL);
    put("site.yaml", "title: Index\nbase_url: https://example.org/\n");
    put("content/posts/2024-01-01-a.md", "---\ntitle: A\ntags: [x]\n---\nA.\n");
    put("content/posts/2024-01-02-b.md", "---\ntitle: B\ntags: [y]\n---\nB.\n");
    put("content/posts/2024-01-03-c.md", "---\ntitle: C\ntags: [x]\n---\nC.\n");
    put("content/posts/2024-01-04-e.md", "---\ntitle: E\n---\nE.\n");
    /* `updated:` adds a key: its map cannot use the others' index */
    put("content/posts/2024-01-05-d.md", "---\ntitle: D\nupdated: 2024-02-01\n---\nD.\n");
    char site[300], out[300];
    snprintf(site, sizeof site, "%s/site", root);
    snprintf(out, sizeof out, "%s/out", root);
    build_options o = { .site_dir = site, .out_dir = out, .write = false, .jobs = 1,
                        .on_model = check_model };
    diag_list *d = diag_list_new();
    OK(build_site(&o, d, NULL));
    EQ_INT(diag_count(d), 0);
    diag_list_free(d);
    EQ_INT(maps_checked, 5);
    OK(all_found);
    /* newest first: d, e, c, b, a. e–c and c–b share; d has `updated`
     * and no `next`, a no `prev`: each has its own */
    EQ_INT(shared_index_pairs, 2);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    OK(system(cmd) == 0);
}

/* The manifests read ahead (render/output.c): output_begin takes the
 * target's as read only when its file is still the one read; one put in
 * its place, or written again, is read again. */
static void put_manifest(const char *dir, const char *paths, bool replace)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s%s", dir, OUTPUT_MANIFEST, replace ? ".new" : "");
    FILE *f = fopen(path, replace ? "w" : "r+");
    OK(f != NULL);
    if (!f)
        return;
    fputs("# sheaf: the files it wrote in this folder, which it alone may remove\n", f);
    fputs(paths, f);
    fclose(f);
    if (replace) {
        char to[512];
        snprintf(to, sizeof to, "%s/%s", dir, OUTPUT_MANIFEST);
        OK(rename(path, to) == 0);
    }
}

static bool begun_with(const char *target, output_prefetch *pre, const char *want, const char *not)
{
    output o;
    diag_list *d = diag_list_new();
    bool ok = output_begin(&o, target, true, false, NULL, pre, d) && diag_count(d) == 0 &&
              manifest_has(&o.manifest, want) && !manifest_has(&o.manifest, not);
    output_end(&o, false, d);
    output_free(&o);
    output_prefetch_free(pre);
    diag_list_free(d);
    return ok;
}

TEST(manifests_read_ahead)
{
    snprintf(root, sizeof root, "/tmp/sheaf-test-ahead-XXXXXX");
    OK(mkdtemp(root) != NULL);
    char target[300];
    snprintf(target, sizeof target, "%s/out", root);
    OK(mkdir(target, 0755) == 0);
    put_manifest(target, "a.html\n", true);
    /* nothing changed: what was read ahead is what is there */
    OK(begun_with(target, output_prefetch_start(target), "a.html", "b.html"));
    /* a new file in its place after the read (rename: another inode) */
    output_prefetch *pre = output_prefetch_start(target);
    usleep(200 * 1000); /* (read by then: a line) */
    put_manifest(target, "b.html\n", true);
    OK(begun_with(target, pre, "b.html", "a.html"));
    /* the same file written again, as long as before (its times move) */
    pre = output_prefetch_start(target);
    usleep(200 * 1000);
    put_manifest(target, "c.html\n", false);
    OK(begun_with(target, pre, "c.html", "b.html"));
    /* and none: a manifest that was there when read ahead, gone since */
    pre = output_prefetch_start(target);
    usleep(200 * 1000);
    char m[512];
    snprintf(m, sizeof m, "%s/%s", target, OUTPUT_MANIFEST);
    OK(unlink(m) == 0);
    output o;
    diag_list *d = diag_list_new();
    OK(output_begin(&o, target, true, false, NULL, pre, d));
    OK(!o.manifest.text && o.fresh); /* an empty folder without one: a fresh target */
    output_end(&o, false, d);
    output_free(&o);
    output_prefetch_free(pre);
    diag_list_free(d);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    OK(system(cmd) == 0);
}

int main(void)
{
    RUN(reading_time);
    RUN(session_matches_build_site);
    RUN(session_body_edits);
    RUN(scheduling);
    RUN(reread_after_front_matter);
    RUN(page_maps_share_index);
    RUN(manifests_read_ahead);
    return harness_done();
}

/* Unit tests for the related-posts rule (site/related.c, site_find_related) and
 * its lists kept in the build cache (site/relcache.c): who is listed, in
 * which order (most shared terms first, then newer, then by source path),
 * how many, and the same lists when they come from the cache. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/build.h"
#include "site/site.h"
#include "util/buf.h"

#include "sitefiles.h"

/* Every post, newest first, as "title: related(shared) …;" */
static buf seen = BUF_INIT;

static void collect(void *ctx, const tpl_value *site)
{
    (void)ctx;
    buf_reset(&seen);
    tpl_value posts = tpl_map_get_cstr(site->u.map, "posts");
    for (size_t i = 0; posts.kind == TPL_LIST && i < posts.u.list->len; i++) {
        const tpl_map *m = posts.u.list->items[i].u.map;
        buf_printf(&seen, "%s:", tpl_map_get_cstr(m, "title").u.s);
        tpl_value rel = tpl_map_get_cstr(m, "related");
        for (size_t k = 0; rel.kind == TPL_LIST && k < rel.u.list->len; k++) {
            const tpl_map *r = rel.u.list->items[k].u.map;
            buf_printf(&seen, " %s(%lld)", tpl_map_get_cstr(r, "title").u.s,
                       (long long)tpl_map_get_cstr(r, "shared").u.i);
        }
        buf_puts(&seen, ";");
    }
}

static bool build(bool no_cache)
{
    char site[300], out[300];
    snprintf(site, sizeof site, "%s/site", root);
    snprintf(out, sizeof out, "%s/out", root);
    build_options o = { .site_dir = site, .out_dir = out, .write = true, .jobs = 2,
                        .no_cache = no_cache, .on_model = collect };
    diag_list *d = diag_list_new();
    bool ok = build_site(&o, d, NULL) && diag_count(d) == 0;
    diag_list_free(d);
    return ok;
}

/* Newest first: G (01-07), F, E, D, then C and K (both 01-03: by source
 * path), B, A; the draft H is left out. x holds G D C K B A ("X" is the
 * same tag), y G B A; E and F share only a category; F's tag z is its
 * alone. */
static const char *const want3 =
    "G: B(2) A(2) D(1);F: E(1);E: F(1);D: G(1) C(1) K(1);C: G(1) D(1) K(1);"
    "K: G(1) D(1) C(1);B: G(2) A(2) D(1);A: G(2) B(2) D(1);";

TEST(rule_and_cache)
{
    snprintf(root, sizeof root, "/tmp/sheaf-test-related-XXXXXX");
    OK(mkdtemp(root) != NULL);
    put("site.yaml", "title: Related\nbase_url: https://example.org/\nrelated: 3\n");
    put("content/posts/2024-01-01-a.md", "---\ntitle: A\ntags: [x, y]\n---\nA.\n");
    put("content/posts/2024-01-02-b.md", "---\ntitle: B\ntags: [x, y]\n---\nB.\n");
    put("content/posts/2024-01-03-k.md", "---\ntitle: K\ntags: [x]\n---\nK.\n");
    put("content/posts/2024-01-03-c.md", "---\ntitle: C\ntags: [x]\n---\nC.\n");
    put("content/posts/2024-01-04-d.md", "---\ntitle: D\ntags: [x]\n---\nD.\n");
    put("content/posts/2024-01-05-e.md", "---\ntitle: E\ncategories: [m]\n---\nE.\n");
    put("content/posts/2024-01-06-f.md", "---\ntitle: F\ntags: [z]\ncategories: [m]\n---\nF.\n");
    put("content/posts/2024-01-07-g.md", "---\ntitle: G\ntags: [X, y]\n---\nG.\n");
    put("content/posts/2024-01-08-h.md", "---\ntitle: H\ntags: [x, y]\ndraft: true\n---\nH.\n");

    OK(build(true)); /* made, no cache */
    EQ_STR(seen.data, want3);
    OK(build(false)); /* made, and written to the cache */
    EQ_STR(seen.data, want3);
    OK(build(false)); /* read from the cache */
    EQ_STR(seen.data, want3);

    /* one related post each: the best only */
    put("site.yaml", "title: Related\nbase_url: https://example.org/\nrelated: 1\n");
    OK(build(false));
    EQ_STR(seen.data, "G: B(2);F: E(1);E: F(1);D: G(1);C: G(1);K: G(1);B: G(2);A: G(2);");
    OK(build(false));
    EQ_STR(seen.data, "G: B(2);F: E(1);E: F(1);D: G(1);C: G(1);K: G(1);B: G(2);A: G(2);");

    /* more asked for than there are: every post sharing a term */
    put("site.yaml", "title: Related\nbase_url: https://example.org/\nrelated: 9\n");
    OK(build(false));
    EQ_STR(seen.data, "G: B(2) A(2) D(1) C(1) K(1);F: E(1);E: F(1);D: G(1) C(1) K(1) B(1) A(1);"
                      "C: G(1) D(1) K(1) B(1) A(1);K: G(1) D(1) C(1) B(1) A(1);"
                      "B: G(2) A(2) D(1) C(1) K(1);A: G(2) B(2) D(1) C(1) K(1);");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    OK(system(cmd) == 0);
    buf_release(&seen);
}

int main(void)
{
    RUN(rule_and_cache);
    return harness_done();
}

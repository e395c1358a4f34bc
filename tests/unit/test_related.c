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
#include "site/related.h"
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

/* ---- the rule on ranks (related_rank_lists) against walking it out ---- */

static unsigned long long rnd_state = 88172645463325252ull;
static unsigned rnd(unsigned n) /* xorshift: the same groups every run */
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return (unsigned)(rnd_state % n);
}

/* Post r's lists the plain way: every pair scored. */
static size_t brute(size_t nposts, size_t ngroups, int *const *member, const size_t *count, size_t want,
                    int r, int *out, int *shared)
{
    int *score = calloc(nposts, sizeof *score);
    for (size_t g = 0; g < ngroups; g++) {
        bool holds = false;
        for (size_t k = 0; k < count[g]; k++)
            holds |= member[g][k] == r;
        for (size_t k = 0; holds && k < count[g]; k++)
            if (member[g][k] != r)
                score[member[g][k]]++;
    }
    size_t n = 0;
    while (n < want) { /* the best not taken yet: most shared, then smaller rank */
        int b = -1;
        for (int q = 0; q < (int)nposts; q++)
            if (score[q] > 0 && (b < 0 || score[q] > score[b]))
                b = q;
        if (b < 0)
            break;
        out[n] = b, shared[n++] = score[b];
        score[b] = 0;
    }
    free(score);
    return n;
}

/* Random sites: small and large groups (a large one, at least 1/128 of the
 * posts and 64, is read as a bitmap), posts in more large groups than
 * are read so (15), ties everywhere; each post's list as the plain way
 * makes it. */
TEST(ranks_as_walked)
{
    static const size_t sizes[] = { 1, 2, 7, 63, 64, 65, 200, 700, 2100, 5000 };
    int bad = 0;
    for (size_t round = 0; round < 40; round++) {
        size_t nposts = sizes[round % (sizeof sizes / sizeof *sizes)];
        size_t ngroups = 1 + rnd(round % 4 == 3 ? 60 : 12), want = 1 + rnd(8);
        int **member = calloc(ngroups, sizeof *member);
        size_t *count = calloc(ngroups, sizeof *count);
        unsigned char *in = calloc(nposts, 1);
        for (size_t g = 0; g < ngroups; g++) {
            /* a fraction of the posts: from none to most of them */
            unsigned per = rnd(4) == 0 ? 2 : rnd(3) == 0 ? 20 : 200;
            member[g] = calloc(nposts, sizeof **member);
            memset(in, 0, nposts);
            for (size_t q = 0; q < nposts; q++)
                if (rnd(per) == 0 || (round % 5 == 0 && rnd(2) == 0))
                    in[q] = 1;
            for (size_t q = 0; q < nposts; q++) { /* in any order: 7919 is a prime above nposts */
                size_t at = q * 7919 % nposts;
                if (in[at])
                    member[g][count[g]++] = (int)at;
            }
        }
        int *out = calloc(nposts * want, sizeof *out), *shared = calloc(nposts * want, sizeof *shared);
        size_t *n = calloc(nposts, sizeof *n);
        related_rank_lists(nposts, ngroups, (const int *const *)member, count, want, 2, out, shared, n);
        int *bo = calloc(want, sizeof *bo), *bs = calloc(want, sizeof *bs);
        for (size_t r = 0; r < nposts && bad < 5; r++) {
            size_t bn = brute(nposts, ngroups, member, count, want, (int)r, bo, bs);
            bool same = bn == n[r];
            for (size_t i = 0; same && i < bn; i++)
                same = bo[i] == out[r * want + i] && bs[i] == shared[r * want + i];
            if (!same) {
                bad++;
                FAILF("round %zu: %zu posts, %zu groups, want %zu: post %zu differs", round, nposts, ngroups,
                      want, r);
            }
        }
        for (size_t g = 0; g < ngroups; g++)
            free(member[g]);
        free(member), free(count), free(in), free(out), free(shared), free(n), free(bo), free(bs);
    }
}

int main(void)
{
    RUN(rule_and_cache);
    RUN(ranks_as_walked);
    return harness_done();
}

/* related: every post's related posts (related.h). */
#include <stdlib.h>
#include <string.h>

#include "site/pool.h"
#include "site/related.h"
#include "site/relcache.h"
#include "util/arena.h"
#include "util/xalloc.h"

/* Related posts: for each post, the cfg.related posts that share the most
 * terms (of every taxonomy) and cited works with it, ties broken by date
 * (newer first), then by source path — the order of s->posts, so a tie
 * goes to the smaller rank there. Each term and work is a group of posts;
 * a post's score against another is how many groups hold both, counted by
 * walking the groups of the post (the work is the sum of the squares of
 * the groups' sizes, never posts × posts). */
static bool better(const int *score, const int *rank, int a, int b)
{
    return score[a] != score[b] ? score[a] > score[b] : rank[a] < rank[b];
}

/* What related_job reads is what site_related_digest (site/relcache.c)
 * hashes: a change to one is a change to the other. */
/* What site_find_related's workers share (read only, but for each post's own
 * slots in related/shared) and each worker's scratch. */
typedef struct related_run {
    site *s;
    size_t want;
    const size_t *start; /* each page's groups: groups[start[i] .. start[i + 1]) */
    const int *groups;
    const int *rank;
    int *related, *shared; /* post k's slots: [k * want, (k + 1) * want) */
    struct related_scratch {
        int *score, *touched, *best;
    } *w; /* one per worker */
} related_run;

static void related_job(void *ctx, size_t k, int worker)
{
    related_run *run = ctx;
    site *s = run->s;
    size_t want = run->want;
    const int *rank = run->rank;
    int *score = run->w[worker].score, *touched = run->w[worker].touched, *best = run->w[worker].best;
    int pi = s->posts[k];
    page *p = &s->pages[pi];
    size_t nt = 0;
    for (size_t j = run->start[pi]; j < run->start[pi + 1]; j++) {
        size_t g = (size_t)run->groups[j];
        const int *m = g < s->nterms ? s->terms[g].posts : s->papers[g - s->nterms].pages;
        size_t n = g < s->nterms ? s->terms[g].nposts : s->papers[g - s->nterms].npages;
        /* terms hold only published posts; a work's citing pages may
         * be anything, so those are checked */
        bool check = g >= s->nterms;
        for (size_t i = 0; i < n; i++) {
            int q = m[i];
            if (q == pi || (check && (!s->pages[q].is_post || s->pages[q].excluded || s->pages[q].failed)))
                continue;
            if (!score[q]++)
                touched[nt++] = q;
        }
    }
    /* the best `want`, kept sorted by insertion (want is small) */
    size_t nb = 0;
    for (size_t i = 0; i < nt; i++) {
        int q = touched[i];
        if (nb == want && !better(score, rank, q, best[want - 1]))
            continue; /* most: no better than the last kept */
        size_t at = nb < want ? nb : want;
        while (at > 0 && better(score, rank, q, best[at - 1]))
            at--;
        if (at >= want)
            continue;
        size_t last = nb < want ? nb : want - 1;
        memmove(best + at + 1, best + at, (last - at) * sizeof *best);
        best[at] = q;
        if (nb < want)
            nb++;
    }
    p->nrelated = nb;
    p->related = nb ? run->related + k * want : NULL;
    p->related_shared = nb ? run->shared + k * want : NULL;
    for (size_t i = 0; i < nb; i++) {
        p->related[i] = best[i];
        p->related_shared[i] = score[best[i]];
    }
    for (size_t i = 0; i < nt; i++)
        score[touched[i]] = 0;
}

/* Posts are scored independently, so on the build's worker threads, each
 * with its own score table; unless the build cache has the lists made
 * from the same input (site/relcache.h). */
void site_find_related(site *s, diag_list *d)
{
    size_t want = (size_t)s->cfg.related, ngroups = s->nterms + s->npapers;
    int *related = NULL, *shared = NULL; /* post k's slots: [k * want, (k + 1) * want) */
    if (want && s->nposts) {
        related = arena_alloc(s->a, s->nposts * want * sizeof *related);
        shared = arena_alloc(s->a, s->nposts * want * sizeof *shared);
    }
    unsigned char digest[CACHE_DIGEST_LEN];
    bool use_cache = s->cache && want && s->nposts;
    if (use_cache) {
        site_related_digest(s, want, digest);
        if (site_related_get(s, digest, want, related, shared, d))
            return;
    }
    /* each post's groups (CSR): the terms, then the cited works */
    size_t *start = xcalloc(s->npages + 1, sizeof *start), *fill = xcalloc(s->npages + 1, sizeof *fill);
    for (size_t g = 0; g < ngroups; g++) {
        const int *m = g < s->nterms ? s->terms[g].posts : s->papers[g - s->nterms].pages;
        size_t n = g < s->nterms ? s->terms[g].nposts : s->papers[g - s->nterms].npages;
        for (size_t k = 0; k < n; k++)
            start[m[k] + 1]++;
    }
    for (size_t i = 0; i < s->npages; i++)
        start[i + 1] += start[i];
    int *groups = xcalloc(start[s->npages] + 1, sizeof *groups);
    for (size_t g = 0; g < ngroups; g++) {
        const int *m = g < s->nterms ? s->terms[g].posts : s->papers[g - s->nterms].pages;
        size_t n = g < s->nterms ? s->terms[g].nposts : s->papers[g - s->nterms].npages;
        for (size_t k = 0; k < n; k++)
            groups[start[m[k]] + fill[m[k]]++] = (int)g;
    }
    int *rank = xcalloc(s->npages + 1, sizeof *rank); /* in s->posts; only posts are ranked */
    for (size_t k = 0; k < s->nposts; k++)
        rank[s->posts[k]] = (int)k;
    int workers = s->nwa > 0 ? s->nwa : 1;
    related_run run = { s, want, start, groups, rank, related, shared, xcalloc((size_t)workers, sizeof *run.w) };
    for (int w = 0; w < workers; w++) {
        run.w[w].score = xcalloc(s->npages + 1, sizeof *run.w[w].score);
        run.w[w].touched = xcalloc(s->npages + 1, sizeof *run.w[w].touched);
        run.w[w].best = xcalloc(want + 1, sizeof *run.w[w].best);
    }
    site_parallel(s->nposts, workers, related_job, &run);
    if (use_cache)
        site_related_put(s, digest, want);
    for (int w = 0; w < workers; w++) {
        free(run.w[w].score);
        free(run.w[w].touched);
        free(run.w[w].best);
    }
    free(run.w);
    free(start);
    free(fill);
    free(groups);
    free(rank);
}

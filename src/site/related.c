/* related: every post's related posts (related.h).
 *
 * The rule: for each post, the cfg.related posts that share the most
 * terms (of every taxonomy) and cited works with it, ties broken by date
 * (newer first), then by source path — the order of s->posts, a post's
 * rank, so a tie goes to the smaller rank. Each term and work is a group
 * of posts; a post's score against another is how many of its groups hold
 * that one.
 *
 * Walking every member of every group of a post costs the sum of the
 * squares of the groups' sizes: a tag on a tenth of 100,000 posts is a
 * billion steps by itself (the rule took 5 s of CPU there). So a large
 * group (at least 1/128 of the posts) is a bitmap of its members by rank
 * instead, and a post's large groups are read 64 posts a step:
 *
 *   1. its small groups are walked, each member's score counted;
 *   2. each post met there gets its large groups' bits added: its whole
 *      score; the best `want` of those are kept;
 *   3. the posts met in no small group score only by their large groups,
 *      and are read in rank order: first those in all of them (the AND of
 *      the bitmaps), then those in fewer, in one pass that counts each
 *      word's bits (bit-sliced counters) and keeps only the posts that
 *      can still enter the list (more than the last kept, or as many and
 *      a smaller rank). Each pass ends once nothing after it can.
 *
 * The passes cost about 5 operations a word for each large group, walking
 * a member about 12 (its score's cache miss, its entry in touched, its
 * offer, its reset): a post whose large groups are few members each (many
 * groups just above the size) walks them. `bench_related` (bench/related)
 * times the rule on random groups against walking every member; at
 * 100,000 posts: in 60 groups, 4 a post, 8.1 s walked against 0.53 s; in
 * 300 groups, 8 a post, 7.4 against 1.55 s; in 1,500 groups, 15 a post,
 * 5.3 against 2.6 s (WALK_COST 8: 4.9 s; 3000 groups: 3.0 s either way).
 *
 * The lists are the ones walking every member gives (tests/unit/
 * test_related.c compares the two on random groups). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "site/pool.h"
#include "site/related.h"
#include "site/relcache.h"
#include "util/arena.h"
#include "util/xalloc.h"

/* A group is a bitmap when it holds at least 1/LARGE_PART of the posts
 * (and LARGE_MIN of them): a member walked costs its score's cache miss,
 * its entry in touched and its reset, a bitmap a few operations a word of
 * 64 posts for each pass. At 100,000 posts (bench/gen_corpus.py, `-j 1
 * --no-cache`, the model stage, with a pass for each level as this was
 * first written): 1/32 1.84–2.06 s, 1/128 1.12–1.29 s, 1/512 1.13–1.16 s
 * (walking every member: 5.84 s); with 1/128 and the passes of now,
 * 1.07–1.08 s against 5.89–6.20 s, the rule 0.28 s of it. A post
 * reads at most MAX_MAPS of its groups as bitmaps (a count of them fits
 * the 4 bits of the counters); all bitmaps take at most MAPS_BYTES. */
#define LARGE_PART 128
#define LARGE_MIN 64
#define MAX_MAPS 15
#define MAPS_BYTES ((size_t)64 << 20)

typedef struct rank_run {
    size_t nposts, want, words;
    const int *const *member;
    const size_t *count;
    const size_t *start; /* each post's groups: groups[start[r] .. start[r + 1]) */
    const int *groups;
    const long *map_of; /* a group's bitmap: maps + map_of[g] * words; -1: none */
    const uint64_t *maps;
    int *out, *shared;
    size_t *n;
    struct rank_scratch {
        int *score, *touched, *best;
    } *w; /* one per worker */
} rank_run;

/* Whether post a is better than post b: more shared, else the smaller rank. */
static inline bool better(const int *score, int a, int b)
{
    return score[a] != score[b] ? score[a] > score[b] : a < b;
}

/* q into the best n (< want, or want: full) kept sorted, where it
 * beats the last; returns the new count. */
__attribute__((noinline)) static size_t insert(int *best, size_t n, size_t want, const int *score, int q)
{
    size_t at = n < want ? n : want;
    while (at > 0 && better(score, q, best[at - 1]))
        at--;
    size_t last = n < want ? n : want - 1;
    memmove(best + at + 1, best + at, (last - at) * sizeof *best);
    best[at] = q;
    return n < want ? n + 1 : n;
}

/* Offers q to the best n: inline, as most posts offered are no better
 * than the last kept (the call a post cost 24 % of the rule). */
static inline size_t offer(int *best, size_t n, size_t want, const int *score, int q)
{
    if (n == want && !better(score, q, best[want - 1]))
        return n;
    return insert(best, n, want, score, q);
}

/* The posts of word i whose count of bits among the nm bitmaps (the
 * counters c, bit-sliced) is at least t. */
static inline uint64_t at_least(const uint64_t c[4], unsigned t)
{
    uint64_t gt = 0, eq = ~(uint64_t)0;
    for (int b = 3; b >= 0; b--) {
        if (t >> b & 1) {
            eq &= c[b];
        } else {
            gt |= eq & c[b];
            eq &= ~c[b];
        }
    }
    return gt | eq;
}

/* Post q's count in the counters c (bit k of each). */
static inline int count_of(const uint64_t c[4], unsigned k)
{
    return (int)((c[0] >> k & 1) | (c[1] >> k & 1) << 1 | (c[2] >> k & 1) << 2 | (c[3] >> k & 1) << 3);
}

/* A walked member costs about WALK_COST of a bitmap's word operations
 * (its score's cache miss, its entry in touched, its offer, its reset;
 * measured with bench_related: 3, 5, 8, 12 and 16 tried). */
#define WALK_COST 12

static void rank_job(void *ctx, size_t r, int worker)
{
    rank_run *u = ctx;
    size_t want = u->want, W = u->words;
    int *score = u->w[worker].score, *touched = u->w[worker].touched, *best = u->w[worker].best;
    const uint64_t *mp[MAX_MAPS];
    size_t nm = 0, nt = 0, walk = 0, mg[MAX_MAPS];
    for (size_t j = u->start[r]; j < u->start[r + 1] && nm < MAX_MAPS; j++) {
        size_t g = (size_t)u->groups[j];
        if (u->map_of[g] >= 0) {
            mg[nm] = g;
            mp[nm++] = u->maps + (size_t)u->map_of[g] * W;
            walk += u->count[g];
        }
    }
    /* the bitmaps only when reading them costs less than walking them:
     * the pass over every level below the top one costs about 4 nm + 16
     * a word (a post in many groups just above the size) */
    if (walk * WALK_COST < W * (nm + (nm > 1 ? 4 * nm + 16 : 0)))
        nm = 0;
    /* 1. the small groups walked */
    for (size_t j = u->start[r]; j < u->start[r + 1]; j++) {
        size_t g = (size_t)u->groups[j], b = 0;
        while (b < nm && mg[b] != g)
            b++;
        if (b < nm)
            continue; /* read as a bitmap */
        const int *m = u->member[g];
        for (size_t i = 0; i < u->count[g]; i++) {
            int q = m[i];
            if (q != (int)r && !score[q]++)
                touched[nt++] = q;
        }
    }
    /* 2. their large groups added; the best of them kept */
    size_t n = 0;
    for (size_t i = 0; i < nt; i++) {
        int q = touched[i];
        for (size_t b = 0; b < nm; b++)
            score[q] += (int)(mp[b][(size_t)q >> 6] >> (q & 63) & 1);
        n = offer(best, n, want, score, q);
    }
    /* 3. the posts in large groups only, in rank order: first those in
     * all of them, then the rest in one pass */
    int top = (int)nm;
    for (size_t i = 0; nm && i < W; i++) {
        int last = n == want ? best[want - 1] : -1;
        if (last >= 0 && (score[last] > top || (score[last] == top && (size_t)last < i * 64)))
            break; /* the rest rank after the last kept */
        uint64_t m = ~(uint64_t)0;
        for (size_t b = 0; b < nm && m; b++)
            m &= mp[b][i];
        if (i == r >> 6)
            m &= ~((uint64_t)1 << (r & 63));
        for (; m; m &= m - 1) {
            int q = (int)(i * 64 + (size_t)__builtin_ctzll(m));
            if (score[q])
                continue; /* met in a small group: offered already */
            score[q] = top;
            touched[nt++] = q;
            n = offer(best, n, want, score, q);
        }
    }
    for (size_t i = 0; nm > 1 && i < W; i++) {
        /* who can still enter: more than the last kept, or as many and
         * a smaller rank; none when the last kept has top - 1 or more and
         * this word ranks after it */
        unsigned t = 1;
        if (n == want) {
            int last = best[want - 1];
            bool after = (size_t)last < i * 64;
            if (score[last] > top - 1 || (score[last] == top - 1 && after))
                break;
            t = (unsigned)score[last] + (after ? 1 : 0);
        }
        uint64_t c[4] = { 0, 0, 0, 0 }; /* the count, bit-sliced */
        for (size_t b = 0; b < nm; b++) {
            uint64_t x = mp[b][i], k;
            k = c[0] & x, c[0] ^= x, x = k;
            k = c[1] & x, c[1] ^= x, x = k;
            k = c[2] & x, c[2] ^= x, x = k;
            c[3] ^= x;
        }
        uint64_t m = at_least(c, t);
        if (i == r >> 6)
            m &= ~((uint64_t)1 << (r & 63));
        for (; m; m &= m - 1) {
            unsigned k = (unsigned)__builtin_ctzll(m);
            int q = (int)(i * 64 + k), s = count_of(c, k);
            if (score[q] || s == top)
                continue; /* offered already: in a small group, or in all */
            score[q] = s;
            touched[nt++] = q;
            n = offer(best, n, want, score, q);
        }
    }
    u->n[r] = n;
    for (size_t i = 0; i < n; i++) {
        u->out[r * want + i] = best[i];
        u->shared[r * want + i] = score[best[i]];
    }
    for (size_t i = 0; i < nt; i++)
        score[touched[i]] = 0;
}

/* Group g's bitmap slot, for the groups large enough to have one: the
 * largest first while the bytes allow. Returns how many have one. */
static size_t choose_maps(size_t nposts, size_t ngroups, const size_t *count, size_t words, long *map_of)
{
    size_t large = nposts / LARGE_PART > LARGE_MIN ? nposts / LARGE_PART : LARGE_MIN;
    size_t *order = xcalloc(ngroups + 1, sizeof *order), k = 0;
    for (size_t g = 0; g < ngroups; g++) {
        map_of[g] = -1;
        if (count[g] >= large)
            order[k++] = g;
    }
    size_t room = words ? MAPS_BYTES / (words * sizeof(uint64_t)) : 0;
    if (k > room) { /* the largest keep a bitmap: a simple selection, few groups are large */
        for (size_t i = 0; i < room; i++) {
            size_t m = i;
            for (size_t j = i + 1; j < k; j++)
                if (count[order[j]] > count[order[m]])
                    m = j;
            size_t t = order[i];
            order[i] = order[m];
            order[m] = t;
        }
        k = room;
    }
    for (size_t i = 0; i < k; i++)
        map_of[order[i]] = (long)i;
    free(order);
    return k;
}

void related_groups_of(size_t nposts, size_t ngroups, const int *const *member, const size_t *count,
                       size_t **start, int **groups)
{
    size_t *s = xcalloc(nposts + 1, sizeof *s), *fill = xcalloc(nposts + 1, sizeof *fill);
    for (size_t g = 0; g < ngroups; g++)
        for (size_t k = 0; k < count[g]; k++)
            s[member[g][k] + 1]++;
    for (size_t i = 0; i < nposts; i++)
        s[i + 1] += s[i];
    int *v = xcalloc(s[nposts] + 1, sizeof *v);
    for (size_t g = 0; g < ngroups; g++)
        for (size_t k = 0; k < count[g]; k++)
            v[s[member[g][k]] + fill[member[g][k]]++] = (int)g;
    free(fill);
    *start = s;
    *groups = v;
}

void related_rank_lists(size_t nposts, size_t ngroups, const int *const *member, const size_t *count,
                        size_t want, int workers, int *out, int *shared, size_t *n)
{
    if (!want || !nposts)
        return;
    size_t *start;
    int *groups;
    related_groups_of(nposts, ngroups, member, count, &start, &groups);
    size_t words = (nposts + 63) / 64;
    long *map_of = xcalloc(ngroups + 1, sizeof *map_of);
    size_t nmaps = choose_maps(nposts, ngroups, count, words, map_of);
    uint64_t *maps = xcalloc(nmaps * words + 1, sizeof *maps);
    for (size_t g = 0; g < ngroups; g++)
        if (map_of[g] >= 0)
            for (size_t k = 0; k < count[g]; k++) {
                size_t q = (size_t)member[g][k];
                maps[(size_t)map_of[g] * words + q / 64] |= (uint64_t)1 << (q % 64);
            }
    if (workers < 1)
        workers = 1;
    rank_run run = { nposts, want, words, member, count, start, groups, map_of, maps, out, shared, n,
                     xcalloc((size_t)workers, sizeof *run.w) };
    for (int w = 0; w < workers; w++) {
        run.w[w].score = xcalloc(nposts + 1, sizeof *run.w[w].score);
        run.w[w].touched = xcalloc(nposts + 1, sizeof *run.w[w].touched);
        run.w[w].best = xcalloc(want + 1, sizeof *run.w[w].best);
    }
    site_parallel(nposts, workers, rank_job, &run);
    for (int w = 0; w < workers; w++) {
        free(run.w[w].score);
        free(run.w[w].touched);
        free(run.w[w].best);
    }
    free(run.w);
    free(maps);
    free(map_of);
    free(groups);
    free(start);
}

/* The groups as ranks (terms hold only published posts; a work's citing
 * pages may be anything: its posts only), scored on the build's worker
 * threads; unless the build cache has the lists made from the same input
 * (site/relcache.h). */
void site_find_related(site *s, diag_list *d)
{
    size_t want = (size_t)s->cfg.related, ngroups = s->nterms + s->npapers;
    if (!want || !s->nposts) {
        for (size_t k = 0; k < s->nposts; k++) {
            page *p = &s->pages[s->posts[k]];
            p->nrelated = 0;
            p->related = p->related_shared = NULL;
        }
        return;
    }
    int *related = arena_alloc(s->a, s->nposts * want * sizeof *related);
    int *shared = arena_alloc(s->a, s->nposts * want * sizeof *shared);
    unsigned char digest[CACHE_DIGEST_LEN];
    bool use_cache = s->cache != NULL;
    if (use_cache) {
        site_related_digest(s, want, digest);
        if (site_related_get(s, digest, want, related, shared, d))
            return;
    }
    int *rank = xmalloc((s->npages + 1) * sizeof *rank);
    for (size_t i = 0; i <= s->npages; i++)
        rank[i] = -1;
    for (size_t k = 0; k < s->nposts; k++)
        rank[s->posts[k]] = (int)k;
    const int **member = xcalloc(ngroups + 1, sizeof *member);
    size_t *count = xcalloc(ngroups + 1, sizeof *count), total = 0;
    for (size_t g = 0; g < ngroups; g++)
        total += g < s->nterms ? s->terms[g].nposts : s->papers[g - s->nterms].npages;
    int *ranks = xcalloc(total + 1, sizeof *ranks); /* every group's, one after another */
    total = 0;
    for (size_t g = 0; g < ngroups; g++) {
        bool term = g < s->nterms;
        const int *m = term ? s->terms[g].posts : s->papers[g - s->nterms].pages;
        size_t n = term ? s->terms[g].nposts : s->papers[g - s->nterms].npages;
        int *to = ranks + total;
        for (size_t k = 0; k < n; k++) {
            const page *q = &s->pages[m[k]];
            if (rank[m[k]] >= 0 && (term || (q->is_post && !q->excluded && !q->failed)))
                to[count[g]++] = rank[m[k]];
        }
        member[g] = to;
        total += count[g];
    }
    size_t *n = xcalloc(s->nposts + 1, sizeof *n);
    int workers = s->nwa > 0 ? s->nwa : 1;
    related_rank_lists(s->nposts, ngroups, member, count, want, workers, related, shared, n);
    for (size_t k = 0; k < s->nposts; k++) {
        page *p = &s->pages[s->posts[k]];
        p->nrelated = n[k];
        p->related = n[k] ? related + k * want : NULL;
        p->related_shared = n[k] ? shared + k * want : NULL;
        for (size_t i = 0; i < n[k]; i++)
            p->related[i] = s->posts[p->related[i]];
    }
    if (use_cache)
        site_related_put(s, digest, want);
    free(n);
    free(ranks);
    free(count);
    free(member);
    free(rank);
}

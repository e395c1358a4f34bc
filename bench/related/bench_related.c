/* bench_related: the related-posts rule (site/related.c) on random groups,
 * against walking every member of every group of each post (the rule
 * before it read large groups as bitmaps), in one run, with a check that
 * both give the same lists.
 *
 * Build: cmake --build build --target bench_related (a Release build
 * folder). Run: build/bench_related POSTS GROUPS PER_POST [WANT]
 * e.g. 100000 60 4: every post in 4 of 60 groups drawn at random. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "site/related.h"
#include "util/xalloc.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Each post's best `want` by walking its groups' members (one thread). */
static void walk(size_t nposts, size_t ngroups, int *const *member, const size_t *count, size_t want,
                 int *out, int *shared, size_t *n)
{
    size_t *start;
    int *groups;
    related_groups_of(nposts, ngroups, (const int *const *)member, count, &start, &groups);
    int *score = xcalloc(nposts, sizeof *score), *touched = xcalloc(nposts, sizeof *touched);
    for (size_t r = 0; r < nposts; r++) {
        size_t nt = 0, nb = 0;
        for (size_t j = start[r]; j < start[r + 1]; j++)
            for (size_t k = 0; k < count[groups[j]]; k++) {
                int q = member[groups[j]][k];
                if (q != (int)r && !score[q]++)
                    touched[nt++] = q;
            }
        int *best = out + r * want;
        for (size_t i = 0; i < nt; i++) {
            int q = touched[i];
            size_t at = nb < want ? nb : want;
            while (at > 0 && (score[q] > score[best[at - 1]] || (score[q] == score[best[at - 1]] && q < best[at - 1])))
                at--;
            if (at >= want)
                continue;
            size_t last = nb < want ? nb : want - 1;
            memmove(best + at + 1, best + at, (last - at) * sizeof *best);
            best[at] = q;
            if (nb < want)
                nb++;
        }
        n[r] = nb;
        for (size_t i = 0; i < nb; i++)
            shared[r * want + i] = score[best[i]];
        for (size_t i = 0; i < nt; i++)
            score[touched[i]] = 0;
    }
    free(score), free(touched), free(groups), free(start);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_related POSTS GROUPS PER_POST [WANT]\n");
        return 2;
    }
    size_t nposts = strtoul(argv[1], NULL, 10), ngroups = strtoul(argv[2], NULL, 10);
    size_t per = strtoul(argv[3], NULL, 10), want = argc > 4 ? strtoul(argv[4], NULL, 10) : 5;
    if (!nposts || !ngroups || !want)
        return 2;
    int **member = xcalloc(ngroups, sizeof *member);
    size_t *count = xcalloc(ngroups, sizeof *count);
    for (size_t g = 0; g < ngroups; g++)
        member[g] = xcalloc(nposts, sizeof **member);
    unsigned char *in = xcalloc(ngroups, 1);
    srand(1);
    for (size_t q = 0; q < nposts; q++) { /* per distinct groups at most */
        for (size_t k = 0; k < per; k++) {
            size_t g = (size_t)rand() % ngroups;
            if (!in[g])
                in[g] = 1, member[g][count[g]++] = (int)q;
        }
        for (size_t g = 0; g < ngroups; g++)
            in[g] = 0;
    }
    int *o1 = xcalloc(nposts * want, sizeof *o1), *s1 = xcalloc(nposts * want, sizeof *s1);
    int *o2 = xcalloc(nposts * want, sizeof *o2), *s2 = xcalloc(nposts * want, sizeof *s2);
    size_t *n1 = xcalloc(nposts, sizeof *n1), *n2 = xcalloc(nposts, sizeof *n2);
    double t0 = now();
    walk(nposts, ngroups, member, count, want, o1, s1, n1);
    double t1 = now();
    related_rank_lists(nposts, ngroups, (const int *const *)member, count, want, 1, o2, s2, n2);
    double t2 = now();
    bool same = !memcmp(n1, n2, nposts * sizeof *n1);
    for (size_t r = 0; same && r < nposts; r++)
        same = !memcmp(o1 + r * want, o2 + r * want, n1[r] * sizeof *o1) &&
               !memcmp(s1 + r * want, s2 + r * want, n1[r] * sizeof *s1);
    printf("%zu posts, %zu groups, %zu a post, %zu related: walked %.3f s, sheaf %.3f s (%.1fx); %s\n",
           nposts, ngroups, per, want, t1 - t0, t2 - t1, (t1 - t0) / (t2 - t1),
           same ? "the same lists" : "DIFFERENT lists");
    for (size_t g = 0; g < ngroups; g++)
        free(member[g]);
    free(member), free(count), free(in), free(o1), free(s1), free(o2), free(s2), free(n1), free(n2);
    return same ? 0 : 1;
}

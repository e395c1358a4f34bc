/* related: every post's related posts (related.c), taken from the build
 * cache when nothing they are made of changed (relcache.h). */
#ifndef SHEAF_SITE_RELATED_H
#define SHEAF_SITE_RELATED_H

#include <stddef.h>

#include "diag/diag.h"
#include "site/model.h"

/* Sets every post's nrelated, related and related_shared (the
 * cfg.related posts that share the most terms and cited works with it),
 * after its terms and papers are made. */
void site_find_related(site *s, diag_list *d);

/* Each post's groups, from the groups' members (as below): post r's are
 * (*groups)[(*start)[r] .. (*start)[r + 1]), in the groups' order; the
 * caller frees both. */
void related_groups_of(size_t nposts, size_t ngroups, const int *const *member, const size_t *count,
                       size_t **start, int **groups);

/* The rule on ranks alone (its own function, for the tests): posts
 * 0..nposts-1 (a tie goes to the smaller rank), ngroups groups of them,
 * group g's members member[g][0..count[g]) (distinct ranks). A post's
 * score against another is how many of the groups that hold it hold that
 * one too. For each post r, its best `want` others (the highest score,
 * then the smaller rank; at least one shared group) go to
 * out[r * want ...], their scores to shared[r * want ...], their number
 * to n[r]; on `workers` threads. */
void related_rank_lists(size_t nposts, size_t ngroups, const int *const *member, const size_t *count,
                        size_t want, int workers, int *out, int *shared, size_t *n);

#endif

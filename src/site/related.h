/* related: every post's related posts (related.c), taken from the build
 * cache when nothing they are made of changed (relcache.h). */
#ifndef SHEAF_SITE_RELATED_H
#define SHEAF_SITE_RELATED_H

#include "diag/diag.h"
#include "site/model.h"

/* Sets every post's nrelated, related and related_shared (the
 * cfg.related posts that share the most terms and cited works with it),
 * after its terms and papers are made. */
void site_find_related(site *s, diag_list *d);

#endif

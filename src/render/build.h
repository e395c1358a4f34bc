/* build: the whole pipeline as one call — config, load, front matter,
 * markdown, site model, templates, output — used by `sheaf build`,
 * `sheaf check`, `sheaf serve` and `sheaf deploy`.
 *
 * Output goes to a temporary folder beside the target and is swapped in only
 * when everything succeeded, so a failed build leaves the previous output
 * untouched. Files whose bytes did not change keep their inode and mtime. */
#ifndef SHEAF_BUILD_H
#define SHEAF_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"

typedef struct build_options {
    const char *site_dir; /* default "." */
    const char *out_dir;  /* default "<site_dir>/public" */
    const char *base_url; /* overrides site.yaml when non-NULL */
    bool drafts;          /* build drafts too */
    bool write;           /* false: `check` — resolve everything, write nothing */
    int jobs;             /* worker threads; 0 = one per core */
} build_options;

typedef struct build_stats {
    size_t pages, posts, tags;
    size_t written, unchanged, removed, copied;
    double ms_config, ms_load, ms_markdown, ms_model, ms_render, ms_write, ms_total;
} build_stats;

/* Runs a full build. Returns true when there was no error (warnings are
 * allowed). Every problem goes to d. st may be NULL. */
bool build_site(const build_options *o, diag_list *d, build_stats *st);

#endif

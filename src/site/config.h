/* config: site.yaml → site_config (config.c), and the bounds it sets. */
#ifndef SHEAF_SITE_CONFIG_H
#define SHEAF_SITE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"
#include "fm/fm.h"
#include "md/md.h"
#include "util/arena.h"
#include "value/value.h"

typedef struct permalink_rule {
    const char *section; /* first folder under content/, e.g. "posts" */
    const char *pattern; /* e.g. "/:year/:month/:slug/" */
} permalink_rule;

/* How many taxonomies a site may have (`taxonomies:` in site.yaml). */
#define SITE_MAX_TAXONOMIES 8
#define SITE_MAX_FEED_COPIES 4
/* Terms one page may have in one taxonomy (tags: [a, b, …]): every term's
 * page and feed lists the page with all its terms, so N terms on a page
 * cost N² of output; past this bound, an error at the key (docs/internals.md,
 * "Budgets"). */
#define SITE_MAX_TERMS_PER_PAGE 100

/* `outputs:` in site.yaml: one file rendered by a template. */
typedef struct site_output {
    const char *output;   /* the file written: "feed.json", "search/index.html" */
    const char *path;     /* its URL path: "feed.json", "search/" */
    const char *template; /* "feed.json" */
    int line, col;        /* where site.yaml names it (0: a default) */
} site_output;

/* images.widths: at most this many, each 16..16384 px */
#define SITE_MAX_IMAGE_WIDTHS 8

typedef struct site_config {
    const char *title, *description, *author, *language, *theme;
    const char *base_url;  /* normalised: ends with '/' */
    const char *base_path; /* "/" or "/notes/" */
    const char *origin;    /* "https://x.io" or "" */
    long paginate;
    md_options markdown;
    bool links_warn;       /* links: warn */
    bool slugs_keep;       /* slugs: keep (a `slug:` as written) */
    bool term_slugs_hugo;  /* term_slugs: hugo (terms' paths as Hugo makes them) */
    const char *deploy_target;
    bool follow_symlinks;  /* walk linked folders; skip links out of the site with a warning */
    const char **bibliography; /* .bib files, relative to the site */
    size_t nbibliography;
    const char *citation_style; /* as written: author-year, numeric, a CSL style's name or .csl file */
    bool citations_numeric;    /* citation_style: numeric (else author-year, or CSL: site_csl) */
    const char *favicon;       /* as written; site_favicon decides */
    bool search;               /* write the search page and its index */
    bool first_page_alias;     /* every list also at <list>/page/1/, a redirect (Hugo's) */
    const char *paginate_path; /* `paginate_path:` page N of a list below it, "page/:num/" */
    permalink_rule *permalinks;
    size_t npermalinks;
    long related;            /* `related:` how many related posts a post lists (5) */
    const char **feed_copies; /* `feed_copies:` more file names of every feed ([index.xml]) */
    size_t nfeed_copies;      /* at most SITE_MAX_FEED_COPIES */
    const char **taxonomies; /* `taxonomies:` names, [tags, categories] by default */
    size_t ntaxonomies;      /* at most SITE_MAX_TAXONOMIES */
    /* `anchors_warn:` glob patterns (comment-*): a link's #fragment that
     * matches one and is no id of its page is a warning, not an error (ids
     * a script makes: comment widgets) */
    const char **anchors_warn;
    size_t nanchors_warn;
    /* `targets_warn:` glob patterns of link targets (content/posts/x.md, a
     * missing file's path): a link to a page the build leaves out, or to a
     * file that does not exist, is a warning when its target matches one
     * (links broken on an imported site's old build already) */
    const char **targets_warn;
    size_t ntargets_warn;
    site_output *outputs;    /* `outputs:` merged over the default, feed.json */
    size_t noutputs;
    /* `images:` (docs/images.md) */
    bool images_process;       /* make WebP variants (true) */
    long images_quality;       /* their WebP quality, 1..100 (80) */
    long *images_widths;       /* ascending, unique ([480, 960, 1600]) */
    size_t nimages_widths;     /* at most SITE_MAX_IMAGE_WIDTHS */
    long images_max_pixels;    /* width × height an image may have (100,000,000) */
    const char *images_sizes;  /* the `sizes` written with a srcset */
    tpl_value params;      /* map */
    tpl_value raw;         /* the whole file as a map */
    const fm_key_pos *pos; /* where its keys are written */
    size_t npos;
} site_config;

/* Reads DIR/site.yaml (missing is fine) into cfg, allocating in a.
 * base_url_override (may be NULL) wins over the file. */
bool site_config_load(const char *site_dir, const char *base_url_override, arena *a,
                      site_config *cfg, diag_list *d);

/* Where the value of site.yaml's top-level `key` is written (0:0 when it
 * is not), for messages about it after loading. */
void site_config_key_place(const site_config *c, const char *key, int *line, int *col);
/* Calls fn with the name of every key site.yaml takes, in the table's
 * order, a nested table's as "markdown.unsafe" (test_config checks
 * docs/configuration.md against it). */
void site_config_each_key(void (*fn)(const char *name, void *ctx), void *ctx);

/* Why `pattern` cannot be site.yaml's `paginate_path:` (the folder of page
 * N of a list, relative to the list: one ":num", no other placeholder, no
 * leading '/', a trailing one, and a valid output path whatever N is), or
 * NULL when it can: a phrase to follow "'paginate_path' '<pattern>' …", in a. */
const char *site_paginate_path_problem(arena *a, const char *pattern, size_t n);

#endif

/* generated: the outputs sheaf makes itself, besides one per page, alias
 * and file — the one table of them that the renderer (render/jobs.c), the
 * output-path check (paths.c) and the link checker (links.c) all read — and
 * the rule for the paginated lists (the home page, sections). Tag pages
 * follow site_tag_slug (model.c). */
#include <stdlib.h>
#include <string.h>

#include "site/generated.h"
#include "util/hash.h"
#include "util/xalloc.h"

const site_generated site_generated_outputs[] = {
    /* the home page; its pages 2, 3, … are page/N/ (site_index_path,
     * after `paginate_path`) */
    [SITE_GEN_INDEX] = { "index.html", "", "index.html", "index", NULL, "the home page" },
    [SITE_GEN_TAGS] = { "tags/index.html", "tags/", "tags.html", "tags", "Tags", "the tags index" },
    [SITE_GEN_ARCHIVE] = { "archive/index.html", "archive/", "archive.html", "archive", "Archive",
                           "the archive" },
    [SITE_GEN_FEED] = { "atom.xml", "atom.xml", "atom.xml", "feed", NULL, "atom.xml" },
    [SITE_GEN_SITEMAP] = { "sitemap.xml", "sitemap.xml", "sitemap.xml", "sitemap", NULL, "sitemap.xml" },
    [SITE_GEN_ROBOTS] = { "robots.txt", "robots.txt", "robots.txt", "robots", NULL, "robots.txt" },
    [SITE_GEN_404] = { "404.html", "404.html", "404.html", "404", "Page not found", "404.html" },
    /* only when something is cited; each work has papers/<slug>/ */
    [SITE_GEN_PAPERS] = { "papers/index.html", "papers/", "papers.html", "papers", "Papers",
                          "the papers index" },
    /* drawn from the site's favicon text (site_favicon) */
    [SITE_GEN_FAVICON] = { "favicon.svg", "favicon.svg", "favicon.svg", "favicon", NULL, "favicon.svg" },
    /* with `search: true`: the page and its index (render/search.c) */
    [SITE_GEN_SEARCH] = { "search/index.html", "search/", "search.html", "search", "Search",
                          "the search page" },
    [SITE_GEN_SEARCH_INDEX] = { "search/index.json", "search/index.json", NULL, "search-index", NULL,
                                "the search index" },
};

bool site_generated_on(const site *s, size_t g)
{
    switch (g) {
    case SITE_GEN_FAVICON: return s->favicon_text != NULL;
    case SITE_GEN_SEARCH:
    case SITE_GEN_SEARCH_INDEX: return s->cfg.search;
    case SITE_GEN_TAGS: return site_has_taxonomy(&s->cfg, "tags");
    default: return true;
    }
}

size_t site_search_segments(size_t ndocs)
{
    size_t n = 1;
    while (n < ((size_t)1 << 16) && ndocs > n * SITE_SEARCH_SEGMENT_DOCS)
        n *= 2;
    return n;
}

size_t site_search_segment_of(const page *p, size_t n)
{
    return (size_t)(hash_blocks(p->src, strlen(p->src)) & (n - 1));
}

const char *site_search_segment_file(arena *a, size_t g) { return arena_printf(a, "search/seg/%zu.json", g); }

const char *site_search_text_file(arena *a, size_t g, size_t k)
{
    return arena_printf(a, "search/text/%zu-%zu.json", g, k);
}

size_t site_search_files(const site *s, arena *a, const char ***out)
{
    *out = NULL;
    if (!s->cfg.search)
        return 0;
    size_t ndocs = s->nposts + s->nplain, nseg = site_search_segments(ndocs);
    size_t *count = xcalloc(nseg, sizeof *count);
    for (size_t k = 0; k < ndocs; k++)
        count[site_search_segment_of(&s->pages[k < s->nposts ? s->posts[k] : s->plain[k - s->nposts]], nseg)]++;
    size_t n = nseg;
    for (size_t g = 0; g < nseg; g++)
        n += (count[g] + SITE_SEARCH_TEXTS_PER_FILE - 1) / SITE_SEARCH_TEXTS_PER_FILE;
    const char **v = arena_alloc(a, n * sizeof *v);
    size_t i = 0;
    for (size_t g = 0; g < nseg; g++) {
        v[i++] = site_search_segment_file(a, g);
        for (size_t k = 0; k * SITE_SEARCH_TEXTS_PER_FILE < count[g]; k++)
            v[i++] = site_search_text_file(a, g, k);
    }
    free(count);
    *out = v;
    return n;
}

/* The folder of page k of a list at base: base, then site.yaml's
 * `paginate_path` with k for its :num (page/:num/ → base/page/k/). The
 * pattern was checked when read (site_paginate_path_problem). */
static const char *page_dir(const site *s, arena *a, const char *base, size_t k)
{
    const char *pat = s->cfg.paginate_path ? s->cfg.paginate_path : "page/:num/";
    const char *num = strstr(pat, ":num");
    if (!num) /* not from site_config_load */
        return arena_printf(a, "%spage/%zu/", base, k);
    return arena_printf(a, "%s%.*s%zu%s", base, (int)(num - pat), pat, k, num + 4);
}

const char *site_paginate_folder(const site_config *c, arena *a)
{
    const char *pat = c->paginate_path ? c->paginate_path : "page/:num/";
    size_t n = strcspn(pat, "/");
    return memchr(pat, ':', n) ? NULL : arena_strndup(a, pat, n);
}

const char *site_generated_in_folder(const char *name)
{
    size_t n = strlen(name);
    for (size_t g = 0; g < SITE_NGENERATED; g++) {
        const char *gp = site_generated_outputs[g].path;
        if (g != SITE_GEN_TAGS && !strncmp(gp, name, n) && gp[n] == '/')
            return site_generated_outputs[g].context;
    }
    return NULL;
}

const char *site_first_page_alias(const site *s, arena *a, const char *base)
{
    return s->cfg.first_page_alias ? arena_printf(a, "%sindex.html", page_dir(s, a, base, 1)) : NULL;
}

const char *site_feed_file(arena *a, const char *dir) { return arena_printf(a, "%satom.xml", dir); }

size_t site_feed_files(const site *s, arena *a, const char *dir, const char **out)
{
    size_t n = 0;
    out[n++] = site_feed_file(a, dir);
    for (size_t i = 0; i < s->cfg.nfeed_copies && i < SITE_MAX_FEED_COPIES; i++)
        out[n++] = arena_printf(a, "%s%s", dir, s->cfg.feed_copies[i]);
    return n;
}

size_t site_list_pages(const site *s, size_t n)
{
    size_t per = (size_t)s->cfg.paginate;
    return n ? (n + per - 1) / per : 1;
}

const char *site_list_path(const site *s, arena *a, const char *base, size_t k)
{
    return k <= 1 ? base : page_dir(s, a, base, k);
}

size_t site_index_pages(const site *s)
{
    return site_list_pages(s, s->nposts);
}

const char *site_index_path(const site *s, arena *a, size_t n)
{
    return site_list_path(s, a, "", n);
}

bool site_has_taxonomy(const site_config *c, const char *name)
{
    for (size_t i = 0; i < c->ntaxonomies; i++)
        if (!strcmp(c->taxonomies[i], name))
            return true;
    return false;
}

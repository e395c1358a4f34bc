/* model: the site — configuration, pages, files and the collections
 * (posts, sections, taxonomies, cited works) the templates see — and the
 * template values made of it (model.c, headvalue.c). */
#ifndef SHEAF_SITE_MODEL_H
#define SHEAF_SITE_MODEL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bib/bib.h"
#include "md/md.h"
#include "site/config.h"
#include "site/page.h"
#include "util/arena.h"
#include "util/date.h"
#include "util/fs.h"
#include "value/value.h"

typedef struct site site;
typedef struct site_source_cache site_source_cache; /* see site_source_read */
typedef struct site_page_cache site_page_cache;     /* see site_page_cache_new */

typedef struct site_md_disk site_md_disk;         /* site/mdcache.h */

/* A term of a taxonomy (a tag, a category, …): its page is
 * <taxonomy>/<slug>/ (paginated: …/page/N/), its feed …/atom.xml. */
typedef struct tag_info {
    const char *name, *slug, *path;
    int tax;              /* its taxonomy (s->taxonomies) */
    size_t newest;        /* where its newest post is in s->posts */
    size_t made;          /* its place before the terms were sorted (build_terms) */
    int *posts;           /* newest first */
    size_t nposts, capposts;
    tpl_map *value;
} tag_info;

/* A taxonomy: its terms are s->terms[first .. first + n), by name; its
 * index of terms is at <name>/, and (once it has terms) the feed of its
 * terms at <name>/atom.xml. */
typedef struct taxonomy_info {
    const char *name;     /* "categories" */
    const char *path;     /* "categories/" */
    const char *title;    /* "Categories" */
    size_t first, n;
    tpl_map *value;
    tpl_value recent;     /* its terms' values, the newest post's first (the feed's) */
} taxonomy_info;

/* A section: a folder directly under content/ that holds dated pages
 * (posts/ always is one). Every page in it is a post; it gets a list of
 * them at <name>/ (paginated: <name>/page/N/) and a feed, <name>/atom.xml. */
typedef struct section_info {
    const char *name;     /* "notes" */
    const char *path;     /* "notes/" */
    const char *title;    /* its _index.md's title, else the name made a title */
    int index_page;       /* the page of its _index.md, or -1 */
    int *posts;           /* newest first */
    size_t nposts, capposts;
    tpl_map *value;
} section_info;

/* A cited work: it gets papers/<slug>/ (site/cite.c). */
typedef struct paper_info {
    const bib_entry *e;
    const char *path;     /* "papers/lian2017/" */
    int *pages;           /* citing pages, newest first (each once) */
    const char **contexts; /* the sentence of each page's first citation */
    size_t npages, cap;
    tpl_map *value;       /* the entry's value, with its paper url */
} paper_info;

/* What renders shortcodes while the Markdown is written (render/
 * shortcode.c gives it; site/ sits before the template engine). */
typedef struct site_shortcodes {
    /* Returns the HTML of sc on page p (in `a`), or NULL with *error. */
    const char *(*render)(void *ctx, const struct page *p, const md_shortcode *sc, arena *a,
                          const char **error);
    /* A hash of everything shortcode `name` reads besides its page and its
     * own tag: its templates' text, the site's values. Equal between runs:
     * a kept rendering of a page using it is still exact. Thread-safe. */
    uint64_t (*fingerprint)(void *ctx, const char *name);
    void *ctx;
} site_shortcodes;

/* A resized WebP of an image file, written beside it (images.c). */
typedef struct site_variant {
    int file;          /* s->files */
    unsigned width;
    const char *path;  /* output path: "posts/a/cat.480w.webp" */
    const page *ref;   /* the first page showing it, and where: a failure */
    const link_rec *at; /* is reported there */
} site_variant;

typedef struct site {
    const char *dir;      /* site folder */
    fs_root root;         /* dir resolved and open once a run, its sources read below it; zeroed:
                           * each read resolves dir */
    site_config cfg;
    arena *a;             /* everything built serially lives here */
    arena **wa;           /* one per worker thread, for parallel stages */
    int nwa;
    bool drafts;
    bool future;          /* --future: posts dated after `now` are built too */
    int64_t now;          /* the build's clock (Unix seconds): scheduling and expiry */
    size_t nscheduled, nexpired; /* pages left out for their date, for their expiry */
    int64_t next_change;  /* when a left-out post comes due or a page expires
                           * (Unix seconds), or 0: `sheaf serve` rebuilds then */
    page *pages;
    size_t npages;
    site_file *files;
    size_t nfiles;
    int *posts;           /* published posts, newest first */
    size_t nposts;
    int *plain;           /* published non-post pages, by path */
    size_t nplain;
    tag_info *terms;      /* the terms of every taxonomy, each taxonomy's by name */
    size_t nterms;
    taxonomy_info taxonomies[SITE_MAX_TAXONOMIES]; /* as in cfg.taxonomies */
    size_t ntaxonomies;
    tag_info *tags;       /* the terms of `tags` (inside `terms`), by name; NULL
                           * when tags is not a taxonomy */
    size_t ntags;
    section_info *sections; /* by name; found by site_load */
    size_t nsections;
    int home_index;       /* the page of content/_index.md, or -1 */
    /* src (relative to content/) → page or file, for link resolution */
    struct site_index *index;
    tpl_value site_value; /* the `site` map */
    /* every output path (links may name outputs): made on first use, by
     * site_outputs (links.c), its strings in outputs_a; outputs_failed:
     * the pages that had failed before the Markdown stage, which it does
     * not count (NULL: none) */
    struct strmap *outputs;
    struct arena *outputs_a;
    unsigned char *outputs_failed;
    site_source_cache *sources; /* kept between session runs; NULL: read every file */
    site_page_cache *page_cache; /* parsed pages kept between session runs, or NULL */
    bib *bib;             /* every .bib of the site and its pages; NULL: none */
    bool bib_incomplete;  /* one of them had an error (already reported) */
    struct strmap *bib_seen; /* the .bib files loaded so far (while loading) */
    tpl_map **entry_values; /* per bib entry, its template value */
    const char **entry_label, **entry_year; /* per bib entry: "Lian et al.", "2017" ("n.d.") */
    paper_info *papers;   /* cited works, by key */
    size_t npapers;
    struct strmap *paper_index; /* key → papers index */
    struct cache *cache;  /* the build cache (.sheaf-cache/), or NULL: src/cache */
    struct site_csl *csl; /* the CSL style of `citation_style:`, or NULL: a built-in one */
    struct site_csl *csl_pages; /* the other CSL styles pages name in their front matter */
    site_md_disk *md_disk; /* the pages' Markdown in it (a one-shot build), or NULL */
    struct site_images *images; /* the sizes of the files read so far (images.c) */
    site_variant *variants; /* the image variants to write (site_image_variants) */
    size_t nvariants;
    atomic_size_t variant_bytes; /* their bytes, as the render made or read them */
    const site_shortcodes *shortcodes; /* renders shortcodes; NULL: each is an error */
    tpl_value data;       /* site.data: data/ (site_load_data) */
    atomic_size_t markdown_runs; /* pages whose Markdown site_render_markdown wrote */
    /* the favicon (site_favicon): a file of the site's, or favicon.svg
     * drawn from favicon_text */
    const char *favicon_path; /* output path: "favicon.svg" */
    const char *favicon_text; /* NULL: a file */
    /* the theme strings (site_load_strings): the site's language's, the
     * English ones, and the language the first are of */
    tpl_map *strings, *strings_en;
    const char *strings_lang;
    /* the words of Markdown in the pages' other languages (site_md_words_lang) */
    struct {
        const char *lang;
        const md_words *words;
    } lang_words[16];
    size_t nlang_words;
    struct site_spill *spill; /* pages' bodies on disk (spill.c), or NULL: in memory */
    /* each page's inputs in the last build (render/record.c), set before
     * the model by a one-shot build with the render record: a page whose
     * inputs are the ones there gets a map made when first read
     * (site_build_model); NULL: every map is made with the model */
    const uint64_t *known_inputs;
    struct site_values *values; /* what those maps are made from, until site_free, when any
                                 * was left to be made; else NULL */
} site;

/* The slug of a tag's name, in a: its page is tags/<slug>/. Tags whose
 * names slug alike share one page. With `term_slugs: hugo` (c may be
 * NULL: sheaf's rule), Hugo's path of the name (text_hugo_path), unless
 * that is no path sheaf can write (an empty, '.' or '..' part; '#', '%'
 * or '\\'): then sheaf's. The one rule for the model's tag pages
 * and for the link checker, which knows them before the model is built. */
const char *site_tag_slug(const site_config *c, arena *a, const char *name);
/* Reading rates (docs/variables.md, page.reading_time): words of Latin and
 * other spaced scripts a minute, CJK characters a minute. */
#define SITE_READ_WORDS 230
#define SITE_READ_CJK 400
/* Minutes to read `words` words of which `cjk` are CJK characters, each
 * kind at its rate, rounded up, at least 1. */
int64_t site_reading_time(size_t words, size_t cjk);
/* Sorts posts, builds sections, tags/archive/prev-next and every template
 * value. The related posts come from the build cache when what they are
 * made from is unchanged (site/relcache.h); a cache entry that does not
 * read back is a warning into d (may be NULL). */
struct diag_list;
void site_build_model(site *s, struct diag_list *d);
/* Makes every page map site_build_model left to be made when read (see
 * known_inputs), in parallel; while no render runs. */
void site_make_values(site *s);
/* Makes p's map if it is still to be made: the lazy hook's (site/bulk.c),
 * safe while renders run. */
void site_page_value_make(site *s, const page *p);
/* Frees what the maps to be made were made from (site_free). */
void site_values_free(site *s);
/* Sets the entries of a list page's map m that come from an _index.md
 * (content, summary, params, source; empty without one: index_page -1),
 * allocating in a — a render job's scratch arena when called while
 * rendering, never the site's (other threads render too). */
void site_index_fields(const site *s, int index_page, arena *a, tpl_map *m);

/* The archive's posts by year: a list of {year, posts}, newest year first,
 * allocated in s->a. */
tpl_value site_archive_years(site *s);
/* A page's `toc`: its headings as a list of {level, id, title, children}
 * (children: the headings below it, the same way), in a. */
tpl_value site_page_toc(arena *a, const page *p);
/* The fields of a page's template value that come from its body (content,
 * summary, toc, word counts): after site_page_markdown, sets them again in
 * p->value, in place, and returns how many changed, their entry indexes in
 * changed[] (room for SITE_BODY_FIELDS). */
#define SITE_BODY_FIELDS 6
size_t site_update_body_fields(site *s, page *p, long *changed);
/* The same for the front-matter fields that can change without moving the
 * page (title, params): sets them again in p->value and in every {title,
 * url, date} reference to p (prev/next of its neighbours, backlinks of the
 * pages it links to). Returns how many of p->value's entries changed, their
 * indexes in changed[] (room for 2); *ref_changed: the references' title. */
size_t site_update_head_fields(site *s, page *p, long *changed, bool *ref_changed);
/* Owner ids of the template values (tpl_map.owner): a page's own map, and
 * the {title, url, date} references to it. */
#define SITE_REF_OWNER 0x80000000u
static inline uint32_t site_page_owner(const page *p) { return (uint32_t)p->index + 1; }
/* A {title, url, date} reference to p, made in a (any thread) with room
 * for `more` entries; its reads of the title are p's reference's. */
tpl_map *site_page_ref(const site *s, arena *a, const page *p, size_t more);

/* A date as templates see it. */
tpl_value site_date_value(const sheaf_date *d);

/* The fields of a page's value from its front matter and its place, in
 * this order: title, description, date, updated, url, permalink, slug
 * (site_page_head_fields); params, source, draft (site_page_tail_fields).
 * The model's page value and the one a shortcode sees share them. */
void site_page_head_fields(const site *s, const page *p, arena *a, tpl_map *m);
void site_page_tail_fields(const page *p, arena *a, tpl_map *m);
/* What a shortcode sees of page p while its Markdown is written: the
 * front-matter fields (kind, title, description, date, updated, url,
 * permalink, slug, tags as names, params, source, draft), in `a`. */
tpl_value site_page_head_value(const site *s, const page *p, arena *a);
/* What a shortcode sees of the site: the configuration's values (title,
 * description, base_url, base_path, author, language, params), in `a`. */
tpl_map *site_config_value(const site *s, arena *a); /* not sealed: the caller adds to it */

#endif

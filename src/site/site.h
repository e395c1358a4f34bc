/* site: the site model — configuration, the pages loaded from content/,
 * their cross-post links, and the collections (posts, tags, archive,
 * pagination) the templates see. Built by render/build.c in stages; after
 * site_model_values() nothing in it changes, so pages render on any thread.
 *
 * Paths: `src` fields are relative to the site folder ("content/posts/a.md");
 * `path` fields are output paths relative to the output root, without the
 * base path ("posts/a/" for a page, "posts/img/x.png" for a file); URLs
 * handed to templates carry the base path ("/notes/posts/a/"). */
#ifndef SHEAF_SITE_H
#define SHEAF_SITE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bib/bib.h"
#include "diag/diag.h"
#include "fm/fm.h"
#include "md/md.h"
#include "nb/nb.h"
#include "value/value.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/date.h"
#include "util/words.h"

typedef struct site site;
typedef struct site_source_cache site_source_cache; /* see site_source_read */
typedef struct site_page_cache site_page_cache;     /* see site_page_cache_new */
typedef struct page_cache_entry page_cache_entry;
typedef struct site_md_disk site_md_disk;         /* site/mdcache.h */

/* ---- formulas (math.c) ---------------------------------------------------- */

/* What rendering formulas needs across the runs of a build session: the
 * build cache (may be NULL) and a pool of KaTeX engines. */
typedef struct site_math {
    struct cache *cache;
    struct js_pool *engines;
    atomic_size_t formulas, rendered; /* met, and rendered by KaTeX (not cached) */
} site_math;

/* Whether s[0..n) is MathML as KaTeX writes it: one <math> of MathML's
 * presentation elements and the attributes KaTeX sets, with values free of
 * URLs and markup. What the build cache gives is used only then. */
bool site_mathml_ok(const char *s, size_t n);
/* md_math_fn for md_options.math, with a site_math as ctx. */
const char *site_math_render(void *ctx, const md_formula *f, arena *a, const char **error,
                             long *error_at);

/* ---- diagrams (diagram.c) ----------------------------------------------- */

/* What rendering ```dot diagrams needs across the runs of a build session:
 * the build cache (may be NULL). */
typedef struct site_diagram {
    struct cache *cache;
    atomic_size_t diagrams, rendered; /* met, and laid out by Graphviz (not cached) */
} site_diagram;

/* md_diagram_fn for md_options.diagram, with a site_diagram as ctx. */
const char *site_diagram_render(void *ctx, const md_diagram *d, arena *a, const char **error,
                                int *error_line);

/* ---- configuration (site.yaml) ----------------------------------------- */

typedef struct permalink_rule {
    const char *section; /* first folder under content/, e.g. "posts" */
    const char *pattern; /* e.g. "/:year/:month/:slug/" */
} permalink_rule;

/* The date a permalink placeholder names, as a date_format format: "%Y"
 * for "year", "%-m" for "i_month" … (Jekyll's names: year, month,
 * i_month, day, i_day, short_year, hour, minute, second, y_day, week,
 * w_year, w_day, short_month, long_month, short_day, long_day; Hugo's:
 * monthname and weekdayname, lower-cased in the URL, weekday, yearday);
 * NULL for any other name (slug, section, or unknown). n: the name's
 * length. */
const char *site_permalink_date(const char *name, size_t n);
/* Whether one part of a URL path (between '/') is one sheaf writes as it
 * is, in `url:` and in a kept `slug:`: not empty, '.' or '..', and no
 * blank, control character, '?', '#', '%', quote, '<', '>', '|' or '\\'. */
bool site_url_part_safe(const char *s, size_t n);

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

/* ---- what sheaf generates (generated.c) -------------------------------- */

/* The outputs sheaf makes once per site, in the order they are rendered. */
typedef enum site_gen_kind {
    SITE_GEN_INDEX, SITE_GEN_TAGS, SITE_GEN_ARCHIVE, SITE_GEN_FEED, SITE_GEN_SITEMAP,
    SITE_GEN_ROBOTS, SITE_GEN_404, SITE_GEN_PAPERS, SITE_GEN_FAVICON, SITE_GEN_SEARCH,
    SITE_GEN_SEARCH_INDEX, SITE_NGENERATED
} site_gen_kind;

typedef struct site_generated {
    const char *output;   /* the file written: "tags/index.html" */
    const char *path;     /* its path in URLs, after the base path: "tags/" */
    const char *template; /* "tags.html" */
    const char *kind;     /* what page.kind says: "tags" */
    const char *title;    /* what page.title says; NULL: the site's title */
    const char *context;  /* what messages call it: "the tags index" */
} site_generated;

/* Whether `name` is one of the site's taxonomies (the tags index, tags/,
 * is made only when tags is). */
bool site_has_taxonomy(const site_config *c, const char *name);
/* Indexed by site_gen_kind. The home page's later pages are page/N/
 * (site_index_path, after `paginate_path`); each tag has
 * tags/<site_tag_slug>/. */
extern const site_generated site_generated_outputs[SITE_NGENERATED];
/* How many pages the home page's list of posts takes (1 with no posts). */
size_t site_index_pages(const site *s);
/* The path of the home page's page n (1-based), in a: "" or "page/n/"
 * (site.yaml's `paginate_path` with n for :num). */
const char *site_index_path(const site *s, arena *a, size_t n);
/* How many pages a list of n posts takes (1 when empty), and the path of
 * page k (1-based) of a list at `base` ("notes/"): base, or base then
 * `paginate_path` with k for its :num (base/page/k/). The one rule for
 * the folder of a list's later pages (and of its page/1/ alias). */
size_t site_list_pages(const site *s, size_t n);
const char *site_list_path(const site *s, arena *a, const char *base, size_t k);
/* The folder name every list's later pages start with ("page" for
 * page/:num/), which a section or a taxonomy may not take; NULL when
 * `paginate_path`'s first part holds the number (page:num/). In a. */
const char *site_paginate_folder(const site_config *c, arena *a);
/* What sheaf writes itself in the folder /<name>/ — the context of a
 * generated output there ("the archive"), or NULL — which a section or a
 * taxonomy may not take. tags/ is not counted: it is the tags taxonomy's. */
const char *site_generated_in_folder(const char *name);
/* The one rule for a section's name (a folder directly under content/):
 * NULL when `name` is one the build reads as a section, else why not. */
const char *site_section_name_problem(const char *name);
/* The output folder of the section content/<name>/, its list's and its
 * posts' ("Diary" → "diary", "my.notes" → "my-notes"): each folder of a
 * page's path is slugged alike. In a. */
const char *site_section_folder(const char *name, arena *a);

/* ---- pages and links ------------------------------------------------- */

typedef enum link_kind {
    LINK_EXTERNAL,  /* left alone */
    LINK_PAGE,      /* to another page (target, anchor) */
    LINK_SELF,      /* #anchor on the same page */
    LINK_FILE,      /* a content file (image, download) */
    LINK_OUTPUT,    /* an existing output path written relative to the page */
    LINK_ABSOLUTE,  /* /path on the site: base path prefixed */
    LINK_MISSING    /* no such file: an error */
} link_kind;

typedef struct link_rec {
    link_kind kind;
    const char *dest;   /* as written */
    const char *text;
    const char *anchor; /* decoded fragment, NULL when none */
    const char *missing_path; /* LINK_MISSING: the source path looked for */
    int target;         /* LINK_PAGE: page index */
    int line, col;
    int image;          /* the src of an <img> naming a site file: its index
                           in s->files (sized, maybe with variants), else -1 */
    const char *image_error; /* that file is no image sheaf can show: why */
    const char *url;    /* an <img>'s src as written to the page (images) */
    bool img_tag;       /* the src of an <img> */
    bool image_key;     /* front matter's `image:` (the page's social image),
                           recorded after the body's links */
} link_rec;

/* Why a page is left out of a build (page.held): a draft (without
 * --drafts), a date after the build's clock (without --future), an
 * `expiry:` before it. */
typedef enum site_held { SITE_SHOWN, SITE_DRAFT, SITE_SCHEDULED, SITE_EXPIRED } site_held;

/* What says a file is unchanged between two reads (the rule of the
 * session's source cache): device, inode, size, mtime. */
typedef struct site_source_stamp {
    unsigned long long dev, ino;
    long long size, mtime_s, mtime_ns;
} site_source_stamp;

typedef struct page {
    int index;
    const char *src;      /* "content/posts/2024-03-18-a.md" */
    const char *rel;      /* "posts/2024-03-18-a.md" (relative to content/) */
    const char *dir;      /* "posts" (folder of the source, relative to content/) */
    const char *bundle_dir; /* for index.md bundles: the bundle folder, else NULL */
    const nb_doc *nb;     /* a notebook (.ipynb): what its text was made from
                             (where each line came from, its files), in the
                             arena of its parse; else NULL */
    bool is_post, draft, excluded, failed;
    bool numbered_sections, has_numbered_sections; /* numbered_sections: (front matter), given */
    const md_words *words; /* its language's words for Markdown (site_md_words_lang) */
    unsigned char held;   /* why it is left out (a site_held), or SITE_SHOWN */
    bool is_index;        /* content/_index.md or content/<section>/_index.md:
                           * the home page's or a section's title, intro and
                           * front matter, never a page or post of its own */
    int section;          /* a post's or _index.md's section (s->sections), else -1 */
    char *text;           /* file contents (malloc'd; freed with the site) */
    size_t text_len;
    /* a one-shot build lets the text go after the front matter, not to
     * hold every file at once, and reads it again for the Markdown
     * (site_source_reread): where the body was, and the file's stamp */
    bool text_dropped;
    size_t body_off;
    site_source_stamp stamp;
    str body;
    int body_line;
    tpl_value fm;         /* front matter map */
    const fm_key_pos *fm_pos; /* where its keys are written (fm_parse_yaml_pos) */
    size_t fm_npos;
    const char *title, *slug, *template_name, *summary_text;
    const char *description; /* `description:` (the meta tag), or NULL */
    const char *layout;      /* `layout:` (the template, when there is one), or NULL */
    const char *url_path;    /* `url:`/`permalink:` as written, or NULL */
    bool has_date, has_updated, has_expiry;
    sheaf_date date, updated, expiry;
    const char **tags;       /* with `categories:` added (one taxonomy) */
    size_t ntags;
    const char **categories;
    size_t ncategories;
    /* the terms of each of the site's taxonomies (cfg.taxonomies order):
     * `tags:` for tags, `categories:` (or `category:`) for categories, the
     * key of its name for any other */
    const char **terms[SITE_MAX_TAXONOMIES];
    size_t nterms[SITE_MAX_TAXONOMIES];
    const char **aliases;
    size_t naliases;
    const char **bibs;    /* `bibliography:` of its own (relative to the site) */
    size_t nbibs;
    const char *path;     /* output path: "posts/a/" */
    md_result md;
    const char *search_keys; /* its text's and headings' search keys, packed
                                (util/words.h), with `search: true`, else NULL */
    size_t search_keys_len;
    /* the search index's excerpt of its text (site_search_excerpt), made
     * with its Markdown by a one-shot build, which then drops md.text;
     * NULL: made from md.text when the index is written */
    const char *search_excerpt;
    size_t search_excerpt_len;
    /* the places of its body, summary and search keys in s->spill (+1;
     * 0: in memory), set by the Markdown worker, read by site_spill_map */
    size_t spill_body, spill_summary, spill_keys;
    link_rec *links;
    size_t nlinks;
    int *backlinks;       /* page indexes, newest first */
    const char **backlink_text;
    size_t nbacklinks;
    int prev, next;       /* older / newer post index, -1 at the ends */
    int *related;         /* the posts sharing the most terms and cited works, best first */
    int *related_shared;  /* how many each shares */
    size_t nrelated;
    tpl_map *value;       /* the `page` map templates see */
    page_cache_entry *cache; /* in a build session: what the last run kept, else NULL */
    tpl_value csl_bib;       /* CSL: [[key, html], …], the page's bibliography (cite_csl.c) */
} page;

/* A file copied to the output: from content/, static/ or a theme. */
typedef struct site_file {
    const char *src;      /* path relative to the site dir, or "(built-in)/static/x" */
    const char *path;     /* output path */
    const unsigned char *data; /* embedded bytes, or NULL to copy src */
    size_t len;
    const nb_file *nbf;   /* a notebook's image (data NULL): decoded from
                             src, the notebook, when written; len its bytes */
    const char *content_rel; /* for content files: path relative to content/ */
    int nb_page;          /* a notebook's image: its page's index + 1 (its
                             path is the page's + nb_name); else 0 */
    const char *nb_name;
} site_file;

/* A term of a taxonomy (a tag, a category, …): its page is
 * <taxonomy>/<slug>/ (paginated: …/page/N/), its feed …/atom.xml. */
typedef struct tag_info {
    const char *name, *slug, *path;
    int tax;              /* its taxonomy (s->taxonomies) */
    size_t newest;        /* where its newest post is in s->posts */
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
    struct strmap *outputs; /* every output path (links may name outputs); after markdown */
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
} site;

/* ---- images (images.c) ------------------------------------------------ */

/* Prepares s to size images while the Markdown renders (before
 * site_render_markdown's workers start). */
void site_images_begin(site *s);
/* For the src of an <img> that names file `file` of the site (rendering
 * thread): its width and height, loading="lazy" unless it is the page's
 * first image (`first`), and a srcset of its variants; or *error (in a)
 * when the file is no image sheaf can show (corrupt, too many pixels). */
void site_image_attrs(site *s, arena *a, int file, bool first, md_img_attrs *out, const char **error);
/* After the Markdown of every page: the variants the pages' images need,
 * each once (s->variants), in a stable order. */
void site_image_variants(site *s, diag_list *d);
/* The file written at output path `path` ("img/a.png"), or -1 (after
 * site_images_begin). */
int site_file_at(const site *s, const char *path);
/* The output path of file's variant at width w, in a. */
const char *site_variant_path(arena *a, const char *file_path, unsigned w);
/* Adds to a link environment what an <img> is given from the files: each
 * image file's size and modification time (a build session's), or with
 * contents its size and bytes (the build cache's, which outlives the
 * process: a fresh checkout gives every file a new time). */
void site_images_env(const site *s, bool contents, uint64_t *h);
/* The page's social image (og:image): front matter's `image:`, else its
 * first <img> of a site file or an http(s) URL: its URL (root-relative or
 * absolute, as written to the page) and, for a raster file of the site,
 * its size (else 0). False when it has none. */
bool site_page_image(site *s, const page *p, const char **url, unsigned *w, unsigned *h);
/* Frees what site_images_begin made (site_free calls it). */
void site_images_free(site *s);

/* ---- bodies on disk (spill.c) ---------------------------------------- *
 * A one-shot build that writes its output keeps the pages' rendered
 * bodies (md.html, ≈ 10 KB a post: a third of a build's memory), their
 * summaries and their search keys (≈ 2.4 KB, read once, by the search
 * index) in an unlinked file beside the output instead of in memory: each
 * Markdown worker appends its page's there and gives the arena the bytes
 * back; after the Markdown stage the file is mapped read-only and
 * md.html, md.summary_html and search_keys point into the map. The render
 * jobs call site_spill_trim now and then, so the pages already read leave
 * the process's memory (they stay in the kernel's page cache, which may
 * drop them: the file holds them). A build session (`sheaf serve`) keeps
 * them in memory, as does a build whose file could not be made. */
typedef struct site_spill site_spill;
/* Starts keeping s's bodies in an unlinked file in folder `dir`; false
 * (and bodies stay in memory) when it cannot be made there. */
bool site_spill_open(site *s, const char *dir);
/* Appends n bytes (and a NUL) to the file; returns their place + 1 (for
 * page.spill_body, spill_summary, spill_keys), or 0 when there is no file or the
 * write failed (the caller keeps the bytes). Thread-safe. */
size_t site_spill_put(site *s, const char *data, size_t n);
/* After the Markdown stage: maps the file and points every moved body,
 * summary and search keys into it. A failure to map is an error in d
 * (the build fails; the moved strings read as ""). */
bool site_spill_map(site *s, diag_list *d);
/* Drops the mapped pages from the process's resident memory (any thread,
 * any time: a reader faults them in again from the file). */
void site_spill_trim(const site *s);
/* Unmaps and closes (site_free calls it). */
void site_spill_free(site *s);

/* ---- theme strings (i18n.c) ------------------------------------------ */

/* Loads the theme strings of the site's `language:` and the English ones
 * (each: the built-in theme's i18n/<lang>.yaml, then the site theme's, then
 * the site's i18n/<lang>.yaml). A language without any table is a warning
 * (English is shown), given only while *warned is false, which it then
 * sets (a build session says it once: a warning on every run would keep
 * serve from its fast rebuilds); warned may be NULL. A file that is not a
 * mapping of strings is an error. */
void site_load_strings(site *s, bool *warned, diag_list *d);
/* p's HTML (summary: its summary) with the text of its links that have
 * none to another page's label (`[](other.md#fig-a)`, md_xlink) put in:
 * "Figure 2 in <em>Other note</em>", in the site's language. The
 * Markdown's own HTML when it has no such link; else a copy in a. */
const char *site_xlink_html(const site *s, const page *p, bool summary, arena *a, size_t *len);
/* Label l's words in page p's language, "Figure 2" (a section's title
 * when sections are not numbered), in the site arena. */
const char *site_label_words(const site *s, const page *p, const md_label *l);
/* Page t's label `id` (a figure, table, equation or section), or NULL. */
const md_label *site_page_label(const page *t, const char *id);

/* The words Markdown writes (cross-references, captions, alerts) from the
 * theme strings (xref_fig, …), in the site arena. */
const md_words *site_md_words(site *s);
/* The same for a page in language `lang` (its front matter's
 * `language:`): that language's strings when the theme or site has them,
 * else the site's words. Made on first use and kept (not thread-safe: call
 * it between the parallel stages). */
const md_words *site_md_words_lang(site *s, const char *lang);
/* A page's `language:` (front matter), or NULL. */
const char *site_page_language(const page *p);

/* The theme string `key` in the site's language, else in English, else
 * NULL (what t("key") gives templates, for what sheaf writes itself). */
const char *site_string(const site *s, const char *key);

/* ---- favicon (favicon.c) --------------------------------------------- */

/* Decides the favicon after site_load: `favicon:` naming a file (one of
 * the site's output files, e.g. from static/) uses it; else a favicon.svg,
 * .ico or .png among the site's files; else favicon.svg is generated from
 * `favicon:`'s text, or the emoji the title starts with, or the title's
 * first letter. An unknown file or a text too long is an error at the
 * key. */
void site_favicon(site *s, diag_list *d);
/* Whether generated output g is made for this site (the favicon only when
 * drawn, search only with `search: true`, the tags index only when tags
 * are a taxonomy); papers are decided apart. */
bool site_generated_on(const site *s, size_t g);
/* Where a list whose first page is at `base` ("" for the home page,
 * "notes/", "tags/go/") also answers with a redirect to it, as Hugo's do:
 * base/page/1/index.html (after `paginate_path`, with 1 for :num) with
 * `first_page_alias: true`, else NULL. In a. */
const char *site_first_page_alias(const site *s, arena *a, const char *base);
/* The files of the feed of folder `dir` ("" for the site's, "posts/",
 * "tags/go/"): dir/atom.xml, then dir/<name> for each of site.yaml's
 * `feed_copies:` (an old generator's feed path, e.g. Hugo's index.xml, kept
 * answering with the same feed). Fills out (room for 1 +
 * SITE_MAX_FEED_COPIES) in a; returns how many. */
size_t site_feed_files(const site *s, arena *a, const char *dir, const char **out);
/* The feed of folder dir itself: dir/atom.xml (the first of site_feed_files). */
const char *site_feed_file(arena *a, const char *dir);

/* ---- citations (cite.c) ------------------------------------------------ */

/* Reads the site's and the pages' `bibliography:` files (after site_load),
 * each once. Without any, s->bib stays NULL and `@` is plain text. */
bool site_load_bibliography(site *s, diag_list *d);
/* Reads the site's own (site.yaml's) files now, before site_load;
 * site_load_bibliography reads the rest. (The split dates from when each
 * file was parsed in a forked child, which was cheaper in a small process;
 * bib/ now reads in-process, so the order no longer matters for speed.) */
bool site_load_site_bibliography(site *s, diag_list *d);
/* A CSL-JSON bibliography's text (a `.json` in `bibliography:`) → entries
 * of b, as bib_load reads a .bib: the JSON read by fm/json.c, the items
 * checked and mapped by bib/csljson.c (errors at path:line:col into d;
 * false on any). Everything it adds is in a. */
bool site_bib_load_csljson(bib *b, const char *text, size_t len, const char *path, arena *a, diag_list *d);
/* Reads every .yaml, .yml and .json file below data/ into s->data (site.data; an empty map
 * without any). Errors at each file's line:col; false after one. */
bool site_load_data(site *s, diag_list *d);
/* Does page p read citations (a bibliography of the site's or its own)? */
bool site_page_cites(const site *s, const page *p);
/* What one page's citations have numbered so far (numeric style); with a
 * CSL style, the page's document (cite_csl.c). */
typedef struct site_cite_state {
    struct strmap *num;   /* key → number */
    long n;
    struct site_csl_doc *doc; /* CSL: the clusters to write, or NULL (collecting them) */
    tpl_value csl_bib;        /* CSL: the page's bibliography site_csl_finish made */
} site_cite_state;
/* The md cite hook's work: a group's HTML for page p. */
void site_cite_html(const site *s, const page *p, site_cite_state *st, const md_cite *c, size_t n,
                    buf *out);
void site_cite_state_free(site_cite_state *st);
/* The entry page p may cite as key, or NULL. */
const bib_entry *site_cite_entry(const site *s, const page *p, const char *key);

/* ---- citations in a CSL style (cite_csl.c) ----
 *
 * With `citation_style:` naming a bundled CSL style or a .csl file, each
 * page's citations are one citeproc-js document (src/js/csl.h), its
 * clusters and bibliography kept in the build cache. The Markdown hook
 * cannot wait for the page's last citation, so a page is written with
 * what the cache holds for its text (one pass, no engine) or else twice:
 * once to collect its citations, once to write their formatted text. */

/* Reads `citation_style:`: a built-in style leaves s->csl NULL; a bundled
 * style or a .csl file (relative to the site) is read into s->csl. An
 * unknown name or an unreadable file is an error at site.yaml's key. */
bool site_csl_setup(site *s, diag_list *d);
/* Frees s->csl and its engines. */
void site_csl_free(site *s);
/* The hash (hex) of the CSL style's text, or "" for a built-in style:
 * what a page's cached Markdown depends on besides site.yaml's line. */
const char *site_csl_style_hash(const site *s);
/* Before the Markdown of a page that cites (body: its text): looks for
 * its document in the cache by its text and sets st->doc on a hit. */
void site_csl_begin(site *s, const page *p, str body, arena *a, site_cite_state *st);
/* After it: true when the page must be written again, st now holding its
 * clusters (formatted from md's citations, through the cache or an
 * engine); false when what was written stands. Keeps the page's
 * bibliography in st->csl_bib and p->csl_bib. A failure of the engine is
 * an error in d (none when d is NULL); body.ptr NULL: the page's text is
 * not at hand (its Markdown came from a session's page cache), nothing is
 * kept by it and p is not written to. */
bool site_csl_finish(site *s, page *p, str body, site_cite_state *st, const md_result *md, arena *a,
                     diag_list *d);
/* The hook's work with a CSL style (site_cite_html calls it). */
/* `<span class="citation" data-cites="KEY …">`: how every style's
 * citation group opens (site/cite.c). */
void site_cite_open(buf *out, const md_cite *c, size_t n);
void site_csl_cite_html(const site *s, const page *p, site_cite_state *st, const md_cite *c, size_t n,
                        buf *out);
void site_csl_doc_free(struct site_csl_doc *doc);
/* The inside of citeproc-js's <div class="csl-entry">…</div> appended to
 * out; without a numeric style's number (its csl-left-margin) unless
 * keep: the entry alone, as a paper's page shows it. */
void site_csl_entry_html(const char *h, size_t n, bool keep, buf *out);
/* entry.reference of every entry, in the CSL style (render_references). */
void site_csl_references(site *s, int jobs, diag_list *d);
/* Counters for --stats: pages formatted, of them written twice (not by
 * their text from the cache), documents citeproc-js formatted (pages and
 * references), engines started. */
void site_csl_counts(const site *s, size_t *docs, size_t *twice, size_t *rendered, size_t *engines);
/* After the Markdown: unknown keys are errors at their citation; the
 * cited works and who cites them (s->papers). */
void site_check_citations(site *s, diag_list *d);
/* Template values: every entry's (s->entry_values, site.bibliography) and
 * each paper's. Part of site_build_model. */
void site_citation_values(site *s, tpl_map *site_map);
/* A paper's `cited_by` ([{title, url, date, context}], newest first),
 * made in a (any thread) when its page is rendered: the references to the
 * citing pages read their current titles (site_page_ref). */
tpl_value site_paper_cited_by(const site *s, const paper_info *pp, arena *a);
/* papers.c: an entry's `pdf` and `citing_tags` (the tags of the pages
 * citing it, {name, slug}, each once, by name), set in m before it is
 * sealed; pi is the work's index in s->papers, or -1 when nothing cites
 * it. Values in the site arena. */
void site_paper_entry_values(site *s, long pi, const bib_entry *e, tpl_map *m);
/* papers.c: site.papers_by_year ([{year, papers}], newest year first, no
 * year last; site.papers' order within a year) and site.paper_tags (every
 * tag of a citing page: {name, slug, count}, count the works its pages
 * cite), read from site.papers. Part of site_build_model. */
void site_papers_values(site *s, tpl_map *site_map);
/* papers.c: the entry as BibTeX, its fields' TeX as read (macros
 * expanded, a crossref's fields written in), in a. */
const char *site_paper_bibtex(const bib_entry *e, arena *a);
/* A page's `citations` (keys, in order) and `bibliography` (entries),
 * made in a (any thread: reads the site only). */
void site_page_citation_values(site *s, arena *a, const page *p, tpl_map *m);

/* Source bytes kept between the runs of a build session (`sheaf serve`).
 * A lookup stats the file and uses the kept bytes only when its size, mtime
 * and inode still match. Thread-safe. */
site_source_cache *site_source_cache_new(void);
/* site_source_cache_free(NULL) does nothing. */
void site_source_cache_free(site_source_cache *c);
/* Forgets one file (src relative to the site folder) / every file. */
void site_source_cache_forget(site_source_cache *c, const char *src);
void site_source_cache_clear(site_source_cache *c);
/* The containment rule for a folder the build reads (content, static,
 * data, templates, themes/<theme> and its folders): site/prefix, after
 * every symbolic link on the way, lies inside the site folder (fs_within).
 * A missing folder is fine. Otherwise an error — at where:line:col naming
 * prefix (a config path: site.yaml's theme), or at prefix itself — and
 * false. */
bool site_folder_inside(site *s, const char *prefix, const char *where, int line, int col, diag_list *d);

/* Stamps dir/src; false when it cannot be stat'ed. */
bool site_source_stamp_of(const char *dir, const char *src, site_source_stamp *st);
/* Reads dir/src again for a page whose text a one-shot build let go after
 * its front matter (page.text_dropped): into p->text, with p->body where
 * it was, when the file's stamp is still the one it had then; else false
 * with an error in d (the file changed during the build). */
bool site_source_reread(const site *s, page *p, diag_list *d);
/* Reads dir/src into *data (malloc'd, NUL-terminated; the caller frees it),
 * from the cache when it is still current. c may be NULL. Returns false with
 * errno set when the file cannot be read — FS_EOUTSIDE when it resolves
 * outside dir (the containment rule, fs_within). */
bool site_source_read(site_source_cache *c, const char *dir, const char *src, char **data,
                      size_t *len);

/* Front matter and Markdown of each page kept between the runs of a build
 * session: a page is parsed again only when its bytes changed, and its
 * Markdown rendered again only when its bytes or the pages it can link to
 * changed. Not thread-safe; one per session. */
site_page_cache *site_page_cache_new(void);
/* site_page_cache_free(NULL) does nothing. */
void site_page_cache_free(site_page_cache *c);
/* Forgets every page. */
void site_page_cache_clear(site_page_cache *c);

/* Why page p is left out of the build (drafts, s->future, s->now), or
 * SITE_SHOWN. */
site_held site_page_held(const site *s, const page *p);
/* Walks content/ (pages and content files) and static folders; reads every
 * page and parses its front matter (in parallel, `jobs` threads); finds
 * the sections and which pages are left out (counted, with the next time
 * that changes). */
bool site_load(site *s, int jobs, diag_list *d);
/* Output paths, permalinks and the duplicate-path check (needs front matter). */
bool site_assign_paths(site *s, diag_list *d);
/* The output path of an alias (`aliases:` in front matter), allocated in a
 * when it is not `al` itself: "/old/" → "old/index.html". */
const char *site_alias_output(arena *a, const char *al);
/* What a page's front matter sets, by the table of its keys (front_matter.c): the
 * fields of every key (or of those a build session updates in place, like
 * the title), the front-matter map and its positions. */
/* For a front-matter key Jekyll or Hugo act on and sheaf has no
 * equivalent for (any case: "Weight"), what the warning tells to do
 * instead; NULL for any other key. (`sheaf import` drops such keys and
 * lists them with this text.) */
const char *site_key_no_equivalent(const char *key);
void site_page_copy_head(page *dst, const page *src, bool in_place_only);
/* Whether b, a new parse of a's file, leaves the page where a was: it
 * parsed, and every front-matter field but those updated in place (the
 * title, the params) is the same, so no path, order, list or tag page
 * changes. */
bool site_page_same_place(const page *a, const page *b);
/* Whether sheaf reads front-matter key `name` itself (a taxonomy may not
 * be named so, tags and categories aside). */
bool site_page_key_known(const char *name);
/* Where the value of front-matter key `key` of p is written (1:1 when it
 * is not), for messages about it after loading. */
void site_page_key_place(const page *p, const char *key, int *line, int *col);
/* Markdown for every published page, with the cross-post link resolver. */
void site_render_markdown(site *s, int jobs, diag_list *d);
/* In a build session: is `text` (the new bytes of p's file) an edit of its
 * body only — the same bytes as when p was parsed, up to where the body
 * starts? Then everything that comes from the front matter is unchanged;
 * *body and *body_line locate the new body in text. */
bool site_page_body_edit(const page *p, const char *text, size_t len, str *body, int *body_line);
/* Parses `text` (the new bytes of p's file, kept alive by the caller) into
 * p's front-matter fields, as the first load did; values in a. False when
 * the page has a problem (reported into d). */
bool site_reparse_page(site *s, page *p, const char *text, size_t len, arena *a, diag_list *d);
/* Renders one page's Markdown again (a build session, after an edit of
 * its body): p->md and p->links, allocated in a. Needs a site whose
 * Markdown was rendered (site_render_markdown). */
void site_page_markdown(site *s, page *p, str body, int body_line, arena *a);
/* Appends the search keys of p's rendered Markdown — its text, its
 * headings' titles ranked higher — to out, packed (util/words.h): what
 * page.search_keys holds. w: an empty set to use (left empty). */
void site_page_search_keys(const page *p, words_set *w, buf *out);
/* Appends to out the excerpt the search index shows with a page: the first
 * SITE_EXCERPT_MAX characters of text (or n bytes, if fewer), cut at a
 * word's end, whitespace runs as one space, no space before punctuation.
 * Plain text (the index escapes it). */
#define SITE_EXCERPT_MAX 140
void site_search_excerpt(const char *text, size_t n, buf *out);
/* `sheaf check`, after rendering: each root-relative link ("/posts/a/",
 * "/files/x.pdf#p2") must name an output of the build (`produced`: output
 * paths → anything), and its #anchor, when it names a page, one of that
 * page's ids. Warnings, whatever `links:` says: such a path may be served
 * beside the site by something else. */
void site_check_root_links(const site *s, const struct strmap *produced, diag_list *d);
/* Checks every link (files, anchors, drafts) and fills backlinks. */
void site_check_links(site *s, diag_list *d);
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
 * value. */
void site_build_model(site *s);
/* Sets the entries of a list page's map m that come from an _index.md
 * (content, summary, params, source; empty without one: index_page -1),
 * allocating in a — a render job's scratch arena when called while
 * rendering, never the site's (other threads render too). */
void site_index_fields(const site *s, int index_page, arena *a, tpl_map *m);
/* After the model: the outputs only it knows (tag pages, /page/2/ … up to
 * `index_pages`) against every page, alias and file; each clash is an
 * error. */
bool site_check_generated_paths(site *s, size_t index_pages, diag_list *d);
/* The archive's posts by year: a list of {year, posts}, newest year first,
 * allocated in s->a. */
tpl_value site_archive_years(site *s);
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
void site_free(site *s);

/* The file name endings that make a file under content/ a Markdown page,
 * the one list of them (Jekyll's and Hugo's: a blog moved from either keeps
 * its pages). A folder holding index<ending> is a page bundle. */
#define SITE_MARKDOWN_EXTS ".md", ".markdown", ".mdown", ".mkd", ".mkdn"
/* The length of path's Markdown ending (3 for "a.md", 9 for "a.markdown"),
 * or 0 when path is not a page's. */
size_t site_markdown_ext(const char *path);
/* The length of path's page ending: a Markdown ending, or NB_EXT for a
 * Jupyter notebook (src/nb); 0 when path is not a page's. */
size_t site_page_ext(const char *path);
/* Gives this run's diagnostics about a notebook (from index `from` of d)
 * their place in the notebook, "cell 7 (line 3:5)": their lines are of
 * the page text made of it (diag_relocate, nb_place_text). */
void site_notebook_places(const site *s, diag_list *d, size_t from);
/* Whether the file name `base` is index<ending> (a notebook too). */
bool site_is_index_page(const char *base);
/* Whether the file name `base` is _index<ending> (a section's or the home
 * page's title, intro and front matter). */
bool site_is_section_index(const char *base);

/* Looks up a content path (relative to content/) → page index or -1;
 * *file gets a file index or -1. */
int site_lookup(const site *s, const char *content_rel, int *file);

/* A date as templates see it. */
tpl_value site_date_value(const sheaf_date *d);
/* The URL templates see for an output path: base path + path, in the
 * site's arena (site_url_in: in a, for other threads). */
const char *site_url(const site *s, const char *path);
const char *site_url_in(const site *s, arena *a, const char *path);
/* The file a page's (or any output's) path is written to, in a:
 * "posts/a/" → "posts/a/index.html", "old.html" as is (outpath_file). */
const char *site_output_file(arena *a, const char *path);
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
/* The absolute URL of an output path: base URL + path (site_permalink_in:
 * in a). */
const char *site_permalink(const site *s, const char *path);
const char *site_permalink_in(const site *s, arena *a, const char *path);

/* Runs fn(i, worker) for i in [0, n) on `jobs` threads (0: one per core). */
void site_parallel(size_t n, int jobs, void (*fn)(void *ctx, size_t i, int worker), void *ctx);
int site_jobs(int jobs);

#endif

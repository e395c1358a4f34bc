/* page: one page of content/ as the load stage reads it (its front
 * matter's fields, its place, its links once rendered), and a file copied
 * to the output. */
#ifndef SHEAF_SITE_PAGE_H
#define SHEAF_SITE_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fm/fm.h"
#include "md/md.h"
#include "nb/nb.h"
#include "site/config.h"
#include "util/date.h"
#include "value/value.h"

typedef struct page_cache_entry page_cache_entry;

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
    /* the SHA-256 of its bytes, when a one-shot build with the build cache
     * took it (site/srcrec.c): the Markdown cache's key without the text */
    unsigned char digest[32];
    bool has_digest;
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
    /* who its Markdown is, in a one-shot build with the build cache: a
     * hash of its entry's key (site/mdcache.c: everything the result
     * depends on) and of what its shortcodes read; equal ids, equal
     * results (render/search.c keeps a document's part of the search
     * index by it). 0: not known */
    uint64_t md_id;
    /* what its `page` map is made of besides what every page's map
     * shares (page_inputs, model.c): with the same global fingerprint of
     * the render record, equal inputs, equal maps. 0: not known */
    uint64_t inputs;
    /* its inputs are the last build's (site->known_inputs): its map is
     * made when first read, and the render record takes its hashes, place
     * and count of entries from the last build's */
    bool value_known;
    const char *search_keys; /* its text's and headings' search keys, packed
                                (util/words.h), with `search: true`, else NULL */
    size_t search_keys_len;
    /* the search index's excerpt of its text (site_search_excerpt), made
     * with its Markdown by a one-shot build, which then drops md.text;
     * NULL: made from md.text when the index is written */
    const char *search_excerpt;
    size_t search_excerpt_len;
    /* the text search results cut their snippets from (site_search_text),
     * made with its Markdown by a one-shot build, which then drops md.text;
     * NULL: made from md.text when the index is written */
    const char *search_text;
    size_t search_text_len;
    /* the places of its body, summary, search keys and search text in
     * s->spill (+1; 0: in memory), set by the Markdown worker, read by
     * site_spill_map */
    size_t spill_body, spill_summary, spill_keys, spill_text;
    /* a one-shot build with the build cache: where the above are until
     * first read (site/bulk.h: read them through its accessors), or NULL */
    struct site_bulk *bulk;
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

#endif

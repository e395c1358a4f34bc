/* media: what the Markdown's formulas (math.c), diagrams (diagram.c) and
 * images (images.c) need while pages render. */
#ifndef SHEAF_SITE_MEDIA_H
#define SHEAF_SITE_MEDIA_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag/diag.h"
#include "md/md.h"
#include "site/model.h"
#include "util/arena.h"

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
/* The record of the site's images a one-shot build with the cache reads
 * and keeps (site/imgrec.h; opened by site_images_env), or NULL. */
struct site_img_records *site_image_records(const site *s);
/* The page's social image (og:image): front matter's `image:`, else its
 * first <img> of a site file or an http(s) URL: its URL (root-relative or
 * absolute, as written to the page) and, for a raster file of the site,
 * its size (else 0). False when it has none. */
bool site_page_image(site *s, const page *p, const char **url, unsigned *w, unsigned *h);
/* Frees what site_images_begin made (site_free calls it). */
void site_images_free(site *s);

#endif

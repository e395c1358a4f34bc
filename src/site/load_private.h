/* load_private: what the files of the load stage share (load.c, walk.c,
 * front_matter.c, held.c, sections.c, paths.c); nothing outside site/
 * includes it. */
#ifndef SHEAF_SITE_LOAD_PRIVATE_H
#define SHEAF_SITE_LOAD_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"
#include "site/model.h"
#include "site/srcrec.h"
#include "util/arena.h"
#include "util/buf.h"

/* The pages and files a walk finds, in arrays that grow (load.c hands
 * them to the site when every walk is done). */
typedef struct growing {
    page *pages;
    size_t npages, cappages;
    site_file *files;
    size_t nfiles, capfiles;
} growing;

/* walk.c: a new zeroed file at the end of g. */
site_file *load_add_file(growing *g);
/* walk.c: walks <site>/<prefix> into g; content: pages and content files,
 * else static files for the output root. */
void load_walk_dir(site *s, growing *g, const char *prefix, bool content, diag_list *d);
/* front_matter.c: fills p from its text (front matter, then body); a
 * notebook's from its file, mapped (never through the source cache):
 * load_read_head, then load_apply_head. */
void load_parse_page(site *s, page *p, arena *a, diag_list *d);
/* front_matter.c: what of p depends only on its bytes — read (unless
 * p->text is given), checked to be UTF-8, split, its front matter parsed —
 * into *h (values in a) and p->body; false (p failed) after an error. */
bool load_read_head(site *s, page *p, arena *a, site_src_head *h, diag_list *d);
/* front_matter.c: the rest, which the site's configuration and the clock
 * decide: p's fields from the front matter h, its title from its file
 * name, the terms of its taxonomies, whether it is held back. Run on every
 * build, the head read or taken from its record (srcrec.c). */
void load_apply_head(site *s, page *p, arena *a, const site_src_head *h, diag_list *d);
/* front_matter.c: whether p is a notebook (.ipynb). */
bool load_is_notebook(const page *p);
/* front_matter.c: a title made from a file or folder name, in a. */
const char *load_title_from_stem(arena *a, const char *stem);
/* held.c: sets every page's held state by the build's clock. */
void load_hold_pages(site *s);
/* sections.c: the sections, after front matter. */
void load_find_sections(site *s, diag_list *d);
/* paths.c: the slug of s[0..n) appended to out ("page" when it is empty). */
void load_slug_component(buf *out, const char *s, size_t n);

#endif

/* import's own model and the functions its files share. The run
 * (import.c: destination, writing, old URLs and aliases, report) lets
 * jekyll.c and hugo.c (what each generator's site holds, and the URLs it
 * gave) fill the model (model.c), reading the source through source.c,
 * front_matter.c and comments.c; then converts each page's text (body.c,
 * through liquid.c, shortcodes.c, relink.c, kramdown.c and math.c, with
 * lookup.c and tags.c) and writes front matter as YAML (yaml_out.c). */
#ifndef SHEAF_IMPORT_INTERNAL_H
#define SHEAF_IMPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"
#include "fm/fm.h"
#include "import/import.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/date.h"
#include "util/lines.h"
#include "value/value.h"

/* One front-matter key to write, in order. */
typedef struct import_kv {
    const char *key;
    tpl_value value;
} import_kv;

typedef struct import_page {
    const char *src_rel;   /* relative to SRC: "_posts/2019-01-02-a.md" */
    const char *dest_rel;  /* relative to DEST: "content/posts/2019-01-02-a.md" */
    const char *old_url;   /* the URL the old generator gave it ("/a/b/", "/x.html"),
                            * NULL when it did not publish it (draft, unpublished) */
    const char *hidden_url; /* a draft's or unpublished page's: the URL it would have had,
                             * which links of the old site may name (a link to a draft) */
    import_kv *kv;            /* front matter to write, in order (aliases added last) */
    size_t nkv, capkv;
    const char **aliases;  /* the page's own (aliases, redirect_from) and the
                            * old URL when sheaf's differs */
    size_t naliases, capaliases;
    const char *body_src;  /* the body as read (in the run's arena) */
    size_t body_len;
    int body_line;         /* SRC line where the body starts */
    buf body;              /* the body as written */
    bool post, hidden;
    bool dropped;          /* not written: its place is one sheaf makes itself */
    bool no_liquid;        /* render_with_liquid: false — Jekyll showed its Liquid as text */
    bool url_set;          /* given its old URL as url: after the comparison: written again */
    const char *post_name; /* Jekyll: "2019-01-02-a" (for post_url) */
    const char *collection; /* Jekyll: the collection it is a document of, or NULL */
    const char *file_date;  /* Jekyll: an undated document's file day ("2021-05-06"), or NULL */
} import_page;

/* A file copied as it is. */
typedef struct import_file {
    const char *src_rel, *dest_rel;
    const char *old_url;   /* where the old site served it */
    bool dropped;          /* sheaf writes that path itself: not copied */
    const char *text;      /* written instead of copied (src_rel then names its cause), or NULL */
} import_file;

/* Something left as it was, for the report. */
typedef struct import_note {
    const char *src_rel;   /* NULL: the site as a whole */
    int line, col;
    const char *what;      /* the construct */
    const char *todo;      /* what to do */
} import_note;

/* TeX rewritten so that KaTeX reads it as MathJax did, for the report. */
typedef struct import_rewrite {
    const char *src_rel;
    const char *kind; /* what was rewritten, in words (the report counts each kind) */
    const char *from, *to;
} import_rewrite;

/* A link to an id no element of its page has (anchors.c), for the report. */
typedef struct import_script_anchor {
    const char *where;   /* DEST-relative file:line:col */
    const char *message; /* sheaf's words */
    const char *pattern; /* the anchors_warn: (or targets_warn:) pattern that now covers it */
} import_script_anchor;

typedef struct imp {
    const import_options *o;
    const char *src_real;  /* SRC resolved: nothing outside it is read (fs_within) */
    arena *a;
    diag_list *d;
    import_page **pages;      /* pointers: stable while the array grows */
    size_t npages, cappages;
    import_file *files;
    size_t nfiles, capfiles;
    import_note *notes;
    size_t nnotes, capnotes;
    size_t *note_slots;    /* a hash set of the notes (index + 1; 0: empty): heap, import_notes_free */
    size_t nnote_slots;
    buf site_yaml;         /* the site.yaml written */
    const char *feed_url;  /* the old feed ("/feed.xml"), or NULL */
    bool anchors_warn;     /* site.yaml has anchors_warn: (import_comment_anchors) */
    const char *feed_copy; /* every list's old feed file ("index.xml": Hugo's), or NULL */
    bool first_page_alias; /* every list also answers at page/1/ (Hugo's) */
    /* sheaf's paginate_path for the old site's later list pages ("page:num/"
     * from jekyll-paginate's /page:num), or NULL for sheaf's default */
    const char *paginate_path;
    const char *paginate_old; /* how the old site wrote it, for the report */
    const char *base_url;  /* the old site's absolute base ("https://x.org/sub/"), or NULL */
    const char *base_path; /* its path ("/sub/"), "/" by default */
    /* counts for the report */
    size_t nlinks, nhighlight, nraw, ncomments, nshortcodes, nvars;
    size_t nmath; /* formulas of a theme's katex/math shortcode made sheaf's math */
    size_t nunpublished, ndrafts;
    /* the old URLs of pages: served by the page itself, by a redirect, not at all */
    size_t nkept, nredirected, nlost;
    size_t nheading_ids; /* headings given the old generator's id as a second anchor */
    /* math (math.c): the old config (set by each importer's settings),
     * whether the old site rendered formulas, whether its TeX was Markdown
     * first, a line for the report; the TeX rewritten for KaTeX */
    const tpl_map *old_config;
    bool math_on, math_escapes;
    bool math_per_page; /* only pages saying so (math: true) loaded MathJax */
    bool math_code;     /* the old site ran math-code.js: `\\(x\\)` in code was math */
    const char *math_note;
    import_rewrite *rewrites;
    size_t nrewrites, caprewrites;
    import_script_anchor *script_anchors;
    size_t nscript_anchors, capscript_anchors;
    /* links to a draft or to a file that does not exist (targets_warn:) */
    import_script_anchor *broken_targets;
    size_t nbroken_targets, capbroken_targets;
    /* where each line of one page's body starts (body.c, place): notes ask
     * for their line and column by offset */
    const char *lines_of;  /* the body_src they are of, or NULL */
    lines body_lines;      /* their line index (util/lines.h) */
} imp;

/* ---- model.c: what the import collects ---------------------------------- */

import_page *import_add_page(imp *m);
void import_add_file(imp *m, const char *src_rel, const char *dest_rel, const char *old_url);
/* A redirect page written as a file of static/ at output path out
 * ("tag/go/", "tags.html"; a folder gets index.html) to the URL `to`:
 * where an old page stood and no page of the new site is (sheaf's own
 * term or taxonomy page answers elsewhere). */
void import_redirect_file(imp *m, const char *src_rel, const char *out, const char *to);
void import_note_add(imp *m, const char *src_rel, int line, int col, const char *what, const char *todo);
/* Frees what the notes keep on the heap: their hash set, and the line
 * index of the page they were placed in (body.c). */
void import_notes_free(imp *m);
/* Expands a permalink pattern of the old generator: each `:name` is handed
 * to token(ctx, name, len, out), which writes its value and returns true,
 * or returns false to keep `:name` as written. Then runs of '/' become one,
 * a leading '/' is added and, with lower, the URL is lower-cased. In m's
 * arena. */
const char *import_expand_pattern(imp *m, const char *pat, bool lower,
                                  bool (*token)(void *ctx, const char *name, size_t len, buf *out),
                                  void *ctx);
/* A folder of SRC not imported as it is (once, like every note). */
void import_note_dir(imp *m, const char *dir, const char *todo);
/* Sets (or replaces) a key of p's front matter to write. */
void import_kv_set(imp *m, import_page *p, const char *key, tpl_value v);
tpl_value import_kv_get(const import_page *p, const char *key);
void import_alias_add(imp *m, import_page *p, const char *url);
/* The old site's pagination folder `old` as written in `file` ("/page:num"
 * of Jekyll's, or Hugo's "p" made "p/:num/" by the caller), as sheaf's
 * paginate_path: leading '/' dropped, a trailing one added; set in m
 * (nothing when it is sheaf's default), or listed when sheaf cannot place
 * its pages there (site_paginate_path_problem). */
void import_paginate_path(imp *m, const char *file, const char *old, const char *pattern);

/* ---- source.c: reading the old site ------------------------------------- */

/* fs_walk for the source: calls fn for every regular file below
 * SRC/dir_rel (rel relative to it), in byte order, and applies the build's
 * symbolic-link rule to the source tree: a link to a file inside SRC is
 * read like the file, a link that leads outside SRC (or to a folder, or to
 * something that is not a file) is never followed — it is left out and
 * listed in the report. A link to nowhere is passed on (its reader says
 * so). False (errno set) when a folder cannot be read. */
bool import_walk(imp *m, const char *dir_rel, bool skip_hidden, void (*fn)(void *ctx, const char *rel),
                 void *ctx);
/* Whether SRC/rel, after every link and '..', lies inside SRC; else an
 * error at rel (what: "contentDir '../x'", or NULL for the file itself). */
bool import_src_inside(imp *m, const char *rel, const char *what);
/* fs_strerror, in the import's words for FS_EOUTSIDE. */
const char *import_src_strerror(int e);
/* SRC/rel, in m's arena. */
const char *import_src_path(imp *m, const char *rel);
/* Reads SRC/rel and splits off its front matter; the map (any format) in
 * *fm with its key places. false (reported) when it does not parse. */
bool import_read_page(imp *m, const char *rel, fm_split *sp, tpl_value *fm, fm_key_pos **pos,
                   size_t *npos, buf *text);
/* Reads a site config file (YAML, TOML or JSON by its ending) into *out.
 * false (reported) when it does not parse. */
bool import_read_config(imp *m, const char *rel, tpl_value *out);
/* The value of key in map m whatever its case (Hugo's keys), or undefined. */
tpl_value import_get(const tpl_map *m, const char *key);
const char *import_get_str(const tpl_map *m, const char *key);
/* The line:col of key in p's source front matter (1:1 when unknown). */
void import_key_place(const fm_key_pos *pos, size_t npos, const tpl_map *m, const char *key, int *line,
                   int *col);

/* ---- front_matter.c ----------------------------------------------------- */

/* A value's words: a list of strings as is, a string split at blanks
 * (split) or as one, in m's arena. */
size_t import_names(imp *m, tpl_value v, bool split, const char ***out);
/* Jekyll's terms of one kind in front matter fm, each once, in m's arena:
 * the plural key's (a string split at blanks, as Jekyll splits
 * `tags: a b`), then the singular key's as written (`category: web dev` is
 * one); with `either` (tags), only the singular's when it is there — what
 * Jekyll 4 does for `tags:`/`tag:` and `categories:`/`category:`. */
size_t import_jekyll_terms(imp *m, const tpl_map *fm, const char *singular, const char *plural, bool either,
                           const char ***out);
/* Maps the source front matter to sheaf's keys (shared by both importers):
 * title, dates, draft/published, slug, tags/categories, summary, aliases …
 * Keys with no equivalent are dropped and noted; others are kept as written. */
void import_map_front_matter(imp *m, import_page *p, const tpl_map *fm, const fm_key_pos *pos, size_t npos,
                          bool jekyll);

/* ---- comments.c: comment widgets ---------------------------------------- */

/* When the old site's config c names a comment widget (Disqus, utterances,
 * giscus, Valine, Waline, Gitalk, Twikoo; at the top, under `params` or
 * `services`, or a `comments:` setting), site.yaml gets `anchors_warn:`
 * for the ids it makes (#comment-12, #respond …): links to them are
 * warnings in sheaf, not errors. */
void import_comment_anchors(imp *m, const tpl_map *c);
/* The same when a template below SRC/dir_rel (layouts/, _includes/)
 * loads a comment widget's script (giscus.app, utteranc.es, disqus.com …). */
void import_comment_anchors_in(imp *m, const char *dir_rel);

/* ---- anchors.c: ids a script made ------------------------------------ */

/* Checks DEST as `sheaf check` would (site.yaml and the pages written):
 * each #fragment of a link that no element of its page has becomes an
 * `anchors_warn:` pattern in m->site_yaml (li-22 → li-*), each link is
 * kept for the report. True when site.yaml is to be written again. */
bool import_script_anchors(imp *m);

/* ---- yaml_out.c ------------------------------------------------------- */

/* Appends v as YAML (a scalar or a flow collection) on one line. */
void import_yaml_value(buf *b, tpl_value v);
void import_yaml_string(buf *b, const char *s, size_t n);
/* Appends a key: value line of site.yaml (value quoted when a string). */
void import_yaml_kv(buf *b, int indent, const char *key, tpl_value v);

/* ---- body.c: a page's text, pass by pass -------------------------------- */

/* Rewrites p's body (body_src → body): Liquid (Jekyll) or shortcodes
 * (Hugo), links to other pages as relative .md links, kramdown's syntax
 * (Jekyll), formulas; notes what stays. */
void import_convert_body(imp *m, import_page *p, bool jekyll);
/* Notes the construct at byte off of p's body (what: wn bytes of it). */
void import_note_at(imp *m, const import_page *p, size_t off, const char *what, size_t wn, const char *todo);
/* Past a line's indent of up to three spaces. */
size_t import_indent_end(const char *s, size_t i, size_t e);
/* Whether i starts a fenced code block line: its fence's length (0: not
 * one), its char in *ch. */
size_t import_fence_at(const char *s, size_t n, size_t i, char *ch);
/* A fence line (f chars ch) opens a code block, or closes the open one
 * (*flen chars *fch; 0 when none is open): whether it did. */
bool import_fence_toggle(size_t f, char ch, size_t *flen, char *fch);
/* Past the code span opening at s[i], or past its opening run when it is
 * not closed. */
size_t import_code_span_end(const char *s, size_t n, size_t i);

/* ---- lookup.c ----------------------------------------------------------- */

/* The page whose old URL is url ("/a/b/", with or without the base path,
 * the old host, index.html), else the draft or unpublished page that URL
 * would have been, or NULL. */
import_page *import_page_by_url(imp *m, const char *url, size_t n);
import_page *import_page_by_src(imp *m, const char *src_rel, size_t n);
/* A relative path from page `from` to DEST file dest_rel (m's arena). */
const char *import_relative(imp *m, const import_page *from, const char *dest_rel);

/* ---- tags.c: what Liquid and shortcodes share --------------------------- */

/* The words of a tag's inside: name, then arguments (quoted or bare). */
typedef struct import_tag_args {
    const char *w[16];
    size_t n[16];
    size_t count;
} import_tag_args;

void import_tag_split(const char *s, size_t n, import_tag_args *t);
bool import_tag_word_is(const import_tag_args *t, size_t i, const char *s);
/* A quoted argument's text ("x" or 'x'), or a bare word (m's arena). */
const char *import_unquote(imp *m, const char *s, size_t n, bool *quoted);
/* key="value": the key's value from word `from` on, or NULL. */
const char *import_tag_arg(imp *m, const import_tag_args *t, size_t from, const char *key, bool *literal);
/* Writes the link from p to page `to` (and its anchor) to out. */
void import_put_link(imp *m, import_page *p, buf *out, import_page *to, const char *anchor);
/* sheaf's box (note, tip, warning) for a kind of callout. */
const char *import_box_for(const char *kind);
/* The title a box of another kind than sheaf's gets ("Danger"), or NULL. */
const char *import_box_title(imp *m, const char *kind, size_t n, const char *box);
void import_box_open(buf *out, const char *box, const char *title);
/* A theme's callout shortcode or tag as sheaf's box, or NULL. */
const char *import_callout(imp *m, const import_tag_args *t, const char *name, size_t nn, const char **title);

/* ---- liquid.c, shortcodes.c, relink.c, kramdown.c: the passes ------------ */

void import_liquid_convert(imp *m, import_page *p, buf *out);
void import_shortcodes_convert(imp *m, import_page *p, buf *out);
void import_relink(imp *m, import_page *p, const char *s, size_t n, buf *out);
/* kramdown: notes its attribute lists at their source lines; then edits
 * the converted text: blocks CommonMark reads otherwise, and the rest. */
void import_kramdown_notes(imp *m, import_page *p);
void import_kramdown_blocks(imp *m, const char *s, size_t n, buf *out);
void import_kramdown_convert(imp *m, const import_page *p, const char *s, size_t n, buf *out);
/* The old generator's heading ids (kramdown's, or Hugo's when !jekyll)
 * kept as second anchors where sheaf's differ. */
void import_heading_ids(imp *m, const char *s, size_t n, bool jekyll, buf *out);

/* ---- math.c ------------------------------------------------------------ */

/* After the pages are collected: whether the old site rendered math (else
 * markdown.math: false in site.yaml), and whether its TeX was Markdown
 * first (Hugo's Goldmark: markdown.math_escapes: markdown). */
void import_math_settings(imp *m);
/* Writes tex[0..n) (a formula of page p) to out with what KaTeX reads
 * differently from MathJax rewritten, each rewrite listed; escapes: the
 * TeX is Markdown first (only rewrites that add no backslash then).
 * Returns how many. */
size_t import_tex_fix(imp *m, const import_page *p, const char *tex, size_t n, bool escapes, buf *out);
/* Lists a rewrite of a formula for the report; kind: a static phrase
 * naming what was rewritten ("\\displaylines made gathered"), the same for
 * every rewrite of its kind. */
void import_rewrite_add(imp *m, const char *src_rel, const char *kind, const char *from, const char *to);
/* The TeX of every formula of text s (sheaf's delimiters; code left alone)
 * through import_tex_fix; kramdown: $…$ and \\(…\\) were text first. */
void import_fix_formulas(imp *m, import_page *p, const char *s, size_t n, bool kramdown, buf *out);

/* ---- the two importers ------------------------------------------------- */

/* Fill m (pages with their old URLs and front matter, files, notes,
 * site.yaml) from the Jekyll / Hugo site at m->o->src. false after an
 * error that stops the import. */
bool import_jekyll_collect(imp *m);
bool import_hugo_collect(imp *m);
/* Hugo's ref/relref target: the page the path names from page p, or NULL. */
import_page *import_hugo_ref(imp *m, const import_page *p, const char *path, size_t n);
/* Jekyll's post_url / link targets. */
import_page *import_jekyll_post_url(imp *m, const char *name, size_t n);

#endif

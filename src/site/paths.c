/* paths: output paths and URLs — a page's path from its place, slug and
 * permalink pattern, the base path and base URL, aliases, and the check
 * that no two outputs claim one path (nor a file where a folder must be). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cache.h"
#include "site/generated.h"
#include "site/load.h"
#include "site/load_private.h"
#include "site/mdcache.h"
#include "site/paths.h"
#include "site/pool.h"
#include "util/hash.h"
#include "util/outpath.h"
#include "util/strmap.h"
#include "util/text.h"
#include "util/url.h"
#include "util/vec.h"
#include "util/xalloc.h"

void load_slug_component(buf *out, const char *s, size_t n)
{
    size_t before = out->len;
    text_slugify(out, s, n);
    if (out->len == before)
        buf_puts(out, "page");
}

bool site_url_part_ok(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == ' ' && (i == 0 || i == n - 1 || s[i - 1] == ' '))
            return false; /* a space at an end, or two: a typo, not a name */
    buf b = BUF_INIT;
    for (size_t i = 0; i < n; i++)
        buf_putc(&b, s[i] == ' ' ? '_' : s[i]);
    bool ok = site_url_part_safe(b.data, b.len);
    buf_release(&b);
    return ok;
}

/* Whether s can be a path component as written (`slugs: keep`). */
bool site_url_part_safe(const char *s, size_t n)
{
    if (!n || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= ' ' || c == 0x7f || strchr("/\\?#%\"<>|", c))
            return false;
    }
    return true;
}

/* The date placeholders: Jekyll's names, so that its patterns carry over
 * as written, then Hugo's for what Jekyll has no name for. `lower`: Hugo's
 * names of months and days, which its URLs show lower-cased. */
static const struct permalink_date {
    const char *name, *fmt;
    bool lower;
} permalink_dates[] = {
    { "year", "%Y", false },        { "month", "%m", false },      { "i_month", "%-m", false },
    { "day", "%d", false },         { "i_day", "%-d", false },     { "short_year", "%y", false },
    { "hour", "%H", false },        { "minute", "%M", false },     { "second", "%S", false },
    { "y_day", "%j", false },       { "week", "%V", false },       { "w_year", "%G", false },
    { "w_day", "%u", false },       { "short_month", "%b", false }, { "long_month", "%B", false },
    { "short_day", "%a", false },   { "long_day", "%A", false },   { "monthname", "%B", true },
    { "weekday", "%w", false },     { "weekdayname", "%A", true }, { "yearday", "%-j", false },
};

static const struct permalink_date *permalink_date(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof permalink_dates / sizeof *permalink_dates; i++)
        if (strlen(permalink_dates[i].name) == n && !strncmp(name, permalink_dates[i].name, n))
            return &permalink_dates[i];
    return NULL;
}

const char *site_permalink_date(const char *name, size_t n)
{
    const struct permalink_date *d = permalink_date(name, n);
    return d ? d->fmt : NULL;
}

/* Writes the date placeholder name (n bytes) of date d to o; false when
 * it is not one. */
static bool permalink_date_put(buf *o, const sheaf_date *d, const char *name, size_t n)
{
    const struct permalink_date *pd = permalink_date(name, n);
    if (!pd)
        return false;
    size_t from = o->len;
    date_format(o, d, pd->fmt);
    if (pd->lower)
        for (size_t i = from; i < o->len; i++)
            o->data[i] = (char)tolower((unsigned char)o->data[i]);
    return true;
}

/* posts/2024-03-18-foo.md → posts/foo/ ; a/b/index.md → a/b/ (any
 * Markdown ending) */
static const char *page_path(const site *s, arena *a, const page *p)
{
    buf b = BUF_INIT;
    const char *rel = p->bundle_dir ? p->bundle_dir : p->rel;
    size_t n = strlen(rel);
    if (!p->bundle_dir)
        n -= site_page_ext(rel);
    const char *last = NULL;
    size_t lastn = 0;
    /* folders */
    const char *start = rel;
    for (const char *q = rel; q < rel + n; q++) {
        if (*q == '/') {
            load_slug_component(&b, start, (size_t)(q - start));
            buf_putc(&b, '/');
            start = q + 1;
        }
    }
    last = start;
    lastn = (size_t)(rel + n - start);
    sheaf_date dd;
    size_t plen = date_parse_prefix(last, lastn, &dd);
    last += plen;
    lastn -= plen;
    const char *section = p->dir[0] ? p->dir : "";
    size_t seclen = strcspn(section, "/");
    const char *pattern = NULL;
    for (size_t i = 0; i < s->cfg.npermalinks; i++)
        if (strlen(s->cfg.permalinks[i].section) == seclen &&
            !strncmp(s->cfg.permalinks[i].section, section, seclen))
            pattern = s->cfg.permalinks[i].pattern;
    buf slug = BUF_INIT;
    if (p->slug && s->cfg.slugs_keep && site_url_part_safe(p->slug, strlen(p->slug)))
        buf_puts(&slug, p->slug);
    else if (p->slug)
        load_slug_component(&slug, p->slug, strlen(p->slug));
    else
        load_slug_component(&slug, last, lastn);
    const char *r;
    if (p->url_path) {
        /* `url:`/`permalink:` as written: "/2014/01/hello/", "about" (a
         * folder), "/old.html", "/data.json" (a file: outpath_names_file) */
        const char *u = p->url_path;
        while (*u == '/')
            u++;
        size_t un = strlen(u);
        buf o = BUF_INIT;
        buf_put(&o, u, un);
        if (o.len && o.data[o.len - 1] != '/' && !outpath_names_file(o.data, o.len))
            buf_putc(&o, '/');
        r = arena_strndup(a, o.data, o.len);
        buf_release(&o);
    } else if (!p->slug && (site_is_index_page(rel) || (!p->bundle_dir && n == 5 && !strncmp(rel, "index", 5)))) {
        r = "";
    } else if (pattern) {
        buf o = BUF_INIT;
        for (const char *q = pattern + 1; *q;) {
            if (*q == ':') {
                const char *e = q + 1;
                while (*e && (isalnum((unsigned char)*e) || *e == '_'))
                    e++;
                size_t kl = (size_t)(e - q - 1);
                if (permalink_date_put(&o, &p->date, q + 1, kl))
                    ;
                else if (kl == 4 && !strncmp(q + 1, "slug", 4))
                    buf_put(&o, slug.data, slug.len);
                else if (kl == 7 && !strncmp(q + 1, "section", 7))
                    buf_put(&o, section, seclen);
                else
                    buf_put(&o, q, (size_t)(e - q));
                q = e;
            } else {
                buf_putc(&o, *q++);
            }
        }
        if (o.len && o.data[o.len - 1] != '/' && !outpath_names_file(o.data, o.len))
            buf_putc(&o, '/');
        r = arena_strndup(a, o.data, o.len);
        buf_release(&o);
    } else {
        buf_put(&b, slug.data, slug.len);
        buf_putc(&b, '/');
        r = arena_strndup(a, b.data, b.len);
    }
    buf_release(&slug);
    buf_release(&b);
    return r;
}

typedef struct outputs {
    strmap *m;
    const char **who;
    size_t n, cap;
} outputs;

/* The one check every output path passes (util/outpath.h), reported at
 * who:line:col as "<what> '<value>' …". */
static bool path_ok(const char *path, const char *what, const char *value, const char *who, int line,
                    int col, diag_list *d)
{
    const char *why = outpath_problem(path, strlen(path));
    if (!why)
        return true;
    buf v = BUF_INIT, w = BUF_INIT;
    outpath_quote(&v, value, strlen(value));
    outpath_quote(&w, who, strlen(who));
    if (strcmp(value, path)) {
        buf q = BUF_INIT;
        outpath_quote(&q, path, strlen(path));
        diag_error(d, w.data, line, col, "%s '%s' is not a valid output path: '%s' %s", what, v.data, q.data,
                   why);
        buf_release(&q);
    } else {
        diag_error(d, w.data, line, col, "%s '%s' is not a valid output path: it %s", what, v.data, why);
    }
    buf_release(&v);
    buf_release(&w);
    return false;
}

static bool claim(site *s, outputs *o, const char *path, const char *who, diag_list *d)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 256;
        o->who = xrealloc(o->who, o->cap * sizeof *o->who);
    }
    long k = strmap_put(o->m, path, (long)o->n);
    if (k != (long)o->n) {
        const char *first = o->who[k];
        size_t pl = strlen(path);
        const char *shown = pl >= 10 && !strcmp(path + pl - 10, "index.html")
                                ? arena_strndup(s->a, path, pl - 10) : path;
        if (first[0] == '(')
            diag_error(d, who, 1, 1, "this makes /%s, which sheaf generates itself (rename the file or set 'slug:')",
                       shown);
        else
            diag_error(d, who, 1, 1, "this makes /%s, like %s (two sources, one output path)", shown, first);
        return false;
    }
    o->who[o->n++] = who;
    return true;
}

const char *site_url(const site *s, const char *path) { return site_url_in(s, s->a, path); }

/* prefix + path as a URL (url_path_escape: "machine learning/" →
 * "machine%20learning/"), in a */
static const char *path_url(arena *a, const char *prefix, const char *path)
{
    buf b = BUF_INIT;
    buf_puts(&b, prefix);
    url_path_escape(&b, path, strlen(path));
    const char *r = arena_strndup(a, b.data, b.len);
    buf_release(&b);
    return r;
}

const char *site_url_in(const site *s, arena *a, const char *path)
{
    return path_url(a, s->cfg.base_path, path);
}

const char *site_permalink(const site *s, const char *path) { return site_permalink_in(s, s->a, path); }

const char *site_permalink_in(const site *s, arena *a, const char *path)
{
    return path_url(a, s->cfg.base_url, path);
}

static bool checked_before(const site *s, const char *what, uint64_t fp, buf *key);
static uint64_t claims_fingerprint(const site *s);

/* site_assign_paths's claims of every page's output and aliases and of
 * every file, after sheaf's own and site.yaml's (in o). */
static void claim_pages_and_files(site *s, outputs *o, diag_list *d)
{
    for (size_t i = 0; i < s->npages; i++) {
        page *p = &s->pages[i];
        /* an _index page's own path is its list's, claimed as such; its
         * aliases are its own */
        if (p->failed || p->excluded || !p->path)
            continue;
        const char *out = site_output_file(s->a, p->path);
        int line = 1, col = 1;
        if (p->slug)
            site_page_key_place(p, "slug", &line, &col);
        if (p->url_path) { /* url: or permalink: decides (finding 16: the key, not 1:1) */
            int l = 0, c = 0;
            site_page_key_place(p, "url", &l, &c);
            if (!l)
                site_page_key_place(p, "permalink", &l, &c);
            if (l)
                line = l, col = c;
        }
        if (!p->is_index && path_ok(out, "this page's path", out, p->src, line, col, d))
            claim(s, o, out, p->src, d);
        if (p->naliases)
            site_page_key_place(p, "aliases", &line, &col);
        for (size_t k = 0; k < p->naliases; k++) {
            out = site_alias_output(s->a, p->aliases[k]);
            if (path_ok(out, "alias", p->aliases[k], p->src, line, col, d))
                claim(s, o, out, p->src, d);
        }
    }
    for (size_t i = 0; i < s->nfiles; i++) {
        site_file *f = &s->files[i];
        if (path_ok(f->path, "file", f->path, f->src, 0, 0, d))
            claim(s, o, f->path, f->src, d);
    }
}

/* Page i's path, on a worker (its arena): page_path reads the site and
 * the page, and writes only the page's path. */
static void path_job(void *ctx, size_t i, int worker)
{
    site *s = ctx;
    page *p = &s->pages[i];
    if (p->failed)
        return;
    if (p->is_index) {
        /* the home page's or its section's list: claimed as such */
        p->path = p->excluded ? NULL : p->section >= 0 ? s->sections[p->section].path : "";
        return;
    }
    p->path = page_path(s, s->wa[worker], p);
}

bool site_assign_paths(site *s, diag_list *d)
{
    size_t before = diag_error_count(d);
    outputs o = { strmap_new(s->npages * 2 + s->nfiles + 64), NULL, 0, 0 };
    for (size_t i = 0; i < SITE_NGENERATED; i++)
        if ((i != SITE_GEN_PAPERS || s->bib) && site_generated_on(s, i))
            claim(s, &o, site_generated_outputs[i].output, "(generated)", d);
    /* site.yaml's outputs, before anything that could take their place */
    for (size_t i = 0; i < s->cfg.noutputs; i++) {
        const site_output *so = &s->cfg.outputs[i];
        if (strmap_get(o.m, so->output) >= 0)
            diag_error(d, "site.yaml", so->line, so->col,
                       "'outputs': sheaf makes /%s itself (choose another path)", so->path);
        else
            claim(s, &o, so->output, "site.yaml", d);
    }
    site_parallel(s->npages, s->nwa, path_job, s);
    /* a notebook's files go beside its page */
    for (size_t i = 0; i < s->nfiles; i++) {
        site_file *f = &s->files[i];
        if (f->nb_page && s->pages[f->nb_page - 1].path)
            f->path = arena_printf(s->a, "%s%s", s->pages[f->nb_page - 1].path, f->nb_name);
    }
    /* bundles' files go beside their page */
    strmap *bundles = strmap_new(16);
    for (size_t i = 0; i < s->npages; i++)
        if (s->pages[i].bundle_dir && s->pages[i].path)
            strmap_put(bundles, s->pages[i].bundle_dir, (long)i);
    for (size_t i = 0; i < s->nfiles; i++) {
        site_file *f = &s->files[i];
        if (!f->content_rel || f->nb_page || !strmap_count(bundles))
            continue;
        /* the nearest enclosing bundle folder */
        char *dir = xstrdup(f->content_rel);
        for (char *sl = strrchr(dir, '/'); sl; sl = strrchr(dir, '/')) {
            *sl = 0;
            long b = strmap_get(bundles, dir);
            if (b >= 0) {
                f->path = arena_printf(s->a, "%s%s", s->pages[b].path, f->content_rel + strlen(dir) + 1);
                break;
            }
        }
        free(dir);
    }
    strmap_free(bundles);
    /* the pages' and files' outputs: a check skipped when the build cache
     * says it passed, without a word, on the same pages, files and outputs
     * claimed above (the check remembered, below) */
    buf key = BUF_INIT;
    uint64_t fp = s->cache ? claims_fingerprint(s) : 0;
    if (!checked_before(s, "page paths", fp, &key)) {
        size_t said = diag_count(d);
        claim_pages_and_files(s, &o, d);
        if (s->cache && diag_count(d) == said)
            cache_put(s->cache, "paths", key.data, key.len, &fp, sizeof fp);
    }
    buf_release(&key);
    free(o.who);
    strmap_free(o.m);
    return diag_error_count(d) == before;
}

/* Where an alias (`aliases:` in front matter) is written: "/old/" →
 * "old/index.html", "old.html" as is, "old" → "old/index.html". */
const char *site_alias_output(arena *a, const char *al)
{
    while (*al == '/')
        al++;
    return site_output_file(a, al);
}

const char *site_output_file(arena *a, const char *path)
{
    buf b = BUF_INIT;
    outpath_file(&b, path, strlen(path));
    const char *r = arena_strndup(a, b.data, b.len);
    buf_release(&b);
    return r;
}

/* One output and who makes it, for the folder/file check. */
typedef struct claimant {
    const char *path, *who; /* who: a source, or NULL for sheaf itself */
    int line, col;
} claimant;

static void add_claimant(claimant **v, size_t *n, size_t *cap, const char *path, const char *who, int line,
                         int col)
{
    if (outpath_problem(path, strlen(path)))
        return; /* reported where it was claimed */
    claimant *c = VEC_ADD(*v, *n, *cap, 256);
    *c = (claimant){ path, who, line, col };
}

/* A path one output writes as a file while another needs it as a folder
 * (content/passwd.md → passwd/index.html, static/passwd → passwd) cannot
 * be built: each such pair is an error naming both, at the file's source
 * (or the folder's, when sheaf itself makes the file). */
static bool check_folders(const claimant *v, size_t n, diag_list *d)
{
    strmap *m = strmap_new(n);
    for (size_t i = 0; i < n; i++)
        strmap_put(m, v[i].path, (long)i);
    bool ok = true;
    buf pre = BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        const char *p = v[i].path;
        for (const char *sl = strchr(p, '/'); sl; sl = strchr(sl + 1, '/')) {
            buf_reset(&pre);
            buf_put(&pre, p, (size_t)(sl - p));
            long j = strmap_get(m, pre.data);
            if (j < 0)
                continue;
            const claimant *file = &v[j], *folder = &v[i];
            if (file->who)
                diag_error(d, file->who, file->line, file->col,
                           "this makes the file /%s, but %s needs a folder there (for /%s)", pre.data,
                           folder->who ? folder->who : "sheaf", folder->path);
            else
                diag_error(d, folder->who, folder->line, folder->col,
                           "this makes /%s, which needs a folder /%s where sheaf makes a file", folder->path,
                           pre.data);
            ok = false;
            break;
        }
    }
    buf_release(&pre);
    strmap_free(m);
    return ok;
}

/* A list of n posts at path (a section's, a term's): its pages and its
 * feed's files, claimed by sheaf. */
static void claim_list(site *s, strmap *gen, claimant **all, size_t *nall, size_t *capall,
                       const char *path, size_t n)
{
    size_t np = site_list_pages(s, n);
    for (size_t k = 1; k <= np; k++) {
        const char *out = arena_printf(s->a, "%sindex.html", site_list_path(s, s->a, path, k));
        strmap_put(gen, out, 0);
        add_claimant(all, nall, capall, out, NULL, 0, 0);
    }
    const char *feeds[2 + SITE_MAX_FEED_COPIES];
    size_t nfeeds = site_feed_files(s, s->a, path, feeds);
    const char *first = site_first_page_alias(s, s->a, path);
    if (first) /* with the feed's files: one more output of the list */
        feeds[nfeeds++] = first;
    for (size_t f = 0; f < nfeeds; f++) {
        strmap_put(gen, feeds[f], 0);
        add_claimant(all, nall, capall, feeds[f], NULL, 0, 0);
    }
}

/* Tag pages and /page/N/ are known only once the model is built, so their
 * clash with a page, an alias or a file is checked here (site_assign_paths
 * checked everything else), and so is every path that one output makes a
 * file and another a folder. */
static bool check_generated_paths(site *s, size_t index_pages, diag_list *d)
{
    strmap *gen = strmap_new(s->ntags + index_pages + 8);
    claimant *all = NULL;
    size_t nall = 0, capall = 0;
    for (size_t i = 0; i < SITE_NGENERATED; i++)
        if ((i != SITE_GEN_PAPERS || s->npapers) && site_generated_on(s, i))
            add_claimant(&all, &nall, &capall, site_generated_outputs[i].output, NULL, 0, 0);
    const char *feeds[1 + SITE_MAX_FEED_COPIES];
    size_t nfeeds = site_feed_files(s, s->a, "", feeds);
    for (size_t i = 1; i < nfeeds; i++) { /* the site feed's copies (atom.xml is above) */
        strmap_put(gen, feeds[i], 0);
        add_claimant(&all, &nall, &capall, feeds[i], NULL, 0, 0);
    }
    for (size_t k = 1; k <= index_pages; k++) {
        /* page 1 is in site_generated_outputs; page/1/ only as an alias */
        const char *out = k > 1 ? arena_printf(s->a, "%sindex.html", site_index_path(s, s->a, k))
                                : site_first_page_alias(s, s->a, "");
        if (!out)
            continue;
        strmap_put(gen, out, 0);
        add_claimant(&all, &nall, &capall, out, NULL, 0, 0);
    }
    for (size_t i = 0; i < s->npapers; i++) {
        const char *out = arena_printf(s->a, "%sindex.html", s->papers[i].path);
        strmap_put(gen, out, 0);
        add_claimant(&all, &nall, &capall, out, NULL, 0, 0);
    }
    const char **search;
    size_t nsearch = site_search_files(s, s->a, &search); /* the search index's segments and texts */
    for (size_t k = 0; k < nsearch; k++) {
        strmap_put(gen, search[k], 0);
        add_claimant(&all, &nall, &capall, search[k], NULL, 0, 0);
    }
    for (size_t i = 0; i < s->nsections; i++) {
        const section_info *sec = &s->sections[i];
        claim_list(s, gen, &all, &nall, &capall, sec->path, sec->nposts);
    }
    bool ok = true;
    /* a section's folder may not be one sheaf fills itself or a taxonomy's */
    for (size_t i = 0; i < s->nsections; i++) {
        const char *name = site_section_folder(s->sections[i].name, s->a);
        const char *clash = site_generated_in_folder(name);
        for (size_t t = 0; t < s->ntaxonomies && !clash; t++)
            if (!strcmp(s->taxonomies[t].name, name))
                clash = arena_printf(s->a, "the index of the taxonomy '%s' (taxonomies: in site.yaml)", name);
        if (clash) {
            diag_error(d, arena_printf(s->a, "content/%s", s->sections[i].name), 0, 0,
                       "this folder of dated posts is a section, whose list would be /%s/, like %s: rename "
                       "the folder", name, clash);
            ok = false;
        }
    }
    /* a taxonomy's folder may not be one sheaf fills itself */
    for (size_t t = 0; t < s->ntaxonomies; t++) {
        const char *name = s->taxonomies[t].name, *clash = site_generated_in_folder(name);
        const char *folder = site_paginate_folder(&s->cfg, s->a);
        if (!clash && folder && !strcmp(name, folder))
            clash = arena_printf(s->a, "the home page's later pages (/%s, …)",
                                 site_index_path(s, s->a, 2));
        if (clash) {
            int line, col;
            site_config_key_place(&s->cfg, "taxonomies", &line, &col);
            diag_error(d, "site.yaml", line, col, "taxonomy '%s' would make /%s/, like %s: choose another name",
                       name, name, clash);
            ok = false;
        }
    }
    for (size_t t = 0; t < s->ntaxonomies; t++) {
        /* tags/ is in site_generated_outputs; another's index, once it has
         * terms; the feed of its terms (tags' too), once it has terms */
        if (strcmp(s->taxonomies[t].name, "tags") && s->taxonomies[t].n) {
            const char *out = arena_printf(s->a, "%sindex.html", s->taxonomies[t].path);
            strmap_put(gen, out, 0);
            add_claimant(&all, &nall, &capall, out, NULL, 0, 0);
        }
        nfeeds = s->taxonomies[t].n ? site_feed_files(s, s->a, s->taxonomies[t].path, feeds) : 0;
        for (size_t f = 0; f < nfeeds; f++) {
            strmap_put(gen, feeds[f], 0);
            add_claimant(&all, &nall, &capall, feeds[f], NULL, 0, 0);
        }
    }
    for (size_t i = 0; i < s->nterms; i++) {
        const tag_info *tg = &s->terms[i];
        const char *out = arena_printf(s->a, "%sindex.html", tg->path);
        const char *tax = s->taxonomies[tg->tax].name;
        if (tg->nposts) {
            /* made from a term's name: placed at the first post's key */
            const page *p = &s->pages[tg->posts[0]];
            int line, col;
            site_page_key_place(p, tax, &line, &col);
            const char *what = !strcmp(tax, "tags") ? "the page of tag" : arena_printf(s->a, "the page of %s term", tax);
            if (!path_ok(out, what, tg->name, p->src, line, col, d)) {
                ok = false;
                continue;
            }
        }
        claim_list(s, gen, &all, &nall, &capall, tg->path, tg->nposts);
    }
    for (size_t i = 0; i < s->npages; i++) {
        page *p = &s->pages[i];
        if (p->failed || p->excluded || !p->path)
            continue;
        for (size_t k = p->is_index ? 1 : 0; k <= p->naliases; k++) {
            const char *out = k == 0 ? site_output_file(s->a, p->path)
                                     : site_alias_output(s->a, p->aliases[k - 1]);
            add_claimant(&all, &nall, &capall, out, p->src, 1, 1);
            if (strmap_get(gen, out) >= 0) {
                size_t n = strlen(out);
                diag_error(d, p->src, 1, 1,
                           "this makes /%.*s, which sheaf generates itself (rename the file or set 'slug:')",
                           (int)(n >= 10 && !strcmp(out + n - 10, "index.html") ? n - 10 : n), out);
                ok = false;
            }
        }
    }
    for (size_t i = 0; i < s->nfiles; i++) {
        add_claimant(&all, &nall, &capall, s->files[i].path, s->files[i].src, 0, 0);
        if (strmap_get(gen, s->files[i].path) >= 0) {
            diag_error(d, s->files[i].src, 0, 0, "this makes /%s, which sheaf generates itself",
                       s->files[i].path);
            ok = false;
        }
    }
    ok &= check_folders(all, nall, d);
    free(all);
    strmap_free(gen);
    return ok;
}

/* ---- the check remembered ----------------------------------------------
 * The check above reads only what fingerprint() hashes: the settings it
 * reads of site.yaml, which generated outputs are on, the home page's
 * number of pages, every page's source, path, aliases and state, every
 * file's path and source, the published posts and pages, the papers', the
 * sections', the taxonomies' and the terms' names, paths and numbers of
 * posts. (Where it reports a clash, it names a place in a source: only a
 * failed check says anything, and a failed check is not remembered.) With
 * the build cache, a check that passed without a word keeps its
 * fingerprint there, and a later build whose fingerprint is that one
 * skips it: the same inputs give the same verdict (and this sheaf the same
 * code: the key names it). At 100,000 posts the check is ≈ 150 ms on one
 * thread, its fingerprint ≈ 15 ms. */

static uint64_t fp_str(uint64_t h, const char *t)
{
    return t ? hash_mix(hash_mix(h, 1), hash_blocks(t, strlen(t))) : hash_mix(h, 0);
}

/* Every page's source, path, aliases and state, every file's path and
 * source, into h. */
static uint64_t fp_pages_files(uint64_t h, const site *s)
{
    h = hash_mix(h, s->npages);
    for (size_t i = 0; i < s->npages; i++) {
        const page *p = &s->pages[i];
        h = hash_mix(h, (uint64_t)p->failed | (uint64_t)p->excluded << 1 | (uint64_t)p->is_index << 2);
        h = fp_str(fp_str(h, p->src), p->path);
        h = hash_mix(h, p->naliases);
        for (size_t k = 0; k < p->naliases; k++)
            h = fp_str(h, p->aliases[k]);
    }
    h = hash_mix(h, s->nfiles);
    for (size_t i = 0; i < s->nfiles; i++)
        h = fp_str(fp_str(h, s->files[i].path), s->files[i].src);
    return h;
}

/* Whether the build cache holds fp as the fingerprint of the last clean
 * check `what` of this sheaf (on a build without it, never). */
static bool checked_before(const site *s, const char *what, uint64_t fp, buf *key)
{
    if (!s->cache)
        return false;
    char *bin = site_binary_id();
    buf_printf(key, "%s checked\nsheaf %s\n", what, bin);
    free(bin);
    buf got = BUF_INIT;
    uint64_t was = 0;
    bool same = cache_get(s->cache, "paths", key->data, key->len, &got) && got.len == sizeof was &&
                (memcpy(&was, got.data, sizeof was), was == fp);
    buf_release(&got);
    return same;
}

static uint64_t fingerprint(const site *s, size_t index_pages)
{
    const site_config *c = &s->cfg;
    uint64_t h = hash_mix(HASH_SEED, index_pages);
    h = hash_mix(hash_mix(hash_mix(h, (uint64_t)c->paginate), c->first_page_alias), c->search);
    h = fp_str(h, c->paginate_path);
    h = hash_mix(h, c->nfeed_copies);
    for (size_t i = 0; i < c->nfeed_copies; i++)
        h = fp_str(h, c->feed_copies[i]);
    for (size_t g = 0; g < SITE_NGENERATED; g++)
        h = hash_mix(h, site_generated_on(s, g));
    h = hash_mix(h, s->npapers);
    for (size_t i = 0; i < s->npapers; i++)
        h = fp_str(h, s->papers[i].path);
    h = hash_mix(h, s->nsections);
    for (size_t i = 0; i < s->nsections; i++)
        h = hash_mix(fp_str(fp_str(h, s->sections[i].name), s->sections[i].path), s->sections[i].nposts);
    h = hash_mix(h, s->ntaxonomies);
    for (size_t i = 0; i < s->ntaxonomies; i++)
        h = hash_mix(fp_str(fp_str(h, s->taxonomies[i].name), s->taxonomies[i].path), s->taxonomies[i].n);
    h = hash_mix(h, s->nterms);
    for (size_t i = 0; i < s->nterms; i++) {
        const tag_info *t = &s->terms[i];
        h = fp_str(fp_str(hash_mix(h, (uint64_t)t->tax), t->name), t->path);
        h = hash_mix(hash_mix(h, t->nposts), t->nposts ? (uint64_t)t->posts[0] : 0);
    }
    h = hash_mix(hash_mix(h, s->nposts), s->nplain);
    for (size_t i = 0; i < s->nposts; i++)
        h = hash_mix(h, (uint64_t)s->posts[i]);
    for (size_t i = 0; i < s->nplain; i++)
        h = hash_mix(h, (uint64_t)s->plain[i]);
    return fp_pages_files(h, s);
}

/* What claim_pages_and_files reads: which of sheaf's own outputs are on,
 * site.yaml's `outputs`, every page and file. */
static uint64_t claims_fingerprint(const site *s)
{
    uint64_t h = hash_mix(HASH_SEED, s->bib != NULL);
    for (size_t g = 0; g < SITE_NGENERATED; g++)
        h = hash_mix(h, site_generated_on(s, g));
    h = hash_mix(h, s->cfg.noutputs);
    for (size_t i = 0; i < s->cfg.noutputs; i++)
        h = fp_str(h, s->cfg.outputs[i].output);
    return fp_pages_files(h, s);
}

bool site_check_generated_paths(site *s, size_t index_pages, diag_list *d)
{
    if (!s->cache)
        return check_generated_paths(s, index_pages, d);
    buf key = BUF_INIT;
    uint64_t fp = fingerprint(s, index_pages);
    bool same = checked_before(s, "generated paths", fp, &key);
    size_t before = diag_count(d);
    bool ok = same || check_generated_paths(s, index_pages, d);
    if (!same && ok && diag_count(d) == before)
        cache_put(s->cache, "paths", key.data, key.len, &fp, sizeof fp);
    buf_release(&key);
    return ok;
}

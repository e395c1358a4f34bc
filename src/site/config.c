/* config: site.yaml → site_config, through the table of its keys below
 * (site/keys.h): each key's type, default and field. An unknown key is a
 * warning at its line; a value of the wrong type is an error at the value
 * (in a nested mapping, at its key). No site.yaml at all is a valid
 * (default) site. */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "md/extensions.h"
#include "site/config.h"
#include "site/keys.h"
#include "site/load.h"
#include "site/paths.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/outpath.h"
#include "util/url.h"
#include "util/xalloc.h"

/* permalinks: {section: pattern}; each pattern starts with '/' and uses
 * only the placeholders pages know. */
static void read_permalinks(key_reader *r, const key_table *t, const key_def *k, const tpl_map *m,
                            tpl_value v)
{
    site_config *c = r->out;
    if (v.kind != TPL_MAP) {
        site_keys_type_error(r, t, k->name, m, k->want);
        return;
    }
    const tpl_map *pm = v.u.map;
    c->permalinks = arena_alloc(r->a, (pm->len + 1) * sizeof *c->permalinks);
    c->npermalinks = 0;
    for (size_t i = 0; i < pm->len; i++) {
        tpl_value pk = pm->entries[i].key, pv = pm->entries[i].value;
        if (pk.kind != TPL_STRING) {
            site_keys_type_error(r, t, k->name, m, k->want);
            continue;
        }
        /* a pattern's problems are placed at its section's key */
        const fm_key_pos *outer = r->parent;
        r->parent = fm_key_find(r->pos, r->npos, m, k->name);
        int pl, pc;
        site_keys_place(r, pm, pk.u.s, &pl, &pc);
        r->parent = outer;
        if (pv.kind != TPL_STRING || pv.u.s[0] != '/') {
            diag_error(r->d, r->path, pl, pc,
                       "'permalinks.%s' must be a pattern starting with '/' (like /:year/:month/:slug/)",
                       pk.u.s);
            r->ok = false;
            continue;
        }
        const char *bad = NULL;
        for (const char *q = strchr(pv.u.s, ':'); q && !bad; q = strchr(q + 1, ':')) {
            size_t n = 0;
            while (isalnum((unsigned char)q[1 + n]) || q[1 + n] == '_')
                n++;
            bool known = site_permalink_date(q + 1, n) || (n == 4 && !strncmp(q + 1, "slug", 4)) ||
                         (n == 7 && !strncmp(q + 1, "section", 7));
            if (!known)
                bad = arena_strndup(r->a, q, n + 1);
        }
        if (bad) {
            diag_error(r->d, r->path, pl, pc,
                       "'permalinks.%s': unknown placeholder '%s' (known: :year :month :day :slug :section "
                       ":i_month :i_day :short_year :hour :minute :second :y_day :week :w_year :w_day "
                       ":short_month :long_month :short_day :long_day :monthname :weekday :weekdayname :yearday)",
                       pk.u.s, bad);
            r->ok = false;
            continue;
        }
        /* the pattern's own text must make a valid output path, whatever
         * the placeholders become (they are checked again per page) */
        buf sample = BUF_INIT;
        for (const char *q = pv.u.s + 1; *q; q++) {
            if (*q != ':') {
                buf_putc(&sample, *q);
                continue;
            }
            buf_putc(&sample, 'x');
            while (isalnum((unsigned char)q[1]) || q[1] == '_')
                q++;
        }
        if (!outpath_names_file(sample.data, sample.len)) {
            if (sample.len && sample.data[sample.len - 1] != '/')
                buf_putc(&sample, '/');
            buf_puts(&sample, "index.html");
        }
        const char *why = outpath_problem(sample.data, sample.len);
        buf_release(&sample);
        if (why || memchr(pv.u.s, 0, pv.len)) {
            buf q = BUF_INIT;
            outpath_quote(&q, pv.u.s, pv.len);
            diag_error(r->d, r->path, pl, pc, "'permalinks.%s': pattern '%s' does not make a valid output path: it %s",
                       pk.u.s, q.data, why ? why : "holds a NUL byte");
            buf_release(&q);
            r->ok = false;
            continue;
        }
        c->permalinks[c->npermalinks].section = pk.u.s;
        c->permalinks[c->npermalinks].pattern = pv.u.s;
        c->npermalinks++;
    }
}

/* outputs: {path: template}, over the defaults below; a template of
 * false (or null) drops that output. */
static const site_output default_outputs[] = {
    { "feed.json", "feed.json", "feed.json", 0, 0 },
};

static void default_outputs_into(site_config *c, arena *a)
{
    size_t n = sizeof default_outputs / sizeof *default_outputs;
    c->outputs = arena_alloc(a, n * sizeof *c->outputs);
    memcpy(c->outputs, default_outputs, sizeof default_outputs);
    c->noutputs = n;
}

static void read_outputs(key_reader *r, const key_table *t, const key_def *k, const tpl_map *m,
                         tpl_value v)
{
    site_config *c = r->out;
    if (v.kind != TPL_MAP) {
        site_keys_type_error(r, t, k->name, m, k->want);
        return;
    }
    const tpl_map *om = v.u.map;
    site_output *all = arena_alloc(r->a, (c->noutputs + om->len + 1) * sizeof *all);
    memcpy(all, c->outputs, c->noutputs * sizeof *all);
    size_t n = c->noutputs;
    for (size_t i = 0; i < om->len; i++) {
        tpl_value pk = om->entries[i].key, pv = om->entries[i].value;
        const fm_key_pos *outer = r->parent;
        r->parent = fm_key_find(r->pos, r->npos, m, k->name);
        int pl = 0, pc = 0;
        if (pk.kind == TPL_STRING)
            site_keys_place(r, om, pk.u.s, &pl, &pc);
        r->parent = outer;
        if (pk.kind != TPL_STRING) {
            site_keys_type_error(r, t, k->name, m, k->want);
            continue;
        }
        const char *path = pk.u.s;
        while (*path == '/')
            path++;
        buf file = BUF_INIT;
        outpath_file(&file, path, strlen(path));
        const char *why = memchr(pk.u.s, 0, pk.len) ? "holds a NUL byte" : outpath_problem(file.data, file.len);
        if (why) {
            buf q = BUF_INIT;
            outpath_quote(&q, pk.u.s, pk.len);
            diag_error(r->d, r->path, pl, pc, "'outputs': '%s' is not a valid output path: it %s", q.data, why);
            buf_release(&q);
            buf_release(&file);
            r->ok = false;
            continue;
        }
        bool drop = pv.kind == TPL_NONE || (pv.kind == TPL_BOOL && !pv.u.b);
        if (!drop && (pv.kind != TPL_STRING || !pv.len)) {
            diag_error(r->d, r->path, pl, pc,
                       "'outputs.%s' must be the name of a template (like feed.json), or false to "
                       "leave it out",
                       pk.u.s);
            buf_release(&file);
            r->ok = false;
            continue;
        }
        size_t at = 0;
        while (at < n && strcmp(all[at].output, file.data))
            at++;
        if (drop) {
            if (at < n)
                memmove(&all[at], &all[at + 1], (--n - at) * sizeof *all);
        } else {
            all[at].output = arena_strndup(r->a, file.data, file.len);
            all[at].path = arena_strdup(r->a, path);
            all[at].template = pv.u.s;
            all[at].line = pl;
            all[at].col = pc;
            if (at == n)
                n++;
        }
        buf_release(&file);
    }
    c->outputs = all;
    c->noutputs = n;
}

#define AT(field) offsetof(site_config, field)

/* A Markdown extension's switch (one row per line of md/extensions.h): on
 * by default, a bit of markdown.off when false. */
static void read_md_switch(key_reader *r, const key_table *t, const key_def *k, const tpl_map *m,
                           tpl_value v)
{
    site_config *c = r->out;
    if (v.kind != TPL_BOOL) {
        site_keys_type_error(r, t, k->name, m, k->want);
        return;
    }
    unsigned bit = md_extension_bit(k->name);
    if (v.u.b)
        c->markdown.off &= ~bit;
    else
        c->markdown.off |= bit;
}

#define MD_SWITCH_ROW(id, switch_name, desc)                                                       \
    { .name = #switch_name, .type = KEY_READER, .read = read_md_switch, .want = "true or false" },

/* markdown: {…}, in this order in the "known:" list of its warning */
static const key_def markdown_keys[] = {
    { .name = "unsafe", .type = KEY_BOOL, .at = AT(markdown.unsafe), .want = "true or false", .num_default = 1 },
    { .name = "smart", .type = KEY_BOOL, .at = AT(markdown.smart), .want = "true or false" },
    { .name = "hard_breaks", .type = KEY_BOOL, .at = AT(markdown.hard_breaks), .want = "true or false" },
    { .name = "linenos", .type = KEY_BOOL, .at = AT(markdown.linenos), .want = "true or false" },
    { .name = "math_escapes", .type = KEY_WORD, .at = AT(markdown.math_escapes), .words = { "tex", "markdown" },
      .want = "'tex' or 'markdown'" },
    MD_EXTENSIONS(MD_SWITCH_ROW)
};
static const key_table markdown_table = { "markdown.", markdown_keys,
                                          sizeof markdown_keys / sizeof *markdown_keys, true, NULL, false, false };

/* deploy: {target: …}; other keys are left to other tools */
static const key_def deploy_keys[] = {
    { .name = "target", .type = KEY_STRING, .at = AT(deploy_target),
      .want = "a string (a folder, or host:path for rsync)" },
};
static const key_table deploy_table = { "deploy.", deploy_keys, sizeof deploy_keys / sizeof *deploy_keys,
                                        false, NULL, true, false };

/* images.widths: a list of whole numbers of pixels, sorted, duplicates dropped */
static void read_image_widths(key_reader *r, const key_table *t, const key_def *k, const tpl_map *m,
                              tpl_value v)
{
    site_config *c = r->out;
    static const char want[] = "a list of widths in pixels, each 16 to 16384 (widths: [480, 960, 1600])";
    if (v.kind != TPL_LIST || v.u.list->len > SITE_MAX_IMAGE_WIDTHS) {
        site_keys_type_error(r, t, k->name, m,
                             v.kind == TPL_LIST ? "a list of at most 8 widths (widths: [480, 960, 1600])" : want);
        return;
    }
    size_t len = v.u.list->len;
    long *w = arena_alloc(r->a, (len + 1) * sizeof *w);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        tpl_value x = v.u.list->items[i];
        if (x.kind != TPL_INT || x.u.i < 16 || x.u.i > 16384) {
            site_keys_type_error(r, t, k->name, m, want);
            return;
        }
        size_t j = n;
        while (j && w[j - 1] > x.u.i)
            j--;
        if (j && w[j - 1] == x.u.i)
            continue;
        memmove(w + j + 1, w + j, (n - j) * sizeof *w);
        w[j] = (long)x.u.i;
        n++;
    }
    c->images_widths = w;
    c->nimages_widths = n;
}

/* images: {widths, quality, process, max_pixels, sizes} */
static const key_def images_keys[] = {
    { .name = "process", .type = KEY_BOOL, .at = AT(images_process), .want = "true or false", .num_default = 1 },
    { .name = "widths", .type = KEY_READER, .read = read_image_widths,
      .want = "a list of widths in pixels (widths: [480, 960, 1600])" },
    { .name = "quality", .type = KEY_COUNT, .at = AT(images_quality),
      .want = "a WebP quality, a whole number from 1 to 100", .num_default = 80 },
    { .name = "max_pixels", .type = KEY_COUNT, .at = AT(images_max_pixels),
      .want = "a whole number of pixels (width × height) an image may have", .num_default = 100000000 },
    { .name = "sizes", .type = KEY_STRING, .at = AT(images_sizes),
      .want = "a string (an HTML sizes attribute)", .str_default = "(max-width: 46rem) 100vw, 46rem" },
};
static const key_table images_table = { "images.", images_keys, sizeof images_keys / sizeof *images_keys,
                                        true, NULL, false, false };

/* The keys of site.yaml (docs/configuration.md describes each). */
static const key_def config_keys[] = {
    { .name = "title", .type = KEY_STRING, .at = AT(title), .want = "a string", .str_default = "My notes" },
    { .name = "description", .type = KEY_STRING, .at = AT(description), .want = "a string", .str_default = "" },
    /* as written; site_config_load splits it (base_url, origin, base_path) */
    { .name = "base_url", .type = KEY_STRING, .at = AT(base_url), .want = "a string", .str_default = "/" },
    { .name = "author", .type = KEY_STRING, .at = AT(author), .want = "a string", .str_default = "" },
    { .name = "language", .type = KEY_STRING, .at = AT(language), .want = "a string", .str_default = "en" },
    { .name = "theme", .type = KEY_STRING, .at = AT(theme), .want = "a string", .str_default = "default" },
    { .name = "permalinks", .type = KEY_READER, .read = read_permalinks,
      .want = "a mapping of section → pattern (posts: /:year/:slug/)" },
    { .name = "paginate", .type = KEY_COUNT, .at = AT(paginate),
      .want = "a whole number of posts per page (1 or more)", .num_default = 10 },
    { .name = "markdown", .type = KEY_TABLE, .sub = &markdown_table,
      .want = "a mapping (markdown: {unsafe: true})" },
    { .name = "links", .type = KEY_WORD, .at = AT(links_warn), .words = { "error", "warn" },
      .want = "'error' or 'warn'" },
    { .name = "slugs", .type = KEY_WORD, .at = AT(slugs_keep), .words = { "slugify", "keep" },
      .want = "'slugify' or 'keep'" },
    { .name = "term_slugs", .type = KEY_WORD, .at = AT(term_slugs_hugo), .words = { "sheaf", "hugo" },
      .want = "'sheaf' or 'hugo'" },
    { .name = "deploy", .type = KEY_TABLE, .sub = &deploy_table, .want = "a mapping (deploy: {target: …})" },
    { .name = "images", .type = KEY_TABLE, .sub = &images_table,
      .want = "a mapping (images: {widths: [480, 960, 1600], quality: 80})" },
    { .name = "follow_symlinks", .type = KEY_BOOL, .at = AT(follow_symlinks), .want = "true or false" },
    { .name = "params", .type = KEY_MAP, .at = AT(params), .want = "a mapping" },
    { .name = "outputs", .type = KEY_READER, .read = read_outputs,
      .want = "a mapping of output paths to templates (outputs: {search.json: search.json})" },
    { .name = "bibliography", .type = KEY_NAMES, .at = AT(bibliography), .set = AT(nbibliography),
      .want = "a .bib file or a list of them (relative to the site folder)", .flags = KEY_UNIQUE },
    { .name = "related", .type = KEY_COUNT, .at = AT(related),
      .want = "a whole number of related posts to list (1 or more)", .num_default = 5 },
    { .name = "feed_copies", .type = KEY_NAMES, .at = AT(feed_copies), .set = AT(nfeed_copies),
      .want = "a list of file names (feed_copies: [index.xml])", .flags = KEY_UNIQUE },
    { .name = "anchors_warn", .type = KEY_NAMES, .at = AT(anchors_warn), .set = AT(nanchors_warn),
      .want = "a list of patterns of #fragments (anchors_warn: [comment-*])", .flags = KEY_UNIQUE },
    { .name = "targets_warn", .type = KEY_NAMES, .at = AT(targets_warn), .set = AT(ntargets_warn),
      .want = "a list of patterns of link targets (targets_warn: [content/posts/draft.md])", .flags = KEY_UNIQUE },
    { .name = "taxonomies", .type = KEY_NAMES, .at = AT(taxonomies), .set = AT(ntaxonomies),
      .want = "a list of taxonomy names (taxonomies: [tags, categories])", .flags = KEY_UNIQUE },
    { .name = "favicon", .type = KEY_STRING, .at = AT(favicon),
      .want = "a string (an emoji, one to three letters, or a file in static/)", .str_default = "" },
    { .name = "search", .type = KEY_BOOL, .at = AT(search), .want = "true or false", .num_default = 1 },
    { .name = "numbered_sections", .type = KEY_BOOL, .at = AT(markdown.numbered_sections),
      .want = "true or false" },
    { .name = "first_page_alias", .type = KEY_BOOL, .at = AT(first_page_alias), .want = "true or false" },
    { .name = "paginate_path", .type = KEY_STRING, .at = AT(paginate_path),
      .want = "a string (like page/:num/)", .str_default = "page/:num/" },
    { .name = "citation_style", .type = KEY_STRING, .at = AT(citation_style),
      .want = "a string: 'author-year', 'numeric', a bundled CSL style's name (apa, ieee, …) or a .csl file",
      .str_default = "author-year" },
};
static const key_table config_table = { "", config_keys, sizeof config_keys / sizeof *config_keys, true,
                                        "(ignored; put your own values under 'params:')", true, false };

/* feed_copies: each a plain file name beside atom.xml, with an extension,
 * that no folder's own files use; at most SITE_MAX_FEED_COPIES. */
static bool check_feed_copies(site_config *c, const char *path, diag_list *d)
{
    int line, col;
    site_config_key_place(c, "feed_copies", &line, &col);
    if (c->nfeed_copies > SITE_MAX_FEED_COPIES) {
        diag_error(d, path, line, col, "'feed_copies' lists %zu names: at most %d",
                   c->nfeed_copies, SITE_MAX_FEED_COPIES);
        c->nfeed_copies = 0;
        return false;
    }
    for (size_t i = 0; i < c->nfeed_copies; i++) {
        const char *n = c->feed_copies[i], *dot = strrchr(n, '.');
        bool ok = *n && *n != '.' && dot && dot[1];
        for (const char *q = n; *q && ok; q++)
            ok = isalnum((unsigned char)*q) || strchr(".-_", *q);
        const char *why = !ok ? "a file name is letters, digits, '.', '-' and '_', with an extension"
                          : !strcmp(n, "atom.xml") || !strcmp(n, "index.html")
                              ? "sheaf writes that file itself in every feed's folder"
                              : NULL;
        if (why) {
            diag_error(d, path, line, col, "feed copy '%s': %s (feed_copies: [index.xml])", n, why);
            c->nfeed_copies = 0;
            return false;
        }
    }
    return true;
}

const char *site_paginate_path_problem(arena *a, const char *p, size_t n)
{
    if (memchr(p, 0, n))
        return "holds a NUL byte";
    if (n && p[0] == '/')
        return "is relative to each list's address: no leading '/' (page/:num/, not /page/:num/)";
    if (!n || p[n - 1] != '/')
        return "names a folder (each page is its index.html): end it with '/' (page/:num/)";
    size_t nums = 0;
    buf sample = BUF_INIT;
    const char *why = NULL;
    for (size_t i = 0; i < n && !why; i++) {
        if (p[i] != ':') {
            buf_putc(&sample, p[i]);
            continue;
        }
        size_t w = 0;
        while (i + 1 + w < n && (isalnum((unsigned char)p[i + 1 + w]) || p[i + 1 + w] == '_'))
            w++;
        if (w != 3 || strncmp(p + i + 1, "num", 3))
            why = "has a placeholder other than :num (the page's number)";
        nums++;
        buf_puts(&sample, "18446744073709551615"); /* the longest page number */
        i += w;
    }
    if (!why && nums != 1)
        why = "must hold :num, the page's number, once (page/:num/)";
    if (!why) {
        buf_puts(&sample, "index.html");
        const char *bad = outpath_problem(sample.data, sample.len);
        if (bad)
            why = arena_printf(a, "does not make a valid output path: it %s", bad);
    }
    buf_release(&sample);
    return why;
}

/* paginate_path: checked once read (site_paginate_path_problem); a bad one
 * is an error at its value, and the default stands. */
static bool check_paginate_path(site_config *c, const char *path, arena *a, diag_list *d)
{
    long at = c->raw.kind == TPL_MAP ? tpl_map_find(c->raw.u.map, "paginate_path") : -1;
    if (at < 0 || c->raw.u.map->entries[at].value.kind != TPL_STRING)
        return true; /* the default, or a type error already reported */
    tpl_value v = c->raw.u.map->entries[at].value;
    if (memchr(v.u.s, 0, v.len)) { /* reported by the key's reader */
        c->paginate_path = "page/:num/";
        return true;
    }
    const char *why = site_paginate_path_problem(a, v.u.s, v.len);
    if (!why)
        return true;
    int line, col;
    site_config_key_place(c, "paginate_path", &line, &col);
    buf q = BUF_INIT;
    outpath_quote(&q, v.u.s, v.len);
    diag_error(d, path, line, col, "'paginate_path' '%s' %s", q.data, why);
    buf_release(&q);
    c->paginate_path = "page/:num/";
    return false;
}

/* taxonomies: each name becomes a front-matter key and a folder of the
 * output (<name>/<term>/), so it is letters, digits, '-' and '_', and not
 * a key sheaf reads for something else; at most SITE_MAX_TAXONOMIES. */
static bool check_taxonomies(site_config *c, const char *path, diag_list *d)
{
    int line, col;
    site_config_key_place(c, "taxonomies", &line, &col);
    if (c->ntaxonomies > SITE_MAX_TAXONOMIES) {
        diag_error(d, path, line, col, "'taxonomies' lists %zu names: at most %d", c->ntaxonomies,
                   SITE_MAX_TAXONOMIES);
        c->ntaxonomies = 0;
        return false;
    }
    for (size_t i = 0; i < c->ntaxonomies; i++) {
        const char *n = c->taxonomies[i];
        bool ok = *n != 0;
        for (const char *q = n; *q && ok; q++)
            ok = isalnum((unsigned char)*q) || *q == '-' || *q == '_';
        if (!ok) {
            diag_error(d, path, line, col,
                       "taxonomy '%s': a name is letters, digits, '-' and '_' (it names a front-matter "
                       "key and a folder of the site: /%s/<term>/)", n, n);
        } else if (strcmp(n, "tags") && strcmp(n, "categories") && site_page_key_known(n)) {
            diag_error(d, path, line, col, "taxonomy '%s': '%s:' in front matter already means something "
                       "else to sheaf (docs/variables.md); choose another name", n, n);
            ok = false;
        }
        if (!ok) {
            c->ntaxonomies = 0;
            return false;
        }
    }
    return true;
}

/* "https://x.io/notes" → base_url "https://x.io/notes/", origin
 * "https://x.io", base_path "/notes/"; "/blog" → "", "/blog/". */
static void split_base_url(arena *a, const char *in, site_config *c)
{
    buf b = BUF_INIT;
    buf_puts(&b, in && *in ? in : "/");
    if (b.data[b.len - 1] != '/')
        buf_putc(&b, '/');
    const char *s = b.data;
    const char *path = s + url_origin_len(s);
    if (path == s && s[0] != '/') {
        /* "notes/" → "/notes/" */
        buf c2 = BUF_INIT;
        buf_putc(&c2, '/');
        buf_puts(&c2, s);
        buf_release(&b);
        b = c2;
        s = b.data;
        path = s;
    }
    c->base_url = arena_strdup(a, s);
    c->origin = arena_strndup(a, s, (size_t)(path - s));
    c->base_path = arena_strdup(a, *path ? path : "/");
    buf_release(&b);
}

bool site_config_load(const char *site_dir, const char *base_url_override, arena *a,
                      site_config *c, diag_list *d)
{
    memset(c, 0, sizeof *c);
    site_keys_default(&config_table, c, a);
    default_outputs_into(c, a);
    c->raw = tpl_map_value(tpl_map_new(a, 0));

    char *path = fs_join(site_dir, "site.yaml");
    const char *shown = strcmp(site_dir, ".") ? path : "site.yaml";
    buf text = BUF_INIT;
    bool ok = true;
    char *root = fs_resolve(site_dir);
    bool read = fs_read_file_within(root, path, FS_READ_MAX, &text);
    int e = errno;
    free(root);
    errno = e;
    if (!read) {
        if (errno != ENOENT) {
            diag_error(d, shown, 0, 0, "cannot read: %s", fs_strerror(errno));
            ok = false;
        }
        goto finish;
    }
    shown = arena_strdup(a, shown);
    char *copy = arena_strndup(a, text.data, text.len);
    tpl_value v;
    fm_key_pos *pos;
    size_t npos;
    if (!fm_parse_yaml_pos(str_make(copy, text.len), 1, shown, a, &v, &pos, &npos, d)) {
        ok = false;
        goto finish;
    }
    if (v.kind != TPL_MAP) {
        diag_error(d, shown, 1, 1, "site.yaml must be a mapping of keys (title: …, base_url: …)");
        ok = false;
        goto finish;
    }
    c->raw = v;
    c->pos = pos;
    c->npos = npos;
    key_reader r = { .path = shown, .a = a, .d = d, .pos = pos, .npos = npos, .out = c, .ok = true };
    site_keys_read(&config_table, v.u.map, &r);
    ok = r.ok;
    ok &= check_taxonomies(c, shown, d);
    ok &= check_feed_copies(c, shown, d);
    ok &= check_paginate_path(c, shown, a, d);
    c->citations_numeric = !strcmp(c->citation_style, "numeric");
    if (c->images_quality > 100) {
        int line, col;
        site_config_key_place(c, "images", &line, &col);
        diag_error(d, shown, line, col, "'images.quality' must be a WebP quality, a whole number from 1 to 100");
        ok = false;
    }
finish:
    if (!c->images_widths) {
        static long defaults[] = { 480, 960, 1600 };
        c->images_widths = defaults;
        c->nimages_widths = 3;
    }
    if (tpl_map_find(c->raw.u.map, "taxonomies") < 0) {
        static const char *const defaults[] = { "tags", "categories" };
        c->taxonomies = (const char **)defaults;
        c->ntaxonomies = 2;
    }
    split_base_url(a, base_url_override ? base_url_override : c->base_url, c);
    buf_release(&text);
    free(path);
    return ok;
}

void site_config_key_place(const site_config *c, const char *key, int *line, int *col)
{
    const fm_key_pos *kp = c->raw.kind == TPL_MAP ? fm_key_find(c->pos, c->npos, c->raw.u.map, key)
                                                  : NULL;
    *line = kp ? kp->vline : 0;
    *col = kp ? kp->vcol : 0;
}

void site_config_each_key(void (*fn)(const char *name, void *ctx), void *ctx)
{
    for (size_t i = 0; i < config_table.n; i++) {
        const key_def *k = &config_table.keys[i];
        fn(k->name, ctx);
        for (size_t j = 0; k->type == KEY_TABLE && j < k->sub->n; j++) {
            buf b = BUF_INIT;
            buf_printf(&b, "%s%s", k->sub->prefix, k->sub->keys[j].name);
            fn(b.data, ctx);
            buf_release(&b);
        }
    }
}

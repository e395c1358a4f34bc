/* site/data.c: data files — every .yaml, .yml and .json file below the
 * site's data/ folder becomes `site.data.<path>` for templates: data/team.yaml is
 * site.data.team, data/a/b.json is site.data.a.b (folders nest). Read with
 * front matter's parsers (fm/), so a mistake is an error at its file,
 * line and column, and YAML values are held to the same rules as the
 * site's own YAML. Files are read through the session's source cache;
 * `sheaf serve` watches data/ and rebuilds on a change. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "site/load.h"
#include "site/sources.h"
#include "util/fs.h"
#include "util/vec.h"
#include "util/xalloc.h"

typedef struct data_file {
    char *rel;       /* below data/: "a/b.yaml" */
    char *sort;      /* its keys: "a\x01b" (a folder's come right after a file of its name) */
    tpl_value value;
} data_file;

typedef struct walk_ctx {
    data_file *v;
    size_t n, cap;
    char **other; /* files that are not data, for one warning */
    size_t nother, capother;
} walk_ctx;

static size_t ext_len(const char *rel)
{
    static const char *const exts[] = { ".yaml", ".yml", ".json" };
    size_t n = strlen(rel);
    for (size_t i = 0; i < sizeof exts / sizeof *exts; i++) {
        size_t k = strlen(exts[i]);
        if (n > k && !strcmp(rel + n - k, exts[i]) && rel[n - k - 1] != '/')
            return k;
    }
    return 0;
}

static void collect(void *vctx, const char *rel)
{
    walk_ctx *c = vctx;
    if (!ext_len(rel)) {
        if (c->nother == c->capother) {
            c->capother = c->capother ? 2 * c->capother : 8;
            c->other = xrealloc(c->other, c->capother * sizeof *c->other);
        }
        c->other[c->nother++] = xstrdup(rel);
        return;
    }
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        c->v = xrealloc(c->v, c->cap * sizeof *c->v);
    }
    c->v[c->n].rel = xstrdup(rel);
    c->v[c->n].value = tpl_undefined();
    c->n++;
}

/* The key of file f at folder depth `depth` (its depth-th part, without
 * the extension when it is the last), in a. */
static const char *part(arena *a, const char *rel, size_t depth, bool *last)
{
    const char *p = rel;
    for (size_t i = 0; i < depth; i++)
        p = strchr(p, '/') + 1;
    const char *slash = strchr(p, '/');
    *last = slash == NULL;
    size_t n = slash ? (size_t)(slash - p) : strlen(p) - ext_len(p);
    return arena_strndup(a, p, n);
}

static size_t depth_of(const char *rel)
{
    size_t k = 0;
    for (const char *p = rel; (p = strchr(p, '/')) != NULL; p++)
        k++;
    return k;
}

/* The map of files [lo, hi) (sorted, all below one folder at `depth`). */
static tpl_value build(site *s, data_file *f, size_t lo, size_t hi, size_t depth, diag_list *d)
{
    tpl_map *m = tpl_map_new(s->a, hi - lo);
    for (size_t i = lo; i < hi;) {
        bool last;
        const char *key = part(s->a, f[i].rel, depth, &last);
        /* the files whose part at this depth is the same key */
        size_t j = i + 1;
        for (; j < hi; j++) {
            bool l2;
            if (strcmp(part(s->a, f[j].rel, depth, &l2), key))
                break;
        }
        size_t files = 0, first_file = i, in_folder = 0, first_folder = hi;
        for (size_t k = i; k < j; k++) {
            if (depth_of(f[k].rel) == depth) {
                if (!files++)
                    first_file = k;
            } else if (!in_folder++) {
                first_folder = k;
            }
        }
        if (files > 1) {
            diag_error(d, arena_printf(s->a, "data/%s", f[first_file + 1].rel), 1, 1,
                       "site.data%s%s is also data/%s: one name, one file", depth ? "…." : ".", key,
                       f[first_file].rel);
        } else if (files && in_folder) {
            diag_error(d, arena_printf(s->a, "data/%s", f[first_file].rel), 1, 1,
                       "site.data%s%s is also the folder of data/%s: rename one of them",
                       depth ? "…." : ".", key, f[first_folder].rel);
        } else if (files) {
            tpl_map_set_str(s->a, m, key, f[first_file].value);
        } else {
            tpl_map_set_str(s->a, m, key, build(s, f, i, j, depth + 1, d));
        }
        i = j;
    }
    tpl_map_seal(s->a, m);
    return tpl_map_value(m);
}

static int by_key(const void *a, const void *b)
{
    const data_file *x = a, *y = b;
    int c = strcmp(x->sort, y->sort);
    return c ? c : strcmp(x->rel, y->rel);
}

bool site_load_data(site *s, diag_list *d)
{
    size_t before = diag_error_count(d);
    s->data = tpl_map_value(tpl_map_new(s->a, 0));
    char *root = fs_join(s->dir, "data");
    struct stat st;
    if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(root);
        return true;
    }
    if (!site_folder_inside(s, "data", NULL, 0, 0, d)) {
        free(root);
        return false;
    }
    walk_ctx c = { 0 };
    if (!fs_walk(root, true, collect, &c))
        diag_error(d, "data/", 0, 0, "cannot read the data folder: %s", strerror(errno));
    for (size_t i = 0; i < c.nother; i++) {
        diag_warning(d, arena_printf(s->a, "data/%s", c.other[i]), 0, 0,
                     "not a data file (.yaml, .yml or .json): left out of site.data");
        free(c.other[i]);
    }
    free(c.other);
    for (size_t i = 0; i < c.n; i++) {
        data_file *f = &c.v[i];
        const char *src = arena_printf(s->a, "data/%s", f->rel);
        char *text;
        size_t len;
        if (!site_source_read(s->sources, s->dir, &s->root, src, &text, &len)) {
            diag_error(d, src, 0, 0, "cannot read: %s", fs_strerror(errno));
            continue;
        }
        char *copy = arena_strndup(s->a, text, len);
        free(text);
        size_t n = strlen(f->rel);
        bool json = n > 5 && !strcmp(f->rel + n - 5, ".json");
        tpl_value v;
        fm_key_pos *pos;
        size_t npos;
        bool ok = json ? fm_parse_json_value(str_make(copy, len), src, s->a, &v, d)
                       : fm_parse_yaml_pos(str_make(copy, len), 1, src, s->a, &v, &pos, &npos, d);
        f->value = ok ? v : tpl_none();
    }
    /* files sort by the keys they make, so those of one key meet */
    for (size_t i = 0; i < c.n; i++) {
        size_t n = strlen(c.v[i].rel), k = ext_len(c.v[i].rel);
        c.v[i].sort = xstrndup(c.v[i].rel, n - k);
        for (char *p = c.v[i].sort; *p; p++)
            if (*p == '/')
                *p = '\x01';
    }
    vec_sort(c.v, c.n, sizeof *c.v, by_key);
    if (c.n)
        s->data = build(s, c.v, 0, c.n, 0, d);
    for (size_t i = 0; i < c.n; i++) {
        free(c.v[i].rel);
        free(c.v[i].sort);
    }
    free(c.v);
    free(root);
    return diag_error_count(d) == before;
}

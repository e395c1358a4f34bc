/* import/anchors.c: links the old site shipped broken, or to ids no
 * element of their page has. The old site's scripts made many such ids in
 * the browser (a comment widget's #li-22, a FAQ's #faq-3, #MSG); other
 * links were broken there already: to a draft the old generator never
 * published, to a file that was not in the old source. Either way the old
 * site shipped them, and they would fail sheaf's first build: the new site
 * is checked as `sheaf check` does, and each #fragment it finds missing
 * becomes an `anchors_warn:` pattern (a trailing number generalised: li-22
 * → li-*), each missing or unpublished target a `targets_warn:` entry (its
 * path, exactly), so that those links warn on every build, and the report
 * lists every one. */
#include <ctype.h>
#include <string.h>

#include "import/internal.h"
#include "render/build.h"
#include "util/vec.h"

/* s as a glob pattern that matches s alone: its glob characters escaped. */
static const char *glob_quoted(arena *a, const char *s)
{
    buf b = BUF_INIT;
    for (const char *c = s; *c; c++) {
        if (strchr("*?[]\\", *c))
            buf_putc(&b, '\\');
        buf_putc(&b, *c);
    }
    const char *r = arena_strndup(a, b.data, b.len);
    buf_release(&b);
    return r;
}

/* The pattern for a missing fragment: a name then a number (li-22,
 * comment_3, note:12) stands for all its numbers (li-*); any other is
 * itself, its glob characters escaped. */
static const char *pattern_of(arena *a, const char *id)
{
    size_t n = strlen(id), k = n;
    while (k && isdigit((unsigned char)id[k - 1]))
        k--;
    if (k < n && k >= 2 && strchr("-_:.", id[k - 1]))
        return arena_printf(a, "%.*s*", (int)k, id);
    return glob_quoted(a, id);
}

/* The YAML of a pattern in a flow list: always quoted. */
static void yaml_pattern(buf *y, const char *pat, bool first)
{
    if (!first)
        buf_puts(y, ", ");
    import_yaml_string(y, pat, strlen(pat));
}

/* Adds pat to pats[0..*n) unless it is there. */
static void add_unique(imp *m, const char ***pats, size_t *n, size_t *cap, const char *pat)
{
    for (size_t k = 0; k < *n; k++)
        if (!strcmp((*pats)[k], pat))
            return;
    VEC_PUSH_IN(m->a, *pats, *n, *cap, 8, pat);
}

/* Writes the flow list `key: [pats…]` into site.yaml under `comment`, or
 * adds pats at the end of the list already there (the comment widget's
 * anchors_warn:). */
static void yaml_list(imp *m, const char *key, const char *comment, const char **pats, size_t npats)
{
    if (!npats)
        return;
    buf *y = &m->site_yaml;
    size_t kl = strlen(key);
    const char *line = NULL;
    for (const char *c = y->data; c && !line; c = strchr(c, '\n'), c = c ? c + 1 : NULL)
        if (!strncmp(c, key, kl) && !strncmp(c + kl, ": [", 3))
            line = c;
    if (line) {
        size_t close = (size_t)(strchr(line, ']') - y->data);
        buf rest = BUF_INIT;
        buf_put(&rest, y->data + close, y->len - close);
        buf_truncate(y, close);
        for (size_t k = 0; k < npats; k++)
            yaml_pattern(y, pats[k], false);
        buf_put(y, rest.data, rest.len);
        buf_release(&rest);
    } else {
        buf_printf(y, "%s\n%s: [", comment, key);
        for (size_t k = 0; k < npats; k++)
            yaml_pattern(y, pats[k], k == 0);
        buf_puts(y, "]\n");
    }
}

/* Keeps diagnostic e for the report, covered by pattern pat. */
static void keep(imp *m, import_script_anchor **v, size_t *n, size_t *cap, const diag *e, const char *pat)
{
    import_script_anchor *r = VEC_ADD_IN(m->a, *v, *n, *cap, 8);
    r->where = arena_printf(m->a, "%s:%d:%d", e->path ? e->path : ".", e->line, e->col);
    r->message = arena_strdup(m->a, e->message);
    r->pattern = pat;
}

bool import_script_anchors(imp *m)
{
    build_options o = { 0 };
    o.site_dir = m->o->dest;
    o.write = false;
    o.no_cache = true;
    o.jobs = 0;
    build_stats st = { 0 };
    diag_list *d = diag_list_new();
    (void)build_site(&o, d, &st);
    const char **pats = NULL, **targets = NULL;
    size_t npats = 0, cap = 0, ntargets = 0, captargets = 0;
    for (size_t i = 0; i < diag_count(d); i++) {
        const diag *e = diag_get(d, i);
        /* about: "#" and a missing heading's id, or a missing target's path */
        if (e->level != DIAG_ERROR || !e->about || !*e->about)
            continue;
        if (e->about[0] == '#') {
            const char *pat = pattern_of(m->a, e->about + 1);
            add_unique(m, &pats, &npats, &cap, pat);
            keep(m, &m->script_anchors, &m->nscript_anchors, &m->capscript_anchors, e, pat);
        } else {
            const char *pat = glob_quoted(m->a, e->about);
            add_unique(m, &targets, &ntargets, &captargets, pat);
            keep(m, &m->broken_targets, &m->nbroken_targets, &m->capbroken_targets, e, pat);
        }
    }
    diag_list_free(d);
    yaml_list(m, "anchors_warn",
              "# ids no element of their page has (made by the old site's scripts, or broken there):\n"
              "# links to them warn (import-report.md lists them)", pats, npats);
    yaml_list(m, "targets_warn",
              "# drafts and files that do not exist, which links of the old site led to (broken there too):\n"
              "# links to them warn (import-report.md lists them)", targets, ntargets);
    return npats || ntargets;
}

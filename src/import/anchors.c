/* import/anchors.c: links to ids no element of their page has. The old
 * site's scripts made many such ids in the browser (a comment widget's
 * #li-22, a FAQ's #faq-3, #MSG); others were broken there already. Either
 * way the old site shipped them, and they would fail sheaf's first build:
 * the new site is checked as `sheaf check` does, and each #fragment it
 * finds missing becomes an `anchors_warn:` pattern (a trailing number
 * generalised: li-22 → li-*), so that those links warn, and the report
 * lists every one. */
#include <ctype.h>
#include <string.h>

#include "import/internal.h"
#include "render/build.h"
#include "util/vec.h"

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
    buf b = BUF_INIT;
    for (const char *c = id; *c; c++) {
        if (strchr("*?[]\\", *c))
            buf_putc(&b, '\\');
        buf_putc(&b, *c);
    }
    const char *r = arena_strndup(a, b.data, b.len);
    buf_release(&b);
    return r;
}

/* The YAML of a pattern in a flow list: always quoted. */
static void yaml_pattern(buf *y, const char *pat, bool first)
{
    if (!first)
        buf_puts(y, ", ");
    import_yaml_string(y, pat, strlen(pat));
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
    const char **pats = NULL;
    size_t npats = 0, cap = 0;
    for (size_t i = 0; i < diag_count(d); i++) {
        const diag *e = diag_get(d, i);
        /* "#" and a missing heading's id */
        const char *id = e->level == DIAG_ERROR && e->about && e->about[0] == '#' ? e->about + 1 : NULL;
        if (!id)
            continue;
        const char *pat = pattern_of(m->a, id);
        size_t k = 0;
        while (k < npats && strcmp(pats[k], pat))
            k++;
        if (k == npats)
            VEC_PUSH_IN(m->a, pats, npats, cap, 8, pat);
        import_script_anchor *r = VEC_ADD_IN(m->a, m->script_anchors, m->nscript_anchors, m->capscript_anchors, 8);
        r->where = arena_printf(m->a, "%s:%d:%d", e->path ? e->path : ".", e->line, e->col);
        r->message = arena_strdup(m->a, e->message);
        r->pattern = pat;
    }
    diag_list_free(d);
    if (!npats)
        return false;
    buf *y = &m->site_yaml;
    const char *line = !strncmp(y->data, "anchors_warn: [", 15) ? y->data : strstr(y->data, "\nanchors_warn: [");
    if (line) {
        /* the comment widget's list: these go at its end */
        line += *line == '\n';
        size_t close = (size_t)(strchr(line, ']') - y->data);
        buf rest = BUF_INIT;
        buf_put(&rest, y->data + close, y->len - close);
        buf_truncate(y, close);
        for (size_t k = 0; k < npats; k++)
            yaml_pattern(y, pats[k], false);
        buf_put(y, rest.data, rest.len);
        buf_release(&rest);
    } else {
        buf_puts(y, "# ids no element of their page has (made by the old site's scripts, or broken there):\n"
                    "# links to them warn (import-report.md lists them)\nanchors_warn: [");
        for (size_t k = 0; k < npats; k++)
            yaml_pattern(y, pats[k], k == 0);
        buf_puts(y, "]\n");
    }
    return true;
}

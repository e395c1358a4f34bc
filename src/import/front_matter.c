/* import/front_matter.c: a page's front matter as sheaf's keys, shared by
 * both importers: title, dates, draft and published, slug, tags and
 * categories (Jekyll's words and singular keys), summary, aliases … */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "import/internal.h"
#include "site/site.h"
#include "util/text.h"
#include "util/vec.h"

/* ---- terms ------------------------------------------------------------ */

size_t import_names(imp *m, tpl_value v, bool split, const char ***out)
{
    const char **r = NULL;
    size_t n = 0, cap = 0;
    if (v.kind == TPL_LIST) {
        for (size_t i = 0; i < v.u.list->len; i++) {
            buf b = BUF_INIT;
            tpl_value_to_str(v.u.list->items[i], &b);
            if (b.len)
                VEC_PUSH_IN(m->a, r, n, cap, 4, arena_strdup(m->a, b.data));
            buf_release(&b);
        }
    } else if (v.kind == TPL_STRING || v.kind == TPL_INT || v.kind == TPL_FLOAT) {
        buf b = BUF_INIT;
        tpl_value_to_str(v, &b);
        for (const char *q = b.data; *q;) {
            size_t k = split ? strcspn(q, " \t\n") : strlen(q);
            if (k)
                VEC_PUSH_IN(m->a, r, n, cap, 4, arena_strndup(m->a, q, k));
            q += k;
            while (*q == ' ' || *q == '\t' || *q == '\n')
                q++;
        }
        buf_release(&b);
    }
    *out = r;
    return n;
}

size_t import_jekyll_terms(imp *m, const tpl_map *fm, const char *singular, const char *plural, bool either,
                           const char ***out)
{
    tpl_value one = import_get(fm, singular), many = import_get(fm, plural);
    bool has_one = one.kind != TPL_UNDEFINED && one.kind != TPL_NONE;
    const char **a = NULL, **b = NULL;
    size_t na = either && has_one ? 0 : import_names(m, many, true, &a);
    size_t nb = has_one ? import_names(m, one, false, &b) : 0;
    const char **r = arena_alloc(m->a, (na + nb + 1) * sizeof *r);
    size_t n = 0;
    for (size_t i = 0; i < na + nb; i++) {
        const char *x = i < na ? a[i] : b[i - na];
        size_t k = 0;
        while (k < n && strcmp(r[k], x))
            k++;
        if (k == n) /* each once, where it first came */
            r[n++] = x;
    }
    *out = r;
    return n;
}

static tpl_value names_value(imp *m, const char **names, size_t n)
{
    tpl_list *l = tpl_list_new(m->a, n);
    for (size_t i = 0; i < n; i++)
        l->items[i] = tpl_str(names[i]);
    l->len = n;
    return tpl_list_value(l);
}

/* ---- front matter ----------------------------------------------------- */

static bool is_key(const char *k, const char *const *names)
{
    for (; *names; names++)
        if (!strcasecmp(k, *names))
            return true;
    return false;
}

void import_map_front_matter(imp *m, import_page *p, const tpl_map *fm, const fm_key_pos *pos, size_t npos,
                          bool jekyll)
{
    static const char *const updated[] = { "updated", "lastmod", "last_modified_at", "modified", NULL };
    static const char *const expiry[] = { "expiry", "expirydate", "expires", NULL };
    static const char *const summary[] = { "summary", "excerpt", NULL };
    static const char *const tags[] = { "tags", "tag", NULL };
    static const char *const cats[] = { "categories", "category", NULL };
    static const char *const aliases[] = { "aliases", "redirect_from", NULL };
    /* handled by the importer that calls (the URL), or dropped on purpose */
    static const char *const skip[] = { "url", "permalink", "layout", NULL };
    bool has_date = import_get(fm, "date").kind != TPL_UNDEFINED;
    for (size_t i = 0; fm && i < fm->len; i++) {
        tpl_value kv = fm->entries[i].key, v = fm->entries[i].value;
        if (kv.kind != TPL_STRING)
            continue;
        const char *k = kv.u.s;
        int line, col;
        import_key_place(pos, npos, fm, k, &line, &col);
        const char *none = site_key_no_equivalent(k);
        const char **names;
        size_t n;
        if (!strcasecmp(k, "title")) {
            import_kv_set(m, p, "title", v);
        } else if (!strcasecmp(k, "date")) {
            import_kv_set(m, p, "date", v);
        } else if (is_key(k, updated)) {
            import_kv_set(m, p, "updated", v);
        } else if (is_key(k, expiry)) {
            import_kv_set(m, p, "expiry", v);
        } else if (!strcasecmp(k, "publishdate") && !has_date) {
            import_kv_set(m, p, "date", v);
        } else if (!strcasecmp(k, "draft")) {
            import_kv_set(m, p, "draft", v);
            if (tpl_value_truthy(v))
                p->hidden = true;
        } else if (!strcasecmp(k, "published")) {
            if (v.kind == TPL_BOOL && !v.u.b) {
                import_kv_set(m, p, "draft", tpl_bool(true));
                p->hidden = true;
                m->nunpublished++;
            }
        } else if (!strcasecmp(k, "slug")) {
            import_kv_set(m, p, "slug", v);
        } else if (!strcasecmp(k, "description")) {
            import_kv_set(m, p, "description", v);
        } else if (is_key(k, summary)) {
            import_kv_set(m, p, "summary", v);
        } else if (jekyll && (is_key(k, tags) || is_key(k, cats))) {
            bool t = is_key(k, tags);
            n = import_jekyll_terms(m, fm, t ? "tag" : "category", t ? "tags" : "categories", t, &names);
            if (n) /* from both keys: the same when the other one comes */
                import_kv_set(m, p, t ? "tags" : "categories", names_value(m, names, n));
        } else if (is_key(k, tags) || is_key(k, cats)) {
            const char *to = is_key(k, tags) ? "tags" : "categories";
            n = import_names(m, v, false, &names);
            tpl_value old = import_kv_get(p, to);
            if (old.kind == TPL_LIST) {
                /* `category:` and `categories:` both written */
                const char **all = arena_alloc(m->a, (old.u.list->len + n + 1) * sizeof *all);
                size_t k2 = 0;
                for (size_t j = 0; j < old.u.list->len; j++)
                    all[k2++] = old.u.list->items[j].u.s;
                for (size_t j = 0; j < n; j++)
                    all[k2++] = names[j];
                names = all;
                n = k2;
            }
            if (n)
                import_kv_set(m, p, to, names_value(m, names, n));
        } else if (is_key(k, aliases)) {
            n = import_names(m, v, false, &names);
            for (size_t j = 0; j < n; j++)
                /* Hugo's relative ones are relative to the page's URL
                 * (hugo.c places them); Jekyll's to the site's root */
                import_alias_add(m, p, names[j][0] == '/' || strstr(names[j], "://") || !jekyll
                                        ? names[j] : arena_printf(m->a, "/%s", names[j]));
        } else if (!strcasecmp(k, "render_with_liquid")) {
            /* what it means is kept: the body's Liquid stays text */
            p->no_liquid = v.kind == TPL_BOOL && !v.u.b;
        } else if (is_key(k, skip)) {
            /* the caller's */
        } else if (none) {
            import_note_add(m, p->src_rel, line, col, arena_printf(m->a, "front matter '%s'", k),
                         arena_printf(m->a, "dropped: %s", none));
        } else {
            import_kv_set(m, p, k, v);
        }
    }
}

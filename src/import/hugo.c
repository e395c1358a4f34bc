/* hugo: what a Hugo site holds, where it goes in a sheaf site, and the URL
 * Hugo gave each page.
 *
 * content/ keeps its layout, sections included (content/post/ stays
 * content/post/: a folder of dated pages is a section in sheaf as in Hugo,
 * so its pages, its list, the list's later pages and its feed keep their
 * URLs, none through a redirect); `_index.md` files stay section (and
 * home) pages; leaf bundles keep their files; static/ → static/, data/ →
 * data/. Layouts, themes, assets and i18n are listed.
 *
 * URLs follow Hugo (0.111 and later, without uglyURLs): a page's `url:`;
 * else the section's pattern from `permalinks` (:year, :month, :monthname,
 * :day, :weekday, :weekdayname, :yearday, :section, :sections, :title,
 * :slug — `slug:` or the urlized title —, :filename, :slugorfilename);
 * else /<folders>/<slug or file name>/ (a bundle: its folder's name); all
 * lower-cased unless disablePathToLower. */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "import/internal.h"
#include "site/site.h"
#include "util/fs.h"
#include "util/strmap.h"
#include "util/vec.h"

typedef struct hg {
    imp *m;
    const char *content; /* "content" (contentDir) */
    const tpl_map *permalinks;
    bool keep_case;      /* disablePathToLower */
    const char **taxonomies; /* their plural names ("series"), when configured */
    size_t ntaxonomies, captaxonomies;
    /* languages: sheaf builds the default one (defaultContentLanguage,
     * "en"); a file of another (a.fr.md, or under its contentDir) is left
     * out, counted per language for the report */
    const tpl_map *langs;  /* languages, when configured */
    const tpl_map *lang;   /* languages.<default>: read before the root's settings */
    const char *lang_name; /* "en" */
    const char *in_subdir; /* "/en" when defaultContentLanguageInSubdir: the old URLs' prefix */
    size_t *left_out;      /* per entry of langs: files not imported */
    const char **left_first;
    bool ok;
} hg;

/* Hugo's urlize: lower case, blanks → '-', only letters, digits and
 * "%./_-#+~" kept. */
static void urlize(buf *b, const char *s, size_t n, bool lower)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\t')
            buf_putc(b, '-');
        else if (isalnum(c) || c >= 0x80 || strchr("%./_-#+~", c))
            buf_putc(b, lower ? tolower(c) : c);
    }
}

/* ---- a page's URL ------------------------------------------------------- */

typedef struct hg_vars {
    const sheaf_date *date;
    const char *section, *sections, *title, *slug, *filename;
    bool keep_case; /* disablePathToLower: urlize keeps the title's case */
} hg_vars;

/* A token of Hugo's permalink patterns (import_expand_pattern). */
static bool hg_token(void *ctx, const char *w, size_t k, buf *b)
{
    const hg_vars *v = ctx;
#define IS(s) (k == strlen(s) && !strncmp(w, s, k))
    const char *fmt = IS("year") ? "%Y" : IS("month") ? "%m" : IS("monthname") ? "%B" : IS("day") ? "%d"
                      : IS("weekday") ? "%w" : IS("weekdayname") ? "%A" : IS("yearday") ? "%-j" : NULL;
    if (fmt) {
        if (v->date)
            date_format(b, v->date, fmt);
    } else if (IS("section")) {
        buf_puts(b, v->section);
    } else if (IS("sections")) {
        buf_puts(b, v->sections);
    } else if (IS("title")) {
        urlize(b, v->title, strlen(v->title), !v->keep_case);
    } else if (IS("slug")) {
        if (v->slug)
            buf_puts(b, v->slug);
        else
            urlize(b, v->title, strlen(v->title), !v->keep_case);
    } else if (IS("filename") || IS("contentbasename")) {
        buf_puts(b, v->filename);
    } else if (IS("slugorfilename")) {
        buf_puts(b, v->slug ? v->slug : v->filename);
    } else {
        return false;
    }
#undef IS
    return true;
}

/* A section's pattern as sheaf writes it, or NULL when sheaf has no
 * placeholder for one of its parts: :year, :month, :day, :weekday and
 * :yearday are sheaf's, :monthname and :weekdayname too (lower-cased, as
 * Hugo's URLs are), or, where Hugo kept the case (keep_case:
 * disablePathToLower), sheaf's :long_month and :long_day; :slug, :title, :filename and
 * :slugorfilename are the page's slug (the page gets `slug:` where Hugo's
 * differed from sheaf's, else the comparison of the URLs redirects it);
 * :sections is :section for the pages directly in the section (deeper
 * ones are redirected). In m's arena. */
static const char *sheaf_pattern(imp *m, const char *pat, bool keep_case)
{
    static const char *const same[] = { "year", "month", "day", "weekday", "yearday", NULL };
    static const char *const slug[] = { "slug", "title", "filename", "slugorfilename", "contentbasename", NULL };
    buf b = BUF_INIT;
    bool ok = true;
    if (pat[0] != '/')
        buf_putc(&b, '/');
    for (const char *q = pat; *q && ok;) {
        if (*q != ':') {
            buf_putc(&b, *q++);
            continue;
        }
        const char *e = q + 1;
        while (isalnum((unsigned char)*e) || *e == '_')
            e++;
        size_t k = (size_t)(e - q - 1);
        const char *to = NULL;
        for (size_t i = 0; same[i] && !to; i++)
            if (strlen(same[i]) == k && !strncmp(q + 1, same[i], k))
                to = same[i];
        for (size_t i = 0; slug[i] && !to; i++)
            if (strlen(slug[i]) == k && !strncmp(q + 1, slug[i], k))
                to = "slug";
        if (!to && k == 9 && !strncmp(q + 1, "monthname", 9))
            to = keep_case ? "long_month" : "monthname";
        if (!to && k == 11 && !strncmp(q + 1, "weekdayname", 11))
            to = keep_case ? "long_day" : "weekdayname";
        if (!to && ((k == 7 && !strncmp(q + 1, "section", 7)) || (k == 8 && !strncmp(q + 1, "sections", 8))))
            to = "section";
        if (to)
            buf_printf(&b, ":%s", to);
        ok = to != NULL;
        q = e;
    }
    const char *r = ok ? arena_strdup(m->a, b.data) : NULL;
    buf_release(&b);
    return r;
}

static const char *expand(hg *h, const char *pat, const hg_vars *v)
{
    return import_expand_pattern(h->m, pat, !h->keep_case, hg_token, (void *)v);
}

/* A relative alias as Hugo places it: joined to the folder above the
 * page's URL ("post/old" of /post/a/ is /post/post/old), '.' and '..'
 * parts resolved, as Go's path.Join does. */
static const char *relative_alias(imp *m, const char *page_url, const char *alias)
{
    buf in = BUF_INIT, out = BUF_INIT;
    buf_printf(&in, "%s/../%s", page_url ? page_url : "/", alias);
    for (const char *q = in.data; *q;) {
        size_t n = strcspn(q, "/");
        if (n == 2 && q[0] == '.' && q[1] == '.') {
            while (out.len && out.data[out.len - 1] != '/')
                out.len--;
            if (out.len)
                out.len--;
            out.data[out.len] = 0;
        } else if (n && !(n == 1 && q[0] == '.')) {
            buf_putc(&out, '/');
            buf_put(&out, q, n);
        }
        q += n + (q[n] == '/');
    }
    const char *r = arena_strdup(m->a, out.len ? out.data : "/");
    buf_release(&in);
    buf_release(&out);
    return r;
}

/* rel: relative to SRC ("content/post/a.md"); in: relative to content/ */
static void hg_page(hg *h, const char *rel, const char *in)
{
    imp *m = h->m;
    fm_split sp;
    tpl_value fm;
    fm_key_pos *pos = NULL;
    size_t npos = 0;
    buf text = BUF_INIT;
    if (!import_read_page(m, rel, &sp, &fm, &pos, &npos, &text)) {
        buf_release(&text);
        h->ok = false;
        return;
    }
    const char *base = strrchr(in, '/');
    base = base ? base + 1 : in;
    size_t ext = site_markdown_ext(base);
    size_t stem = strlen(base) - ext;
    bool list = stem == 6 && !strncmp(base, "_index", 6);
    bool bundle = stem == 5 && !strncmp(base, "index", 5) && base > in;
    const char *dir = arena_strndup(m->a, in, base > in ? (size_t)(base - in - 1) : 0);
    import_page *p = import_add_page(m);
    p->src_rel = rel;
    const tpl_map *map = fm.kind == TPL_MAP ? fm.u.map : NULL;
    import_map_front_matter(m, p, map, pos, npos, false);
    /* a taxonomy's key as sheaf names it ("Series" → "series") */
    for (size_t i = 0; i < p->nkv; i++)
        for (size_t k = 0; k < h->ntaxonomies; k++)
            if (!strcasecmp(p->kv[i].key, h->taxonomies[k]))
                p->kv[i].key = h->taxonomies[k];
    /* dates Hugo read from strings (JSON has no dates) */
    static const char *const dkeys[] = { "date", "updated", "expiry" };
    for (size_t i = 0; i < p->nkv; i++)
        for (size_t k = 0; k < 3; k++) {
            sheaf_date d;
            if (!strcmp(p->kv[i].key, dkeys[k]) && p->kv[i].value.kind == TPL_STRING &&
                date_parse_loose(p->kv[i].value.u.s, p->kv[i].value.len, &d))
                p->kv[i].value = site_date_value(&d);
        }
    p->body_src = arena_strndup(m->a, sp.body.ptr, sp.body.len);
    p->body_len = sp.body.len;
    p->body_line = sp.body_line;
    p->dest_rel = arena_printf(m->a, "content/%.*s.md", (int)(strlen(in) - ext), in);
    sheaf_date d = { 0 };
    tpl_value dv = import_kv_get(p, "date");
    bool dated = dv.kind != TPL_UNDEFINED && tpl_value_as_date(dv, &d);
    /* a post is a dated page in a section: one at content/'s top is a
     * page (as sheaf builds it), dated or not */
    p->post = dated && !list && base > in;
    if (p->post && bundle && !strchr(dir, '/')) {
        /* content/about/index.md: a page of its own in Hugo; dated, sheaf
         * would read about/ as a section of posts and make its list at
         * /about/, over the page. Its date is left out. */
        size_t k = 0;
        while (k < p->nkv && strcmp(p->kv[k].key, "date"))
            k++;
        buf day = BUF_INIT;
        date_format(&day, &d, "%Y-%m-%d");
        import_note_add(m, rel, 0, 0, arena_printf(m->a, "a dated page in a folder of its own (%s/index.md)", dir),
                        arena_printf(m->a, "imported as a page, without its date (%s): dated, sheaf would make "
                                     "%s/ a section of posts, with a list of them at /%s/", day.data, dir, dir));
        buf_release(&day);
        if (k < p->nkv) {
            memmove(&p->kv[k], &p->kv[k + 1], (p->nkv - k - 1) * sizeof *p->kv);
            p->nkv--;
        }
        p->post = false;
    }
    sheaf_date ex;
    tpl_value xv = import_kv_get(p, "expiry");
    if (xv.kind != TPL_UNDEFINED && tpl_value_as_date(xv, &ex) && ex.t <= (int64_t)time(NULL))
        p->hidden = true;
    /* the URL */
    const char *section = arena_strndup(m->a, in, strcspn(in, "/") < strlen(in) ? strcspn(in, "/") : 0);
    const char *title = import_get_str(map, "title");
    const char *slug = import_get_str(map, "slug");
    const char *url = import_get_str(map, "url");
    if (list) {
        p->old_url = expand(h, arena_printf(m->a, "/%s/", dir), &(hg_vars){ 0 });
    } else if (url) {
        p->old_url = url[0] == '/' ? url : arena_printf(m->a, "/%s", url);
        import_kv_set(m, p, "url", tpl_str(p->old_url));
    } else {
        const char *filename = bundle ? (strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir)
                                      : arena_strndup(m->a, base, stem);
        const char *parent = bundle ? arena_strndup(m->a, dir, (size_t)(filename - dir)) : dir;
        const char *pattern = section[0] ? import_get_str(h->permalinks, section) : NULL;
        hg_vars v = { dated ? &d : NULL, section, dir, title ? title : filename, slug, filename, h->keep_case };
        if (pattern) {
            p->old_url = expand(h, pattern, &v);
            /* Hugo's :slug is the urlized title when there is no slug:
             * written as the slug, sheaf's URL is the same (no redirect,
             * and the bundle's files stay beside the page) */
            if (!slug && title && (strstr(pattern, ":slug") || strstr(pattern, ":title")) &&
                sheaf_pattern(m, pattern, h->keep_case)) {
                buf b = BUF_INIT;
                urlize(&b, title, strlen(title), !h->keep_case);
                bool plain = b.len && b.data[0] != '.';
                for (size_t i = 0; i < b.len && plain; i++)
                    plain = isalnum((unsigned char)b.data[i]) || (unsigned char)b.data[i] >= 0x80 ||
                            strchr("-_.", b.data[i]);
                if (plain && strcmp(b.data, filename))
                    import_kv_set(m, p, "slug", tpl_str(arena_strdup(m->a, b.data)));
                buf_release(&b);
            }
        } else {
            buf b = BUF_INIT;
            buf_printf(&b, "/%s%s", parent, parent[0] && parent[strlen(parent) - 1] != '/' ? "/" : "");
            urlize(&b, slug ? slug : filename, strlen(slug ? slug : filename), false);
            buf_putc(&b, '/');
            p->old_url = expand(h, b.data, &v);
            buf_release(&b);
        }
    }
    if (h->in_subdir && !url)
        p->old_url = arena_printf(m->a, "%s%s", h->in_subdir, p->old_url);
    for (size_t i = 0; i < p->naliases; i++)
        if (p->aliases[i][0] != '/' && !strstr(p->aliases[i], "://"))
            p->aliases[i] = relative_alias(m, p->old_url, p->aliases[i]);
    if (p->hidden) {
        p->hidden_url = p->old_url;
        p->old_url = NULL;
    }
    buf_release(&text);
}

/* ---- languages ---------------------------------------------------------- */

/* A setting as the default language sees it: Hugo reads
 * languages.<lang>.<key> before the root's <key>. */
static tpl_value hg_get(const hg *h, const tpl_map *root, const char *key)
{
    tpl_value v = import_get(h->lang, key);
    return v.kind != TPL_UNDEFINED ? v : import_get(root, key);
}

/* params.<key>, the language's before the root's */
static tpl_value hg_param(const hg *h, const tpl_map *root, const char *key)
{
    tpl_value lp = import_get(h->lang, "params"), rp = import_get(root, "params");
    tpl_value v = lp.kind == TPL_MAP ? import_get(lp.u.map, key) : tpl_undefined();
    if (v.kind == TPL_UNDEFINED && rp.kind == TPL_MAP)
        v = import_get(rp.u.map, key);
    return v;
}

/* Whether content file r (SRC-relative; base its name, stem the length of
 * its name without the extension) is another language's: one under that
 * language's contentDir, or named for it before its extension (a.fr.md,
 * map.pt-br.png). Returns its entry in languages, else -1; *own is the
 * length of a ".en" naming the default language (0 if none). A suffix that
 * is no configured language is part of the name, as Hugo reads it
 * (v1.2.md). */
static long another_language(const hg *h, const char *r, const char *base, size_t stem, size_t *own)
{
    *own = 0;
    const char *dot = NULL;
    for (size_t i = stem; i-- > 0 && !dot;)
        if (base[i] == '.')
            dot = base + i;
    size_t n = dot ? stem - (size_t)(dot - base) - 1 : 0;
    if (dot && n == strlen(h->lang_name) && !strncasecmp(dot + 1, h->lang_name, n))
        *own = n + 1;
    for (size_t k = 0; h->langs && k < h->langs->len; k++) {
        tpl_value key = h->langs->entries[k].key, v = h->langs->entries[k].value;
        if (key.kind != TPL_STRING || !strcasecmp(key.u.s, h->lang_name))
            continue;
        if (dot && key.len == n && !strncasecmp(key.u.s, dot + 1, n))
            return (long)k;
        const char *dir = v.kind == TPL_MAP ? import_get_str(v.u.map, "contentdir") : NULL;
        size_t dn = dir ? strlen(dir) : 0;
        while (dn && dir[dn - 1] == '/')
            dn--;
        if (dn && !strncmp(r, dir, dn) && r[dn] == '/')
            return (long)k;
    }
    return -1;
}

/* What sheaf keeps of a multilingual site, for the report. */
static void note_languages(hg *h, const char *file)
{
    imp *m = h->m;
    for (size_t k = 0; h->langs && k < h->langs->len; k++) {
        tpl_value key = h->langs->entries[k].key;
        if (key.kind != TPL_STRING || !strcasecmp(key.u.s, h->lang_name))
            continue;
        size_t n = h->left_out[k];
        buf b = BUF_INIT;
        buf_printf(&b, "not imported: sheaf builds one language, the default (%s)", h->lang_name);
        tpl_value v = h->langs->entries[k].value;
        const char *dir = v.kind == TPL_MAP ? import_get_str(v.u.map, "contentdir") : NULL;
        if (n)
            buf_printf(&b, "; its %zu file%s left out (%s%s)", n, n == 1 ? "" : "s", h->left_first[k],
                       n > 1 ? ", …" : "");
        else if (dir && *dir)
            buf_printf(&b, "; its folder %s left out", dir);
        import_note_add(m, file, 0, 0, arena_printf(m->a, "languages.%s", key.u.s),
                        arena_strdup(m->a, b.data));
        buf_release(&b);
    }
    if (h->in_subdir)
        import_note_add(m, file, 0, 0, "defaultContentLanguageInSubdir",
                        arena_printf(m->a, "the old URLs were under %s/: each page's answers (a redirect "
                                           "to the page); the lists of taxonomies and terms, and the "
                                           "feeds, under %s/ do not",
                                     h->in_subdir, h->in_subdir));
}

/* ---- the walk ---------------------------------------------------------- */

typedef struct walk {
    hg *h;
    const char *prefix; /* "content", "static", "data" */
} walk;

static void visit_content(void *ctx, const char *rel)
{
    walk *w = ctx;
    hg *h = w->h;
    imp *m = h->m;
    const char *r = arena_printf(m->a, "%s/%s", w->prefix, rel);
    const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
    size_t md = site_markdown_ext(base), n = strlen(base);
    const char *dot = strrchr(base, '.');
    size_t stem = md ? n - md : dot ? (size_t)(dot - base) : n;
    size_t own = 0;
    long other = another_language(h, r, base, stem, &own);
    if (other >= 0) {
        if (!h->left_out[other]++)
            h->left_first[other] = r;
        return;
    }
    if (md) {
        /* a.en.md, in the default language: a.md */
        size_t at = (size_t)(base - rel) + stem - own;
        hg_page(h, r, arena_printf(m->a, "%.*s%s", (int)at, rel, rel + at + own));
        return;
    }
    if ((n > 5 && !strcmp(base + n - 5, ".html")) || (n > 4 && !strcmp(base + n - 4, ".htm"))) {
        import_note_add(m, r, 0, 0, "an HTML content file",
                        "sheaf's pages are Markdown: put the HTML in a .md page (HTML blocks pass through "
                        "with markdown.unsafe), or in static/");
        return;
    }
    import_add_file(m, r, arena_printf(m->a, "content/%s", rel), NULL);
}

static void visit_copy(void *ctx, const char *rel)
{
    walk *w = ctx;
    imp *m = w->h->m;
    const char *r = arena_printf(m->a, "%s/%s", w->prefix, rel);
    bool stat_ = strcmp(w->prefix, "data") != 0;
    import_add_file(m, r, arena_printf(m->a, "%s/%s", stat_ ? "static" : "data", rel),
                    stat_ ? arena_printf(m->a, "/%s", rel) : NULL);
}

import_page *import_hugo_ref(imp *m, const import_page *p, const char *path, size_t n)
{
    /* candidates: "/post/a", "post/a.md", "a" (relative to p, or anywhere),
     * looked for where the pages go (content/post/a.md: the source may be
     * a.en.md, under another contentDir) */
    const char *content_root = "content/";
    buf want[3] = { BUF_INIT, BUF_INIT, BUF_INIT };
    size_t nwant = 0;
    const char *t = arena_strndup(m->a, path, n);
    size_t e = site_markdown_ext(t);
    size_t tn = strlen(t) - e;
    while (tn && t[tn - 1] == '/')
        tn--;
    /* "docs/_index.md", "post/x/index.md": the folder's page, wherever it went */
    if (tn > 7 && !strncmp(t + tn - 7, "/_index", 7))
        tn -= 7;
    else if (tn > 6 && !strncmp(t + tn - 6, "/index", 6))
        tn -= 6;
    if (t[0] == '/') {
        buf_printf(&want[nwant++], "%s%.*s", content_root, (int)tn - 1, t + 1);
    } else {
        const char *slash = strrchr(p->dest_rel, '/');
        buf_printf(&want[nwant++], "%.*s/%.*s", (int)(slash - p->dest_rel), p->dest_rel, (int)tn, t);
        buf_printf(&want[nwant++], "%s%.*s", content_root, (int)tn, t);
    }
    import_page *found = NULL;
    for (size_t w = 0; w < nwant && !found; w++)
        for (size_t i = 0; i < m->npages && !found; i++) {
            const char *s = m->pages[i]->dest_rel;
            size_t sn = strlen(s) - site_markdown_ext(s);
            const char *wd = want[w].data;
            size_t wn = want[w].len;
            /* a page, a bundle (x/index.md) or a section (x/_index.md) */
            if ((sn == wn && !strncmp(s, wd, wn)) ||
                (sn == wn + 6 && !strncmp(s, wd, wn) && !strncmp(s + wn, "/index", 6)) ||
                (sn == wn + 7 && !strncmp(s, wd, wn) && !strncmp(s + wn, "/_index", 7)))
                found = m->pages[i];
        }
    if (!found && !strchr(t, '/')) {
        /* a bare name: the one page of that name */
        for (size_t i = 0; i < m->npages; i++) {
            const char *s = m->pages[i]->dest_rel;
            const char *b = strrchr(s, '/') + 1;
            size_t bn = strlen(b) - site_markdown_ext(b);
            if (bn == tn && !strncmp(b, t, tn)) {
                if (found) {
                    found = NULL;
                    break;
                }
                found = m->pages[i];
            }
        }
    }
    for (size_t w = 0; w < 3; w++)
        buf_release(&want[w]);
    return found;
}

/* ---- the configuration ------------------------------------------------- */

static const char *const config_names[] = { "hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json", "config.toml",
                                            "config.yaml", "config.yml", "config.json", NULL };

static void settings(hg *h, const char *file, const tpl_map *c)
{
    imp *m = h->m;
    buf *y = &m->site_yaml;
    m->old_config = c; /* math.c reads its math settings */
    buf_printf(y, "# site.yaml: made by `sheaf import hugo` from %s\n", file);
    tpl_value v, params;
    if ((v = hg_get(h, c, "title")).kind == TPL_STRING)
        import_yaml_kv(y, 0, "title", v);
    if ((v = hg_param(h, c, "description")).kind == TPL_STRING ||
        (v = hg_get(h, c, "description")).kind == TPL_STRING)
        import_yaml_kv(y, 0, "description", v);
    v = hg_param(h, c, "author");
    if (v.kind == TPL_UNDEFINED)
        v = hg_get(h, c, "author");
    if (v.kind == TPL_MAP)
        v = import_get(v.u.map, "name");
    if (v.kind == TPL_STRING)
        import_yaml_kv(y, 0, "author", v);
    const char *base = import_get_str(c, "baseurl");
    if (base && *base) {
        const char *b = base[strlen(base) - 1] == '/' ? base : arena_printf(m->a, "%s/", base);
        import_yaml_kv(y, 0, "base_url", tpl_str(b));
        m->base_url = b;
        const char *path = strstr(b, "://");
        path = path ? strchr(path + 3, '/') : b;
        m->base_path = path ? path : "/";
    }
    if ((v = hg_get(h, c, "languagecode")).kind == TPL_STRING ||
        (v = import_get(c, "defaultcontentlanguage")).kind == TPL_STRING)
        import_yaml_kv(y, 0, "language", v);
    v = import_get(c, "paginate");
    if (v.kind != TPL_INT && (params = import_get(c, "pagination")).kind == TPL_MAP)
        v = import_get(params.u.map, "pagersize");
    if (v.kind == TPL_INT && v.u.i > 0)
        import_yaml_kv(y, 0, "paginate", v);
    /* each list's page N at <list>/<paginatePath>/N/ (Hugo's default: page) */
    const char *pp = import_get_str(c, "paginatepath");
    const char *ppkey = "paginatePath";
    if (!pp && (params = import_get(c, "pagination")).kind == TPL_MAP) {
        pp = import_get_str(params.u.map, "path");
        ppkey = "pagination.path";
    }
    if (pp) {
        size_t n = strlen(pp);
        while (n && pp[n - 1] == '/')
            n--;
        if (n) /* Hugo takes an empty one for its default */
            import_paginate_path(m, file, arena_printf(m->a, "%s: %s", ppkey, pp),
                                 arena_printf(m->a, "%.*s/:num/", (int)n, pp));
    }
    buf_puts(y, "# Hugo keeps a slug: as written\nslugs: keep\n");
    tpl_value mk = import_get(c, "markup");
    tpl_value gm = mk.kind == TPL_MAP ? import_get(mk.u.map, "goldmark") : mk;
    tpl_value rd = gm.kind == TPL_MAP ? import_get(gm.u.map, "renderer") : gm;
    tpl_value unsafe = rd.kind == TPL_MAP ? import_get(rd.u.map, "unsafe") : rd;
    /* Goldmark's typographer (on unless switched off: `typographer =
     * false`, or `disable = true` in its table) is sheaf's smart */
    tpl_value ex = gm.kind == TPL_MAP ? import_get(gm.u.map, "extensions") : gm;
    tpl_value ty = ex.kind == TPL_MAP ? import_get(ex.u.map, "typographer") : ex;
    bool smart = !(ty.kind == TPL_BOOL && !ty.u.b) &&
                 !(ty.kind == TPL_MAP && tpl_value_truthy(import_get(ty.u.map, "disable")));
    bool raw = unsafe.kind == TPL_BOOL && unsafe.u.b;
    if (raw || smart)
        buf_printf(y, "markdown:\n%s%s", raw ? "  unsafe: true\n" : "",
                   smart ? "  smart: true              # Goldmark's typographer: “quotes”, – — …\n" : "");
    h->keep_case = tpl_value_truthy(import_get(c, "disablepathtolower"));
    if (tpl_value_truthy(import_get(c, "uglyurls")))
        import_note_add(m, file, 0, 0, "uglyURLs",
                        "the old URLs were /a.html; sheaf's are /a/ — the aliases added cover pages only");
    tpl_value pl = hg_get(h, c, "permalinks");
    h->permalinks = pl.kind == TPL_MAP ? pl.u.map : NULL;
    /* a section's pattern sheaf can write the same way */
    bool opened = false;
    for (size_t i = 0; h->permalinks && i < h->permalinks->len; i++) {
        tpl_value k = h->permalinks->entries[i].key, pv = h->permalinks->entries[i].value;
        if (k.kind != TPL_STRING || pv.kind != TPL_STRING)
            continue;
        const char *sp = sheaf_pattern(m, pv.u.s, h->keep_case);
        if (!sp)
            continue;
        if (!opened)
            buf_puts(y, "permalinks:\n");
        opened = true;
        import_yaml_kv(y, 2, k.u.s, tpl_str(sp));
    }
    import_comment_anchors(m, c);
    import_comment_anchors_in(m, "layouts");
    import_comment_anchors_in(m, "themes");
    /* terms at Hugo's paths: /tags/c++/, /tags/node.js/ */
    buf_puts(y, "# terms' URLs as Hugo made them (c++, node.js)\nterm_slugs: hugo\n");
    if (h->keep_case)
        import_note_add(m, file, 0, 0, "disablePathToLower",
                        "terms' URLs are lower-cased in sheaf (/tags/go/ for Go): the old /tags/Go/ is not kept");
    /* [taxonomies] tag = "tags": sheaf's taxonomies are named by their plural */
    tpl_value tx = hg_get(h, c, "taxonomies");
    if (tx.kind == TPL_MAP) {
        buf_puts(y, "taxonomies: [");
        size_t n = 0;
        for (size_t i = 0; i < tx.u.map->len; i++) {
            tpl_value tv = tx.u.map->entries[i].value;
            if (tv.kind != TPL_STRING)
                continue;
            const char *taken = site_generated_in_folder(tv.u.s);
            if (taken) { /* a taxonomy named archive: sheaf's archive is there */
                import_note_add(m, file, 0, 0, arena_printf(m->a, "taxonomies: %s", tv.u.s),
                                arena_printf(m->a,
                                             "not kept: its pages would be at /%s/, where sheaf "
                                             "writes %s; the pages keep their '%s:' values (as "
                                             "page.params)",
                                             tv.u.s, taken, tv.u.s));
                continue;
            }
            buf_puts(y, n++ ? ", " : "");
            import_yaml_string(y, tv.u.s, tv.len);
            VEC_PUSH_IN(m->a, h->taxonomies, h->ntaxonomies, h->captaxonomies, 4, tv.u.s);
        }
        buf_puts(y, "]\n");
    }
    static const char *const none[][2] = {
        { "menu", "sheaf has no menus: link pages from templates/" },
        { "menus", "sheaf has no menus: link pages from templates/" },
        { "theme", "Hugo themes are Go templates: sheaf uses its own theme (see docs/theme.md)" },
        { "disqusshortname", "comments: add them in a template" },
        { "googleanalytics", "analytics: add them in a template" },
        { "outputs", "Hugo's output formats: sheaf writes HTML, atom.xml and sitemap.xml" },
    };
    for (size_t i = 0; i < sizeof none / sizeof *none; i++)
        if (hg_get(h, c, none[i][0]).kind != TPL_UNDEFINED)
            import_note_add(m, file, 0, 0, arena_printf(m->a, "%s", none[i][0]), none[i][1]);
    /* Hugo writes each list's feed as <list>/index.xml: sheaf writes each
     * feed (the site's, a section's, a term's, a taxonomy's of its terms)
     * there too */
    m->feed_copy = "index.xml";
    /* a paginated list of Hugo's also answers at <list>/page/1/ */
    m->first_page_alias = true;
}

bool import_hugo_collect(imp *m)
{
    hg h = { 0 };
    h.m = m;
    h.ok = true;
    const char *file = NULL;
    struct stat st;
    for (size_t i = 0; config_names[i] && !file; i++)
        if (!stat(import_src_path(m, config_names[i]), &st))
            file = config_names[i];
    tpl_value c = tpl_undefined();
    if (!file && stat(import_src_path(m, "content"), &st)) {
        diag_error(m->d, m->o->src, 0, 0, "not a Hugo site: no hugo.toml, config.toml (or .yaml, .json) "
                   "and no content/ folder");
        return false;
    }
    if (!file && !stat(import_src_path(m, "config/_default"), &st))
        import_note_add(m, "config/_default", 0, 0, "a config folder",
                        "not read: merge its files into one config.toml and import again");
    if (file && !import_read_config(m, file, &c))
        return false;
    const tpl_map *cm = c.kind == TPL_MAP ? c.u.map : NULL;
    tpl_value lv = import_get(cm, "languages");
    h.langs = lv.kind == TPL_MAP ? lv.u.map : NULL;
    const char *dl = import_get_str(cm, "defaultcontentlanguage");
    h.lang_name = dl && *dl ? dl : "en";
    lv = import_get(h.langs, h.lang_name);
    h.lang = lv.kind == TPL_MAP ? lv.u.map : NULL;
    if (tpl_value_truthy(import_get(cm, "defaultcontentlanguageinsubdir")))
        h.in_subdir = arena_printf(m->a, "/%s", h.lang_name);
    size_t nl = h.langs ? h.langs->len : 0;
    h.left_out = arena_calloc(m->a, (nl + 1) * sizeof *h.left_out);
    h.left_first = arena_calloc(m->a, (nl + 1) * sizeof *h.left_first);
    lv = hg_get(&h, cm, "contentdir");
    size_t cn = lv.kind == TPL_STRING ? lv.len : 0;
    while (cn && lv.u.s[cn - 1] == '/')
        cn--;
    h.content = cn ? arena_strndup(m->a, lv.u.s, cn) : "content";
    const char *content = import_src_path(m, h.content);
    settings(&h, file ? file : "config.toml", cm);
    walk w = { &h, h.content };
    if (!import_src_inside(m, h.content, arena_printf(m->a, "contentDir '%s'", h.content)))
        return false;
    if (!import_walk(m, h.content, true, visit_content, &w)) {
        diag_error(m->d, content, 0, 0, "cannot read the folder: %s", strerror(errno));
        return false;
    }
    /* content/<taxonomy>/_index.md and content/<taxonomy>/<term>/_index.md
     * give Hugo's taxonomy and term lists their title and text: sheaf
     * makes those pages from its templates, at the same URLs */
    static const char *const hugo_taxonomies[] = { "tags", "categories" };
    const char *const *txs = h.ntaxonomies ? h.taxonomies : hugo_taxonomies;
    size_t ntxs = h.ntaxonomies ? h.ntaxonomies : 2;
    for (size_t i = 0; i < m->npages; i++) {
        import_page *p = m->pages[i];
        const char *d = p->dest_rel + strlen("content/");
        const char *last = strrchr(d, '/');
        size_t top = strcspn(d, "/");
        if (!last || strcmp(last, "/_index.md") ||
            (last > d + top && memchr(d + top + 1, '/', (size_t)(last - (d + top + 1)))))
            continue; /* not <taxonomy>/_index.md nor <taxonomy>/<term>/_index.md */
        for (size_t t = 0; t < ntxs && !p->dropped; t++) {
            if (strlen(txs[t]) != top || strncasecmp(d, txs[t], top))
                continue;
            p->dropped = true;
            bool term = last > d + top;
            import_note_add(m, p->src_rel, 0, 0,
                            arena_printf(m->a, "the title and text of the %s page %s", term ? "term" : "taxonomy",
                                         p->old_url ? p->old_url : ""),
                            arena_printf(m->a, "not imported: sheaf makes this page from its template (%s), at "
                                               "the same URL; put what it said there",
                                         !strcmp(txs[t], "tags") ? (term ? "tag.html" : "tags.html")
                                                                 : (term ? "term.html" : "terms.html")));
        }
    }
    /* an _index.md of a folder that will be no section in sheaf (no dated
     * page in its top folder: docs/, docs/api/) becomes a page at the
     * list's URL, its text kept; one inside a section stays (noted when read
     * back: a section's folders have no list of their own) */
    for (size_t i = 0; i < m->npages; i++) {
        import_page *p = m->pages[i];
        const char *d = p->dest_rel + strlen("content/");
        size_t n = strlen(d), top = strcspn(d, "/");
        if (n < 10 || strcmp(d + n - 10, "/_index.md") || !d[top])
            continue; /* not a folder's _index.md (the home page's is content/_index.md) */
        bool section = false;
        for (size_t k = 0; k < m->npages && !section; k++)
            section = m->pages[k]->post && !strncmp(m->pages[k]->dest_rel + strlen("content/"), d, top + 1);
        if (section)
            continue;
        p->dest_rel = arena_printf(m->a, "content/%.*s.md", (int)(n - 10), d);
        import_note_add(m, p->src_rel, 0, 0, arena_printf(m->a, "the list %s (and its feed)", p->old_url),
                        arena_printf(m->a, "made a page at %s from its text, %s: sheaf lists the pages of "
                                           "a folder only in a section (dated posts); link them from it",
                                     p->old_url, p->dest_rel));
    }
    /* a term that only lists and pages have, no post (hugoBasicExample's
     * post/_index.md has tags = ["index"]): Hugo's term page lists them;
     * sheaf's terms gather posts, so the term's old URL leads to the first
     * page that has it */
    static const char *const sheaf_default[] = { "tags" };
    const char *const *own = h.ntaxonomies ? h.taxonomies : sheaf_default;
    size_t nown = h.ntaxonomies ? h.ntaxonomies : 1;
    site_config hugo_terms = { .term_slugs_hugo = true };
    for (size_t t = 0; t < nown; t++) {
        strmap *posted = strmap_new(64), *led = strmap_new(8);
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < m->npages; i++) {
                import_page *p = m->pages[i];
                if (p->hidden || p->dropped || !p->old_url || p->post != !pass)
                    continue;
                tpl_value v = import_kv_get(p, own[t]);
                size_t n = v.kind == TPL_LIST ? v.u.list->len : v.kind == TPL_STRING ? 1 : 0;
                for (size_t k = 0; k < n; k++) {
                    tpl_value e = v.kind == TPL_LIST ? v.u.list->items[k] : v;
                    if (e.kind != TPL_STRING || !e.len)
                        continue;
                    const char *slug = site_tag_slug(&hugo_terms, m->a, e.u.s);
                    if (!pass) {
                        strmap_put(posted, slug, 1);
                        continue;
                    }
                    if (strmap_get(posted, slug) >= 0 || strmap_get(led, slug) >= 0)
                        continue; /* a post has it, or a page before this one */
                    strmap_put(led, slug, 1);
                    const char *url = arena_printf(m->a, "%s/%s/%s/", h.in_subdir ? h.in_subdir : "", own[t], slug);
                    import_alias_add(m, p, url);
                    import_note_add(m, p->src_rel, 0, 0,
                                    arena_printf(m->a, "the term page %s (%s: %s)", url, own[t], e.u.s),
                                    arena_printf(m->a, "a redirect to %s: no post has that term, and sheaf's "
                                                       "term pages list posts only",
                                                 p->old_url));
                }
            }
        strmap_free(posted);
        strmap_free(led);
    }
    /* a taxonomy no published page uses: Hugo still writes its index and
     * its feed, empty; sheaf writes them once a post has one of its terms */
    static const char *const hugo_default[] = { "tags", "categories" };
    const char *const *tx = h.ntaxonomies ? h.taxonomies : hugo_default;
    size_t ntx = h.ntaxonomies ? h.ntaxonomies : 2;
    for (size_t t = 0; t < ntx; t++) {
        bool used = false;
        for (size_t i = 0; i < m->npages && !used; i++) {
            import_page *p = m->pages[i];
            for (size_t k = 0; k < p->nkv && !used && !p->hidden; k++) {
                tpl_value v = p->kv[k].value;
                used = !strcasecmp(p->kv[k].key, tx[t]) &&
                       ((v.kind == TPL_LIST && v.u.list->len) || (v.kind == TPL_STRING && v.len));
            }
        }
        bool tags = !strcmp(tx[t], "tags"); /* sheaf makes /tags/ always */
        const char *sub = h.in_subdir ? h.in_subdir : "";
        if (!used)
            import_note_add(m, NULL, 0, 0,
                            tags ? arena_printf(m->a, "Hugo's %s/tags/index.xml, which it writes empty (no "
                                                      "page has tags)", sub)
                                 : arena_printf(m->a, "Hugo's %s/%s/ and %s/%s/index.xml, which it writes "
                                                      "empty (no page has %s)", sub, tx[t], sub, tx[t], tx[t]),
                            tags ? "not kept: sheaf writes a taxonomy's feed once a post has one of its terms"
                                 : "not kept: sheaf writes a taxonomy's index and feed once a post has one of "
                                   "its terms");
    }
    const char *sdir = import_get_str(cm, "staticdir") ? import_get_str(cm, "staticdir") : "static";
    if (!stat(import_src_path(m, sdir), &st)) {
        w.prefix = sdir;
        if (!import_src_inside(m, sdir, arena_printf(m->a, "staticDir '%s'", sdir)))
            return false;
        import_walk(m, sdir, false, visit_copy, &w);
    }
    if (!stat(import_src_path(m, "data"), &st)) {
        w.prefix = "data";
        import_walk(m, "data", true, visit_copy, &w);
        import_note_dir(h.m, "data", "copied to data/ (templates read it as site.data)");
    }
    static const char *const dirs[][2] = {
        { "layouts", "Go templates: sheaf's theme (see docs/templates.md) replaces them; shortcodes are "
                     "templates/shortcodes/NAME.html" },
        { "themes", "Hugo themes are Go templates: sheaf uses its own theme (see docs/theme.md)" },
        { "assets", "Hugo Pipes: build these files yourself and put the results in static/" },
        { "i18n", "sheaf builds one language; put the strings in templates" },
        { "archetypes", "sheaf's new posts come from templates/new-post.md" },
    };
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
        if (!stat(import_src_path(m, dirs[i][0]), &st))
            import_note_dir(h.m, dirs[i][0], dirs[i][1]);
    note_languages(&h, file ? file : "config.toml");
    return h.ok;
}

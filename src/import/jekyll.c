/* jekyll: what a Jekyll site holds, where it goes in a sheaf site, and the
 * URL Jekyll gave each page.
 *
 * _posts/ (also <dir>/_posts/) → content/posts/, _drafts/ → drafts
 * in content/posts/, Markdown pages with front matter → content/, the
 * collections of _config.yml that Jekyll writes out → content/<name>/,
 * _data/ → data/, every other file Jekyll copies → static/. Liquid pages
 * (HTML, XML with front matter), layouts, includes and Sass are listed.
 *
 * URLs follow Jekyll 4: a post's `permalink:` or the site's (a style —
 * date, pretty, ordinal, weekdate, none — or a pattern), with :year,
 * :month, :i_month, :day, :i_day, :short_year, :hour, :minute, :second,
 * :y_day, :title (the file's or `slug:`'s slug, case kept), :slug,
 * :categories (lower-cased, from `categories:`/`category:` and the folders
 * above _posts/) and :output_ext; a page's is /:path/:basename with the
 * style's ending, or its `permalink:`. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "import/internal.h"
#include "site/site.h"
#include "util/fs.h"
#include "util/text.h"
#include "util/vec.h"

typedef struct jk {
    imp *m;
    const char *permalink;  /* the site's pattern (a style expanded) */
    bool style_slash;       /* pages end in '/' (pretty, or a pattern ending in '/') */
    bool style_ext;         /* pages end in .html */
    const char **exclude;
    size_t nexclude;
    const char **include;   /* `include:`: '_' folders and files read as any other */
    size_t ninclude;
    const tpl_map *collections;
    tpl_value defaults;     /* _config.yml's `defaults:` list */
    bool pattern_kept;      /* the posts' pattern is in site.yaml's permalinks */
    bool cats_dropped;      /* ... without its :categories: a post that has
                             * some keeps its old URL as its own url: */
} jk;

/* Jekyll's Utils.slugify: runs of other characters → '-', ends trimmed;
 * pretty keeps ._~!$&'()+,;=@ too; cased keeps the case. */
static const char *jk_slugify(imp *m, const char *s, size_t n, bool pretty, bool cased)
{
    buf b = BUF_INIT;
    bool dash = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        bool keep = isalnum(c) || c >= 0x80 || (pretty && strchr("._~!$&'()+,;=@", c));
        if (keep) {
            if (dash && b.len)
                buf_putc(&b, '-');
            dash = false;
            buf_putc(&b, cased ? c : tolower(c));
        } else {
            dash = true;
        }
    }
    const char *r = arena_strdup(m->a, b.data);
    buf_release(&b);
    return r;
}

static const char *style_pattern(const char *style)
{
    static const char *const styles[][2] = {
        { "date", "/:categories/:year/:month/:day/:title:output_ext" },
        { "pretty", "/:categories/:year/:month/:day/:title/" },
        { "ordinal", "/:categories/:year/:y_day/:title:output_ext" },
        { "weekdate", "/:categories/:year/W:week/:short_day/:title:output_ext" },
        { "none", "/:categories/:title:output_ext" },
    };
    for (size_t i = 0; i < sizeof styles / sizeof *styles; i++)
        if (!strcmp(styles[i][0], style))
            return styles[i][1];
    return NULL;
}

typedef struct jk_vars {
    const sheaf_date *date; /* NULL for pages */
    const char *title, *slug, *categories, *path, *basename, *collection, *name;
} jk_vars;

/* The date placeholders of Jekyll's permalink patterns, as date_format
 * formats: the same names and formats as sheaf's (site_permalink_date),
 * which has Hugo's too, that Jekyll leaves as written. */
static const char *jk_date(const char *w, size_t k)
{
    static const char *const names[] = { "year", "month", "i_month", "day", "i_day", "short_year",
                                         "hour", "minute", "second", "y_day", "week", "w_year",
                                         "w_day", "short_month", "long_month", "short_day", "long_day",
                                         NULL };
    for (size_t i = 0; names[i]; i++)
        if (strlen(names[i]) == k && !strncmp(w, names[i], k))
            return site_permalink_date(w, k);
    return NULL;
}

/* A token of Jekyll's permalink patterns (import_expand_pattern). */
static bool jk_token(void *ctx, const char *w, size_t k, buf *b)
{
    const jk_vars *v = ctx;
#define IS(s) (k == strlen(s) && !strncmp(w, s, k))
    const sheaf_date *d = v->date;
    const char *fmt = jk_date(w, k);
    if (fmt && d)
        date_format(b, d, fmt);
    else if (IS("title") && v->title)
        buf_puts(b, v->title);
    else if (IS("slug") && v->slug)
        buf_puts(b, v->slug);
    else if (IS("name") && v->name)
        buf_puts(b, v->name);
    else if (IS("categories"))
        buf_puts(b, v->categories ? v->categories : "");
    else if (IS("output_ext"))
        buf_puts(b, ".html");
    else if (IS("path") && v->path)
        buf_puts(b, v->path);
    else if (IS("basename") && v->basename)
        buf_puts(b, v->basename);
    else if (IS("collection") && v->collection)
        buf_puts(b, v->collection);
    else
        return false;
#undef IS
    return true;
}

/* Expands a permalink pattern; '//' made '/', a leading '/' added. */
static const char *expand(imp *m, const char *pat, const jk_vars *v)
{
    return import_expand_pattern(m, pat, false, jk_token, (void *)v);
}

/* The site's post pattern as sheaf writes it, or NULL when sheaf has no
 * placeholder for one of its parts (:name …): :title
 * is sheaf's :slug, :output_ext ".html" (a pattern naming a file), the
 * date placeholders are sheaf's own (site_permalink_date). A "/:categories"
 * part is left out (*cats set); in a collection's, :collection is its
 * name and :path, :name its document's file name (:slug): empty for a post without categories, so
 * such posts keep their URL from the pattern, and each post with some is
 * given its old URL as its own. */
static const char *sheaf_pattern(imp *m, const char *pat, const char *collection, bool *cats)
{
    buf b = BUF_INIT;
    bool ok = pat[0] == '/';
    *cats = false;
    for (const char *q = pat; *q && ok;) {
        if (*q != ':') {
            buf_putc(&b, *q++);
            continue;
        }
        const char *e = q + 1;
        while (isalnum((unsigned char)*e) || *e == '_')
            e++;
        size_t k = (size_t)(e - q - 1);
        if (jk_date(q + 1, k) || (k == 4 && !strncmp(q + 1, "slug", 4))) {
            buf_put(&b, q, (size_t)(e - q));
        } else if ((k == 5 && !strncmp(q + 1, "title", 5)) ||
                   (collection && ((k == 4 && !strncmp(q + 1, "path", 4)) || (k == 4 && !strncmp(q + 1, "name", 4))))) {
            /* a document's :path and :name are its file's name where it
             * is not in a folder of the collection (else the comparison of
             * the URLs redirects it) */
            buf_puts(&b, ":slug");
        } else if (collection && k == 10 && !strncmp(q + 1, "collection", 10)) {
            buf_puts(&b, collection);
        } else if (k == 10 && !strncmp(q + 1, "output_ext", 10)) {
            buf_puts(&b, ".html");
        } else if (k == 10 && !strncmp(q + 1, "categories", 10) && b.len && b.data[b.len - 1] == '/' &&
                   (*e == '/' || !*e)) {
            *cats = true;
            buf_truncate(&b, b.len - 1);
        } else {
            ok = false;
        }
        q = e;
    }
    /* runs of '/' made one, as Jekyll's URLs are */
    buf c = BUF_INIT;
    for (size_t i = 0; i < b.len; i++)
        if (b.data[i] != '/' || !c.len || c.data[c.len - 1] != '/')
            buf_putc(&c, b.data[i]);
    if (!c.len || c.data[0] != '/')
        ok = false;
    const char *r = ok ? arena_strdup(m->a, c.data) : NULL;
    buf_release(&b);
    buf_release(&c);
    return r;
}

/* Whether sheaf takes url as a page's own `url:` ("/web dev/x/" too, as
 * Jekyll's :categories make it); else the old URL is an alias, which may
 * hold more. */
static bool url_writable(const char *url)
{
    for (const char *q = url + 1; *q;) {
        size_t n = strcspn(q, "/");
        if (!site_url_part_ok(q, n))
            return false;
        q += n + (q[n] == '/');
    }
    return true;
}

/* ---- posts -------------------------------------------------------------- */

/* The ending of a page Jekyll renders: Markdown's, or .html/.htm (an
 * HTML page or post, with front matter). 0 for anything else. */
static size_t page_ext(const char *rel)
{
    size_t e = site_markdown_ext(rel), n = strlen(rel);
    if (!e && n > 5 && !strcasecmp(rel + n - 5, ".html"))
        e = 5;
    else if (!e && n > 4 && !strcasecmp(rel + n - 4, ".htm"))
        e = 4;
    return e;
}

static bool is_html(const char *rel)
{
    return page_ext(rel) && !site_markdown_ext(rel);
}

static void note_html(imp *m, const char *rel)
{
    import_note_add(m, rel, 0, 0, "an HTML page",
                    "imported as a .md page whose text is its HTML (raw HTML passes through Markdown); "
                    "check how it renders: a blank line ends an HTML block, and indented lines after it "
                    "become code");
}

static const char *md_dest(imp *m, const char *prefix, const char *rel)
{
    size_t e = page_ext(rel);
    return arena_printf(m->a, "%s%.*s.md", prefix, (int)(strlen(rel) - e), rel);
}

static void read_body(imp *m, import_page *p, const fm_split *sp)
{
    p->body_src = arena_strndup(m->a, sp->body.ptr, sp->body.len);
    p->body_len = sp->body.len;
    p->body_line = sp->body_line;
}

/* The forms of Ruby's Time.parse that Jekyll sites hold besides YAML's:
 * "Tue Apr 19 11:53:16 -0500 2011", "Tue, 19 Apr 2011 11:53:16 -0500",
 * "April 19, 2011", "19 Apr 2011 10:00 PM UTC" — a month by name, a day, a
 * four-digit year, maybe a time and an offset, in any order (day names
 * aside). Written out as YAML's form and read by date_parse, the one rule
 * for what a date is. */
static bool ruby_date(const char *s, size_t n, sheaf_date *out)
{
    static const char *const months[] = { "jan", "feb", "mar", "apr", "may", "jun",
                                          "jul", "aug", "sep", "oct", "nov", "dec" };
    int year = 0, month = 0, day = 0, hh = -1, mm = 0, ss = 0, off = 0;
    bool zone = false, pm = false, am = false;
    size_t i = 0;
    while (i < n) {
        while (i < n && (isspace((unsigned char)s[i]) || s[i] == ','))
            i++;
        size_t j = i;
        while (j < n && !isspace((unsigned char)s[j]) && s[j] != ',')
            j++;
        const char *w = s + i;
        size_t wn = j - i;
        i = j;
        if (!wn)
            break;
        if (isalpha((unsigned char)w[0])) {
            if ((wn == 2 && !strncasecmp(w, "pm", 2)) || (wn == 2 && !strncasecmp(w, "am", 2))) {
                (w[0] | 0x20) == 'p' ? (pm = true) : (am = true);
            } else if ((wn == 3 && (!strncasecmp(w, "utc", 3) || !strncasecmp(w, "gmt", 3))) ||
                       (wn == 1 && (w[0] == 'Z' || w[0] == 'z'))) {
                zone = true;
            } else if (wn >= 3) {
                for (int k = 0; k < 12; k++)
                    if (!strncasecmp(w, months[k], 3))
                        month = k + 1; /* a day's name matches none */
            } else {
                return false;
            }
        } else if ((w[0] == '+' || w[0] == '-') && (wn == 5 || wn == 6)) {
            int h, m2;
            if (sscanf(w + 1, wn == 5 ? "%2d%2d" : "%2d:%2d", &h, &m2) != 2)
                return false;
            off = (w[0] == '-' ? -1 : 1) * (h * 60 + m2);
            zone = true;
        } else if (memchr(w, ':', wn)) {
            int k = sscanf(w, "%d:%d:%d", &hh, &mm, &ss);
            if (k < 2)
                return false;
        } else if (isdigit((unsigned char)w[0]) && wn == 4) {
            year = atoi(w);
        } else if (isdigit((unsigned char)w[0]) && wn <= 2) {
            day = atoi(w);
        } else if (isdigit((unsigned char)w[0]) && wn == 10 && w[4] == '-' && w[7] == '-') {
            year = atoi(w), month = atoi(w + 5), day = atoi(w + 8);
        } else {
            return false;
        }
    }
    if (!year || !month || !day)
        return false;
    if (hh >= 0 && pm && hh < 12)
        hh += 12;
    if (hh == 12 && am)
        hh = 0;
    char iso[64];
    int len = snprintf(iso, sizeof iso, "%04d-%02d-%02d", year, month, day);
    if (hh >= 0)
        len += snprintf(iso + len, sizeof iso - (size_t)len, " %02d:%02d:%02d", hh, mm, ss);
    if (hh >= 0 && zone)
        len += snprintf(iso + len, sizeof iso - (size_t)len, " %c%02d:%02d", off < 0 ? '-' : '+',
                        abs(off) / 60, abs(off) % 60);
    return date_parse(iso, (size_t)len, out);
}

/* Writes a Jekyll date that is a string ("2019-01-02 10:00:00 +0000",
 * "Tue Apr 19 11:53:16 -0500 2011") as a date. One that is no date Jekyll
 * would read is left as it is (and the build says so at its line). */
static void dates_as_dates(import_page *p)
{
    static const char *const keys[] = { "date", "updated", "expiry" };
    for (size_t i = 0; i < p->nkv; i++)
        for (size_t k = 0; k < 3; k++) {
            sheaf_date d;
            if (!strcmp(p->kv[i].key, keys[k]) && p->kv[i].value.kind == TPL_STRING &&
                (date_parse_loose(p->kv[i].value.u.s, p->kv[i].value.len, &d) ||
                 ruby_date(p->kv[i].value.u.s, p->kv[i].value.len, &d)))
                p->kv[i].value = site_date_value(&d);
        }
}

/* A string YAML read from "\xE2\x80\x99" escapes: libyaml takes each as a
 * character (U+00E2 U+0080 U+0099), Ruby's YAML (Jekyll's) as a byte, so
 * Jekyll showed ’. When a string holds U+0080–U+009F (control characters,
 * never text) and only characters below U+0100, and its characters taken
 * as bytes are UTF-8, those bytes are what Jekyll showed. */
static tpl_value ruby_bytes(imp *m, tpl_value v)
{
    if (v.kind == TPL_LIST) {
        tpl_list *l = tpl_list_new(m->a, v.u.list->len);
        for (size_t i = 0; i < v.u.list->len; i++)
            l->items[i] = ruby_bytes(m, v.u.list->items[i]);
        l->len = v.u.list->len;
        return tpl_list_value(l);
    }
    if (v.kind != TPL_STRING)
        return v;
    const unsigned char *s = (const unsigned char *)v.u.s;
    bool c1 = false;
    for (size_t i = 0; i < v.len; i++) {
        if (s[i] >= 0xC4)
            return v; /* a character from U+0100 on */
        if (s[i] == 0xC2 && i + 1 < v.len && s[i + 1] <= 0x9F)
            c1 = true;
    }
    if (!c1)
        return v;
    buf b = BUF_INIT;
    for (size_t i = 0; i < v.len; i++) {
        if ((s[i] == 0xC2 || s[i] == 0xC3) && i + 1 < v.len)
            buf_putc(&b, (char)(((s[i] & 0x03) << 6) | (s[i + 1] & 0x3F))), i++;
        else
            buf_putc(&b, (char)s[i]);
    }
    if (text_utf8_check(b.data, b.len) == (size_t)-1)
        v = tpl_str_copy(m->a, b.data, b.len);
    buf_release(&b);
    return v;
}

static void ruby_strings(imp *m, import_page *p)
{
    for (size_t i = 0; i < p->nkv; i++)
        p->kv[i].value = ruby_bytes(m, p->kv[i].value);
}

/* Jekyll's front-matter defaults: the values of every `defaults:` entry
 * whose scope (a path prefix, a type: posts, drafts, pages or a
 * collection) takes the file, earlier entries first, mapped before the
 * page's own front matter so that its keys win. Returns the permalink they
 * give, or NULL. */
static const char *apply_defaults(jk *j, import_page *p, const char *rel, const char *type)
{
    imp *m = j->m;
    const char *permalink = NULL;
    for (size_t i = 0; j->defaults.kind == TPL_LIST && i < j->defaults.u.list->len; i++) {
        tpl_value e = j->defaults.u.list->items[i];
        if (e.kind != TPL_MAP)
            continue;
        tpl_value scope = import_get(e.u.map, "scope"), values = import_get(e.u.map, "values");
        const char *path = scope.kind == TPL_MAP ? import_get_str(scope.u.map, "path") : NULL;
        const char *t = scope.kind == TPL_MAP ? import_get_str(scope.u.map, "type") : NULL;
        if (path) {
            while (*path == '/' || (*path == '.' && path[1] == '/'))
                path += *path == '.' ? 2 : 1;
            size_t n = strlen(path);
            while (n && path[n - 1] == '/')
                n--;
            if (n && (strncmp(rel, path, n) || (rel[n] != '/' && rel[n] != '\0')))
                continue;
        }
        if (t && strcmp(t, type))
            continue;
        if (values.kind != TPL_MAP)
            continue;
        /* what they would note is _config.yml's */
        const char *src = p->src_rel;
        p->src_rel = "_config.yml";
        import_map_front_matter(m, p, values.u.map, NULL, 0, true);
        p->src_rel = src;
        const char *pl = import_get_str(values.u.map, "permalink");
        if (pl)
            permalink = pl;
    }
    return permalink;
}

/* rel: "_posts/x/2019-01-02-a.md", "cat/_posts/…", "_drafts/a.md" */
static bool post(jk *j, const char *rel, bool draft)
{
    imp *m = j->m;
    fm_split sp;
    tpl_value fm;
    fm_key_pos *pos = NULL;
    size_t npos = 0;
    buf text = BUF_INIT;
    bool ok = import_read_page(m, rel, &sp, &fm, &pos, &npos, &text);
    if (!ok) {
        buf_release(&text);
        return false;
    }
    const char *special = draft ? "_drafts/" : "_posts/";
    const char *at = strstr(rel, special);
    const char *under = at + strlen(special);
    const char *base = strrchr(rel, '/') + 1;
    size_t stem = strlen(base) - page_ext(base);
    sheaf_date d = { 0 };
    size_t dp = date_parse_prefix(base, stem, &d);
    if (!dp && !draft) {
        import_note_add(m, rel, 0, 0, "a post whose file name has no YYYY-MM-DD- date",
                     "Jekyll skipped it too; rename it to import it");
        buf_release(&text);
        return true;
    }
    import_page *p = import_add_page(m);
    p->src_rel = rel;
    p->post = true;
    p->post_name = arena_strndup(m->a, under, (size_t)(base - under) + stem);
    /* posts/<the folders under _posts>/<file>.md; posts above _posts keep their folder */
    buf dest = BUF_INIT;
    buf_puts(&dest, "content/posts/");
    if (at > rel)
        buf_put(&dest, rel, (size_t)(at - rel));
    p->dest_rel = md_dest(m, dest.data, under);
    buf_release(&dest);
    const tpl_map *map = fm.kind == TPL_MAP ? fm.u.map : NULL;
    const char *default_permalink = apply_defaults(j, p, rel, draft ? "drafts" : "posts");
    import_map_front_matter(m, p, map, pos, npos, true);
    ruby_strings(m, p);
    dates_as_dates(p);
    read_body(m, p, &sp);
    if (draft) {
        p->hidden = true;
        m->ndrafts++;
        import_kv_set(m, p, "draft", tpl_bool(true));
        if (import_kv_get(p, "date").kind == TPL_UNDEFINED && !dp) {
            /* Jekyll dates a draft by its file's time */
            struct stat st;
            if (!stat(import_src_path(m, rel), &st)) {
                sheaf_date md = { (int64_t)st.st_mtime, 0, false, false };
                md.t -= md.t % 86400;
                import_kv_set(m, p, "date", site_date_value(&md));
            }
        }
    }
    tpl_value dv = import_kv_get(p, "date");
    if (dv.kind != TPL_UNDEFINED)
        tpl_value_as_date(dv, &d);
    /* the slug and categories Jekyll's URL reads */
    const char *slugsrc = import_get_str(map, "slug");
    const char *title_part = base + dp;
    size_t tn = stem - dp;
    if (!slugsrc)
        slugsrc = arena_strndup(m->a, title_part, tn);
    /* the post's categories, as Jekyll has them: the folders above _posts,
     * then the front matter's (import_jekyll_terms), each once */
    tpl_value fmc = import_kv_get(p, "categories");
    size_t nfm = fmc.kind == TPL_LIST ? fmc.u.list->len : 0;
    const char **names = arena_alloc(m->a, (strlen(rel) + nfm + 1) * sizeof *names);
    size_t nn = 0;
    for (const char *q = rel; q < at; q++) {
        size_t k = strcspn(q, "/");
        names[nn++] = arena_strndup(m->a, q, k);
        q += k;
    }
    size_t npath = nn;
    for (size_t i = 0; i < nfm; i++) {
        const char *c = fmc.u.list->items[i].u.s;
        size_t k = 0;
        while (k < nn && strcmp(names[k], c))
            k++;
        if (k == nn)
            names[nn++] = c;
    }
    if (npath) {
        tpl_list *l = tpl_list_new(m->a, nn);
        for (size_t i = 0; i < nn; i++)
            l->items[i] = tpl_str(names[i]);
        l->len = nn;
        import_kv_set(m, p, "categories", tpl_list_value(l));
    }
    /* in the URL lower-cased, each once (Jekyll's :categories) */
    buf cats = BUF_INIT;
    const char **seen = arena_alloc(m->a, (nn + 1) * sizeof *seen);
    size_t nseen = 0;
    for (size_t i = 0; i < nn; i++) {
        buf low = BUF_INIT;
        for (const char *c = names[i]; *c; c++)
            buf_putc(&low, tolower((unsigned char)*c));
        size_t k = 0;
        while (k < nseen && strcmp(seen[k], low.data))
            k++;
        if (k == nseen) {
            seen[nseen++] = arena_strdup(m->a, low.data);
            if (cats.len)
                buf_putc(&cats, '/');
            buf_put(&cats, low.data, low.len);
        }
        buf_release(&low);
    }
    jk_vars v = { &d, jk_slugify(m, slugsrc, strlen(slugsrc), true, true),
                  jk_slugify(m, slugsrc, strlen(slugsrc), false, false), cats.data, NULL, NULL, NULL, NULL };
    const char *own = import_get_str(map, "permalink");
    if (!own)
        own = default_permalink;
    const char *url = expand(m, own ? own : j->permalink, &v);
    /* a post with categories where the pattern has them: sheaf's pattern
     * left them out, the post keeps its URL as its own */
    if (own || (j->cats_dropped && cats.len && url_writable(url)))
        import_kv_set(m, p, "url", tpl_str(url));
    else if (j->pattern_kept && !import_get_str(map, "slug") && strcmp(v.title, v.slug) &&
             strstr(j->permalink, ":title") && site_url_part_safe(v.title, strlen(v.title)))
        /* Jekyll's :title keeps the file name's case and more signs than
         * sheaf's slug: written as the slug, sheaf's URL is the old one */
        import_kv_set(m, p, "slug", tpl_str(v.title));
    if (!p->hidden)
        p->old_url = url;
    buf_release(&cats);
    buf_release(&text);
    return true;
}

/* ---- pages ------------------------------------------------------------ */

/* A term's listing page, as Jekyll themes make them (tag/go.md: a layout,
 * `tag: go`, no text; the layout lists the posts): sheaf makes each term's
 * page itself (/tags/go/), so it is not imported — it would be an empty
 * page in the site's pages. Listed, with where the term's page is now. */
static void term_page(imp *m, import_page *p, const tpl_map *fm)
{
    if (!fm || import_get(fm, "layout").kind != TPL_STRING)
        return;
    for (size_t i = 0; i < p->body_len; i++)
        if (!isspace((unsigned char)p->body_src[i]))
            return;
    static const char *const keys[][2] = { { "tag", "tags" }, { "category", "categories" } };
    for (size_t k = 0; k < 2; k++) {
        const char *term = import_get_str(fm, keys[k][0]);
        if (!term)
            continue;
        p->dropped = true;
        const char *to = arena_printf(m->a, "%s%s/%s/", m->base_path, keys[k][1], site_tag_slug(NULL, m->a, term));
        if (p->old_url) {
            /* the old address redirects to sheaf's page of the term */
            import_redirect_file(m, p->src_rel, p->old_url + 1, to);
            m->nredirected++;
        }
        import_note_add(m, p->src_rel, 0, 0, arena_printf(m->a, "a listing of the %s '%s'", keys[k][0], term),
                        arena_printf(m->a, "not imported: sheaf makes each term's page itself, at %s%s", to,
                                     p->old_url ? arena_printf(m->a, " (the old %s redirects there: a file "
                                                               "of static/)", p->old_url) : ""));
        return;
    }
}

static bool jk_page(jk *j, const char *rel, const char *collection)
{
    imp *m = j->m;
    fm_split sp;
    tpl_value fm;
    fm_key_pos *pos = NULL;
    size_t npos = 0;
    buf text = BUF_INIT;
    if (!import_read_page(m, rel, &sp, &fm, &pos, &npos, &text)) {
        buf_release(&text);
        return false;
    }
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    size_t stem = strlen(base) - page_ext(base);
    const char *dir = arena_strndup(m->a, rel, (size_t)(base - rel));
    bool index = stem == 5 && !strncmp(base, "index", 5);
    if (index && !*dir) {
        import_note_add(m, rel, 0, 0, "the home page",
                     "sheaf makes / itself from its index.html template; its text was not imported "
                     "(put it in templates/index.html)");
        buf_release(&text);
        return true;
    }
    import_page *p = import_add_page(m);
    p->src_rel = rel;
    const tpl_map *map = fm.kind == TPL_MAP ? fm.u.map : NULL;
    const char *default_permalink = apply_defaults(j, p, rel, collection ? collection : "pages");
    import_map_front_matter(m, p, map, pos, npos, true);
    ruby_strings(m, p);
    dates_as_dates(p);
    read_body(m, p, &sp);
    const char *own = import_get_str(map, "permalink");
    if (!own)
        own = default_permalink;
    const char *stemv = arena_strndup(m->a, base, stem);
    if (collection) {
        /* _name/a/b.md: content/name/a/b.md, URL /:collection/:path… */
        const char *in = rel + strlen(collection) + 2;
        p->dest_rel = md_dest(m, arena_printf(m->a, "content/%s/", collection), in);
        const char *pattern = NULL;
        tpl_value c = import_get(j->collections, collection);
        if (c.kind == TPL_MAP)
            pattern = import_get_str(c.u.map, "permalink");
        if (!own)
            own = pattern ? pattern : "/:collection/:path:output_ext";
        /* Jekyll dates an undated document by the build's time (site.time);
         * its file's day stands in for it, so that a pattern's :year has a
         * value, and dates it if the collection holds dated ones (sheaf
         * needs every document of a section of posts dated) */
        sheaf_date d = { 0 }, *dp = NULL;
        tpl_value dv = import_kv_get(p, "date");
        struct stat st;
        p->collection = collection;
        if (dv.kind != TPL_UNDEFINED && tpl_value_as_date(dv, &d)) {
            dp = &d;
        } else if (!stat(import_src_path(m, rel), &st)) {
            d = (sheaf_date){ (int64_t)st.st_mtime - (int64_t)st.st_mtime % 86400, 0, false, false };
            dp = &d;
            buf day = BUF_INIT;
            date_format(&day, &d, "%Y-%m-%d");
            p->file_date = arena_strdup(m->a, day.data);
            buf_release(&day);
        }
        jk_vars v = { dp, jk_slugify(m, stemv, stem, true, true), jk_slugify(m, stemv, stem, false, false),
                      NULL, arena_strndup(m->a, in, strlen(in) - page_ext(in)), stemv, collection,
                      stemv };
        p->old_url = expand(m, own, &v);
    } else {
        p->dest_rel = md_dest(m, "content/", rel);
        const char *d0 = *dir ? arena_strndup(m->a, dir, strlen(dir) - 1) : "";
        jk_vars v = { NULL, jk_slugify(m, stemv, stem, true, true), jk_slugify(m, stemv, stem, false, false),
                      NULL, d0, stemv, NULL, stemv };
        const char *tmpl = own ? own : index ? "/:path/" : j->style_slash ? "/:path/:basename/"
                                   : j->style_ext ? "/:path/:basename:output_ext" : "/:path/:basename";
        p->old_url = expand(m, tmpl, &v);
        if (own)
            import_kv_set(m, p, "url", tpl_str(p->old_url));
    }
    if (p->hidden) {
        p->hidden_url = p->old_url;
        p->old_url = NULL;
    }
    term_page(m, p, map);
    buf_release(&text);
    return true;
}

/* ---- the walk ---------------------------------------------------------- */

typedef struct walk {
    jk *j;
    bool ok;
} walk;

static bool has_front_matter(imp *m, const char *rel)
{
    buf h = BUF_INIT;
    bool ok = fs_read_head(import_src_path(m, rel), 5, &h);
    const char *b = h.data;
    ok = ok && h.len >= 4 && !strncmp(b, "---", 3) && (b[3] == '\n' || (b[3] == '\r' && h.len > 4 && b[4] == '\n'));
    buf_release(&h);
    return ok;
}

/* Whether SRC/rel, a file with front matter, is a feed a Liquid template
 * makes (feed.xml with an <rss> or <feed> element). */
static bool liquid_feed(imp *m, const char *rel)
{
    size_t n = strlen(rel);
    if (n < 4 || strcmp(rel + n - 4, ".xml"))
        return false;
    buf h = BUF_INIT;
    bool ok = fs_read_head(import_src_path(m, rel), 4096, &h);
    ok = ok && (strstr(h.data, "<rss") || strstr(h.data, "<feed"));
    buf_release(&h);
    return ok;
}

static bool excluded_by(const char *rel, const char *x)
{
    while (*x == '/')
        x++;
    size_t n = strlen(x);
    while (n && x[n - 1] == '/')
        n--;
    return n && !strncmp(rel, x, n) && (rel[n] == '\0' || rel[n] == '/');
}

/* What Jekyll never copies, and the site's own `exclude:` */
static bool excluded(jk *j, const char *rel)
{
    static const char *const always[] = { "_site", "Gemfile", "Gemfile.lock", "node_modules", "vendor",
                                          "_config.yml", "_config.yaml", "_config.toml", NULL };
    for (size_t i = 0; always[i]; i++)
        if (excluded_by(rel, always[i]))
            return true;
    for (size_t i = 0; i < j->nexclude; i++)
        if (excluded_by(rel, j->exclude[i]))
            return true;
    return false;
}

static void visit(void *ctx, const char *rel)
{
    walk *w = ctx;
    jk *j = w->j;
    imp *m = j->m;
    if (excluded(j, rel))
        return;
    const char *r = arena_strdup(m->a, rel);
    size_t first = strcspn(r, "/");
    bool md = site_markdown_ext(r) > 0;
    bool html = is_html(r) && has_front_matter(m, r);
    if (strstr(r, "_posts/") == r || strstr(r, "/_posts/")) {
        if (md || html)
            w->ok &= post(j, r, false);
        if (html)
            note_html(m, r);
        if (!md && !html)
            import_add_file(m, r, arena_printf(m->a, "static/%s", r), NULL),
            import_note_add(m, r, 0, 0, "a file in _posts/", "copied to static/; link it from there");
        return;
    }
    if (!strncmp(r, "_drafts/", 8)) {
        if (md || html)
            w->ok &= post(j, r, true);
        return;
    }
    bool included = false;
    for (size_t i = 0; i < j->ninclude && !included; i++)
        included = excluded_by(r, j->include[i]);
    /* Jekyll skips every file and folder whose name starts with '_' below
     * the top too (docs/_layouts/, a collection's _tabs/_archives.md),
     * unless `include:` names it */
    const char *under = NULL;
    for (const char *q = r + first; *q && !under; q++)
        if (q[0] == '/' && q[1] == '_')
            under = q + 1;
    if (under && !included && strchr(under, '/')) {
        import_note_dir(m, arena_strndup(m->a, r, (size_t)(strchr(under, '/') - r)),
                        "Jekyll skips a folder whose name starts with '_' (unless `include:` names it): not "
                        "imported");
        return;
    }
    if (under && !included) {
        import_note_add(m, r, 0, 0, "file",
                        "Jekyll skips a name that starts with '_' (unless `include:` names it): not imported");
        return;
    }
    if (included) {
        if ((md && has_front_matter(m, r)) || html)
            w->ok &= jk_page(j, r, NULL);
        else
            import_add_file(m, r, arena_printf(m->a, "static/%s", r), arena_printf(m->a, "/%s", r));
        if (html)
            note_html(m, r);
        return;
    }
    if (r[0] == '_' && !r[first]) { /* a file: another _config, a _notes.txt */
        import_note_add(m, r, 0, 0, "file",
                        "Jekyll skips a name that starts with '_' (a second _config.yml is read "
                        "only with --config): not imported");
        return;
    }
    if (r[0] == '_') {
        const char *dir = arena_strndup(m->a, r, first);
        if (!strcmp(dir, "_data")) {
            import_add_file(m, r, arena_printf(m->a, "data/%s", r + 6), NULL);
            import_note_dir(j->m, dir, "copied to data/ (templates read it as site.data)");
        } else if (!strcmp(dir, "_layouts") || !strcmp(dir, "_includes")) {
            import_note_dir(j->m, dir, "Liquid templates: sheaf's theme (Jinja2-like, see docs/templates.md) "
                             "replaces them; copy what you need into templates/");
        } else if (!strcmp(dir, "_sass")) {
            import_note_dir(j->m, dir, "Sass: compile it to CSS and put the CSS in static/");
        } else if (!strcmp(dir, "_plugins")) {
            import_note_dir(j->m, dir, "Ruby plugins: sheaf runs none");
        } else if (j->collections && import_get(j->collections, dir + 1).kind != TPL_UNDEFINED) {
            tpl_value c = import_get(j->collections, dir + 1);
            bool output = c.kind == TPL_MAP && tpl_value_truthy(import_get(c.u.map, "output"));
            if (output && md && has_front_matter(m, r))
                w->ok &= jk_page(j, r, dir + 1);
            else if (output && !md)
                import_add_file(m, r, arena_printf(m->a, "static/%s", r + first + 1),
                             arena_printf(m->a, "/%s", r + first + 1));
            else
                import_note_dir(j->m, dir, "a collection Jekyll does not write out (output: false): not imported; "
                                 "its documents are data for templates");
        } else {
            import_note_dir(j->m, dir, "Jekyll reads no such folder (not a collection): not imported");
        }
        return;
    }
    if (md && has_front_matter(m, r)) {
        w->ok &= jk_page(j, r, NULL);
        return;
    }
    if (html && strcmp(r, "index.html") && strcmp(r, "404.html")) {
        w->ok &= jk_page(j, r, NULL);
        note_html(m, r);
        return;
    }
    if (has_front_matter(m, r)) {
        const char *base = strrchr(r, '/') ? strrchr(r, '/') + 1 : r;
        const char *todo;
        if (!strcmp(r, "index.html"))
            todo = "the home page: sheaf makes it from its index.html template";
        else if (!strcmp(r, "404.html"))
            todo = "the 404 page: sheaf makes it from its 404.html template";
        else if (!strcmp(r, "atom.xml") || !strcmp(base, "sitemap.xml"))
            todo = "sheaf writes its feed and sitemap itself";
        else if (liquid_feed(m, r) && (!m->feed_url || !strcmp(m->feed_url + 1, r))) {
            /* a feed a Liquid template made: sheaf's feed is written there */
            m->feed_url = arena_printf(m->a, "/%s", r);
            todo = arena_printf(m->a, "a Liquid feed: sheaf writes its own Atom feed at /%s instead", r);
        } else if (!strcmp(base, "feed.xml"))
            todo = "sheaf writes its feed itself (at /atom.xml and the old site's first feed)";
        else if (strstr(base, ".scss") || strstr(base, ".sass"))
            todo = "Sass: compile it to CSS and put the CSS in static/";
        else
            todo = "a Liquid page: sheaf does not run templates in pages; make it a Markdown page, or a "
                   "template and an `outputs:` entry in site.yaml";
        import_note_add(m, r, 1, 1, "a file with front matter that is not Markdown", todo);
        return;
    }
    import_add_file(m, r, arena_printf(m->a, "static/%s", r), arena_printf(m->a, "/%s", r));
}

import_page *import_jekyll_post_url(imp *m, const char *name, size_t n)
{
    for (size_t i = 0; i < m->npages; i++) {
        const import_page *p = m->pages[i];
        if (!p->post_name)
            continue;
        size_t pn = strlen(p->post_name);
        const char *b = strrchr(p->post_name, '/');
        b = b ? b + 1 : p->post_name;
        /* "2019-01-02-a", or with its folder under _posts: "cat/2019-…" */
        if ((pn == n && !strncmp(p->post_name, name, n)) || (strlen(b) == n && !strncmp(b, name, n)))
            return m->pages[i];
    }
    return NULL;
}

/* ---- _config.yml ------------------------------------------------------- */

static void settings(jk *j, const tpl_map *c)
{
    imp *m = j->m;
    buf *y = &m->site_yaml;
    m->old_config = c; /* math.c reads its math settings */
    buf_puts(y, "# site.yaml: made by `sheaf import jekyll` from _config.yml\n");
    tpl_value v;
    if ((v = import_get(c, "title")).kind == TPL_STRING)
        import_yaml_kv(y, 0, "title", v);
    if ((v = import_get(c, "description")).kind == TPL_STRING)
        import_yaml_kv(y, 0, "description", v);
    v = import_get(c, "author");
    if (v.kind == TPL_MAP)
        v = import_get(v.u.map, "name");
    if (v.kind == TPL_STRING)
        import_yaml_kv(y, 0, "author", v);
    const char *url = import_get_str(c, "url"), *baseurl = import_get_str(c, "baseurl");
    buf b = BUF_INIT;
    if (url) {
        buf_puts(&b, url);
        while (b.len && b.data[b.len - 1] == '/')
            buf_truncate(&b, b.len - 1);
    }
    if (baseurl && *baseurl) {
        if (baseurl[0] != '/')
            buf_putc(&b, '/');
        buf_puts(&b, baseurl);
        m->base_path = arena_printf(m->a, "%s%s/", baseurl[0] == '/' ? "" : "/", baseurl);
        while (strlen(m->base_path) > 1 && m->base_path[strlen(m->base_path) - 2] == '/')
            m->base_path = arena_strndup(m->a, m->base_path, strlen(m->base_path) - 1);
    }
    if (b.len && b.data[b.len - 1] != '/')
        buf_putc(&b, '/');
    if (b.len) {
        import_yaml_kv(y, 0, "base_url", tpl_str(arena_strdup(m->a, b.data)));
        if (url)
            m->base_url = arena_strdup(m->a, b.data);
    }
    buf_release(&b);
    v = import_get(c, "lang");
    if (v.kind != TPL_STRING)
        v = import_get(c, "locale");
    if (v.kind == TPL_STRING)
        import_yaml_kv(y, 0, "language", v);
    if ((v = import_get(c, "paginate")).kind == TPL_INT && v.u.i > 0)
        import_yaml_kv(y, 0, "paginate", v);
    buf_puts(y, "# Jekyll keeps a slug: as written\nslugs: keep\n");
    /* kramdown (Jekyll's, unless `markdown:` names another) passes HTML
     * through and makes “quotes”, dashes and ellipses */
    const char *md = import_get_str(c, "markdown");
    bool kramdown = !md || !strcasecmp(md, "kramdown");
    buf_printf(y, "# %s passes HTML written in Markdown through\nmarkdown:\n  unsafe: true\n%s",
               kramdown ? "kramdown" : md, kramdown ? "  smart: true              # kramdown's “quotes”, – — …\n" : "");
    /* the permalink style */
    const char *pl = import_get_str(c, "permalink");
    if (!pl)
        pl = "date";
    const char *st = style_pattern(pl);
    j->permalink = st ? st : pl;
    size_t pn = strlen(j->permalink);
    j->style_slash = j->permalink[pn - 1] == '/';
    j->style_ext = st ? strcmp(pl, "pretty") != 0 : (pn >= 11 && !strcmp(j->permalink + pn - 11, ":output_ext"));
    const char *sheaf_pat = sheaf_pattern(m, j->permalink, NULL, &j->cats_dropped);
    if (sheaf_pat) {
        buf_puts(y, "permalinks:\n");
        import_yaml_kv(y, 2, "posts", tpl_str(sheaf_pat));
        j->pattern_kept = true;
    }
    /* each collection written out, at its pattern */
    tpl_value cv = import_get(c, "collections");
    for (size_t i = 0; cv.kind == TPL_MAP && i < cv.u.map->len; i++) {
        tpl_value k = cv.u.map->entries[i].key, e = cv.u.map->entries[i].value;
        if (k.kind != TPL_STRING || e.kind != TPL_MAP || !tpl_value_truthy(import_get(e.u.map, "output")) ||
            !strcmp(k.u.s, "posts") || site_section_name_problem(k.u.s))
            continue;
        const char *cp = import_get_str(e.u.map, "permalink");
        bool cats;
        cp = sheaf_pattern(m, cp ? cp : "/:collection/:path:output_ext", k.u.s, &cats);
        if (!cp || cats)
            continue;
        if (!sheaf_pat) {
            buf_puts(y, "permalinks:\n");
            sheaf_pat = cp;
        }
        import_yaml_kv(y, 2, k.u.s, tpl_str(cp));
    }
    /* plugins */
    const char **plugins;
    size_t np = import_names(m, import_get(c, "plugins"), false, &plugins);
    if (!np)
        np = import_names(m, import_get(c, "gems"), false, &plugins);
    for (size_t i = 0; i < np; i++) {
        const char *p = plugins[i];
        if (!strcmp(p, "jekyll-feed")) {
            const char *path = NULL;
            tpl_value f = import_get(c, "feed");
            if (f.kind == TPL_MAP)
                path = import_get_str(f.u.map, "path");
            m->feed_url = arena_printf(m->a, "/%s", path ? path + (path[0] == '/') : "feed.xml");
        } else if (!strcmp(p, "jekyll-paginate")) {
            /* the home page's page N at paginate_path (Jekyll's default
             * /page:num): sheaf's lists are paginated there too */
            const char *pp = import_get_str(c, "paginate_path");
            if ((v = import_get(c, "paginate")).kind == TPL_INT && v.u.i > 0)
                import_paginate_path(m, "_config.yml",
                                     pp ? arena_printf(m->a, "paginate_path: %s", pp)
                                        : "jekyll-paginate (paginate_path /page:num)",
                                     pp ? pp : "/page:num");
        } else if (!strcmp(p, "jekyll-sitemap") || !strcmp(p, "jekyll-seo-tag") ||
                   !strcmp(p, "jekyll-redirect-from") || !strcmp(p, "jekyll-last-modified-at")) {
            /* sheaf does these itself */
        } else {
            import_note_add(m, "_config.yml", 0, 0, arena_printf(m->a, "plugin %s", p),
                         "sheaf runs no plugins; see what it did and do it by hand");
        }
    }
    if ((v = import_get(c, "timezone")).kind == TPL_STRING)
        import_note_add(m, "_config.yml", 0, 0, arena_printf(m->a, "timezone: %s", v.u.s),
                     "sheaf shows each date in the offset it is written with; write offsets in dates "
                     "(2019-01-02 10:00:00 +0100) where the day matters");
    j->collections = (v = import_get(c, "collections")).kind == TPL_MAP ? v.u.map : NULL;
    j->defaults = import_get(c, "defaults");
    import_comment_anchors(m, c);
    import_comment_anchors_in(m, "_includes");
    import_comment_anchors_in(m, "_layouts");
    j->nexclude = import_names(m, import_get(c, "exclude"), false, &j->exclude);
    j->ninclude = import_names(m, import_get(c, "include"), false, &j->include);
}

/* A collection holding dated documents is a section of posts in sheaf,
 * where each needs a date: its undated ones get their file's day (Jekyll
 * gave them the build's time), each listed. */
static void date_documents(imp *m)
{
    for (size_t i = 0; i < m->npages; i++) {
        import_page *p = m->pages[i];
        if (!p->file_date)
            continue;
        bool dated = false;
        for (size_t k = 0; k < m->npages && !dated; k++)
            dated = m->pages[k]->collection && !m->pages[k]->file_date &&
                    !strcmp(m->pages[k]->collection, p->collection);
        if (!dated)
            continue;
        sheaf_date d;
        date_parse(p->file_date, strlen(p->file_date), &d);
        import_kv_set(m, p, "date", site_date_value(&d));
        import_note_add(m, p->src_rel, 0, 0, "a document without a date",
                        arena_printf(m->a, "dated %s, its file's day (Jekyll dated it by the time of each build; "
                                     "sheaf needs a date for every post of a section): change `date:` if "
                                     "another day is right", p->file_date));
    }
}

/* SRC/dir as the source folder from now on (Jekyll's `source:`, or the
 * folder of a repository that holds the site): false (said) when it is
 * not a folder inside SRC. */
static bool move_source(imp *m, const char *dir, const char *why)
{
    struct stat st;
    const char *path = import_src_path(m, dir);
    if (!import_src_inside(m, dir, arena_printf(m->a, "the source folder %s", dir)))
        return false;
    if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
        diag_error(m->d, import_src_path(m, "_config.yml"), 0, 0, "source: %s is not a folder", dir);
        return false;
    }
    import_options *o = arena_alloc(m->a, sizeof *o);
    *o = *m->o;
    o->src = path;
    m->o = o;
    import_note_add(m, NULL, 0, 0, arena_printf(m->a, "the site's files are in %s/", dir), why);
    return true;
}

/* The one folder of SRC (docs/, site/ …) that holds a _config.yml, when
 * SRC itself holds none: a repository whose site is in a folder. */
static const char *site_folder(imp *m)
{
    DIR *d = opendir(m->o->src);
    if (!d)
        return NULL;
    const char *found = NULL;
    int n = 0;
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || e->d_name[0] == '_')
            continue;
        const char *cfg = import_src_path(m, arena_printf(m->a, "%s/_config.yml", e->d_name));
        if (!lstat(cfg, &st) && S_ISREG(st.st_mode)) {
            found = arena_strdup(m->a, e->d_name);
            n++;
        }
    }
    closedir(d);
    return n == 1 ? found : NULL;
}

bool import_jekyll_collect(imp *m)
{
    jk j = { 0 };
    j.m = m;
    tpl_value c = tpl_undefined();
    struct stat st;
    bool has_config = !stat(import_src_path(m, "_config.yml"), &st);
    if (!has_config && stat(import_src_path(m, "_posts"), &st)) {
        const char *sub = site_folder(m);
        if (!sub) {
            diag_error(m->d, m->o->src, 0, 0, "not a Jekyll site: no _config.yml and no _posts/ folder");
            return false;
        }
        if (!move_source(m, sub, arena_printf(m->a, "imported from there: the only _config.yml is %s/'s", sub)))
            return false;
        has_config = true;
    }
    if (has_config && !import_read_config(m, "_config.yml", &c))
        return false;
    const char *source = c.kind == TPL_MAP ? import_get_str(c.u.map, "source") : NULL;
    if (source) {
        size_t n = strlen(source);
        while (n && source[n - 1] == '/')
            n--;
        const char *dir = arena_strndup(m->a, source + (source[0] == '.' && source[1] == '/') * 2,
                                        n - (source[0] == '.' && source[1] == '/') * 2);
        if (*dir && strcmp(dir, ".") &&
            !move_source(m, dir, arena_printf(m->a, "imported from there, as Jekyll reads them (_config.yml's "
                                              "source: %s)", source)))
            return false;
    }
    settings(&j, c.kind == TPL_MAP ? c.u.map : NULL);
    walk w = { &j, true };
    if (!import_walk(m, "", true, visit, &w)) {
        diag_error(m->d, m->o->src, 0, 0, "cannot read the folder: %s", strerror(errno));
        return false;
    }
    date_documents(m);
    return w.ok;
}

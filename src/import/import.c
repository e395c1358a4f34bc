/* import: the run of `sheaf import` — check SRC and DEST, let jekyll.c or
 * hugo.c collect the site (pages with the URL the old generator gave
 * them, files, settings; the model, model.c; reading the source,
 * source.c), convert every body (body.c), write the new site, read it
 * back through site/ to learn the URL sheaf gives each page, add an alias
 * wherever that differs from the old one, and write the report.
 *
 * Nothing is ever written below SRC: DEST may not be SRC, lie inside it or
 * hold it. A DEST that is not empty is refused unless --force, which
 * empties it first; DEST is made (or emptied) only once the whole source
 * was read without an error. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "import/internal.h"
#include "site/site.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/strmap.h"
#include "util/text.h"
#include "util/vec.h"
#include "util/xalloc.h"

/* ---- writing ---------------------------------------------------------- */

static int key_rank(const char *k)
{
    static const char *const order[] = { "title", "date", "updated", "expiry", "draft", "slug", "url",
                                         "summary", "description", "tags", "categories", NULL };
    for (int i = 0; order[i]; i++)
        if (!strcmp(order[i], k))
            return i;
    return 100;
}

static void page_text(imp *m, const import_page *p, buf *out)
{
    (void)m;
    buf_puts(out, "---\n");
    for (int pass = 0; pass <= 100; pass++)
        for (size_t i = 0; i < p->nkv; i++)
            if (key_rank(p->kv[i].key) == pass) {
                if (pass == 100 && strspn(p->kv[i].key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                        "0123456789_-") != strlen(p->kv[i].key)) {
                    import_yaml_string(out, p->kv[i].key, strlen(p->kv[i].key));
                    buf_puts(out, ": ");
                    import_yaml_value(out, p->kv[i].value);
                    buf_putc(out, '\n');
                } else {
                    import_yaml_kv(out, 0, p->kv[i].key, p->kv[i].value);
                }
            }
    if (p->naliases) {
        buf_puts(out, "aliases:\n");
        for (size_t i = 0; i < p->naliases; i++) {
            buf_puts(out, "  - ");
            import_yaml_string(out, p->aliases[i], strlen(p->aliases[i]));
            buf_putc(out, '\n');
        }
    }
    buf_puts(out, "---\n");
    buf_put(out, p->body.data, p->body.len);
}

static bool write_at(imp *m, const char *rel, const void *data, size_t len)
{
    char *path = fs_join(m->o->dest, rel);
    char *slash = strrchr(path, '/');
    bool ok = true;
    if (slash) {
        *slash = '\0';
        ok = fs_mkdirs(path);
        *slash = '/';
    }
    if (!ok || !fs_write_file(path, data, len)) {
        diag_error(m->d, path, 0, 0, "cannot write: %s", strerror(errno));
        ok = false;
    }
    free(path);
    return ok;
}

static bool write_page(imp *m, const import_page *p)
{
    buf b = BUF_INIT;
    page_text(m, p, &b);
    bool ok = write_at(m, p->dest_rel, b.data, b.len);
    buf_release(&b);
    return ok;
}

static bool copy_file(imp *m, const import_file *f)
{
    char *to = fs_join(m->o->dest, f->dest_rel);
    char *slash = strrchr(to, '/');
    *slash = '\0';
    bool ok = fs_mkdirs(to);
    *slash = '/';
    if (ok && f->text) {
        free(to);
        return write_at(m, f->dest_rel, f->text, strlen(f->text));
    }
    if (ok && !fs_within(m->src_real, import_src_path(m, f->src_rel))) {
        errno = FS_EOUTSIDE; /* a link swapped since the walk */
        ok = false;
    }
    if (!ok || !fs_copy_file(import_src_path(m, f->src_rel), to)) {
        diag_error(m->d, import_src_path(m, f->src_rel), 0, 0, "cannot copy to %s: %s", to, import_src_strerror(errno));
        ok = false;
    }
    free(to);
    return ok;
}

/* ---- the old URLs ----------------------------------------------------- */

/* The output file a URL is served from: "/a/" → "a/index.html",
 * "/a.html" → "a.html", "/a" → "a/index.html" (site_alias_output's rule). */
static const char *url_output(imp *m, const char *url)
{
    while (*url == '/')
        url++;
    /* Jekyll writes a URL with neither an ending nor a closing '/' (a
     * page's /about under `permalink: /:title.html`, which leaves pages
     * /:path/:basename) as that name plus .html, which a server such as
     * GitHub Pages answers at both */
    const char *last = strrchr(url, '/') ? strrchr(url, '/') + 1 : url;
    if (m->o->kind == IMPORT_JEKYLL && *last && !strchr(last, '.'))
        return arena_printf(m->a, "%s.html", url);
    return site_alias_output(m->a, url);
}

/* A page's own alias (aliases:, redirect_from:) where another page was
 * served, or that an earlier page has too, would fail sheaf's build (two
 * sources, one output path). The old site wrote the page over the redirect
 * (Hugo does), and one of two redirects over the other: the page keeps its
 * URL, the first page its alias; each alias dropped is listed. */
static void drop_clashing_aliases(imp *m)
{
    strmap *pages = strmap_new(m->npages + 1), *aliases = strmap_new(m->npages + 1);
    for (size_t i = 0; i < m->npages; i++) {
        const import_page *p = m->pages[i];
        if (p->old_url && !p->hidden && !p->dropped)
            strmap_put(pages, url_output(m, p->old_url), (long)i);
    }
    for (size_t i = 0; i < m->npages; i++) {
        import_page *p = m->pages[i];
        if (p->hidden || p->dropped)
            continue;
        size_t kept = 0;
        for (size_t k = 0; k < p->naliases; k++) {
            const char *out = url_output(m, p->aliases[k]);
            long other = strmap_get(pages, out);
            if (other < 0 || (size_t)other == i)
                other = strmap_put(aliases, out, (long)i);
            if ((size_t)other == i) {
                p->aliases[kept++] = p->aliases[k];
                continue;
            }
            bool page = strmap_get(pages, out) == other;
            import_note_add(m, p->src_rel, 0, 0, arena_printf(m->a, "the alias %s", p->aliases[k]),
                            arena_printf(m->a, page ? "not kept: %s is served there (the old site wrote the "
                                                      "page over the redirect)"
                                                    : "not kept: %s has it too, and keeps it",
                                         m->pages[other]->src_rel));
        }
        p->naliases = kept;
    }
    strmap_free(pages);
    strmap_free(aliases);
}

/* Reads DEST back through site/ (drafts too), and gives every imported
 * page an alias at its old URL wherever sheaf serves it elsewhere. Returns
 * the number of aliases added; -1 when DEST does not load. */
/* DEST as sheaf reads it: every page, drafts and scheduled posts too, in
 * its place (site_assign_paths, whose problems go to sd with the rest). */
static bool load_dest(imp *m, site *s, diag_list *sd)
{
    memset(s, 0, sizeof *s);
    s->dir = m->o->dest;
    s->a = arena_new();
    s->drafts = true;
    s->future = true;
    s->now = (int64_t)time(NULL);
    s->nwa = 1;
    s->wa = xcalloc(1, sizeof *s->wa);
    s->wa[0] = arena_new();
    return site_config_load(s->dir, NULL, s->a, &s->cfg, sd) && site_load(s, 1, sd) &&
           site_assign_paths(s, sd);
}

/* Two posts whose sheaf URLs are one (2017-08-05-wrapup.md and
 * 2017-08-06-wrapup.md: /posts/wrapup/ both, where Jekyll's URLs held the
 * dates): each later one gets `slug: <its slug>-<its date>`, is written
 * again, and is listed. Returns how many. */
static size_t separate_clashes(imp *m)
{
    site s;
    diag_list *sd = diag_list_new();
    (void)load_dest(m, &s, sd); /* a clash is one of its errors */
    diag_list_free(sd);
    strmap *seen = strmap_new(s.npages + 1);
    size_t n = 0;
    for (size_t i = 0; i < s.npages; i++) {
        const page *sp = &s.pages[i];
        if (!sp->path || sp->failed)
            continue;
        if (strmap_get(seen, sp->path) < 0) {
            strmap_put(seen, sp->path, (long)i);
            continue;
        }
        for (size_t k = 0; k < m->npages; k++) {
            import_page *p = m->pages[k];
            if (p->dropped || !p->post || !sp->has_date || strcmp(p->dest_rel + 8, sp->rel))
                continue;
            /* posts/wrapup/ → wrapup-2017-08-06 */
            size_t end = strlen(sp->path);
            while (end && sp->path[end - 1] == '/')
                end--;
            size_t start = end;
            while (start && sp->path[start - 1] != '/')
                start--;
            buf day = BUF_INIT;
            date_format(&day, &sp->date, "%Y-%m-%d");
            const char *value =
                arena_printf(m->a, "%.*s-%s", (int)(end - start), sp->path + start, day.data);
            buf_release(&day);
            import_kv_set(m, p, "slug", tpl_str(value));
            import_note_add(m, p->src_rel, 0, 0, arena_printf(m->a, "a post at /%s", sp->path),
                            arena_printf(m->a, "another post has that sheaf URL: this one is at its "
                                         "slug and date, slug: %s (its old URL still answers)", value));
            n++;
        }
    }
    strmap_free(seen);
    site_free(&s);
    return n;
}

static bool generated(const site_config *cfg, const char *out);

/* Whether Jekyll page p, whose old URL names a file (want: "about.html",
 * the style's ending) is to be written there again with its old URL as
 * its url:, rather than redirected: a page (not a post), no url: of its
 * own, a URL sheaf takes as written, and no page, alias, file or output
 * of sheaf's at that path. *taken: every output path of s, made once. */
static bool keep_as_file(imp *m, const site *s, const import_page *p, const char *want, strmap **taken)
{
    size_t n = strlen(want);
    if (m->o->kind != IMPORT_JEKYLL || p->post || import_kv_get(p, "url").kind != TPL_UNDEFINED || n < 5 ||
        strcmp(want + n - 5, ".html") || generated(&s->cfg, want))
        return false;
    for (const char *q = p->old_url + 1; *q;) {
        size_t k = strcspn(q, "/");
        if (!site_url_part_ok(q, k))
            return false;
        q += k + (q[k] == '/');
    }
    if (!*taken) {
        *taken = strmap_new(s->npages + s->nfiles + 1);
        for (size_t i = 0; i < s->npages; i++) {
            const page *sp = &s->pages[i];
            if (!sp->path)
                continue;
            strmap_put(*taken, site_output_file(m->a, sp->path), 0);
            for (size_t j = 0; j < sp->naliases; j++)
                strmap_put(*taken, site_alias_output(m->a, sp->aliases[j] + (sp->aliases[j][0] == '/')), 0);
        }
        for (size_t i = 0; i < s->nfiles; i++)
            strmap_put(*taken, s->files[i].path, 0);
        for (size_t i = 0; i < m->npages; i++)
            for (size_t j = 0; j < m->pages[i]->naliases; j++)
                strmap_put(*taken, url_output(m, m->pages[i]->aliases[j]), 0);
    }
    if (strmap_get(*taken, want) >= 0)
        return false;
    strmap_put(*taken, want, 0);
    return true;
}

static long add_old_urls(imp *m, diag_list *d)
{
    site s;
    long added = -1;
    strmap *taken = NULL;
    /* what sheaf says of the new site, at DEST's files */
    diag_list *sd = diag_list_new();
    bool ok = load_dest(m, &s, sd);
    for (size_t i = 0; i < diag_count(sd); i++) {
        const diag *e = diag_get(sd, i);
        if (e->level != DIAG_ERROR)
            continue; /* the build says the rest */
        const char *path = e->path ? arena_printf(m->a, "%s/%s", m->o->dest, e->path) : m->o->dest;
        diag_add(d, e->level, path, e->line, e->col, "%s", e->message);
    }
    diag_list_free(sd);
    if (!ok)
        goto done;
    added = 0;
    for (size_t i = 0; i < m->npages; i++) {
        import_page *p = m->pages[i];
        if (!p->old_url || p->hidden)
            continue;
        int file;
        int k = site_lookup(&s, p->dest_rel + strlen("content/"), &file);
        if (k < 0) {
            m->nlost += !p->dropped;
            continue;
        }
        const page *sp = &s.pages[k];
        if (!sp->path) {
            m->nlost++;
            /* an _index.md that is no section's (Hugo's nested sections,
             * a folder of undated pages): sheaf makes no list there */
            import_note_add(m, p->src_rel, 0, 0,
                            arena_printf(m->a, "a list of Hugo's (%s, and its feed)", p->old_url),
                            "not kept: sheaf gives a list only to a section, a folder of dated posts "
                            "directly under content/; this _index.md is not used (the build warns): move "
                            "its text into a page, or its posts into a section of their own");
            continue;
        }
        const char *want = url_output(m, p->old_url);
        /* /about, which Jekyll wrote as about.html: that file's URL */
        const char *plain = site_alias_output(m->a, p->old_url + (p->old_url[0] == '/'));
        const char *old = strcmp(plain, want) ? arena_printf(m->a, "/%s", want) : p->old_url;
        bool served = !strcmp(site_output_file(m->a, sp->path), want);
        if (!served && keep_as_file(m, &s, p, want, &taken)) {
            /* Jekyll's page at /about.html: that file again, not a redirect */
            import_kv_set(m, p, "url", tpl_str(old));
            p->url_set = true;
            served = true;
        }
        if (served)
            m->nkept++;
        else
            m->nredirected++;
        for (size_t j = 0; j < sp->naliases && !served; j++)
            served = !strcmp(site_alias_output(m->a, sp->aliases[j][0] == '/' ? sp->aliases[j] + 1
                                                                             : sp->aliases[j]),
                             want);
        if (!served) {
            import_alias_add(m, p, old);
            added++;
        }
    }
done:
    strmap_free(taken);
    site_free(&s);
    return added;
}

/* ---- pages in sheaf's own places -------------------------------------- */

/* Whether sheaf writes the output file `out` itself in a site with this
 * configuration: the home page, the archive, a taxonomy's index, the
 * feed, an `outputs:` file … (site_generated_outputs, the one table). */
static bool generated(const site_config *cfg, const char *out)
{
    site s = { 0 };
    s.cfg = *cfg;
    for (size_t g = 0; g < SITE_NGENERATED; g++)
        if (g != SITE_GEN_PAPERS && site_generated_on(&s, g) && !strcmp(site_generated_outputs[g].output, out))
            return true;
    for (size_t i = 0; i < cfg->ntaxonomies; i++) {
        size_t n = strlen(cfg->taxonomies[i]);
        if (!strncmp(out, cfg->taxonomies[i], n) && !strcmp(out + n, "/index.html"))
            return true;
    }
    for (size_t i = 0; i < cfg->noutputs; i++)
        if (!strcmp(cfg->outputs[i].output, out))
            return true;
    return false;
}

/* A page whose URL (old or sheaf's) is one sheaf makes itself — Jekyll's
 * archive.md, tags.md or search.md, a Liquid listing — is not written:
 * sheaf's own page answers there; a file there (robots.txt) likewise, or
 * becomes its template. Needs DEST/site.yaml written. */
static void drop_generated(imp *m)
{
    site_config cfg = { 0 };
    diag_list *quiet = diag_list_new();
    arena *a = arena_new();
    bool loaded = site_config_load(m->o->dest, NULL, a, &cfg, quiet);
    if (loaded) {
        for (size_t i = 0; i < m->npages; i++) {
            import_page *p = m->pages[i];
            const char *base = strrchr(p->dest_rel, '/') + 1;
            if (p->post || !strncmp(p->dest_rel, "content/posts/", 14) || site_is_section_index(base))
                continue; /* an _index.md is the list's page, meant to be there */
            /* sheaf's path: its url:, else content/x.md → x/, x/index.md → x/ */
            tpl_value u = import_kv_get(p, "url");
            const char *mine;
            if (u.kind == TPL_STRING) {
                mine = url_output(m, u.u.s);
            } else {
                const char *r = p->dest_rel + strlen("content/");
                size_t n = strlen(r) - site_markdown_ext(r);
                buf b = BUF_INIT;
                for (size_t k = 0; k < n; k++)
                    buf_putc(&b, tolower((unsigned char)r[k]));
                if (b.len >= 6 && !strcmp(b.data + b.len - 6, "/index"))
                    buf_truncate(&b, b.len - 5);
                else
                    buf_putc(&b, '/');
                mine = url_output(m, b.data);
                buf_release(&b);
            }
            const char *old = p->old_url ? url_output(m, p->old_url) : NULL;
            if (generated(&cfg, mine) || (old && generated(&cfg, old))) {
                p->dropped = true;
                size_t n = strlen(mine);
                if (n >= 10 && !strcmp(mine + n - 10, "index.html"))
                    n -= 10;
                bool moved = old && !p->hidden && strcmp(old, mine) && !generated(&cfg, old);
                if (moved) {
                    /* Jekyll's tags.html: a redirect there to sheaf's /tags/ */
                    import_redirect_file(m, p->src_rel, old, arena_printf(m->a, "%s%.*s", m->base_path, (int)n, mine));
                    m->nredirected++;
                }
                import_note_add(m, p->src_rel, 0, 0, arena_printf(m->a, "a page at /%.*s", (int)n, mine),
                                moved ? arena_printf(m->a, "not imported: sheaf makes this page itself (the archive, a "
                                                           "taxonomy index, …) from its own template; the old /%s "
                                                           "redirects there (a file of static/); put what the page "
                                                           "said in that template", old)
                                      : "not imported: sheaf makes this page itself (the archive, a taxonomy index, …) "
                                        "from its own template, which answers at the old URL; put what the page said "
                                        "in that template");
            }
        }
    }
    /* a plain file where sheaf writes a file of its own: the site's
     * robots.txt becomes the template sheaf writes /robots.txt from; any
     * other (a sitemap.xml, a 404.html) is left out */
    for (size_t i = 0; loaded && i < m->nfiles; i++) {
        import_file *f = &m->files[i];
        if (strncmp(f->dest_rel, "static/", 7) || !generated(&cfg, f->dest_rel + 7))
            continue;
        if (!strcmp(f->dest_rel, "static/robots.txt")) {
            f->dest_rel = "templates/robots.txt";
            import_note_add(m, f->src_rel, 0, 0, "a file at /robots.txt",
                            "sheaf writes /robots.txt from its robots.txt template: this file is that "
                            "template now (templates/robots.txt), so /robots.txt says what it said");
        } else {
            f->dropped = true;
            import_note_add(m, f->src_rel, 0, 0, arena_printf(m->a, "a file at /%s", f->dest_rel + 7),
                            "not imported: sheaf writes this file itself");
        }
    }
    arena_free(a);
    diag_list_free(quiet);
}

/* ---- the destination -------------------------------------------------- */

static bool dir_empty(const char *path)
{
    DIR *dir = opendir(path);
    if (!dir)
        return errno == ENOENT;
    struct dirent *e;
    bool empty = true;
    while (empty && (e = readdir(dir)))
        empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(dir);
    return empty;
}

static bool prepare_dest(imp *m)
{
    const import_options *o = m->o;
    char *src = fs_resolve(o->src), *dest = fs_resolve(o->dest);
    bool ok = false;
    struct stat st;
    if (stat(o->src, &st) || !S_ISDIR(st.st_mode)) {
        diag_error(m->d, o->src, 0, 0, "not a folder: %s", errno ? strerror(errno) : "a file");
    } else if (fs_inside(dest, src)) {
        diag_error(m->d, o->dest, 0, 0, "is %s %s: import never writes into the site it reads "
                   "(choose a folder outside it)", strcmp(src, dest) ? "inside" : "the same folder as", o->src);
    } else if (fs_inside(src, dest)) {
        diag_error(m->d, o->dest, 0, 0, "holds %s, the site being imported (choose another folder)", o->src);
    } else if (stat(o->dest, &st) == 0 && !S_ISDIR(st.st_mode)) {
        diag_error(m->d, o->dest, 0, 0, "exists and is not a folder");
    } else if (!dir_empty(o->dest) && !o->force) {
        diag_error(m->d, o->dest, 0, 0, "is not empty (an earlier import?): sheaf import writes a new "
                   "site; choose a new folder (--force empties this one first, edits made in it included)");
    } else {
        ok = true;
    }
    free(src);
    free(dest);
    return ok;
}

/* After the source was read without an error: DEST emptied (--force) and made. */
static bool make_dest(imp *m)
{
    const char *dest = m->o->dest;
    if (!dir_empty(dest) && !fs_rmtree(dest)) {
        diag_error(m->d, dest, 0, 0, "cannot empty it for --force: %s", strerror(errno));
        return false;
    }
    if (!fs_mkdirs(dest)) {
        diag_error(m->d, dest, 0, 0, "cannot create: %s", strerror(errno));
        return false;
    }
    return true;
}

/* ---- the report ------------------------------------------------------- */

static int note_cmp(const void *a, const void *b)
{
    const import_note *x = a, *y = b;
    if (!x->src_rel || !y->src_rel)
        return !x->src_rel ? (y->src_rel ? -1 : 0) : 1;
    int c = strcmp(x->src_rel, y->src_rel);
    return c ? c : x->line != y->line ? x->line - y->line : x->col - y->col;
}

/* s as a Markdown code span: fenced by one backtick more than its longest
 * run of them, and spaced when it starts or ends with one (`\(x\)` in
 * code, rewritten). */
static void put_code(buf *r, const char *s)
{
    size_t run = 0, most = 0;
    for (const char *c = s; *c; c++) {
        run = *c == '`' ? run + 1 : 0;
        most = run > most ? run : most;
    }
    size_t n = strlen(s);
    bool pad = n && (s[0] == '`' || s[n - 1] == '`');
    for (size_t i = 0; i <= most; i++)
        buf_putc(r, '`');
    buf_printf(r, "%s%s%s", pad ? " " : "", s, pad ? " " : "");
    for (size_t i = 0; i <= most; i++)
        buf_putc(r, '`');
}

/* One rewrite: `from` → `to`. */
static void put_rewrite(buf *r, const import_rewrite *e)
{
    put_code(r, e->from);
    buf_puts(r, " → ");
    put_code(r, e->to);
}

/* TeX that MathJax read and KaTeX would not (import/math.c): how many of
 * each kind, in the order met, with the first as the example; the whole
 * list ends the report. */
static void rewrites_summary(imp *m, buf *r)
{
    const char **kinds = NULL;
    size_t *counts = NULL, *first = NULL, nk = 0, capk = 0, capc = 0, capf = 0;
    for (size_t i = 0; i < m->nrewrites; i++) {
        size_t k = 0;
        while (k < nk && strcmp(kinds[k], m->rewrites[i].kind))
            k++; /* a handful of kinds */
        if (k == nk) {
            size_t n = nk;
            VEC_PUSH_IN(m->a, counts, n, capc, 8, 0);
            n = nk;
            VEC_PUSH_IN(m->a, first, n, capf, 8, i);
            VEC_PUSH_IN(m->a, kinds, nk, capk, 8, m->rewrites[i].kind);
        }
        counts[k]++;
    }
    buf_printf(r, "\n## Formulas rewritten for KaTeX (%zu)\n\n", m->nrewrites);
    for (size_t k = 0; k < nk; k++) {
        const import_rewrite *e = &m->rewrites[first[k]];
        buf_printf(r, "- %zu × %s: ", counts[k], kinds[k]);
        put_rewrite(r, e);
        buf_printf(r, " (`%s`)\n", e->src_rel);
    }
    buf_puts(r, "\nEach one is listed at the end of this report.\n");
}

static void write_report(imp *m, buf *r, long aliases)
{
    size_t posts = 0, pages = 0, hidden = 0;
    for (size_t i = 0; i < m->npages; i++) {
        const import_page *p = m->pages[i];
        if (!p->dropped)
            p->hidden ? hidden++ : p->post ? posts++ : pages++;
    }
    buf_printf(r, "# Import report\n\n%s site → sheaf site.\n\n## Converted\n\n",
               m->o->kind == IMPORT_JEKYLL ? "Jekyll" : "Hugo");
    buf_printf(r, "- %zu post%s, %zu page%s, %zu hidden (draft or unpublished, kept as `draft: true`), "
               "%zu file%s copied as they are\n",
               posts, posts == 1 ? "" : "s", pages, pages == 1 ? "" : "s", hidden, m->nfiles,
               m->nfiles == 1 ? "" : "s");
    buf_puts(r, "- site settings → `site.yaml`; front matter rewritten as YAML with sheaf's key names\n");
    buf_printf(r, "- %zu link%s to other pages made relative `.md` links (checked by `sheaf build`)\n",
               m->nlinks, m->nlinks == 1 ? "" : "s");
    if (m->nhighlight)
        buf_printf(r, "- %zu highlighted block%s made fenced code\n", m->nhighlight,
                   m->nhighlight == 1 ? "" : "s");
    if (m->nmath && m->o->kind == IMPORT_JEKYLL)
        buf_printf(r, "- %zu formula%s written `$$…$$` inside a line (kramdown's inline math) made sheaf's "
                   "inline math, `\\(…\\)`\n", m->nmath, m->nmath == 1 ? "" : "s");
    else if (m->nmath)
        buf_printf(r, "- %zu formula%s of a `katex` or `math` shortcode made sheaf's math "
                   "(`\\(…\\)`, `\\[…\\]`: see docs/configuration.md, `math`)\n",
                   m->nmath, m->nmath == 1 ? "" : "s");
    if (m->nheading_ids)
        buf_printf(r, "- %zu heading%s keep%s %s's id as a second anchor (`{#sheaf-id #%s-id}`), "
                   "so that links written for it still land\n",
                   m->nheading_ids, m->nheading_ids == 1 ? "" : "s", m->nheading_ids == 1 ? "s" : "",
                   m->o->kind == IMPORT_JEKYLL ? "kramdown" : "Hugo",
                   m->o->kind == IMPORT_JEKYLL ? "kramdown" : "hugo");
    if (m->math_note)
        buf_printf(r, "- %s\n", m->math_note);
    if (m->nraw)
        buf_printf(r, "- %zu `{%% raw %%}` tag%s removed\n", m->nraw, m->nraw == 1 ? "" : "s");
    if (m->ncomments)
        buf_printf(r, "- %zu Liquid comment tag%s made HTML comments\n", m->ncomments,
                   m->ncomments == 1 ? "" : "s");
    if (m->nvars)
        buf_printf(r, "- %zu `site.url`/`site.baseurl` made root-relative\n", m->nvars);
    if (m->nshortcodes)
        buf_printf(r, "- %zu figure, video or callout made (or kept as) sheaf's shortcodes\n", m->nshortcodes);
    buf_printf(r, "- %ld alias%s added so that every old URL of a page answers\n", aliases,
               aliases == 1 ? "" : "es");
    buf_printf(r, "- old URLs of pages: %zu kept exactly, %zu answer with a redirect, %zu lost (listed below)\n",
               m->nkept, m->nredirected, m->nlost);
    if (m->feed_url)
        buf_printf(r, "- the old feed %s is still written, from sheaf's feed template (`outputs:` in "
                   "site.yaml; sheaf's own is /atom.xml)\n", m->feed_url);
    if (m->feed_copy)
        buf_printf(r, "- every feed (the site's, each section's and term's, each taxonomy's of its terms) is "
                   "also written as %s beside its atom.xml (`feed_copies:` in site.yaml), where the old feeds "
                   "were\n",
                   m->feed_copy);
    if (m->paginate_path)
        buf_printf(r, "- the later pages of the home page, and of every section and term, are written "
                      "where the old site's were (`paginate_path: \"%s\"` in site.yaml, from %s)\n",
                   m->paginate_path, m->paginate_old);
    if (m->first_page_alias) {
        /* its page 1: paginate_path with 1 for :num */
        const char *pp = m->paginate_path ? m->paginate_path : "page/:num/", *num = strstr(pp, ":num");
        buf_printf(r, "- every list (the home page, each section's, each term's) also answers at %.*s1%s with a "
                      "redirect (`first_page_alias:` in site.yaml), as the old site's paginated lists did\n",
                   (int)(num - pp), pp, num + 4);
    }
    if (m->nrewrites)
        rewrites_summary(m, r);
    if (m->nscript_anchors) {
        buf_printf(r, "\n## Links to ids no element has (%zu)\n\n"
                      "The old site's scripts made these ids in the browser (a comment widget, a list "
                      "numbered by JavaScript), or the links were broken there already. `anchors_warn:` in "
                      "site.yaml makes each a warning; check them:\n\n",
                   m->nscript_anchors);
        for (size_t i = 0; i < m->nscript_anchors; i++)
            buf_printf(r, "- `%s`: %s (`%s`)\n", m->script_anchors[i].where, m->script_anchors[i].message,
                       m->script_anchors[i].pattern);
    }
    if (m->nbroken_targets) {
        buf_printf(r, "\n## Links to drafts and missing files (%zu)\n\n"
                      "These links lead to a page the old site did not publish (a draft) or to a file "
                      "that does not exist: broken on the old site too, unless the import broke them. "
                      "`targets_warn:` in site.yaml makes each a warning on every build; fix them, then "
                      "remove their entries:\n\n",
                   m->nbroken_targets);
        for (size_t i = 0; i < m->nbroken_targets; i++)
            buf_printf(r, "- `%s`: %s\n", m->broken_targets[i].where, m->broken_targets[i].message);
    }
    vec_sort(m->notes, m->nnotes, sizeof *m->notes, note_cmp);
    m->nnote_slots = 0; /* its indexes are the old order's: made again if a note comes */
    buf_printf(r, "\n## Not converted (%zu)\n\n", m->nnotes);
    if (!m->nnotes)
        buf_puts(r, "Nothing.\n");
    for (size_t i = 0; i < m->nnotes; i++) {
        const import_note *n = &m->notes[i];
        if (n->src_rel && n->line)
            buf_printf(r, "- `%s:%d:%d`: %s — %s\n", n->src_rel, n->line, n->col, n->what, n->todo);
        else if (n->src_rel)
            buf_printf(r, "- `%s`: %s — %s\n", n->src_rel, n->what, n->todo);
        else
            buf_printf(r, "- %s — %s\n", n->what, n->todo);
    }
    buf_puts(r, "\nNext: `sheaf build -s DEST` (or `sheaf serve -s DEST`), and fix what it reports.\n");
    /* the section holding the most posts, when it is not posts/ (Hugo's
     * content/post/): where new ones go */
    const char **names = NULL, *sec = NULL;
    size_t *counts = NULL, nsec = 0, capn = 0, capc = 0, best = 0;
    for (size_t i = 0; i < m->npages; i++) {
        const char *d = m->pages[i]->dest_rel + strlen("content/");
        size_t n = strcspn(d, "/"), k = 0;
        if (!m->pages[i]->post || !d[n])
            continue;
        while (k < nsec && (strlen(names[k]) != n || strncmp(names[k], d, n)))
            k++; /* a site has few sections */
        if (k == nsec) {
            VEC_PUSH_IN(m->a, names, nsec, capn, 4, arena_strndup(m->a, d, n));
            size_t nc = nsec - 1;
            VEC_PUSH_IN(m->a, counts, nc, capc, 4, 0);
        }
        if (++counts[k] > best) {
            best = counts[k];
            sec = names[k];
        }
    }
    if (sec && strcmp(sec, "posts"))
        buf_printf(r, "New posts of `content/%s/`: `sheaf new post \"Title\" --section %s`.\n", sec, sec);
    if (m->nrewrites) {
        /* the whole list, after what asks for work */
        buf_printf(r, "\n## Every formula rewritten (%zu)\n\n", m->nrewrites);
        for (size_t i = 0; i < m->nrewrites; i++) {
            buf_printf(r, "- `%s`: ", m->rewrites[i].src_rel);
            put_rewrite(r, &m->rewrites[i]);
            buf_putc(r, '\n');
        }
    }
}

/* ---- the run ---------------------------------------------------------- */

bool import_run(const import_options *o, buf *report, diag_list *d)
{
    imp m = { 0 };
    m.o = o;
    m.a = arena_new();
    char *src_real = fs_resolve(o->src);
    m.src_real = arena_strdup(m.a, src_real);
    free(src_real);
    m.d = d;
    m.base_path = "/";
    m.site_yaml = (buf)BUF_INIT;
    size_t before = diag_error_count(d);
    bool ok = prepare_dest(&m);
    if (ok)
        ok = o->kind == IMPORT_JEKYLL ? import_jekyll_collect(&m) : import_hugo_collect(&m);
    if (ok)
        drop_clashing_aliases(&m);
    if (ok)
        import_math_settings(&m);
    if (ok && diag_error_count(d) == before && make_dest(&m)) {
        if (m.feed_copy) {
            buf_puts(&m.site_yaml, "# every feed also where the old site had it\nfeed_copies: [");
            buf_puts(&m.site_yaml, m.feed_copy);
            buf_puts(&m.site_yaml, "]\n");
        }
        if (m.paginate_path) {
            buf_puts(&m.site_yaml, "# every list's later pages where the old site's were\n");
            import_yaml_kv(&m.site_yaml, 0, "paginate_path", tpl_str(m.paginate_path));
        }
        if (m.first_page_alias)
            buf_puts(&m.site_yaml, "# every list also at its page 1, as the old site's\nfirst_page_alias: true\n");
        if (m.feed_url) {
            /* the old feed's path keeps serving the feed: an Atom copy */
            buf_puts(&m.site_yaml, "# the old feed's address, written as sheaf's Atom feed is\noutputs:\n");
            import_yaml_kv(&m.site_yaml, 2, arena_printf(m.a, "\"%s\"", m.feed_url + 1), tpl_str("atom.xml"));
        }
        ok = write_at(&m, "site.yaml", m.site_yaml.data, m.site_yaml.len);
        if (ok)
            drop_generated(&m);
        for (size_t i = 0; i < m.npages; i++)
            if (!m.pages[i]->dropped)
                import_convert_body(&m, m.pages[i], o->kind == IMPORT_JEKYLL);
        for (size_t i = 0; ok && i < m.npages; i++)
            if (!m.pages[i]->dropped)
                ok = write_page(&m, m.pages[i]);
        for (size_t i = 0; ok && i < m.nfiles; i++)
            ok = m.files[i].dropped || copy_file(&m, &m.files[i]);
        bool written = ok;
        if (ok && separate_clashes(&m))
            for (size_t i = 0; ok && i < m.npages; i++)
                if (!m.pages[i]->dropped)
                    ok = write_page(&m, m.pages[i]);
        long aliases = ok ? add_old_urls(&m, d) : -1;
        for (size_t i = 0; aliases >= 0 && ok && i < m.npages; i++)
            if ((m.pages[i]->naliases || m.pages[i]->url_set) && !m.pages[i]->dropped)
                ok = write_page(&m, m.pages[i]);
        /* the first build: links to ids a script made, to drafts and to
         * missing files (all shipped so by the old site) warn */
        if (ok && aliases >= 0 && import_script_anchors(&m))
            ok = write_at(&m, "site.yaml", m.site_yaml.data, m.site_yaml.len);
        if (written) {
            /* also when sheaf found errors in the new site (reported at
             * DEST's files): the report says what is left to do */
            if (aliases < 0)
                import_note_add(&m, NULL, 0, 0, "the new site has errors (printed with the report)",
                                "old URLs were not compared, so no redirects were added: fix the errors, then "
                                "import again into a new folder and compare (--force into this one would "
                                "erase what you changed here)");
            write_report(&m, report, aliases < 0 ? 0 : aliases);
            ok = write_at(&m, "import-report.md", report->data, report->len) && ok && aliases >= 0;
        }
    }
    for (size_t i = 0; i < m.npages; i++)
        buf_release(&m.pages[i]->body);
    buf_release(&m.site_yaml);
    import_notes_free(&m);
    arena_free(m.a);
    return ok && diag_error_count(d) == before;
}

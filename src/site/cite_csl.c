/* site/cite_csl.c: citations in a Citation Style Language style — the
 * `citation_style:` of a bundled style (src/js/csl.h) or of a .csl file,
 * in site.yaml or in a page's front matter (the page's wins) — formatted
 * by citeproc-js (src/js/csl.c), the rest of citations (the check of
 * keys, the paper graph, the entry model) staying cite.c's.
 *
 * A page is one citeproc-js document: its citation groups in order as
 * clusters (so numbering, disambiguation and the bibliography's order are
 * the page's), its entries as CSL-JSON (bib/csl.c) in the page's language.
 * citeproc-js costs tens of milliseconds an entry, so what it writes is
 * kept in the build cache (src/cache) under three kinds, each keyed by the
 * processor's version (js_csl_version), a hash of the style's text and
 * the locale, so a changed style, entry or citeproc-js misses:
 *
 *   csl-page  + the page's text and the CSL-JSON of every entry it may
 *             name: the clusters it had and the reply. A warm build writes
 *             the page once and starts no engine.
 *   csl       + the document's items and clusters: the reply. Used when a
 *             page's text changed but not its citations, and by pages
 *             written from the session's page cache.
 *   csl-ref   + one entry: its reference alone (entry.reference), from
 *             a document of its bibliography alone.
 *
 * A page whose Markdown the build cache holds (mdcache.c) has its
 * bibliography (page.csl_bib) kept with it, and needs none of these.
 *
 * Each cached value is read as the untrusted input it is: JSON of the
 * reply's shape, else formatted again. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bib/csl.h"
#include "bib/cslstyle.h"
#include "cache/cache.h"
#include "js/csl.h"
#include "site/cite.h"
#include "site/i18n.h"
#include "site/load.h"
#include "site/model.h"
#include "site/pool.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/strmap.h"
#include "util/text.h"
#include "util/vec.h"
#include "util/xalloc.h"

/* What this file does to citeproc-js's output before keeping it (csl-ref
 * keeps an entry as site_csl_entry_html leaves it): a change to that
 * changes this, so older entries miss. */
#define KEY_FORMAT "sheaf-csl-2"

typedef struct site_csl site_csl;
struct site_csl {
    const char *name;  /* as written in site.yaml or the front matter */
    const char *text;  /* the style's XML, NUL-terminated */
    size_t len;
    const char *file;  /* the .csl file as named (errors are its), or NULL: bundled */
    char hash[17];     /* of the text, hex */
    const char *src;   /* where citation_style: is: "site.yaml", or the first page naming it */
    int line, col;
    site_csl *next;    /* s->csl_pages: the other styles pages name */
    char *owned;       /* a file's text */
    pthread_mutex_t mu;
    js_csl **idle;     /* engines not in use */
    size_t nidle, cap;
    atomic_size_t docs, twice, rendered, engines;
    atomic_int reported; /* one error of the style a build */
};

/* A page's document: the clusters of each md group (JSON text, the
 * signature the hook checks its group against) and citeproc-js's reply. */
typedef struct site_csl_doc {
    const tpl_list *sigs;     /* per md group: its clusters' JSON, "" when it cites nothing known */
    const tpl_list *clusters; /* the reply's, in order */
    tpl_value bib;            /* the reply's [[key, html], …] */
    size_t group, cluster;    /* the hook's place */
    bool bad;                 /* a group was not what the document holds */
} site_csl_doc;

/* ---- the style ---- */

static bool builtin(const char *name) { return !strcmp(name, "author-year") || !strcmp(name, "numeric"); }

static bool is_file(const char *name)
{
    size_t n = strlen(name);
    return strchr(name, '/') || (n > 4 && !strcmp(name + n - 4, ".csl"));
}

/* The closest of the built-in and bundled names, or NULL. */
static const char *closest(const char *name)
{
    text_near n = TEXT_NEAR(name);
    text_near_try(&n, "author-year");
    text_near_try(&n, "numeric");
    for (size_t i = 0; i < js_csl_nstyles; i++)
        text_near_try(&n, js_csl_styles[i].name);
    return text_near_best(&n);
}

/* The style of that name, read (a file's text checked), or NULL after an
 * error at src:line:col, where citation_style: names it. */
static site_csl *load_style(site *s, const char *name, const char *src, int line, int col, diag_list *d)
{
    site_csl *c = xcalloc(1, sizeof *c);
    c->name = name;
    c->src = src;
    c->line = line;
    c->col = col;
    if (is_file(name)) {
        char *path = fs_join(s->dir, name), *root = fs_resolve(s->dir);
        buf text = BUF_INIT;
        bool ok = root && fs_read_file_within(root, path, FS_READ_MAX, &text);
        const char *why = ok ? NULL : fs_strerror(errno);
        free(root);
        free(path);
        if (!ok)
            diag_error(d, src, line, col, "cannot read citation style '%s': %s", name, why);
        /* citeproc-js reads a broken style without saying where: the
         * checker names the line and column (and a missing part) first */
        bib_csl_style style;
        if (ok && !bib_csl_style_check(text.data, text.len, name, s->a, &style, d))
            ok = false;
        if (!ok) {
            buf_release(&text);
            free(c);
            return NULL;
        }
        c->len = text.len;
        c->owned = buf_detach(&text, NULL);
        c->text = c->owned;
        c->file = name;
    } else {
        const js_csl_file *f = js_csl_bundled_style(name);
        if (!f) {
            const char *sug = closest(name);
            buf list = BUF_INIT;
            for (size_t i = 0; i < js_csl_nstyles; i++)
                buf_printf(&list, "%s%s", i ? ", " : "", js_csl_styles[i].name);
            diag_error(d, src, line, col,
                       "unknown citation style '%s'%s%s%s: the built-in author-year or numeric, a "
                       "bundled CSL style (%s) or a .csl file of the site",
                       name, sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "", list.data);
            buf_release(&list);
            free(c);
            return NULL;
        }
        c->text = f->text;
        c->len = f->len;
    }
    snprintf(c->hash, sizeof c->hash, "%016llx", (unsigned long long)hash_bytes(c->text, c->len));
    pthread_mutex_init(&c->mu, NULL);
    return c;
}

/* A page's own `citation_style:` as written, or NULL: the site's. */
static const char *page_style_name(const page *p)
{
    if (!p || p->fm.kind != TPL_MAP)
        return NULL;
    tpl_value v = tpl_map_get_cstr(p->fm.u.map, "citation_style");
    return v.kind == TPL_STRING ? v.u.s : NULL;
}

/* The CSL style page p's citations are in: its own, else the site's;
 * NULL for a built-in one. A name setup did not read (a page edited in
 * a build session since: site_csl_page_known) is taken as the site's. */
static site_csl *style_of(const site *s, const page *p)
{
    const char *name = page_style_name(p);
    if (!name || (s->csl && !strcmp(name, s->csl->name)))
        return s->csl;
    for (site_csl *c = s->csl_pages; c; c = c->next)
        if (!strcmp(c->name, name))
            return c;
    return s->csl;
}

bool site_page_csl(const site *s, const page *p) { return style_of(s, p) != NULL; }

bool site_csl_page_known(const site *s, const page *p)
{
    tpl_value v = p && p->fm.kind == TPL_MAP ? tpl_map_get_cstr(p->fm.u.map, "citation_style") : tpl_none();
    if (v.kind == TPL_UNDEFINED || v.kind == TPL_NONE)
        return v.kind == TPL_UNDEFINED;
    const char *name = page_style_name(p);
    if (!name || (s->cfg.citation_style && !strcmp(name, s->cfg.citation_style)))
        return name != NULL;
    for (site_csl *c = s->csl_pages; c; c = c->next)
        if (!strcmp(c->name, name))
            return true;
    return false;
}

bool site_csl_setup(site *s, diag_list *d)
{
    const char *name = s->cfg.citation_style;
    bool ok = true;
    if (!s->csl && name && !builtin(name)) {
        int line, col;
        site_config_key_place(&s->cfg, "citation_style", &line, &col);
        s->csl = load_style(s, name, "site.yaml", line, col, d);
        ok = s->csl != NULL;
    }
    /* the pages' own; a file that failed is reported once */
    struct strmap *failed = strmap_new(4);
    for (size_t i = 0; i < s->npages; i++) {
        page *p = &s->pages[i];
        if (p->failed || p->fm.kind != TPL_MAP)
            continue;
        tpl_value v = tpl_map_get_cstr(p->fm.u.map, "citation_style");
        if (v.kind == TPL_UNDEFINED)
            continue;
        int line, col;
        site_page_key_place(p, "citation_style", &line, &col);
        const char *pn = v.kind == TPL_STRING ? v.u.s : NULL;
        if (!pn || !*pn) {
            diag_error(d, p->src, line, col, "citation_style: wants the name of a bundled CSL style or "
                                             "a .csl file of the site");
            ok = false;
            continue;
        }
        if (name && !strcmp(pn, name))
            continue; /* the site's */
        if (builtin(pn)) {
            diag_error(d, p->src, line, col,
                       "citation style '%s' on a page: the built-in author-year and numeric are for "
                       "the whole site (site.yaml); a page may name a bundled CSL style or a .csl file",
                       pn);
            ok = false;
            continue;
        }
        bool known = false;
        for (site_csl *c = s->csl_pages; c && !known; c = c->next)
            known = !strcmp(c->name, pn);
        if (known || strmap_get(failed, pn) >= 0)
            continue;
        site_csl *c = load_style(s, pn, p->src, line, col, d);
        if (!c) {
            if (is_file(pn))
                strmap_put(failed, pn, 0);
            ok = false;
            continue;
        }
        c->next = s->csl_pages;
        s->csl_pages = c;
    }
    strmap_free(failed);
    return ok;
}

const char *site_csl_style_hash(const site *s) { return s->csl ? s->csl->hash : ""; }

const char *site_csl_page_hash(const site *s, const page *p)
{
    site_csl *c = page_style_name(p) ? style_of(s, p) : NULL;
    return c && c != s->csl ? c->hash : "";
}

static void free_style(site_csl *c)
{
    for (size_t i = 0; i < c->nidle; i++)
        js_csl_free(c->idle[i]);
    free(c->idle);
    pthread_mutex_destroy(&c->mu);
    free(c->owned);
    free(c);
}

void site_csl_free(site *s)
{
    if (s->csl)
        free_style(s->csl);
    s->csl = NULL;
    for (site_csl *c = s->csl_pages, *next; c; c = next) {
        next = c->next;
        free_style(c);
    }
    s->csl_pages = NULL;
}

void site_csl_counts(const site *s, size_t *docs, size_t *twice, size_t *rendered, size_t *engines)
{
    *docs = *twice = *rendered = *engines = 0;
    for (site_csl *c = s->csl_pages;; c = c->next) {
        site_csl *k = c ? c : s->csl; /* the pages' styles, then the site's */
        if (k) {
            *docs += atomic_load(&k->docs);
            *twice += atomic_load(&k->twice);
            *rendered += atomic_load(&k->rendered);
            *engines += atomic_load(&k->engines);
        }
        if (!c)
            break;
    }
}

void site_csl_page_cached(const site *s, const page *p)
{
    site_csl *c = style_of(s, p);
    if (c)
        atomic_fetch_add(&c->docs, 1);
}

static js_csl *take(site_csl *c, buf *err)
{
    pthread_mutex_lock(&c->mu);
    js_csl *k = c->nidle ? c->idle[--c->nidle] : NULL;
    pthread_mutex_unlock(&c->mu);
    if (!k) {
        k = js_csl_new(js_csl_bundled_locale_fn, NULL, err);
        if (k)
            atomic_fetch_add(&c->engines, 1);
    }
    return k;
}

static void give(site_csl *c, js_csl *k)
{
    if (js_csl_spent(k)) {
        js_csl_free(k);
        return;
    }
    pthread_mutex_lock(&c->mu);
    VEC_PUSH(c->idle, c->nidle, c->cap, 4, k);
    pthread_mutex_unlock(&c->mu);
}

/* The document's language: the page's `language:`, else the site's. */
static const char *doc_lang(const site *s, const page *p)
{
    const char *l = p ? site_page_language(p) : NULL;
    if (!l || !*l)
        l = s->cfg.language;
    return l && *l ? l : "en-US";
}

/* One error of the style a build: where it is, citeproc-js's words. A
 * missing locale is the language's: the page's `language:` or site.yaml's. */
static void report(site *s, const page *p, const char *msg, diag_list *d)
{
    site_csl *c = style_of(s, p);
    if (!d)
        return;
    if (strstr(msg, "no locale '")) {
        int line = 0, col = 0;
        if (p && site_page_language(p)) {
            site_page_key_place(p, "language", &line, &col);
            diag_error(d, p->src, line, col, "citation style '%s': %s", c->name, msg);
        } else {
            site_config_key_place(&s->cfg, "language", &line, &col);
            diag_error(d, "site.yaml", line, col, "citation style '%s': %s", c->name, msg);
        }
        return;
    }
    if (atomic_exchange(&c->reported, 1))
        return;
    int line = c->line, col = c->col;
    const char *src = c->src;
    if (page_style_name(p)) { /* the page's own: at its line */
        site_page_key_place(p, "citation_style", &line, &col);
        src = p->src;
    }
    if (c->file)
        diag_error(d, c->file, 0, 0, "this citation style cannot be used: %s", msg);
    else
        diag_error(d, src, line, col, "citation style '%s': %s", c->name, msg);
}

/* ---- the reply ---- */

static const tpl_list *list_of(tpl_value v) { return v.kind == TPL_LIST ? v.u.list : NULL; }

static bool all_strings(const tpl_list *l)
{
    for (size_t i = 0; l && i < l->len; i++)
        if (l->items[i].kind != TPL_STRING)
            return false;
    return l != NULL;
}

/* Reads a reply of nclusters clusters into *clusters and *bib (in a);
 * false when it is not one. */
static bool read_reply(const char *json, size_t len, size_t nclusters, arena *a, const tpl_list **clusters,
                       tpl_value *bib)
{
    diag_list *d = diag_list_new();
    tpl_value v;
    bool ok = fm_parse_json_value(str_make(json, len), "citeproc-js", a, &v, d) && v.kind == TPL_MAP;
    diag_list_free(d);
    if (!ok)
        return false;
    const tpl_list *cl = list_of(tpl_map_get_cstr(v.u.map, "clusters"));
    tpl_value b = tpl_map_get_cstr(v.u.map, "bibliography");
    if (!all_strings(cl) || cl->len != nclusters || !list_of(b))
        return false;
    for (size_t i = 0; i < b.u.list->len; i++) {
        const tpl_list *e = list_of(b.u.list->items[i]);
        if (!all_strings(e) || e->len != 2)
            return false;
    }
    *clusters = cl;
    *bib = b;
    return true;
}

/* Formats the document of items (CSL-JSON objects, comma-separated) and
 * clusters (JSON arrays, comma-separated) in lang: from the cache (kind
 * "csl"), else with an engine; the reply's JSON in reply. With clusters
 * NULL it is the items' bibliography alone, no citation formatted (about a
 * third cheaper in citeproc-js), and not looked up nor kept: its caller
 * keeps what it makes of it. */
static bool format(site *s, site_csl *c, const char *lang, const buf *items, const buf *clusters, buf *reply,
                   buf *err)
{
    buf key = BUF_INIT;
    bool ok = false;
    if (clusters) {
        buf_printf(&key, "%s %s\n%s\n%s\n", KEY_FORMAT, js_csl_version(), c->hash, lang);
        buf_put(&key, items->data, items->len);
        buf_putc(&key, '\n');
        buf_put(&key, clusters->data, clusters->len);
        ok = cache_get(s->cache, "csl", key.data, key.len, reply);
    }
    if (!ok) {
        buf q = BUF_INIT;
        buf_puts(&q, "{\"style\": ");
        bib_json_string(&q, c->text, c->len);
        buf_printf(&q, ", \"key\": \"%s\", \"lang\": ", c->hash);
        bib_json_string(&q, lang, strlen(lang));
        buf_puts(&q, ", \"item_layouts\": true, ");
        if (!clusters)
            buf_puts(&q, "\"references\": true, ");
        buf_puts(&q, "\"items\": [");
        buf_put(&q, items->data, items->len);
        buf_puts(&q, "], \"clusters\": [");
        if (clusters)
            buf_put(&q, clusters->data, clusters->len);
        buf_puts(&q, "]}");
        js_csl *k = take(c, err);
        if (k) {
            atomic_fetch_add(&c->rendered, 1);
            ok = js_csl_render(k, q.data, q.len, reply, err);
            give(c, k);
        }
        buf_release(&q);
        if (ok && clusters)
            cache_put(s->cache, "csl", key.data, key.len, reply->data, reply->len);
    }
    buf_release(&key);
    return ok;
}

/* ---- a page's clusters ---- */

/* The CSL label and locator of Pandoc's locator text ("p. 4", "sec. 3",
 * "chapter 2"); a locator without a label is a page, as in Pandoc. */
static const char *locator_label(const char *loc, const char **rest)
{
    static const struct {
        const char *word, *label;
    } t[] = {
        { "pp.", "page" },      { "p.", "page" },         { "pages", "page" },      { "page", "page" },
        { "sec.", "section" },  { "section", "section" }, { "§§", "section" },      { "§", "section" },
        { "chap.", "chapter" }, { "ch.", "chapter" },     { "chapter", "chapter" }, { "figs.", "figure" },
        { "fig.", "figure" },   { "figure", "figure" },   { "vol.", "volume" },     { "para.", "paragraph" },
        { "col.", "column" },   { "no.", "issue" },       { "l.", "line" },         { "n.", "note" },
        { "pt.", "part" },      { "bk.", "book" },        { "v.", "verse" },
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        size_t n = strlen(t[i].word);
        if (!strncasecmp(loc, t[i].word, n) && (loc[n] == ' ' || (loc[n] >= '0' && loc[n] <= '9'))) {
            loc += n;
            while (*loc == ' ')
                loc++;
            *rest = loc;
            return t[i].label;
        }
    }
    *rest = loc;
    return "page";
}

static void cite_item(buf *out, const md_cite *c, int mode /* 0, 1 author only, 2 suppress author */)
{
    buf_puts(out, "{\"id\": ");
    bib_json_string(out, c->key, strlen(c->key));
    if (mode == 1) {
        buf_puts(out, ", \"author-only\": true}");
        return;
    }
    if (*c->locator) {
        const char *rest, *label = locator_label(c->locator, &rest);
        buf_printf(out, ", \"label\": \"%s\", \"locator\": ", label);
        bib_json_string(out, rest, strlen(rest));
    }
    if (*c->prefix) {
        buf_puts(out, ", \"prefix\": ");
        buf pre = BUF_INIT;
        buf_printf(&pre, "%s ", c->prefix);
        bib_json_string(out, pre.data, pre.len);
        buf_release(&pre);
    }
    if (mode == 2 || c->suppress_author)
        buf_puts(out, ", \"suppress-author\": true");
    buf_putc(out, '}');
}

/* The clusters of one md group (its known entries only), as JSON arrays
 * joined by ','; returns how many: 0 when it cites nothing known, 2 for a
 * narrative citation (the names, then the rest without them). */
static size_t group_clusters(const site *s, const page *p, const md_cite *c, size_t n, buf *out)
{
    size_t known = 0;
    for (size_t i = 0; i < n; i++)
        known += site_cite_entry(s, p, c[i].key) != NULL;
    if (!known)
        return 0;
    if (c[0].narrative) {
        buf_putc(out, '[');
        cite_item(out, &c[0], 1);
        buf_puts(out, "],[");
        cite_item(out, &c[0], 2);
        buf_putc(out, ']');
        return 2;
    }
    buf_putc(out, '[');
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        if (!site_cite_entry(s, p, c[i].key))
            continue;
        if (!first)
            buf_putc(out, ',');
        first = false;
        cite_item(out, &c[i], 0);
    }
    buf_putc(out, ']');
    return 1;
}

static size_t sig_clusters(const char *sig) { return !*sig ? 0 : strstr(sig, "\"author-only\"") ? 2 : 1; }

static void esc(buf *out, const char *s) { md_escape_html(out, s, strlen(s)); }

void site_csl_cite_html(const site *s, const page *p, site_cite_state *st, const md_cite *c, size_t n,
                        buf *out)
{
    site_cite_open(out, c, n);
    site_csl_doc *doc = st->doc;
    buf sig = BUF_INIT;
    size_t k = group_clusters(s, p, c, n, &sig);
    if (doc && !doc->bad) {
        const tpl_value *want = doc->group < doc->sigs->len ? &doc->sigs->items[doc->group] : NULL;
        if (!want || want->len != sig.len || memcmp(want->u.s, sig.data, sig.len) ||
            doc->cluster + k > doc->clusters->len)
            doc->bad = true;
        doc->group++;
    }
    if (k && doc && !doc->bad) {
        const tpl_value *h = &doc->clusters->items[doc->cluster];
        bool one = n == 1;
        if (one) {
            buf_puts(out, "<a href=\"#ref-");
            esc(out, c[0].key);
            buf_puts(out, "\">");
        }
        const bib_entry *e = k == 2 ? site_cite_entry(s, p, c[0].key) : NULL;
        if (e && (!h->len || memmem(h->u.s, h->len, "NO_PRINTED_FORM", 15)))
            esc(out, s->entry_label[e - s->bib->entries]); /* a numeric style has no names to cite */
        else
            buf_put(out, h->u.s, h->len);
        if (k == 2) {
            buf_putc(out, ' ');
            buf_put(out, h[1].u.s, h[1].len);
        }
        if (one)
            buf_puts(out, "</a>");
        doc->cluster += k;
    }
    buf_release(&sig);
    for (size_t i = 0; i < n; i++)
        if (!site_cite_entry(s, p, c[i].key)) { /* reported by site_check_citations */
            buf_puts(out, "<span class=\"citation-unknown\">@");
            esc(out, c[i].key);
            buf_puts(out, "?</span>");
        }
    buf_puts(out, "</span>");
}

void site_csl_doc_free(site_csl_doc *doc) { free(doc); }

/* ---- the cache of a page by its text ---- */

static bool key_char(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
           strchr(":.#$%&-+?<>~/", ch) || ch >= 0x80;
}

/* The key of "csl-page": the text and the CSL-JSON of every entry an '@'
 * in it may name (more than it cites, never fewer: a citation's key is
 * such a run, or one with trailing punctuation dropped, or `@{…}`). */
static void page_key(const site *s, const site_csl *c, const page *p, str body, const char *lang, buf *key)
{
    buf_printf(key, "%s %s\n%s\n%s\n%zu\n", KEY_FORMAT, js_csl_version(), c->hash, lang, body.len);
    buf_put(key, body.ptr, body.len);
    size_t n = s->bib->n;
    unsigned char *seen = xcalloc(n + 1, 1);
    char name[256];
    for (const char *q = body.ptr, *end = body.ptr + body.len; (q = memchr(q, '@', (size_t)(end - q)));) {
        q++;
        size_t len = 0;
        if (q < end && *q == '{') {
            const char *close = memchr(q, '}', (size_t)(end - q));
            if (!close)
                continue;
            len = (size_t)(close - q - 1);
            if (len >= sizeof name)
                continue;
            memcpy(name, q + 1, len);
        } else {
            while (q + len < end && key_char((unsigned char)q[len]) && len + 1 < sizeof name)
                len++;
            memcpy(name, q, len);
        }
        /* the run, then without each trailing punctuation mark */
        for (; len; len--) {
            name[len] = 0;
            const bib_entry *e = site_cite_entry(s, p, name);
            if (e)
                seen[e - s->bib->entries] = 1;
            unsigned char last = (unsigned char)name[len - 1];
            if (last >= 0x80 || (last >= '0' && last <= '9') || ((last | 0x20) >= 'a' && (last | 0x20) <= 'z') ||
                last == '_')
                break;
        }
    }
    buf_putc(key, '\n');
    for (size_t i = 0; i < n; i++)
        if (seen[i]) {
            bib_csl_json(&s->bib->entries[i], lang, key);
            buf_putc(key, '\n');
        }
    free(seen);
}

void site_csl_begin(site *s, const page *p, str body, arena *a, site_cite_state *st)
{
    st->doc = NULL;
    site_csl *c = style_of(s, p);
    if (!c || !s->bib)
        return;
    buf key = BUF_INIT, v = BUF_INIT;
    page_key(s, c, p, body, doc_lang(s, p), &key);
    if (cache_get(s->cache, "csl-page", key.data, key.len, &v)) {
        /* {"sigs": [...], "reply": {...}}: the reply is read from its text */
        diag_list *d = diag_list_new();
        tpl_value w;
        const char *r = strstr(v.data, "], \"reply\": ");
        if (r && !strncmp(v.data, "{\"sigs\": [", 10) && v.data[v.len - 1] == '}' &&
            fm_parse_json_value(str_make(v.data + 9, (size_t)(r - v.data) - 8), "cache", a, &w, d) &&
            all_strings(list_of(w))) {
            const tpl_list *sigs = w.u.list;
            size_t nc = 0;
            for (size_t i = 0; i < sigs->len; i++)
                nc += sig_clusters(sigs->items[i].u.s);
            const char *json = r + 12;
            site_csl_doc doc = { .sigs = sigs };
            if (read_reply(json, (size_t)(v.data + v.len - 1 - json), nc, a, &doc.clusters, &doc.bib)) {
                st->doc = xmalloc(sizeof doc);
                *st->doc = doc;
            }
        }
        diag_list_free(d);
    }
    buf_release(&key);
    buf_release(&v);
}

bool site_csl_finish(site *s, page *p, str body, site_cite_state *st, const md_result *md, arena *a,
                     diag_list *d)
{
    site_csl *c = style_of(s, p);
    if (!c || !s->bib)
        return false;
    site_csl_doc *doc = st->doc;
    if (doc && !doc->bad && doc->group == doc->sigs->len) {
        atomic_fetch_add(&c->docs, 1);
        st->csl_bib = p->csl_bib = doc->bib;
        return false;
    }
    st->csl_bib = tpl_none();
    if (body.ptr)
        p->csl_bib = tpl_none();
    if (!md->ncites)
        return false;
    const char *lang = doc_lang(s, p);
    /* the groups, their clusters, and each known entry once */
    buf items = BUF_INIT, clusters = BUF_INIT, sig = BUF_INIT, reply = BUF_INIT, err = BUF_INIT;
    size_t ngroups = 0, nclusters = 0;
    for (size_t i = 0; i < md->ncites;) {
        size_t j = i;
        while (j < md->ncites && md->cites[j].group == md->cites[i].group)
            j++;
        ngroups++;
        i = j;
    }
    tpl_list *sigs = tpl_list_new(a, ngroups);
    struct strmap *seen = strmap_new(16);
    for (size_t i = 0, g = 0; i < md->ncites; g++) {
        size_t j = i;
        while (j < md->ncites && md->cites[j].group == md->cites[i].group)
            j++;
        buf_reset(&sig);
        size_t k = group_clusters(s, p, md->cites + i, j - i, &sig);
        sigs->items[g] = tpl_strn(arena_strndup(a, sig.data, sig.len), sig.len);
        if (k) {
            if (nclusters)
                buf_putc(&clusters, ',');
            buf_put(&clusters, sig.data, sig.len);
            nclusters += k;
        }
        for (; i < j; i++) {
            const bib_entry *e = site_cite_entry(s, p, md->cites[i].key);
            if (!e || strmap_get(seen, e->key) >= 0)
                continue;
            strmap_put(seen, e->key, 0);
            if (items.len)
                buf_putc(&items, ',');
            bib_csl_json(e, lang, &items);
        }
    }
    strmap_free(seen);
    bool again = false;
    site_csl_doc nd = { .sigs = sigs };
    if (!nclusters) {
        nd.clusters = tpl_list_new(a, 0);
        nd.bib = tpl_list_value(tpl_list_new(a, 0));
    } else if (!format(s, c, lang, &items, &clusters, &reply, &err)) {
        report(s, p, err.data, d);
        goto done;
    } else if (!read_reply(reply.data, reply.len, nclusters, a, &nd.clusters, &nd.bib)) {
        report(s, p, "citeproc-js gave a reply sheaf cannot read", d);
        goto done;
    }
    if (d && nclusters && memmem(reply.data, reply.len, "[CSL STYLE ERROR", 16))
        diag_warning(d, p->src, md->cites[0].line, md->cites[0].col,
                     "citation style '%s': citeproc-js wrote '[CSL STYLE ERROR: …]' in this page's "
                     "citations (an entry the style prints nothing of, or a fault of the style)",
                     c->name);
    atomic_fetch_add(&c->docs, 1);
    if (body.ptr) /* the page's Markdown is written again below */
        atomic_fetch_add(&c->twice, 1);
    st->csl_bib = nd.bib;
    if (body.ptr)
        p->csl_bib = nd.bib;
    free(st->doc);
    st->doc = xmalloc(sizeof nd);
    *st->doc = nd;
    again = true;
    if (!body.ptr)
        goto done;
    /* kept by the page's text for the next build */
    buf key = BUF_INIT, v = BUF_INIT;
    page_key(s, c, p, body, lang, &key);
    buf_puts(&v, "{\"sigs\": [");
    for (size_t g = 0; g < sigs->len; g++) {
        if (g)
            buf_putc(&v, ',');
        bib_json_string(&v, sigs->items[g].u.s, sigs->items[g].len);
    }
    buf_puts(&v, "], \"reply\": ");
    if (nclusters)
        buf_put(&v, reply.data, reply.len);
    else
        buf_puts(&v, "{\"clusters\": [], \"bibliography\": []}");
    buf_putc(&v, '}');
    cache_put(s->cache, "csl-page", key.data, key.len, v.data, v.len);
    buf_release(&key);
    buf_release(&v);
done:
    buf_release(&items);
    buf_release(&clusters);
    buf_release(&sig);
    buf_release(&reply);
    buf_release(&err);
    return again;
}

/* ---- entry.reference ---- */

/* The inside of citeproc-js's <div class="csl-entry">…</div>, without a
 * numeric style's number (<div class="csl-left-margin">[1]</div>): the
 * entry alone, as a paper's page shows it. */
void site_csl_entry_html(const char *h, size_t n, bool keep, buf *out)
{
    while (n && (*h == ' ' || *h == '\n'))
        h++, n--;
    while (n && (h[n - 1] == '\n' || h[n - 1] == ' '))
        n--;
    static const char open[] = "<div class=\"csl-entry\">", close[] = "</div>";
    if (n >= sizeof open - 1 + sizeof close - 1 && !strncmp(h, open, sizeof open - 1) &&
        !strncmp(h + n - (sizeof close - 1), close, sizeof close - 1)) {
        h += sizeof open - 1;
        n -= sizeof open - 1 + sizeof close - 1;
    }
    while (n && (*h == ' ' || *h == '\n'))
        h++, n--;
    while (n && (h[n - 1] == ' ' || h[n - 1] == '\n'))
        n--;
    static const char margin[] = "<div class=\"csl-left-margin\">", inl[] = "<div class=\"csl-right-inline\">";
    const char *m = !keep && n >= sizeof margin - 1 && !strncmp(h, margin, sizeof margin - 1) ? h : NULL;
    const char *r = m ? memmem(h, n, inl, sizeof inl - 1) : NULL;
    if (r && n >= 6 && !strncmp(h + n - 6, close, 6)) {
        size_t at = (size_t)(r - h) + sizeof inl - 1;
        h += at;
        n -= at + 6;
    }
    while (n && (*h == ' ' || *h == '\n'))
        h++, n--;
    while (n && (h[n - 1] == ' ' || h[n - 1] == '\n'))
        n--;
    buf_put(out, h, n);
}

typedef struct refs_ctx {
    site *s;
    diag_list *d;
} refs_ctx;

static void ref_job(void *vctx, size_t i, int worker)
{
    refs_ctx *rc = vctx;
    site *s = rc->s;
    const bib_entry *e = &s->bib->entries[i];
    const char *lang = doc_lang(s, NULL);
    buf item = BUF_INIT, key = BUF_INIT, out = BUF_INIT;
    bib_csl_json(e, lang, &item);
    buf_printf(&key, "%s %s\n%s\n%s\n", KEY_FORMAT, js_csl_version(), s->csl->hash, lang);
    buf_put(&key, item.data, item.len);
    if (!cache_get(s->cache, "csl-ref", key.data, key.len, &out)) {
        buf reply = BUF_INIT, err = BUF_INIT;
        arena *a = arena_new();
        const tpl_list *clusters;
        tpl_value bib;
        if (!format(s, s->csl, lang, &item, NULL, &reply, &err))
            report(s, NULL, err.data, rc->d);
        else if (!read_reply(reply.data, reply.len, 0, a, &clusters, &bib))
            report(s, NULL, "citeproc-js gave a reply sheaf cannot read", rc->d);
        else {
            if (bib.u.list->len) {
                const tpl_value *h = &bib.u.list->items[0].u.list->items[1];
                site_csl_entry_html(h->u.s, h->len, false, &out);
            }
            cache_put(s->cache, "csl-ref", key.data, key.len, out.data, out.len);
        }
        arena_free(a);
        buf_release(&reply);
        buf_release(&err);
    }
    tpl_map *m = s->entry_values[i];
    const char *html = arena_strndup(s->wa[worker], out.data, out.len);
    tpl_map_update(m, (size_t)tpl_map_find(m, "reference"), tpl_safe_strn(html, out.len));
    buf_release(&item);
    buf_release(&key);
    buf_release(&out);
}

void site_csl_references(site *s, int jobs, diag_list *d)
{
    if (!s->csl || !s->bib || !s->bib->n)
        return;
    refs_ctx rc = { s, d };
    site_parallel(s->bib->n, jobs, ref_job, &rc);
}

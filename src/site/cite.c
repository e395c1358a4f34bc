/* cite: citations in the site model — the bibliography files, the HTML of
 * each citation, the check of every key, and the paper graph.
 *
 * The .bib files are those of site.yaml's `bibliography:` and of every
 * page's; a page may cite any work of the site's files and of its own.
 * Each cited work gets papers/<slug>/ (the slug of its key) listing the
 * pages that cite it, newest first, with the sentence around the first
 * citation on each; papers/ lists them all. Nothing is made for a work no
 * page cites.
 *
 * In-text citations are written here, in one of two styles
 * (`citation_style:`): author-year — "(Lian et al. 2017, p. 4)", narrative
 * "Lian et al. (2017)" — or numeric — "[1, p. 4]", narrative "Lian et al.
 * [1]", numbered per page in order of first citation. How each reference
 * reads in a bibliography is the templates' business (the entry model is
 * in docs/variables.md). Each citation links to `#ref-<key>`, the id the
 * page's bibliography gives the entry (Pandoc's convention). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bib/csljson.h"
#include "site/cite.h"
#include "site/load.h"
#include "site/model.h"
#include "site/paths.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/strmap.h"
#include "util/text.h"
#include "util/url.h"
#include "util/vec.h"
#include "util/xalloc.h"

static void name_entries(site *s);

/* ---- loading ---- */

/* A CSL-JSON bibliography (bib/csljson.h): fm/json.c reads the JSON with
 * the places of its keys and items, which the checks of bib/ ask for. */
typedef struct json_places {
    const fm_key_pos *pos;
    size_t npos;
    const fm_item_pos *items;
    size_t nitems;
} json_places;

static bool json_key_at(void *ctx, const tpl_map *m, const char *key, int *line, int *col)
{
    const json_places *jp = ctx;
    const fm_key_pos *kp = fm_key_find(jp->pos, jp->npos, m, key);
    if (kp) {
        *line = kp->vline;
        *col = kp->vcol;
    }
    return kp != NULL;
}

static bool json_item_at(void *ctx, const tpl_list *l, size_t i, int *line, int *col)
{
    const json_places *jp = ctx;
    for (size_t k = 0; k < jp->nitems; k++)
        if (jp->items[k].list == l && jp->items[k].index == i) {
            *line = jp->items[k].line;
            *col = jp->items[k].col;
            return true;
        }
    return false;
}

bool site_bib_load_csljson(bib *b, const char *text, size_t len, const char *path, arena *a, diag_list *d)
{
    tpl_value root;
    json_places jp = { 0 };
    fm_key_pos *pos;
    fm_item_pos *items;
    if (!fm_parse_json_value_pos(str_make(text, len), path, a, &root, &pos, &jp.npos, &items, &jp.nitems, d))
        return false;
    jp.pos = pos;
    jp.items = items;
    bib_json_places at = { json_key_at, json_item_at, &jp };
    return bib_load_csljson(b, root, path, &at, a, d);
}

static bool load_csljson(bib *b, const char *file, const char *path, const char *where, int line, int col,
                         arena *a, diag_list *d)
{
    buf text = BUF_INIT;
    if (!fs_read_file(file, &text)) {
        diag_error(d, where, line, col, "cannot read bibliography '%s': %s", path, fs_strerror(errno));
        buf_release(&text);
        return false;
    }
    bool ok = site_bib_load_csljson(b, text.data, text.len, path, a, d);
    buf_release(&text);
    return ok;
}

static bool is_json(const char *path)
{
    size_t n = strlen(path);
    return n > 5 && !strcasecmp(path + n - 5, ".json");
}

/* Loads path (relative to the site) once: s->bib_seen maps what is loaded. */
static bool load_one(site *s, const char *path, const char *where, int line, int col, diag_list *d)
{
    if (!s->bib_seen)
        s->bib_seen = strmap_new(8);
    if (strmap_get(s->bib_seen, path) >= 0)
        return true;
    strmap_put(s->bib_seen, path, 0);
    if (!s->bib)
        s->bib = arena_calloc(s->a, sizeof *s->bib);
    char *file = fs_join(s->dir, path), *root = fs_resolve(s->dir);
    bool ok;
    if (!fs_within(root, file)) { /* the containment rule (fs_within) */
        diag_error(d, where, line, col, "cannot read bibliography '%s': %s", path, fs_strerror(FS_EOUTSIDE));
        ok = false;
    } else {
        ok = is_json(path) ? load_csljson(s->bib, file, path, where, line, col, s->a, d)
                           : bib_load(s->bib, file, path, where, line, col, s->a, d);
    }
    free(root);
    free(file);
    s->bib_incomplete |= !ok;
    return ok;
}

/* The URL policy (url_allowed, util/url.h) for the url field of every
 * entry — the one a reference links to when there is no DOI or arXiv id;
 * howpublished = {\url{…}} is taken only when it is http(s) (url_only),
 * a DOI or an eprint only behind https://doi.org/ or https://arxiv.org/.
 * A .bib often comes from elsewhere (a publisher, a co-author): a
 * javascript: URL in it is an error at its entry, never a link. */
static bool check_urls(bib *b, diag_list *d)
{
    bool ok = true;
    for (size_t i = 0; i < b->n; i++) {
        const bib_entry *e = &b->entries[i];
        const char *url = bib_field_get(e, "url");
        char scheme[32];
        if (url && !url_allowed(url, strlen(url), scheme)) {
            diag_error(d, e->src, e->line, 1,
                       "entry '%s': url '%.60s' has the scheme '%s:': only http, https, mailto, "
                       "relative and #fragment URLs are written",
                       e->key, url, scheme);
            ok = false;
        }
    }
    return ok;
}

/* Keys starting fig-, tbl-, eq-, sec- are cross-references in the text
 * (Quarto's rule, md/xref.c), so an entry with such a key could never be
 * cited: an error at the entry. */
static bool check_keys(bib *b, diag_list *d)
{
    static const char *const what[MD_LABEL_KINDS] = { "figure", "table", "equation", "section" };
    bool ok = true;
    for (size_t i = 0; i < b->n; i++) {
        const bib_entry *e = &b->entries[i];
        int k = md_label_kind_of(e->key, strlen(e->key));
        if (k < 0)
            continue;
        diag_error(d, e->src, e->line, 1,
                   "entry '%s': a key starting '%.*s' is a cross-reference (@%s is a %s's label "
                   "in the text), so this entry could never be cited: rename its key",
                   e->key, (int)(strchr(e->key, '-') - e->key + 1), e->key, e->key, what[k]);
        ok = false;
    }
    return ok;
}

bool site_load_site_bibliography(site *s, diag_list *d)
{
    bool ok = true;
    int cl, cc;
    site_config_key_place(&s->cfg, "bibliography", &cl, &cc);
    for (size_t i = 0; i < s->cfg.nbibliography; i++)
        ok &= load_one(s, s->cfg.bibliography[i], "site.yaml", cl, cc, d);
    return ok;
}

bool site_load_bibliography(site *s, diag_list *d)
{
    bool ok = site_csl_setup(s, d);
    ok &= site_load_site_bibliography(s, d);
    for (size_t i = 0; i < s->npages; i++) {
        page *p = &s->pages[i];
        if (p->failed || !p->nbibs)
            continue;
        int line, col;
        site_page_key_place(p, "bibliography", &line, &col);
        for (size_t k = 0; k < p->nbibs; k++)
            ok &= load_one(s, p->bibs[k], p->src, line, col, d);
    }
    strmap_free(s->bib_seen);
    s->bib_seen = NULL;
    if (s->bib && !bib_resolve_crossrefs(s->bib, s->a, d))
        ok = false, s->bib_incomplete = true;
    if (s->bib && !check_urls(s->bib, d))
        ok = false;
    if (s->bib && !check_keys(s->bib, d))
        ok = false;
    if (s->bib)
        name_entries(s);
    return ok && !s->bib_incomplete;
}

bool site_page_cites(const site *s, const page *p)
{
    return s->bib && (s->cfg.nbibliography || p->nbibs);
}

/* Can page p cite entry e? Entries of the site's files, or of its own. */
static bool visible(const site *s, const page *p, const bib_entry *e)
{
    for (size_t i = 0; i < s->cfg.nbibliography; i++)
        if (!strcmp(e->src, s->cfg.bibliography[i]))
            return true;
    for (size_t i = 0; i < p->nbibs; i++)
        if (!strcmp(e->src, p->bibs[i]))
            return true;
    return false;
}

static const bib_entry *lookup(const site *s, const page *p, const char *key)
{
    const bib_entry *e = s->bib ? bib_find(s->bib, key) : NULL;
    return e && visible(s, p, e) ? e : NULL;
}

const bib_entry *site_cite_entry(const site *s, const page *p, const char *key) { return lookup(s, p, key); }

/* ---- how a work is named in the text ---- */

static const char *family(const bib_name *n, arena *a)
{
    return *n->von ? arena_printf(a, "%s %s", n->von, n->family) : n->family;
}

/* "Lian", "Lian and Zhang", "Lian et al."; editors when there are no
 * authors; else the title; else the key. */
static const char *names_label(const bib_entry *e, arena *a)
{
    const bib_name *v = e->nauthors ? e->authors : e->editors;
    size_t n = e->nauthors ? e->nauthors : e->neditors;
    if (n == 1)
        return family(&v[0], a);
    if (n == 2)
        return arena_printf(a, "%s and %s", family(&v[0], a), family(&v[1], a));
    if (n > 2)
        return arena_printf(a, "%s et al.", family(&v[0], a));
    const char *t = bib_field_get(e, "title");
    return t && *t ? t : e->key;
}

static const char *year_of(const bib_entry *e, arena *a)
{
    const char *y = bib_field_get(e, "year");
    if (y && *y)
        return y;
    const char *date = bib_field_get(e, "date"); /* BibLaTeX: 2017-05-25 */
    if (date && strlen(date) >= 4)
        return arena_strndup(a, date, 4);
    return "n.d.";
}

/* Each entry's label and year, made once (every citation shows them). */
static void name_entries(site *s)
{
    size_t n = s->bib->n;
    s->entry_label = arena_calloc(s->a, (n + 1) * sizeof *s->entry_label);
    s->entry_year = arena_calloc(s->a, (n + 1) * sizeof *s->entry_year);
    for (size_t i = 0; i < n; i++) {
        s->entry_label[i] = names_label(&s->bib->entries[i], s->a);
        s->entry_year[i] = year_of(&s->bib->entries[i], s->a);
    }
}

static void esc(buf *out, const char *s) { md_escape_html(out, s, strlen(s)); }

void site_cite_open(buf *out, const md_cite *c, size_t n)
{
    buf_puts(out, "<span class=\"citation\" data-cites=\"");
    for (size_t i = 0; i < n; i++) {
        if (i)
            buf_putc(out, ' ');
        esc(out, c[i].key);
    }
    buf_puts(out, "\">");
}

static void open_link(buf *out, const char *key)
{
    buf_puts(out, "<a href=\"#ref-");
    esc(out, key);
    buf_puts(out, "\">");
}

static long number_of(site_cite_state *st, const char *key)
{
    if (!st->num)
        st->num = strmap_new(16);
    long n = strmap_get(st->num, key);
    if (n < 0)
        strmap_put(st->num, key, n = ++st->n);
    return n;
}

void site_cite_state_free(site_cite_state *st)
{
    strmap_free(st->num);
    site_csl_doc_free(st->doc);
    memset(st, 0, sizeof *st);
}

void site_cite_html(const site *s, const page *p, site_cite_state *st, const md_cite *c, size_t n,
                    buf *out)
{
    if (site_page_csl(s, p)) {
        site_csl_cite_html(s, p, st, c, n, out);
        return;
    }
    bool numeric = s->cfg.citations_numeric;
    site_cite_open(out, c, n);
    if (!c[0].narrative)
        buf_putc(out, numeric ? '[' : '(');
    for (size_t i = 0; i < n; i++) {
        const bib_entry *e = lookup(s, p, c[i].key);
        if (i)
            buf_puts(out, numeric ? ", " : "; ");
        if (!e) { /* reported by site_check_citations */
            buf_puts(out, "<span class=\"citation-unknown\">@");
            esc(out, c[i].key);
            buf_puts(out, "?</span>");
            continue;
        }
        if (*c[i].prefix) {
            esc(out, c[i].prefix);
            buf_putc(out, ' ');
        }
        size_t ei = (size_t)(e - s->bib->entries);
        const char *who = s->entry_label[ei];
        if (c[i].narrative) {
            open_link(out, e->key);
            esc(out, who);
            if (numeric)
                buf_printf(out, " [%ld", number_of(st, e->key));
            else
                buf_printf(out, " (%s", s->entry_year[ei]);
            if (*c[i].locator) {
                buf_puts(out, ", ");
                esc(out, c[i].locator);
            }
            buf_puts(out, numeric ? "]</a>" : ")</a>");
            continue;
        }
        open_link(out, e->key);
        if (numeric) {
            buf_printf(out, "%ld", number_of(st, e->key));
        } else {
            if (!c[i].suppress_author) {
                esc(out, who);
                buf_putc(out, ' ');
            }
            esc(out, s->entry_year[ei]);
        }
        buf_puts(out, "</a>");
        if (*c[i].locator) {
            buf_puts(out, ", ");
            esc(out, c[i].locator);
        }
    }
    if (!c[0].narrative)
        buf_putc(out, numeric ? ']' : ')');
    buf_puts(out, "</span>");
}

/* ---- the check and the graph ---- */

static const site *cite_sort_site; /* for newest_first; set under the build's one thread */

static int newest_first(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    const page *pa = &cite_sort_site->pages[a], *pb = &cite_sort_site->pages[b];
    int64_t ta = pa->has_date ? pa->date.t : INT64_MIN, tb = pb->has_date ? pb->date.t : INT64_MIN;
    return ta != tb ? (ta < tb ? 1 : -1) : (a > b) - (a < b);
}

void site_check_citations(site *s, diag_list *d)
{
    if (!s->bib)
        return;
    s->paper_index = strmap_new(64);
    size_t cap = 0;
    /* the citing pages newest first (then in load order), so each
     * paper's list comes out in that order */
    int *order = xcalloc(s->npages + 1, sizeof *order);
    size_t no = 0;
    for (size_t i = 0; i < s->npages; i++)
        if (!s->pages[i].failed && !s->pages[i].excluded && s->pages[i].path && s->pages[i].md.ncites)
            order[no++] = (int)i;
    cite_sort_site = s;
    vec_sort(order, no, sizeof *order, newest_first);
    for (size_t k = 0; k < no; k++) {
        page *p = &s->pages[order[k]];
        for (size_t i = 0; i < p->md.ncites; i++) {
            const md_cite *c = &p->md.cites[i];
            const bib_entry *e = lookup(s, p, c->key);
            if (!e && s->bib_incomplete)
                continue; /* a .bib did not load: its error says why, not each key */
            if (!e) {
                const char *sug = bib_suggest(s->bib, c->key);
                const bib_entry *other = bib_find(s->bib, c->key);
                if (other)
                    diag_error(d, p->src, c->line, c->col,
                               "citation '@%s': the work is in %s, which this page does not use "
                               "(add it to 'bibliography:')",
                               c->key, other->src);
                else
                    diag_error(d, p->src, c->line, c->col,
                               "citation '@%s': no such key in the bibliography%s%s%s (write \\@ "
                               "for a literal @)",
                               c->key, sug ? " (did you mean '" : "", sug ? sug : "",
                               sug ? "'?)" : "");
                continue;
            }
            long pi = strmap_get(s->paper_index, e->key);
            if (pi < 0) {
                paper_info *np = VEC_ADD(s->papers, s->npapers, cap, 16);
                memset(np, 0, sizeof *np);
                np->e = e;
                buf slug = BUF_INIT;
                text_slugify(&slug, e->key, strlen(e->key));
                np->path = arena_printf(s->a, "papers/%s/", slug.len ? slug.data : "paper");
                buf_release(&slug);
                pi = (long)s->npapers - 1;
                strmap_put(s->paper_index, e->key, pi);
            }
            paper_info *pp = &s->papers[pi];
            if (pp->npages && pp->pages[pp->npages - 1] == p->index)
                continue; /* one line per citing page */
            size_t pc = pp->cap;
            VEC_PUSH(pp->pages, pp->npages, pp->cap, 4, p->index);
            if (pp->cap != pc)
                pp->contexts = xrealloc(pp->contexts, pp->cap * sizeof *pp->contexts);
            pp->contexts[pp->npages - 1] = c->context;
        }
    }
    free(order);
    /* two keys that slug alike: the later one gets a suffix */
    strmap *paths = strmap_new(s->npapers + 1);
    for (size_t i = 0; i < s->npapers; i++) {
        const char *path = s->papers[i].path;
        for (int k = 2; strmap_get(paths, path) >= 0; k++)
            path = arena_printf(s->a, "%.*s-%d/", (int)strlen(s->papers[i].path) - 1,
                                s->papers[i].path, k);
        s->papers[i].path = path;
        strmap_put(paths, path, (long)i);
    }
    strmap_free(paths);
}

/* ---- template values ---- */

static tpl_value sv(const char *s) { return tpl_str(s ? s : ""); }

static tpl_value names_value(arena *a, const bib_name *v, size_t n)
{
    tpl_list *l = tpl_list_new(a, n);
    for (size_t i = 0; i < n; i++) {
        tpl_map *m = tpl_map_new(a, 5);
        tpl_map_set_str(a, m, "given", sv(v[i].given));
        tpl_map_set_str(a, m, "von", sv(v[i].von));
        tpl_map_set_str(a, m, "family", sv(v[i].family));
        tpl_map_set_str(a, m, "jr", sv(v[i].jr));
        tpl_map_set_str(a, m, "full", sv(v[i].full));
        tpl_map_seal(a, m);
        l->items[i] = tpl_map_value(m);
    }
    return tpl_list_value(l);
}

/* The first of the fields that is there. */
static const char *first_field(const bib_entry *e, const char *const *names)
{
    for (; *names; names++) {
        const char *v = bib_field_get(e, *names);
        if (v && *v)
            return v;
    }
    return NULL;
}

static bool is_arxiv(const bib_entry *e)
{
    const char *ap = first_field(e, (const char *const[]){ "archiveprefix", "eprinttype", NULL });
    return ap && !strcasecmp(ap, "arxiv") && bib_field_get(e, "eprint");
}

/* howpublished = {\url{https://…}}, the way before BibLaTeX's url field:
 * the text when it is one http(s) URL and nothing else, else NULL. */
static const char *url_only(const char *v)
{
    if (!v || (strncmp(v, "https://", 8) && strncmp(v, "http://", 7)))
        return NULL;
    return v[strcspn(v, " \t\n\xc2\xa0")] ? NULL : v;
}

/* A DOI as its resolver's URL or "doi:" wrote it (a DOI field often holds
 * https://doi.org/10.1000/x): the DOI alone, 10.1000/x. */
static const char *bare_doi(const char *doi)
{
    static const char *const prefixes[] = { "https://doi.org/", "http://doi.org/", "https://dx.doi.org/",
                                            "http://dx.doi.org/", "doi.org/", "doi:", NULL };
    if (!doi)
        return NULL;
    while (*doi == ' ')
        doi++;
    for (const char *const *p = prefixes; *p; p++)
        if (!strncasecmp(doi, *p, strlen(*p))) {
            doi += strlen(*p);
            while (*doi == ' ')
                doi++;
            break;
        }
    return doi;
}

/* A page range with the en dash between its ends (834-849 → 834–849), as
 * "--" in TeX gives it; pages that are no range stay as written. */
static const char *page_range(arena *a, const char *pages)
{
    const char *h = pages ? strchr(pages, '-') : NULL;
    if (!h || h == pages || h[-1] == ' ')
        return pages;
    size_t run = strspn(h, "-");
    if (!h[run] || h[run] == ' ' || strchr(h + run, '-'))
        return pages;
    return arena_printf(a, "%.*s\u2013%s", (int)(h - pages), pages, h + run);
}

static tpl_map *entry_value(site *s, const bib_entry *e, const char *paper_path)
{
    arena *a = s->a;
    tpl_map *m = tpl_map_new(a, 24);
    tpl_map_set_str(a, m, "key", sv(e->key));
    tpl_map_set_str(a, m, "id", tpl_str(arena_printf(a, "ref-%s", e->key)));
    tpl_map_set_str(a, m, "type", sv(e->type));
    tpl_map_set_str(a, m, "title", sv(bib_field_get(e, "title")));
    tpl_map_set_str(a, m, "authors", names_value(a, e->authors, e->nauthors));
    tpl_map_set_str(a, m, "editors", names_value(a, e->editors, e->neditors));
    size_t ei = (size_t)(e - s->bib->entries);
    tpl_map_set_str(a, m, "label", sv(s->entry_label[ei]));
    const char *year = s->entry_year[ei];
    tpl_map_set_str(a, m, "year", tpl_str(arena_strdup(a, strcmp(year, "n.d.") ? year : "")));
    static const char *const venue[] = { "journal", "journaltitle", "booktitle", "school",
                                         "institution", "howpublished", "publisher", NULL };
    const char *v = first_field(e, venue);
    const char *doi = bare_doi(bib_field_get(e, "doi"));
    const char *eprint = is_arxiv(e) ? bib_field_get(e, "eprint") : NULL;
    if (!v && eprint)
        v = arena_printf(a, "arXiv:%s", eprint);
    tpl_map_set_str(a, m, "venue", sv(v));
    static const char *const plain[] = { "volume", "number", "publisher", "month",
                                         "note", "edition", "series", "address", NULL };
    for (size_t i = 0; plain[i]; i++)
        tpl_map_set_str(a, m, plain[i], sv(bib_field_get(e, plain[i])));
    tpl_map_set_str(a, m, "pages", sv(page_range(a, bib_field_get(e, "pages"))));
    tpl_map_set_str(a, m, "doi", sv(doi));
    tpl_map_set_str(a, m, "arxiv", sv(eprint));
    const char *url = bib_field_get(e, "url");
    char scheme[32];
    bool url_ok = !url || url_allowed(url, strlen(url), scheme);
    if (!url_ok)
        url = NULL; /* reported by check_urls */
    if (!url || !*url)
        url = url_only(bib_field_get(e, "howpublished"));
    tpl_map_set_str(a, m, "url", sv(url));
    /* the one link a reference shows: DOI, else arXiv, else url */
    const char *link = doi && *doi ? arena_printf(a, "https://doi.org/%s", doi)
                       : eprint    ? arena_printf(a, "https://arxiv.org/abs/%s", eprint)
                                   : url;
    tpl_map_set_str(a, m, "link", sv(link));
    tpl_map_set_str(a, m, "paper_url", paper_path ? tpl_str(site_url(s, paper_path)) : tpl_none());
    tpl_map *f = tpl_map_new(a, e->nfields);
    for (size_t i = 0; i < e->nfields; i++)
        if (url_ok || strcmp(e->fields[i].name, "url"))
            tpl_map_set_str(a, f, e->fields[i].name, sv(e->fields[i].text));
    tpl_map_seal(a, f);
    tpl_map_set_str(a, m, "fields", tpl_map_value(f));
    tpl_map_set_str(a, m, "reference", tpl_safe_strn("", 0)); /* render_references */
    return m;
}

/* Author-year bibliographies and the site's: by names, year, title. */
static int cmp_entries(const void *x, const void *y)
{
    const tpl_map *a = *(tpl_map *const *)x, *b = *(tpl_map *const *)y;
    static const char *const keys[] = { "label", "year", "title", "key" };
    for (size_t i = 0; i < 4; i++) {
        tpl_value va = tpl_map_get_cstr(a, keys[i]), vb = tpl_map_get_cstr(b, keys[i]);
        int c = strcmp(va.kind == TPL_STRING ? va.u.s : "", vb.kind == TPL_STRING ? vb.u.s : "");
        if (c)
            return c;
    }
    return 0;
}

/* A cited work for site.papers: its count, and its place in the sorted
 * bibliography to keep ties in that order. */
typedef struct ranked {
    tpl_map *m;
    int64_t count;
    size_t at;
} ranked;

static int cmp_ranked(const void *x, const void *y)
{
    const ranked *a = x, *b = y;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

void site_citation_values(site *s, tpl_map *site_map)
{
    arena *a = s->a;
    tpl_map_set_str(a, site_map, "citation_style", tpl_str(s->cfg.citation_style));
    tpl_map_set_str(a, site_map, "citation_csl", tpl_bool(s->csl != NULL));
    size_t n = s->bib ? s->bib->n : 0;
    s->entry_values = arena_calloc(a, (n + 1) * sizeof *s->entry_values);
    for (size_t i = 0; i < n; i++) {
        const bib_entry *e = &s->bib->entries[i];
        long pi = s->paper_index ? strmap_get(s->paper_index, e->key) : -1;
        tpl_map *m = entry_value(s, e, pi >= 0 ? s->papers[pi].path : NULL);
        tpl_map_set_str(a, m, "cited_by_count",
                        tpl_int(pi >= 0 ? (int64_t)s->papers[pi].npages : 0));
        site_paper_entry_values(s, pi, e, m); /* papers.c */
        tpl_map_seal(a, m);
        s->entry_values[i] = m;
        if (pi >= 0)
            s->papers[pi].value = m;
    }
    tpl_map **sorted = xcalloc(n + 1, sizeof *sorted);
    memcpy(sorted, s->entry_values, n * sizeof *sorted);
    vec_sort(sorted, n, sizeof *sorted, cmp_entries);
    tpl_list *all = tpl_list_new(a, n);
    for (size_t i = 0; i < n; i++)
        all->items[i] = tpl_map_value(sorted[i]);
    tpl_map_set_str(a, site_map, "bibliography", tpl_list_value(all));
    /* site.papers: the cited works, most cited first (then as sorted) */
    ranked *r = xcalloc(n + 1, sizeof *r);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t count = tpl_map_get_cstr(sorted[i], "cited_by_count").u.i;
        if (count > 0)
            r[k++] = (ranked){ sorted[i], count, i };
    }
    vec_sort(r, k, sizeof *r, cmp_ranked);
    for (size_t i = 0; i < k; i++)
        sorted[i] = r[i].m;
    free(r);
    tpl_list *papers = tpl_list_new(a, k);
    for (size_t i = 0; i < k; i++)
        papers->items[i] = tpl_map_value(sorted[i]);
    tpl_map_set_str(a, site_map, "papers", tpl_list_value(papers));
    free(sorted);
}

tpl_value site_paper_cited_by(const site *s, const paper_info *pp, arena *a)
{
    tpl_list *l = tpl_list_new(a, pp->npages);
    for (size_t k = 0; k < pp->npages; k++) {
        tpl_map *r = site_page_ref(s, a, &s->pages[pp->pages[k]], 1);
        tpl_map_set_str(a, r, "context", sv(pp->contexts[k]));
        l->items[k] = tpl_map_value(r);
    }
    return tpl_list_value(l);
}

void site_page_citation_values(site *s, arena *a, const page *p, tpl_map *m)
{
    size_t n = p->md.ncites;
    tpl_list *keys = tpl_list_new(a, n);
    tpl_map **refs = xcalloc(n + 1, sizeof *refs);
    size_t nk = 0, nr = 0;
    strmap *seen = strmap_new(n + 1);
    for (size_t i = 0; i < n; i++) {
        const char *key = p->md.cites[i].key;
        if (strmap_get(seen, key) >= 0)
            continue;
        strmap_put(seen, key, 0);
        keys->items[nk++] = sv(key);
        const bib_entry *e = s->bib ? lookup(s, p, key) : NULL;
        if (e)
            refs[nr++] = s->entry_values[e - s->bib->entries];
    }
    strmap_free(seen);
    keys->len = nk;
    if (site_page_csl(s, p) && nr) {
        /* the page's document's order and text (numbers, 2017a/b) */
        tpl_value pb = p->csl_bib;
        if (pb.kind != TPL_LIST) { /* its Markdown came from the session's page cache */
            site_cite_state st = { 0 };
            site_csl_finish(s, (page *)p, str_make(NULL, 0), &st, &p->md, a, NULL);
            pb = st.csl_bib;
            site_cite_state_free(&st);
        }
        const tpl_list *b = pb.kind == TPL_LIST ? pb.u.list : NULL;
        nr = 0;
        for (size_t i = 0; b && i < b->len; i++) {
            const tpl_list *kv = b->items[i].u.list;
            const bib_entry *e = lookup(s, p, kv->items[0].u.s);
            if (!e)
                continue;
            const tpl_map *m = s->entry_values[e - s->bib->entries];
            tpl_map *copy = tpl_map_new(a, m->len + 1);
            for (size_t k = 0; k < m->len; k++)
                tpl_map_set(a, copy, m->entries[k].key, m->entries[k].value);
            buf h = BUF_INIT;
            site_csl_entry_html(kv->items[1].u.s, kv->items[1].len, true, &h);
            tpl_map_set_str(a, copy, "reference", tpl_safe_strn(arena_strndup(a, h.data, h.len), h.len));
            buf_release(&h);
            tpl_map_seal(a, copy);
            refs[nr++] = copy;
        }
    }
    /* numeric: in order of first citation (the numbers); else by names */
    else if (!s->cfg.citations_numeric)
        vec_sort(refs, nr, sizeof *refs, cmp_entries);
    tpl_list *bib = tpl_list_new(a, nr);
    for (size_t i = 0; i < nr; i++)
        bib->items[i] = tpl_map_value(refs[i]);
    free(refs);
    tpl_map_set_str(a, m, "citations", tpl_list_value(keys));
    tpl_map_set_str(a, m, "bibliography", tpl_list_value(bib));
}

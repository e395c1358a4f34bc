/* papers: what the papers/ page and each paper's page show besides the
 * entry itself — the cited works grouped by year, the tags of the notes
 * citing each (the page's filter), a PDF link, and the entry's BibTeX.
 *
 * The citation graph (s->papers, cite.c) says which pages cite which work;
 * this file only reads it and the bibliography, and makes template values
 * (docs/variables.md, "Bibliography entries" and "papers.html"). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "site/cite.h"
#include "util/buf.h"
#include "util/strmap.h"
#include "util/url.h"
#include "util/vec.h"
#include "util/xalloc.h"

/* The terms of the tags taxonomy of page p (its `tags:`). */
static const char **page_tags(const site *s, const page *p, size_t *n)
{
    for (size_t t = 0; t < s->ntaxonomies; t++)
        if (!strcmp(s->taxonomies[t].name, "tags")) {
            *n = p->nterms[t];
            return p->terms[t];
        }
    *n = p->ntags;
    return p->tags;
}

typedef struct tag_ref {
    const char *name, *slug;
} tag_ref;

static int cmp_tag_ref(const void *x, const void *y)
{
    const tag_ref *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    return c ? c : strcmp(a->slug, b->slug);
}

/* A link the page may write: http(s) or relative (url_allowed). */
static const char *allowed(const char *u)
{
    char scheme[32];
    return u && *u && url_allowed(u, strlen(u), scheme) ? u : NULL;
}

static bool ends_with_pdf(const char *u)
{
    size_t n = strlen(u);
    const char *q = strpbrk(u, "?#");
    if (q)
        n = (size_t)(q - u);
    return n >= 4 && !strncasecmp(u + n - 4, ".pdf", 4);
}

void site_paper_entry_values(site *s, long pi, const bib_entry *e, tpl_map *m)
{
    arena *a = s->a;
    /* pdf: the `pdf` field, else a url that is a PDF, else arXiv's PDF */
    const char *pdf = allowed(bib_field_get(e, "pdf"));
    const char *url = allowed(bib_field_get(e, "url"));
    if (!pdf && url && ends_with_pdf(url))
        pdf = url;
    tpl_value arxiv = tpl_map_get_cstr(m, "arxiv");
    if (!pdf && arxiv.kind == TPL_STRING && arxiv.len)
        pdf = arena_printf(a, "https://arxiv.org/pdf/%s", arxiv.u.s);
    tpl_map_set_str(a, m, "pdf", tpl_str(pdf ? pdf : ""));

    /* citing_tags: the tags of the citing pages, each once, by name */
    tag_ref *tags = NULL;
    size_t nt = 0, cap = 0;
    if (pi >= 0) {
        const paper_info *pp = &s->papers[pi];
        strmap *seen = strmap_new(8);
        for (size_t k = 0; k < pp->npages; k++) {
            size_t n;
            const char **names = page_tags(s, &s->pages[pp->pages[k]], &n);
            for (size_t i = 0; i < n; i++) {
                const char *slug = site_tag_slug(&s->cfg, a, names[i]);
                if (!*slug || strmap_get(seen, slug) >= 0)
                    continue;
                strmap_put(seen, slug, 0);
                *VEC_ADD(tags, nt, cap, 8) = (tag_ref){ names[i], slug };
            }
        }
        strmap_free(seen);
    }
    vec_sort(tags, nt, sizeof *tags, cmp_tag_ref);
    tpl_list *l = tpl_list_new(a, nt);
    for (size_t i = 0; i < nt; i++) {
        tpl_map *t = tpl_map_new(a, 2);
        tpl_map_set_str(a, t, "name", tpl_str(tags[i].name));
        tpl_map_set_str(a, t, "slug", tpl_str(tags[i].slug));
        tpl_map_seal(a, t);
        l->items[i] = tpl_map_value(t);
    }
    free(tags);
    tpl_map_set_str(a, m, "citing_tags", tpl_list_value(l));
}

/* Years newest first; one that is not a number after those that are; no
 * year last. */
static int cmp_year(const void *x, const void *y)
{
    const char *a = *(const char *const *)x, *b = *(const char *const *)y;
    if (!*a || !*b)
        return (!*a) - (!*b);
    long na = strtol(a, NULL, 10), nb = strtol(b, NULL, 10);
    if (na != nb)
        return na > nb ? -1 : 1;
    return strcmp(a, b);
}

static const char *str_of(tpl_value v)
{
    return v.kind == TPL_STRING ? v.u.s : "";
}

typedef struct tag_count {
    const tpl_map *m; /* {name, slug}: the first paper's */
    int64_t n;
} tag_count;

static int cmp_tag_count(const void *x, const void *y)
{
    const tag_count *a = x, *b = y;
    return cmp_tag_ref(&(tag_ref){ str_of(tpl_map_get_cstr(a->m, "name")), str_of(tpl_map_get_cstr(a->m, "slug")) },
                       &(tag_ref){ str_of(tpl_map_get_cstr(b->m, "name")), str_of(tpl_map_get_cstr(b->m, "slug")) });
}

void site_papers_values(site *s, tpl_map *site_map)
{
    arena *a = s->a;
    tpl_value pv = tpl_map_get_cstr(site_map, "papers");
    size_t n = pv.kind == TPL_LIST ? pv.u.list->len : 0;
    const tpl_map **papers = xcalloc(n + 1, sizeof *papers);
    for (size_t i = 0; i < n; i++)
        papers[i] = pv.u.list->items[i].u.map;

    /* site.papers_by_year: [{year, papers}], site.papers' order within */
    const char **years = xcalloc(n + 1, sizeof *years);
    size_t ny = 0;
    strmap *year_at = strmap_new(16);
    for (size_t i = 0; i < n; i++) {
        const char *y = str_of(tpl_map_get_cstr(papers[i], "year"));
        if (strmap_get(year_at, y) < 0) {
            strmap_put(year_at, y, 0);
            years[ny++] = y;
        }
    }
    vec_sort(years, ny, sizeof *years, cmp_year);
    tpl_list *groups = tpl_list_new(a, ny);
    size_t *count = xcalloc(ny + 1, sizeof *count);
    strmap_free(year_at); /* (strmap_put keeps a key's first value) */
    year_at = strmap_new(ny + 1);
    for (size_t k = 0; k < ny; k++)
        strmap_put(year_at, years[k], (long)k);
    for (size_t i = 0; i < n; i++)
        count[strmap_get(year_at, str_of(tpl_map_get_cstr(papers[i], "year")))]++;
    tpl_list **lists = xcalloc(ny + 1, sizeof *lists);
    for (size_t k = 0; k < ny; k++) {
        lists[k] = tpl_list_new(a, count[k]);
        lists[k]->len = 0;
    }
    for (size_t i = 0; i < n; i++) {
        tpl_list *l = lists[strmap_get(year_at, str_of(tpl_map_get_cstr(papers[i], "year")))];
        l->items[l->len++] = tpl_map_value(papers[i]);
    }
    for (size_t k = 0; k < ny; k++) {
        tpl_map *g = tpl_map_new(a, 2);
        tpl_map_set_str(a, g, "year", tpl_str(years[k]));
        tpl_map_set_str(a, g, "papers", tpl_list_value(lists[k]));
        tpl_map_seal(a, g);
        groups->items[k] = tpl_map_value(g);
    }
    tpl_map_set_str(a, site_map, "papers_by_year", tpl_list_value(groups));
    free(lists);
    free(count);
    free(years);
    strmap_free(year_at);

    /* site.paper_tags: every tag of a citing note, with how many works
     * its notes cite, by name */
    tag_count *tags = NULL;
    size_t nt = 0, cap = 0;
    strmap *at = strmap_new(16);
    for (size_t i = 0; i < n; i++) {
        tpl_value ct = tpl_map_get_cstr(papers[i], "citing_tags");
        for (size_t j = 0; ct.kind == TPL_LIST && j < ct.u.list->len; j++) {
            const tpl_map *t = ct.u.list->items[j].u.map;
            const char *slug = str_of(tpl_map_get_cstr(t, "slug"));
            long k = strmap_get(at, slug);
            if (k < 0) {
                strmap_put(at, slug, (long)nt);
                *VEC_ADD(tags, nt, cap, 16) = (tag_count){ t, 0 };
                k = (long)nt - 1;
            }
            tags[k].n++;
        }
    }
    strmap_free(at);
    vec_sort(tags, nt, sizeof *tags, cmp_tag_count);
    tpl_list *tl = tpl_list_new(a, nt);
    for (size_t i = 0; i < nt; i++) {
        tpl_map *t = tpl_map_new(a, 3);
        tpl_map_set_str(a, t, "name", tpl_map_get_cstr(tags[i].m, "name"));
        tpl_map_set_str(a, t, "slug", tpl_map_get_cstr(tags[i].m, "slug"));
        tpl_map_set_str(a, t, "count", tpl_int(tags[i].n));
        tpl_map_seal(a, t);
        tl->items[i] = tpl_map_value(t);
    }
    free(tags);
    tpl_map_set_str(a, site_map, "paper_tags", tpl_list_value(tl));
    free(papers);
}

/* A value between braces: its TeX as read (macros expanded), else its
 * text. */
static void put_value(buf *b, const bib_field *f)
{
    const char *v = f->raw ? f->raw : f->text;
    buf_putc(b, '{');
    buf_puts(b, v ? v : "");
    buf_putc(b, '}');
}

const char *site_paper_bibtex(const bib_entry *e, arena *a)
{
    buf b = BUF_INIT;
    buf_printf(&b, "@%s{%s", e->type, e->key);
    size_t width = 0;
    for (size_t i = 0; i < e->nfields; i++)
        if (strlen(e->fields[i].name) > width)
            width = strlen(e->fields[i].name);
    for (size_t i = 0; i < e->nfields; i++) {
        /* a crossref's fields are written in: the entry stands alone */
        if (!strcmp(e->fields[i].name, "crossref"))
            continue;
        buf_printf(&b, ",\n  %-*s = ", (int)width, e->fields[i].name);
        put_value(&b, &e->fields[i]);
    }
    buf_puts(&b, "\n}\n");
    const char *r = arena_strndup(a, b.data, b.len);
    buf_release(&b);
    return r;
}

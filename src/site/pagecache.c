/* pagecache: what a build session keeps of each page between runs — its
 * front matter and its Markdown — so a rebuild re-parses only the pages
 * whose bytes changed.
 *
 * An entry owns an arena holding the parse products and the rendered
 * Markdown. The parse products are valid while the file's bytes are the
 * same. The Markdown also depends on every other page (links are rewritten
 * to their targets' URLs, and link records name pages by index), so it is
 * valid only while the "link environment" — every page's source and output
 * path, every content file, the tag pages, base path and Markdown options —
 * hashes the same, and so does the rest of what it reads (site_md_env,
 * mdcache.h: the configuration file, the theme's words, the CSL style and,
 * for a page that cites, the bibliography). A parse depends on the
 * configuration too (which front-matter keys are taxonomies, …): a run
 * whose configuration file is another drops every entry. Pages that
 * reported anything while parsing are never kept, so their diagnostics
 * come back on every run. */
#include <stdlib.h>
#include <string.h>

#include "fm/fm.h"
#include "site/pagecache.h"
#include "diag/diag.h"
#include "util/strmap.h"
#include "util/vec.h"
#include "util/xalloc.h"

struct site_page_cache {
    strmap *index; /* src → entry number */
    page_cache_entry **v;
    size_t n, cap;
    unsigned run;
    uint64_t config; /* the configuration file's hash at the last run (page_cache_begin) */
};

site_page_cache *site_page_cache_new(void)
{
    site_page_cache *c = xcalloc(1, sizeof *c);
    c->index = strmap_new(256);
    return c;
}

static void entry_reset(page_cache_entry *e)
{
    arena_free(e->a);
    e->a = NULL;
    free(e->text);
    e->text = NULL;
    e->len = 0;
    e->parsed = e->has_md = false;
    e->md_runs = 0;
}

void site_page_cache_free(site_page_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        entry_reset(c->v[i]);
        free(c->v[i]->src);
        free(c->v[i]);
    }
    free(c->v);
    strmap_free(c->index);
    free(c);
}

void site_page_cache_clear(site_page_cache *c)
{
    for (size_t i = 0; i < c->n; i++)
        entry_reset(c->v[i]);
}

void page_cache_begin(site_page_cache *c, uint64_t config)
{
    c->run++;
    if (config != c->config) /* every parse and rendering made under another one */
        site_page_cache_clear(c);
    c->config = config;
}

page_cache_entry *page_cache_slot(site_page_cache *c, const char *src)
{
    long i = strmap_get(c->index, src);
    if (i < 0) {
        page_cache_entry *e = xcalloc(1, sizeof *e);
        e->src = xstrdup(src);
        VEC_PUSH(c->v, c->n, c->cap, 256, e);
        i = (long)c->n - 1;
        strmap_put(c->index, e->src, i);
    }
    c->v[i]->run = c->run;
    return c->v[i];
}

void page_cache_prune(site_page_cache *c)
{
    /* pages gone from content/ since the last run: their memory goes */
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i]->run != c->run)
            entry_reset(c->v[i]);
}

bool page_cache_take_parse(page_cache_entry *e, page *p)
{
    if (!e || !e->parsed || e->len != p->text_len || memcmp(e->text, p->text, e->len) != 0)
        return false;
    const page *q = &e->snap;
    p->body = str_make(p->text + e->body_off, e->body_len);
    p->body_line = q->body_line;
    site_page_copy_head(p, q, false);
    p->failed = q->failed;
    p->excluded = q->excluded;
    return true;
}

arena *page_cache_fresh_arena(page_cache_entry *e)
{
    entry_reset(e);
    e->a = arena_new();
    return e->a;
}

void page_cache_keep_parse(page_cache_entry *e, const page *p)
{
    e->text = xmalloc(p->text_len + 1);
    memcpy(e->text, p->text, p->text_len);
    e->text[p->text_len] = 0;
    e->len = p->text_len;
    e->snap = *p;
    e->body_off = p->body.len ? (size_t)(p->body.ptr - p->text) : 0;
    e->body_len = p->body.len;
    e->parsed = true;
    e->has_md = false;
}

bool page_cache_take_md(page_cache_entry *e, uint64_t env, page *p)
{
    if (!e || !e->parsed || !e->has_md || e->env != env)
        return false;
    p->md = e->md;
    p->links = e->links;
    p->nlinks = e->nlinks;
    p->search_keys = e->search_keys;
    p->search_keys_len = e->search_keys_len;
    return true;
}

void page_cache_keep_md(page_cache_entry *e, uint64_t env, const page *p)
{
    e->md = p->md;
    e->links = p->links;
    e->nlinks = p->nlinks;
    e->search_keys = p->search_keys;
    e->search_keys_len = p->search_keys_len;
    e->env = env;
    e->has_md = true;
    /* each re-render under a new environment leaves the old Markdown in the
     * arena; after a few, start the entry afresh on the next run */
    if (++e->md_runs > 3)
        e->parsed = false;
}

bool site_page_body_edit(const page *p, const char *text, size_t len, str *body, int *body_line)
{
    const page_cache_entry *e = p->cache;
    if (!e || !e->parsed || p->failed)
        return false;
    diag_list *d = diag_list_new();
    fm_split was, now;
    bool ok = fm_split_source(str_make(e->text, e->len), p->src, &was, d) &&
              fm_split_source(str_make(text, len), p->src, &now, d) && diag_count(d) == 0 &&
              was.has_front_matter == now.has_front_matter && was.body_line == now.body_line;
    diag_list_free(d);
    if (!ok)
        return false;
    /* the same bytes up to where the body starts */
    size_t head = (size_t)(was.body.ptr - e->text);
    if ((size_t)(now.body.ptr - text) != head || memcmp(e->text, text, head) != 0)
        return false;
    *body = now.body;
    *body_line = now.body_line;
    return true;
}

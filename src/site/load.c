/* load: the load stage — content/, static/ and the theme → pages and files.
 *
 * site_load walks the folders (walk.c), parses every page's front matter
 * on `jobs` threads (front_matter.c; a build session reuses a parse whose
 * bytes are unchanged, a one-shot build with the build cache the record
 * of a file that is unchanged: srcrec.c), adds a notebook's files,
 * decides which pages are held back (held.c) and which folders are
 * sections (sections.c), and indexes pages and files for link resolution.
 * Output paths come after, in paths.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "embed/embed.h"
#include "site/cite.h"
#include "site/load.h"
#include "site/load_private.h"
#include "site/mdcache.h"
#include "site/media.h"
#include "site/pagecache.h"
#include "site/pool.h"
#include "site/sources.h"
#include "site/spill.h"
#include "site/srcrec.h"
#include "util/fs.h"
#include "util/strmap.h"
#include "util/xalloc.h"

struct site_index {
    strmap *pages; /* content rel → page index */
    strmap *files; /* content rel → file index */
    strmap *notebooks; /* src of a notebook read into a page text → page index */
};

typedef struct par_ctx {
    site *s;
    diag_list *d;
    site_src_records *records; /* a one-shot build with the build cache, else NULL */
    int content_fd;            /* content/ held open (O_PATH) for the stats, or -1 */
} par_ctx;

static site_source_stamp stamp_of(const site_src_ident *id)
{
    return (site_source_stamp){ id->dev, id->ino, id->size, id->mtime_s, id->mtime_ns };
}

/* A one-shot build's page: from its record when the file is unchanged
 * (only stat-ed: srcrec.c), else read and parsed, and recorded when that
 * said nothing. The text is read again for its Markdown only when the
 * Markdown is not in the cache (site_source_reread), so that the files
 * are not all held at once (at 10,000 posts they were two thirds of the
 * peak). */
static void one_shot(par_ctx *c, size_t i, page *p, arena *a)
{
    site *s = c->s;
    site_src_ident id;
    site_src_head h;
    /* a page's source is "content/" + its rel: stat-ed relative to
     * content/ held open (one lookup a component fewer for every folder
     * of the site's path, and no path joined) */
    bool stamped = !load_is_notebook(p) &&
                   (c->content_fd >= 0 && !strncmp(p->src, "content/", 8)
                        ? site_src_ident_at(c->content_fd, p->src + 8, &id)
                        : site_src_ident_of(s, p->src, &id));
    if (stamped && site_src_records_take(c->records, i, p, &id, a, &h)) {
        p->text_len = h.text_len;
        p->body_off = h.body_off;
        p->body = str_make(NULL, h.body_len);
        p->body_line = h.body_line;
        p->stamp = stamp_of(&id);
        p->text_dropped = true;
        load_apply_head(s, p, a, &h, c->d);
        return;
    }
    diag_list *mine = c->records ? diag_list_new() : c->d;
    bool read = load_read_head(s, p, a, &h, mine);
    bool clean = read && diag_count(mine) == 0;
    if (mine != c->d) {
        diag_move(c->d, mine);
        diag_list_free(mine);
    }
    if (read)
        load_apply_head(s, p, a, &h, c->d);
    /* (not a notebook: its text is what nb_convert made of the file) */
    if (stamped && p->text && !p->nb && id.size == (long long)p->text_len) {
        if (clean && c->records) /* a parse that said anything is done again next time */
            site_src_records_keep(c->records, i, p, &id, &h);
        p->stamp = stamp_of(&id);
        p->body_off = p->body.len ? (size_t)(p->body.ptr - p->text) : 0;
        free(p->text);
        p->text = NULL;
        p->body.ptr = NULL; /* p->body.len stays */
        p->text_dropped = true;
    }
}

static void parse_job(void *vctx, size_t i, int worker)
{
    par_ctx *c = vctx;
    site *s = c->s;
    page *p = &s->pages[i];
    page_cache_entry *e = p->cache;
    if (!e && !s->sources) {
        one_shot(c, i, p, s->wa[worker]);
        return;
    }
    if (!e) {
        load_parse_page(s, p, s->wa[worker], c->d);
        return;
    }
    /* a build session: reuse the last parse when the bytes are the same
     * (a notebook's never are: the parse keeps the text made of it) */
    if (!load_is_notebook(p) &&
        !site_source_read(s->sources, s->dir, &s->root, p->src, &p->text, &p->text_len)) {
        diag_error(c->d, p->src, 0, 0, "cannot read: %s", fs_strerror(errno));
        p->failed = true;
        return;
    }
    if (!load_is_notebook(p) && page_cache_take_parse(e, p))
        return;
    diag_list *mine = diag_list_new();
    load_parse_page(s, p, page_cache_fresh_arena(e), mine);
    if (diag_count(mine) == 0 && !p->failed)
        page_cache_keep_parse(e, p);
    diag_move(c->d, mine);
    diag_list_free(mine);
}

/* A notebook's images and attachments are files of the content: the
 * page's text names them "<notebook file>/<name>" (a link the resolver
 * finds like any other file's); site_assign_paths puts them beside the
 * page. */
static void add_notebook_files(site *s)
{
    size_t more = 0;
    for (size_t i = 0; i < s->npages; i++)
        if (s->pages[i].nb && !s->pages[i].failed && !s->pages[i].excluded)
            more += s->pages[i].nb->nfiles;
    if (!more)
        return;
    s->files = xrealloc(s->files, (s->nfiles + more) * sizeof *s->files);
    for (size_t i = 0; i < s->npages; i++) {
        const page *p = &s->pages[i];
        if (!p->nb || p->failed || p->excluded)
            continue;
        for (size_t k = 0; k < p->nb->nfiles; k++) {
            const nb_file *nf = &p->nb->files[k];
            site_file *f = &s->files[s->nfiles++];
            memset(f, 0, sizeof *f);
            f->src = p->src;
            f->nbf = nf;
            f->len = nf->len;
            f->content_rel = arena_printf(s->a, "%s/%s", p->rel, nf->name);
            f->path = f->content_rel; /* until site_assign_paths */
            f->nb_page = (int)i + 1;
            f->nb_name = nf->name;
        }
    }
}

static bool notebook_place(void *ctx, const diag *e, buf *out)
{
    const site *s = ctx;
    long i = strmap_get(s->index->notebooks, e->path);
    if (i < 0)
        return false;
    nb_place_text(s->pages[i].nb, e->line, e->col, out);
    return true;
}

void site_notebook_places(const site *s, diag_list *d, size_t from)
{
    if (s->index && s->index->notebooks && strmap_count(s->index->notebooks))
        diag_relocate(d, from, notebook_place, (void *)s);
}

bool site_load(site *s, int jobs, diag_list *d)
{
    growing g = { 0 };
    size_t before = diag_error_count(d);
    char *content = fs_join(s->dir, "content");
    if (!fs_is_dir(content))
        diag_error(d, NULL, 0, 0,
                   "%s: no such folder: nothing to build here (pages go in content/; "
                   "`sheaf new site DIR` starts a site, -s DIR builds one elsewhere)",
                   strcmp(s->dir, ".") ? content : "content");
    free(content);
    /* static files: theme first, then the site's own (which win) */
    buf theme = BUF_INIT;
    buf_printf(&theme, "themes/%s", s->cfg.theme);
    char *theme_dir = fs_join(s->dir, theme.data);
    int tl, tc;
    site_config_key_place(&s->cfg, "theme", &tl, &tc);
    if (!site_folder_inside(s, theme.data, "site.yaml", tl, tc, d)) {
        /* said: theme '../../x' leads outside the site folder */
    } else if (fs_is_dir(theme_dir)) {
        buf st = BUF_INIT;
        buf_printf(&st, "%s/static", theme.data);
        load_walk_dir(s, &g, arena_strdup(s->a, st.data), false, d);
        buf_release(&st);
    } else if (!strcmp(s->cfg.theme, "default")) {
        for (size_t i = 0; i < embed_count; i++) {
            if (strncmp(embed_files[i].path, "static/", 7))
                continue;
            site_file *f = load_add_file(&g);
            f->src = arena_printf(s->a, "(built-in)/%s", embed_files[i].path);
            f->path = embed_files[i].path + 7;
            f->data = embed_files[i].data;
            f->len = embed_files[i].len;
        }
    } else {
        diag_error(d, "site.yaml", 0, 0, "theme '%s' not found: there is no %s folder", s->cfg.theme,
                   theme.data);
    }
    free(theme_dir);
    buf_release(&theme);
    size_t ntheme = g.nfiles;
    load_walk_dir(s, &g, "static", false, d);
    /* the site's static files replace the theme's */
    if (ntheme && g.nfiles > ntheme) {
        strmap *site_paths = strmap_new(g.nfiles - ntheme);
        for (size_t i = ntheme; i < g.nfiles; i++)
            strmap_put(site_paths, g.files[i].path, (long)i);
        size_t k = 0;
        for (size_t i = 0; i < g.nfiles; i++)
            if (i >= ntheme || strmap_get(site_paths, g.files[i].path) < 0)
                g.files[k++] = g.files[i];
        g.nfiles = k;
        strmap_free(site_paths);
    }
    load_walk_dir(s, &g, "content", true, d);
    /* the array grew by doubling: give back the room it will not use (a
     * page is ≈ 800 bytes; at 100,000 pages up to 25 MB) */
    if (g.npages && g.npages < g.cappages)
        g.pages = xrealloc(g.pages, g.npages * sizeof *g.pages);
    s->pages = g.pages;
    s->npages = g.npages;
    s->files = g.files;
    s->nfiles = g.nfiles;
    if (s->page_cache) {
        page_cache_begin(s->page_cache, site_config_file_hash(s));
        for (size_t i = 0; i < s->npages; i++)
            s->pages[i].cache = page_cache_slot(s->page_cache, s->pages[i].src);
        page_cache_prune(s->page_cache);
    }
    /* a one-shot build keeps what it learned of each source in the build
     * cache (srcrec.c); a build session keeps it in memory */
    par_ctx c = { s, d, NULL, -1 };
    if (s->cache && !s->sources && !s->page_cache)
        c.records = site_src_records_open(s, s->npages, jobs);
    if (!s->sources && s->npages) {
        char *cdir = fs_join(s->dir, "content");
        c.content_fd = open(cdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        free(cdir);
    }
    site_parallel(s->npages, jobs, parse_job, &c);
    if (c.content_fd >= 0)
        close(c.content_fd);
    site_src_records_close(c.records, s, d);
    add_notebook_files(s);
    load_hold_pages(s);
    load_find_sections(s, d);
    /* indexes for link resolution */
    s->index = xcalloc(1, sizeof *s->index);
    s->index->pages = strmap_new(s->npages);
    s->index->files = strmap_new(s->nfiles);
    s->index->notebooks = strmap_new(4);
    for (size_t i = 0; i < s->npages; i++) {
        strmap_put(s->index->pages, s->pages[i].rel, (long)i);
        if (s->pages[i].nb)
            strmap_put(s->index->notebooks, s->pages[i].src, (long)i);
    }
    for (size_t i = 0; i < s->nfiles; i++)
        if (s->files[i].content_rel)
            strmap_put(s->index->files, s->files[i].content_rel, (long)i);
    return diag_error_count(d) == before;
}

int site_lookup(const site *s, const char *rel, int *file)
{
    *file = (int)strmap_get(s->index->files, rel);
    return (int)strmap_get(s->index->pages, rel);
}

void site_free(site *s)
{
    site_csl_free(s);
    for (size_t i = 0; i < s->npapers; i++) {
        free(s->papers[i].pages);
        free(s->papers[i].contexts);
    }
    free(s->papers);
    strmap_free(s->paper_index);
    strmap_free(s->bib_seen);
    if (s->bib)
        bib_free(s->bib);
    for (size_t i = 0; i < s->npages; i++)
        free(s->pages[i].text);
    free(s->pages);
    free(s->files);
    strmap_free(s->outputs);
    arena_free(s->outputs_a);
    free(s->outputs_failed);
    site_images_free(s);
    free(s->posts);
    free(s->plain);
    for (size_t i = 0; i < s->nsections; i++)
        free(s->sections[i].posts);
    free(s->sections);
    for (size_t i = 0; i < s->nterms; i++)
        free(s->terms[i].posts);
    free(s->terms);
    if (s->index) {
        strmap_free(s->index->pages);
        strmap_free(s->index->files);
        strmap_free(s->index->notebooks);
        free(s->index);
    }
    site_spill_free(s);
    site_values_free(s);
    for (int i = 0; i < s->nwa; i++)
        arena_free(s->wa[i]);
    free(s->wa);
    arena_free(s->a);
    fs_root_close(&s->root);
    memset(s, 0, sizeof *s);
}

/* links: cross-post links. While a page's Markdown renders, each link
 * destination is classified and rewritten (a source path to another page
 * becomes that page's URL); afterwards, once every page's headings are
 * known, each link is checked — the file exists, is not an excluded draft,
 * and its #anchor is one of the target's heading ids — and backlinks are
 * collected. Broken links are reported at their line:col in the Markdown,
 * with the closest existing id or file suggested. */
#include <ctype.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "img/img.h"
#include "site/links.h"
#include "site/mdcache.h"
#include "site/pagecache.h"
#include "site/spill.h"
#include "util/hash.h"
#include "util/scan.h"
#include "util/strmap.h"
#include "util/text.h"
#include "util/url.h"
#include "util/vec.h"
#include "util/words.h"
#include "util/xalloc.h"
#include <stdatomic.h>
#include <stdint.h>

/* ---- helpers ------------------------------------------------------------ */

static bool has_scheme(const char *s)
{
    if (!strncmp(s, "//", 2))
        return true;
    if (!isalpha((unsigned char)*s))
        return false;
    const char *p = s;
    while (isalnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.')
        p++;
    return *p == ':';
}

/* s[0..n) %-decoded, in a (a broken escape is kept as written) */
static char *pct_decode(arena *a, const char *s, size_t n)
{
    buf b = BUF_INIT;
    url_percent_decode(&b, s, n, false);
    char *r = arena_strndup(a, b.data, b.len);
    buf_release(&b);
    return r;
}

/* Joins dir and rel and removes "." and ".." parts; NULL when it climbs
 * above the root. */
static char *normalize(arena *a, const char *dir, const char *rel)
{
    buf b = BUF_INIT;
    if (dir && *dir) {
        buf_puts(&b, dir);
        buf_putc(&b, '/');
    }
    buf_puts(&b, rel);
    char **parts = xcalloc(b.len + 1, sizeof *parts);
    size_t n = 0;
    bool ok = true;
    char *save = NULL;
    bool trailing = b.len && b.data[b.len - 1] == '/';
    for (char *t = strtok_r(b.data, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (!strcmp(t, "."))
            continue;
        if (!strcmp(t, "..")) {
            if (!n) {
                ok = false;
                break;
            }
            n--;
            continue;
        }
        parts[n++] = t;
    }
    char *r = NULL;
    if (ok) {
        buf o = BUF_INIT;
        for (size_t i = 0; i < n; i++) {
            if (i)
                buf_putc(&o, '/');
            buf_puts(&o, parts[i]);
        }
        if (trailing && o.len)
            buf_putc(&o, '/');
        r = arena_strndup(a, o.data, o.len);
        buf_release(&o);
    }
    free(parts);
    buf_release(&b);
    return r;
}

/* ---- the resolver (runs on the page's rendering thread) -------------- */

typedef struct resolve_ctx {
    const site *s;
    const page *p;
    arena *a;
    link_rec *v;
    size_t n, cap;
    site_cite_state cites;
    size_t images; /* <img> tags so far: the first is not lazy */
} resolve_ctx;

static void cite_hook(void *vctx, const md_cite *c, size_t n, buf *out)
{
    resolve_ctx *rc = vctx;
    site_cite_html(rc->s, rc->p, &rc->cites, c, n, out);
}

/* md_render, with a CSL style twice when the cache does not hold the
 * page's citations by its text (site_csl_begin): once to collect them,
 * once to write them formatted. */
static void cite_render(resolve_ctx *rc, page *p, str body, int line, const md_options *mo,
                        const md_hooks *hooks, arena *a, diag_list *d)
{
    bool csl = hooks->cite && site_page_csl(rc->s, p);
    if (csl)
        site_csl_begin((site *)rc->s, p, body, a, &rc->cites);
    md_render(body, line, mo, hooks, a, &p->md);
    if (csl && site_csl_finish((site *)rc->s, p, body, &rc->cites, &p->md, a, d)) {
        rc->n = 0; /* the links again */
        rc->images = 0;
        md_render(body, line, mo, hooks, a, &p->md);
    }
}

static const char *shortcode_hook(void *vctx, const md_shortcode *sc, arena *a, const char **error)
{
    resolve_ctx *rc = vctx;
    const site_shortcodes *h = rc->s->shortcodes;
    if (!h) {
        *error = arena_printf(a, "unknown shortcode '%s'", sc->name);
        return NULL;
    }
    return h->render(h->ctx, rc->p, sc, a, error);
}

/* see mdcache.h */
uint64_t site_shortcode_env(const site *s, uint64_t env, const md_result *md)
{
    if (!md->nshortcodes || !s->shortcodes)
        return env;
    for (size_t i = 0; i < md->nshortcodes; i++) {
        uint64_t f = s->shortcodes->fingerprint(s->shortcodes->ctx, md->shortcodes[i]);
        env = hash_add(env, &f, sizeof f);
    }
    return env;
}

static link_rec *new_rec(resolve_ctx *c, const md_link *l, link_kind k)
{
    link_rec *r = VEC_ADD_IN(c->a, c->v, c->n, c->cap, 8);
    memset(r, 0, sizeof *r);
    r->kind = k;
    r->dest = l->dest;
    r->text = l->text;
    r->line = l->line;
    r->col = l->col;
    r->target = -1;
    r->image = -1;
    return r;
}

/* An <img> whose src names file `file` of the site (or, -1, anything
 * else): its size, loading and srcset (images.c). */
static void image_attrs(resolve_ctx *c, const md_link *l, link_rec *r, int file)
{
    if (!l->img)
        return;
    bool first = c->images++ == 0;
    if (file < 0) {
        l->img->lazy = !first;
        return;
    }
    r->image = file;
    site_image_attrs((site *)c->s, c->a, file, first, l->img, &r->image_error);
}

/* md_render's resolver: records every link of a page (link_rec: external,
 * #anchor, another page, a content file, an output path, a root-relative
 * path, or missing) for site_check_links, and returns the URL to write
 * instead of the destination, or NULL to keep it as written. */
static const char *resolve(void *vctx, const md_link *l)
{
    resolve_ctx *c = vctx;
    const site *s = c->s;
    const char *dest = l->dest;
    if (!*dest || has_scheme(dest)) {
        image_attrs(c, l, new_rec(c, l, LINK_EXTERNAL), -1);
        return NULL;
    }
    if (dest[0] == '#') {
        link_rec *r = new_rec(c, l, LINK_SELF);
        image_attrs(c, l, r, -1);
        r->anchor = pct_decode(c->a, dest + 1, strlen(dest + 1));
        return NULL;
    }
    if (dest[0] == '/') {
        link_rec *r = new_rec(c, l, LINK_ABSOLUTE);
        if (l->img) {
            size_t plen = strcspn(dest + 1, "?#");
            image_attrs(c, l, r, site_file_at(s, pct_decode(c->a, dest + 1, plen)));
        }
        if (!strcmp(s->cfg.base_path, "/"))
            return NULL;
        return arena_printf(c->a, "%s%s", s->cfg.base_path, dest + 1); /* a URL as written */
    }
    /* path [?query] [#fragment] */
    size_t plen = strcspn(dest, "?#");
    const char *rest = dest + plen; /* "?…#…" kept as written */
    const char *hash = strchr(dest, '#');
    char *path = pct_decode(c->a, dest, plen);
    char *rel = normalize(c->a, c->p->dir, path);
    link_rec *r = new_rec(c, l, LINK_MISSING);
    if (hash)
        r->anchor = pct_decode(c->a, hash + 1, strlen(hash + 1));
    if (rel) {
        int file;
        int pg = site_lookup(s, rel, &file);
        if (pg < 0 && file < 0) {
            /* a folder, with or without its slash: its index.md (a bundle) */
            static const char *const exts[] = { SITE_MARKDOWN_EXTS, NB_EXT };
            size_t rl = strlen(rel);
            const char *sep = !rl || rel[rl - 1] == '/' ? "" : "/";
            for (size_t e = 0; e < sizeof exts / sizeof *exts && pg < 0; e++) {
                int f2;
                pg = site_lookup(s, arena_printf(c->a, "%s%sindex%s", rel, sep, exts[e]), &f2);
            }
        }
        if (file >= 0 && pg < 0)
            image_attrs(c, l, r, file);
        else
            image_attrs(c, l, r, -1);
        if (pg >= 0 && s->pages[pg].path) {
            r->kind = LINK_PAGE;
            r->target = pg;
            return arena_printf(c->a, "%s%s", site_url_in(s, c->a, s->pages[pg].path), rest);
        }
        if (pg >= 0) {
            /* a page that failed to load: its own error says why */
            r->kind = LINK_PAGE;
            r->target = pg;
            return NULL;
        }
        if (file >= 0) {
            r->kind = LINK_FILE;
            return arena_printf(c->a, "%s%s", site_url_in(s, c->a, s->files[file].path), rest);
        }
        r->missing_path = arena_printf(c->a, "content/%s", rel);
    } else {
        image_attrs(c, l, r, -1);
    }
    /* maybe a URL relative to the page's own output place (../tags/) */
    if (c->p->path) {
        char *out = normalize(c->a, c->p->path, path);
        if (out) {
            size_t n = strlen(out);
            const char *key = !n || out[n - 1] == '/' ? arena_printf(c->a, "%sindex.html", out) : out;
            const strmap *outputs = site_outputs(c->s);
            if (strmap_get(outputs, key) >= 0 ||
                strmap_get(outputs, arena_printf(c->a, "%s/index.html", out)) >= 0) {
                r->kind = LINK_OUTPUT;
                return NULL;
            }
        }
    }
    if (!r->missing_path)
        r->missing_path = arena_printf(c->a, "%s (outside content/)", path);
    return NULL;
}

/* resolve, keeping what an <img>'s src became (the page's social image
 * may be the first of them) */
static const char *resolve_hook(void *vctx, const md_link *l)
{
    resolve_ctx *c = vctx;
    const char *to = resolve(vctx, l);
    if (l->img_tag && c->n) {
        c->v[c->n - 1].img_tag = true;
        c->v[c->n - 1].url = to ? to : c->v[c->n - 1].dest;
    }
    return to;
}

/* Front matter's `image:` as one more link record of the page, at the
 * key: checked like an image in the body (the file exists; it is an image
 * sheaf can read, within images.max_pixels) and so kept with the page's
 * Markdown by a build session. */
static void image_key(resolve_ctx *c)
{
    const page *p = c->p;
    tpl_value v = p->fm.kind == TPL_MAP ? tpl_map_get_cstr(p->fm.u.map, "image") : tpl_none();
    if (v.kind != TPL_STRING || !v.len)
        return;
    md_link l = { .dest = v.u.s, .text = "", .image = true };
    site_page_key_place(p, "image", &l.line, &l.col);
    md_img_attrs ia;
    memset(&ia, 0, sizeof ia);
    l.img = &ia;
    c->images = 1; /* not lazy: nothing is written from this */
    const char *to = resolve(c, &l);
    link_rec *r = &c->v[c->n - 1];
    r->image_key = true;
    r->url = to ? to : r->dest;
    if (r->kind == LINK_MISSING && !strchr(v.u.s, '?') && !strchr(v.u.s, '#')) {
        /* Hugo's and Jekyll's reading: a path from the site's root (static/) */
        char *rel = normalize(c->a, "", pct_decode(c->a, v.u.s, v.len));
        int file = rel ? site_file_at(c->s, rel) : -1;
        if (file >= 0) {
            r->kind = LINK_FILE;
            r->missing_path = NULL;
            r->url = site_url_in(c->s, c->a, c->s->files[file].path);
            r->image = file;
            site_image_attrs((site *)c->s, c->a, file, true, &ia, &r->image_error);
        }
    }
}

void site_page_search_keys(const page *p, words_set *w, buf *out)
{
    for (size_t i = 0; i < p->md.nheadings; i++)
        words_set_add(w, p->md.headings[i].title, strlen(p->md.headings[i].title), WORDS_IN_HEADING);
    words_set_add(w, p->md.text ? p->md.text : "", p->md.text_len, WORDS_IN_TEXT);
    words_set_take(w, out);
}

/* Whether the ASCII byte c takes no space before it: a formula or an
 * image left out of the text leaves "vectors , one". */
static bool joins_left(unsigned char c) { return c && strchr(",.;:!?)", c); }
static bool search_blank(unsigned char c) { return c == '\n' || c == ' ' || c == '\t' || c == '\r' || c == '\f'; }

void site_search_text(const char *text, size_t n, buf *out)
{
    /* a run of text, then one blank: a byte written is a byte read (a
     * space for a blank read before it), so room is made once. A block of
     * SCAN_STEP bytes that holds no blank before a blank or a joining byte
     * is copied as it is, its blanks as spaces (most running text) — a
     * blank first in it is the space before its text, unless nothing was
     * written yet; any other block a byte at a time. */
    buf_grow(out, n);
    char *d = out->data + out->len, *start = d;
    bool space = false;
    size_t i = 0;
    while (i < n) {
        if (n - i >= SCAN_STEP) {
            scan_spaced blk;
            unsigned blank = scan_blank_spaced(text + i, &blk), joins = scan_joins_block(text + i);
            if (!(blank & ((blank | joins) >> 1)) && (!(blank & 1) || d > start)) {
                if (space && !(blank & 1) && d > start && !(joins & 1))
                    *d++ = ' ';
                space = false;
                scan_put_spaced(d, &blk);
                d += SCAN_STEP;
                i += SCAN_STEP;
                if (blank >> (SCAN_STEP - 1)) { /* it ends with a blank: pending */
                    d--;
                    space = true;
                }
                continue;
            }
        }
        for (size_t end = n - i > SCAN_STEP ? i + SCAN_STEP : n; i < end; i++) {
            unsigned char c = (unsigned char)text[i];
            if (search_blank(c)) {
                space = true;
                continue;
            }
            if (space && d > start && !joins_left(c))
                *d++ = ' ';
            space = false;
            *d++ = (char)c;
        }
    }
    out->len = (size_t)(d - out->data);
    *d = '\0';
}

void site_search_excerpt(const char *text, size_t n, buf *out)
{
    buf e = BUF_INIT;
    size_t chars = 0, i = 0, cut = 0;
    bool space = false;
    while (i < n && chars < SITE_EXCERPT_MAX) {
        unsigned char c = (unsigned char)text[i];
        size_t k = 1;
        while (i + k < n && ((unsigned char)text[i + k] & 0xC0) == 0x80)
            k++;
        if (c == '\n' || c == ' ' || c == '\t') {
            if (!space && e.len) {
                cut = e.len;
                buf_putc(&e, ' ');
            }
            space = true;
        } else {
            if (k == 1 && joins_left(c) && e.len && e.data[e.len - 1] == ' ')
                e.len--;
            buf_put(&e, text + i, k);
            space = false;
            if (c >= 0xE0) /* CJK text breaks anywhere */
                cut = e.len;
        }
        chars++;
        i += k;
    }
    size_t len = i < n && cut ? cut : e.len;
    while (len && e.data[len - 1] == ' ')
        len--;
    buf_put(out, e.data, len);
    buf_release(&e);
}

/* The bulk's description of a page whose Markdown this process made
 * (site/bulk.h), in a: what the model's stand-ins name. */
static void fresh_bulk(const page *p, site_bulk *k, bool search)
{
    memset(k, 0, sizeof *k);
    atomic_init(&k->here, 1);
    k->search = search;
    k->html_len = p->md.html ? p->md.html_len : SITE_BULK_NONE;
    k->summary_len = p->md.summary_html ? p->md.summary_len : SITE_BULK_NONE;
    k->html_hash = p->md.html ? hash_blocks(p->md.html, p->md.html_len) : 0;
    k->summary_hash = p->md.summary_html ? hash_blocks(p->md.summary_html, p->md.summary_len) : 0;
    k->keys_len = k->text_len = SITE_BULK_NONE;
}

/* What a one-shot build keeps of a page in the build cache (mdcache.c),
 * for drop_text. */
typedef struct keep_args {
    const buf *key;
    size_t formulas, diagrams;
} keep_args;

/* A one-shot build (no session keeps the page): what the search index
 * needs of p's plain text, its keys, its excerpt and its snippets' text,
 * made now, and the text itself given back to the arena — it was
 * md_render's last allocation in a (≈ 8 KB a post of the benchmark corpus,
 * 80 MB at 10,000 posts); then, with the build cache (keep), the page's
 * entry is written; then the body, the summary, the keys and the
 * snippets' text go to the spill file in one write when the build has
 * one, and the body and the summary, the allocations before the text,
 * are given back too. */
static void drop_text(site *s, page *p, words_set *w, arena *a, bool search, const keep_args *keep)
{
    buf keys = BUF_INIT, exc = BUF_INIT, text = BUF_INIT;
    if (search) {
        words_set *own = w ? NULL : words_set_new();
        site_page_search_keys(p, w ? w : own, &keys);
        words_set_free(own);
        site_search_excerpt(p->md.text ? p->md.text : "", p->md.text_len, &exc);
        site_search_text(p->md.text ? p->md.text : "", p->md.text_len, &text);
    }
    if (p->md.text)
        arena_give_back(a, (void *)p->md.text, p->md.text_len + 1);
    p->md.text = NULL;
    p->md.text_len = 0;
    site_bulk kept; /* into a once the body is given back */
    if (keep) {
        site_bulk *k = &kept;
        fresh_bulk(p, k, search);
        if (search) {
            k->keys_len = keys.len;
            k->text_len = text.len;
            p->search_keys = keys.data, p->search_keys_len = keys.len;
            p->search_text = text.data, p->search_text_len = text.len;
            p->search_excerpt = exc.data, p->search_excerpt_len = exc.len;
        }
        p->bulk = k;
        site_md_disk_keep(s->md_disk, s, p, keep->key, keep->formulas, keep->diagrams);
        p->search_keys = p->search_text = p->search_excerpt = NULL;
    }
    /* to the spill file, in one write: the body, its summary (a body
     * kept in memory keeps its summary), the search keys and text */
    const char *part[SITE_SPILL_PARTS];
    size_t len[SITE_SPILL_PARTS], place[SITE_SPILL_PARTS], *slot[SITE_SPILL_PARTS], n = 0;
    if (p->md.html) {
        part[n] = p->md.html, len[n] = p->md.html_len, slot[n++] = &p->spill_body;
        if (p->md.summary_html)
            part[n] = p->md.summary_html, len[n] = p->md.summary_len, slot[n++] = &p->spill_summary;
    }
    if (search) {
        part[n] = keys.data, len[n] = keys.len, slot[n++] = &p->spill_keys;
        part[n] = text.data, len[n] = text.len, slot[n++] = &p->spill_text;
    }
    site_spill_put_parts(s, n, part, len, place);
    for (size_t i = 0; i < n; i++)
        *slot[i] = place[i];
    /* the body, the arena's last allocation, then the summary go back */
    if (p->spill_body) {
        arena_give_back(a, (void *)p->md.html, p->md.html_len + 1);
        p->md.html = NULL; /* until site_spill_map */
        if (p->spill_summary) {
            arena_give_back(a, (void *)p->md.summary_html, p->md.summary_len + 1);
            p->md.summary_html = NULL;
        }
    }
    if (search) {
        p->search_keys_len = keys.len;
        p->search_keys = p->spill_keys ? NULL : arena_strndup(a, keys.data, keys.len);
        p->search_excerpt = arena_strndup(a, exc.data, exc.len);
        p->search_excerpt_len = exc.len;
        p->search_text_len = text.len;
        p->search_text = p->spill_text ? NULL : arena_strndup(a, text.data, text.len);
    }
    if (keep) {
        site_bulk *k = arena_alloc(a, sizeof *k);
        memcpy(k, &kept, sizeof *k);
        p->bulk = k;
    }
    buf_release(&keys);
    buf_release(&exc);
    buf_release(&text);
}

bool site_page_bulk_again(const site *s, const page *p, size_t body_len, buf out[4], bool got[4],
                          diag_list *d)
{
    page q = *p;
    q.links = NULL;
    q.nlinks = 0;
    q.bulk = NULL;
    if (!q.text) {
        q.body = str_make("", body_len);
        if (!site_source_reread(s, &q, d))
            return false;
    }
    arena *a = arena_new();
    site_page_markdown((site *)s, &q, q.body, q.body_line, a);
    const char *t[4] = { q.md.summary_html, q.md.html, q.search_keys, NULL };
    size_t n[4] = { q.md.summary_len, q.md.html_len, q.search_keys_len, 0 };
    for (int i = 0; i < 3; i++)
        if ((got[i] = t[i] != NULL))
            buf_put(&out[i], t[i], n[i]);
    if ((got[3] = s->cfg.search))
        site_search_text(q.md.text ? q.md.text : "", q.md.text_len, &out[3]);
    arena_free(a);
    if (q.text != p->text)
        free(q.text);
    return true;
}

/* Makes p's search keys, in a: on the thread that rendered its Markdown,
 * so the search index only merges them, and a build session keeps them
 * with the Markdown. w: the thread's set (reused), or NULL. */
static void search_keys(page *p, words_set *w, arena *a)
{
    buf b = BUF_INIT;
    words_set *own = w ? NULL : words_set_new();
    site_page_search_keys(p, w ? w : own, &b);
    words_set_free(own);
    p->search_keys = arena_strndup(a, b.data, b.len);
    p->search_keys_len = b.len;
    buf_release(&b);
}

/* The Markdown options of page p: the site's, with its own
 * `numbered_sections:`. */
static md_options page_options(const site *s, const page *p)
{
    md_options o = s->cfg.markdown;
    if (p->has_numbered_sections)
        o.numbered_sections = p->numbered_sections;
    if (p->words)
        o.words = p->words;
    return o;
}

/* A formula or diagram hook that counts its calls, for the page's entry
 * in the build cache (a page taken from there counts them as met). */
typedef struct counted {
    md_math_fn math; /* one of the two */
    md_diagram_fn diagram;
    void *ctx;
    size_t n;
} counted;

static const char *count_math(void *ctx, const md_formula *f, arena *a, const char **error,
                              long *error_at)
{
    counted *c = ctx;
    c->n++;
    return c->math(c->ctx, f, a, error, error_at);
}

static const char *count_diagram(void *ctx, const md_diagram *d, arena *a, const char **error,
                                 int *error_line)
{
    counted *c = ctx;
    c->n++;
    return c->diagram(c->ctx, d, a, error, error_line);
}

typedef struct md_job_ctx {
    site *s;
    diag_list *d;
    uint64_t env; /* hash of everything the resolver looks at */
    words_set **words; /* a worker's set for search keys */
    site_md_env menv;  /* in a session: what else a kept rendering depends on (mdcache.h) */
} md_job_ctx;

static void md_job(void *vctx, size_t i, int worker)
{
    md_job_ctx *c = vctx;
    page *p = &c->s->pages[i];
    if (p->failed || !p->path)
        return;
    page_cache_entry *e = p->cache;
    buf key = BUF_INIT; /* the page's entry in the build cache (one-shot builds) */
    size_t formulas = 0, diagrams = 0;
    bool disk = !(e && e->parsed) && c->s->md_disk;
    /* a source whose bytes the load stage knows by their digest is read
     * again only when its Markdown is not in the cache */
    bool by_digest = disk && p->text_dropped && p->has_digest;
    bool hit = by_digest &&
               site_md_disk_take(c->s->md_disk, c->s, p, c->s->wa[worker], &key, &formulas, &diagrams);
    if (!hit && p->text_dropped && !site_source_reread(c->s, p, c->d)) {
        buf_release(&key);
        p->failed = true;
        return;
    }
    /* a session's kept rendering is exact while the links resolve alike,
     * the rest the Markdown reads (the configuration, the bibliography …)
     * hashes the same, and, when it used shortcodes, they read the same */
    uint64_t penv = e ? hash_mix(c->env, site_md_env_page(c->s, p, &c->menv)) : c->env;
    uint64_t env = e && e->has_md ? site_shortcode_env(c->s, penv, &e->md) : penv;
    if (hit || (disk && !by_digest &&
                site_md_disk_take(c->s->md_disk, c->s, p, c->s->wa[worker], &key, &formulas, &diagrams))) {
        /* as the formulas and diagrams were met, each from the cache */
        if (formulas)
            atomic_fetch_add(&((site_math *)c->s->cfg.markdown.math_ctx)->formulas, formulas);
        if (diagrams)
            atomic_fetch_add(&((site_diagram *)c->s->cfg.markdown.diagram_ctx)->diagrams, diagrams);
        /* the rest of its entry is read when something uses it (site/bulk.h);
         * a notebook's now, while its text is here to make it again */
        if (p->nb)
            site_md_disk_bulk(c->s->md_disk, c->s, p), atomic_store(&p->bulk->here, 1);
    } else if (!page_cache_take_md(e, env, p)) {
        /* in a session, render into the entry's arena so the result can stay */
        arena *a = e && e->parsed ? e->a : c->s->wa[worker];
        resolve_ctx rc = { .s = c->s, .p = p, .a = a };
        atomic_fetch_add(&c->s->markdown_runs, 1);
        md_hooks hooks = { .link = resolve_hook, .cite = site_page_cites(c->s, p) ? cite_hook : NULL,
                           .shortcode = shortcode_hook, .ctx = &rc };
        md_options mo = page_options(c->s, p);
        if (p->nb) { /* a notebook: its prompts and outputs are sheaf's HTML */
            mo.trusted = p->nb->trusted;
            mo.ntrusted = p->nb->nlines;
        }
        counted cm = { mo.math, NULL, mo.math_ctx, 0 }, cd = { NULL, mo.diagram, mo.diagram_ctx, 0 };
        if (disk && mo.math) /* the entry says how many it met */
            mo.math = count_math, mo.math_ctx = &cm;
        if (disk && mo.diagram)
            mo.diagram = count_diagram, mo.diagram_ctx = &cd;
        cite_render(&rc, p, p->body, p->body_line, &mo, &hooks, a, c->d);
        image_key(&rc);
        site_cite_state_free(&rc.cites);
        p->links = rc.v;
        p->nlinks = rc.n;
        p->search_keys = NULL;
        keep_args keep = { &key, cm.n, cd.n };
        if (e && e->parsed)
            page_cache_keep_md(e, site_shortcode_env(c->s, penv, &p->md), p);
        else
            drop_text(c->s, p, c->words[worker], a, c->s->cfg.search, disk ? &keep : NULL);
    }
    /* render/search.c knows the page's part of the index by it */
    p->md_id = key.len ? hash_mix(hash_blocks(key.data, key.len), site_shortcode_env(c->s, 0, &p->md)) | 1 : 0;
    buf_release(&key);
    if (!p->search_keys && !p->spill_keys && !p->bulk && c->s->cfg.search) {
        search_keys(p, c->words[worker], e && e->parsed ? e->a : c->s->wa[worker]);
        if (e && e->has_md)
            e->search_keys = p->search_keys, e->search_keys_len = p->search_keys_len;
    }
    /* everything needed from the source now lives in the arenas */
    free(p->text);
    p->text = NULL;
    p->body = str_make("", 0);
}

/* FNV-1a over everything resolve() reads besides the page's own text: the
 * base path, the Markdown options, every page's source and output path and
 * draft state (link records name pages by index, so the order counts too),
 * every file, and every tag (tag pages are link targets). Equal hashes mean
 * a kept rendering of an unchanged page is still exact. */
static void env_add(uint64_t *h, const char *s)
{
    s = s ? s : "\x01";
    *h = hash_add(hash_add(*h, s, strlen(s)), "\xff", 1);
}

/* The pages' part of link_env is hashed a run of pages at a time on the
 * build's threads (every page of every build), each run's hash in its
 * slot, and the runs' hashes are then hashed in their order. */
#define ENV_RUN 512

typedef struct env_run {
    const site *s;
    uint64_t *h; /* a run's hash */
} env_run;

static void env_run_job(void *vctx, size_t r, int worker)
{
    (void)worker;
    env_run *c = vctx;
    const site *s = c->s;
    uint64_t h = HASH_SEED;
    size_t end = (r + 1) * ENV_RUN < s->npages ? (r + 1) * ENV_RUN : s->npages;
    for (size_t i = r * ENV_RUN; i < end; i++) {
        const page *p = &s->pages[i];
        env_add(&h, p->rel);
        env_add(&h, p->path);
        env_add(&h, p->excluded ? "x" : p->failed ? "f" : "-");
        for (size_t t = 0; t < SITE_MAX_TAXONOMIES; t++)
            for (size_t k = 0; k < p->nterms[t]; k++)
                env_add(&h, p->terms[t][k]);
        env_add(&h, p->is_post ? "p" : "-");
    }
    c->h[r] = h;
}

static uint64_t link_env(const site *s, bool contents, int jobs)
{
    uint64_t h = HASH_SEED;
    env_add(&h, s->cfg.base_path);
    char opts[32];
    snprintf(opts, sizeof opts, "%d%d%d%d%d:%x", s->cfg.markdown.unsafe, s->cfg.markdown.smart,
             s->cfg.markdown.hard_breaks, s->cfg.markdown.linenos, s->cfg.markdown.numbered_sections,
             s->cfg.markdown.off);
    env_add(&h, opts);
    size_t runs = (s->npages + ENV_RUN - 1) / ENV_RUN;
    env_run er = { s, xcalloc(runs + 1, sizeof *er.h) };
    site_parallel(runs, jobs, env_run_job, &er);
    h = hash_add(h, er.h, runs * sizeof *er.h);
    free(er.h);
    for (size_t i = 0; i < s->nfiles; i++) {
        env_add(&h, s->files[i].content_rel);
        env_add(&h, s->files[i].path);
    }
    /* what an <img> is given: images: and each image file's size and time */
    char img[96];
    snprintf(img, sizeof img, "%d:%ld:%ld", s->cfg.images_process, s->cfg.images_quality,
             s->cfg.images_max_pixels); /* and libvips: site_images_env */
    env_add(&h, img);
    env_add(&h, s->cfg.images_sizes);
    for (size_t i = 0; i < s->cfg.nimages_widths; i++)
        h = hash_add(h, &s->cfg.images_widths[i], sizeof s->cfg.images_widths[i]);
    site_images_env(s, contents, &h);
    return h;
}

/* The set of every output path, for links written relative to the
 * output (resolve), its strings in a. */
static strmap *page_outputs(const site *s, arena *a)
{
    strmap *outputs = strmap_new(s->npages + s->nfiles + 16);
    for (size_t i = 0; i < SITE_NGENERATED; i++)
        if ((i != SITE_GEN_PAPERS || s->bib) && site_generated_on(s, i))
            strmap_put(outputs, site_generated_outputs[i].output, 0);
    for (size_t i = 0; i < s->npages; i++)
        if (s->pages[i].path && !s->pages[i].excluded)
            strmap_put(outputs, site_output_file(a, s->pages[i].path), 0);
    for (size_t i = 0; i < s->nfiles; i++)
        strmap_put(outputs, s->files[i].path, 0);
    for (size_t i = 0; i < s->cfg.noutputs; i++)
        strmap_put(outputs, s->cfg.outputs[i].output, 0);
    const char *feeds[1 + SITE_MAX_FEED_COPIES];
    size_t nfeeds = site_feed_files(s, a, "", feeds);
    for (size_t f = 1; f < nfeeds; f++) /* the site feed's copies (atom.xml is generated) */
        strmap_put(outputs, feeds[f], 0);
    const char *first = site_first_page_alias(s, a, ""); /* every list's page/1/ */
    if (first)
        strmap_put(outputs, first, 0);
    for (size_t i = 0; i < s->nsections; i++) {
        strmap_put(outputs, arena_printf(a, "%sindex.html", s->sections[i].path), 0);
        if ((first = site_first_page_alias(s, a, s->sections[i].path)))
            strmap_put(outputs, first, 0);
        nfeeds = site_feed_files(s, a, s->sections[i].path, feeds);
        for (size_t f = 0; f < nfeeds; f++)
            strmap_put(outputs, feeds[f], 0);
    }
    /* each term's outputs once: made for each post that names it, their
     * paths were 0.5 KB a post left in the site arena */
    strmap *seen[SITE_MAX_TAXONOMIES] = { NULL };
    for (size_t t = 0; t < s->cfg.ntaxonomies; t++)
        seen[t] = strmap_new(64);
    for (size_t i = 0; i < s->npages; i++) {
        const page *p = &s->pages[i];
        if (!p->is_post || p->excluded || (s->outputs_failed && s->outputs_failed[i]))
            continue; /* only posts make term pages */
        for (size_t t = 0; t < s->cfg.ntaxonomies; t++)
            for (size_t k = 0; k < p->nterms[t]; k++) {
                if (strmap_get(seen[t], p->terms[t][k]) >= 0)
                    continue; /* met in an earlier post */
                strmap_put(seen[t], p->terms[t][k], 0);
                const char *slug = site_tag_slug(&s->cfg, a, p->terms[t][k]);
                strmap_put(outputs, arena_printf(a, "%s/%s/index.html", s->cfg.taxonomies[t], slug), 0);
                first = site_first_page_alias(s, a, arena_printf(a, "%s/%s/", s->cfg.taxonomies[t], slug));
                if (first)
                    strmap_put(outputs, first, 0);
                nfeeds = site_feed_files(s, a, arena_printf(a, "%s/%s/", s->cfg.taxonomies[t], slug), feeds);
                for (size_t f = 0; f < nfeeds; f++)
                    strmap_put(outputs, feeds[f], 0);
                strmap_put(outputs, arena_printf(a, "%s/index.html", s->cfg.taxonomies[t]), 0);
                /* the feed of the taxonomy's terms */
                nfeeds = site_feed_files(s, a, arena_printf(a, "%s/", s->cfg.taxonomies[t]), feeds);
                for (size_t f = 0; f < nfeeds; f++)
                    strmap_put(outputs, feeds[f], 0);
            }
    }
    for (size_t t = 0; t < s->cfg.ntaxonomies; t++)
        strmap_free(seen[t]);
    return outputs;
}

/* site_outputs: made once, under this lock (the Markdown stage's workers
 * and the render jobs that make a bulk again may ask at once) */
static pthread_mutex_t outputs_mu = PTHREAD_MUTEX_INITIALIZER;

const strmap *site_outputs(const site *cs)
{
    site *s = (site *)cs; /* made on first use: a cache of what s says */
    pthread_mutex_lock(&outputs_mu);
    if (!s->outputs) {
        s->outputs_a = arena_new();
        s->outputs = page_outputs(s, s->outputs_a);
    }
    const strmap *m = s->outputs;
    pthread_mutex_unlock(&outputs_mu);
    return m;
}

void site_render_markdown(site *s, int jobs, diag_list *d)
{
    (void)d;
    site_images_begin(s);
    /* what the set of output paths counts, whenever it is made: the pages
     * failed by now (a worker may fail one while another makes it) */
    strmap_free(s->outputs);
    s->outputs = NULL;
    arena_free(s->outputs_a);
    s->outputs_a = NULL;
    free(s->outputs_failed);
    s->outputs_failed = NULL;
    for (size_t i = 0; i < s->npages; i++)
        if (s->pages[i].failed) {
            if (!s->outputs_failed)
                s->outputs_failed = xcalloc(s->npages, 1);
            s->outputs_failed[i] = 1;
        }
    /* each page's words, in its own language (made here: not thread-safe) */
    for (size_t i = 0; i < s->npages; i++)
        s->pages[i].words = site_md_words_lang(s, site_page_language(&s->pages[i]));
    /* the build cache's entries outlive the process: images by their bytes */
    uint64_t env = s->page_cache ? link_env(s, false, jobs) : s->md_disk ? link_env(s, true, jobs) : 0;
    md_job_ctx c = { s, d, env, NULL, { 0 } };
    if (s->page_cache)
        site_md_env_begin(s, &c.menv);
    site_md_disk_begin(s->md_disk, s, c.env, jobs, d);
    /* without the build cache every page's Markdown is rendered: the set
     * now, as a session's later edits of one page find it (with the
     * cache, a build that renders none makes none) */
    if (!s->md_disk)
        site_outputs(s);
    int nw = site_jobs(jobs);
    c.words = xcalloc((size_t)nw, sizeof *c.words);
    for (int w = 0; w < nw && s->cfg.search; w++)
        c.words[w] = words_set_new();
    site_parallel(s->npages, jobs, md_job, &c);
    for (int w = 0; w < nw; w++)
        words_set_free(c.words[w]);
    free(c.words);
    site_spill_map(s, d);
    site_md_disk_end(s->md_disk, s);
    if (s->md_disk || s->spill) /* the pages' maps stand for their bodies (tocs) until read (site/bulk.h) */
        site_bulk_hook(s, true);
}

void site_page_markdown(site *s, page *p, str body, int body_line, arena *a)
{
    resolve_ctx rc = { .s = s, .p = p, .a = a };
    p->words = site_md_words_lang(s, site_page_language(p));
    md_hooks hooks = { .link = resolve_hook, .cite = site_page_cites(s, p) ? cite_hook : NULL,
                       .shortcode = shortcode_hook, .ctx = &rc };
    md_options o = page_options(s, p);
    cite_render(&rc, p, body, body_line, &o, &hooks, a, NULL);
    image_key(&rc);
    site_cite_state_free(&rc.cites);
    p->links = rc.v;
    p->nlinks = rc.n;
    p->search_keys = NULL;
    p->search_keys_len = 0;
    if (s->cfg.search)
        search_keys(p, NULL, a);
}

/* ---- checks ---------------------------------------------------------- */

static const char *suggest_id(const page *t, const char *anchor)
{
    text_near near = TEXT_NEAR(anchor);
    for (size_t i = 0; i < t->md.nanchors; i++)
        text_near_try(&near, t->md.anchors[i]);
    return text_near_best(&near);
}

/* The closest page or file path, relative to the linking page's folder. */
/* Whether a link that finds no file starts like a web address written
 * without its scheme ("example.org", "www.example.org/a/b"): a host of
 * dot-separated labels whose last is a common top-level domain, not a
 * file's ending (notes.html). */
static bool looks_like_host(const char *dest)
{
    static const char *const tlds[] = { "com", "org", "net", "edu", "gov", "io", "dev", "me",
                                        "info", "co", "uk", "de", "fr", "jp", "cn", "pl", "ru",
                                        "nl", "au", "ca", "us", "eu", "ai", "app", "blog", "name",
                                        "tech", "xyz" };
    size_t host = strcspn(dest, "/?#");
    const char *dot = NULL;
    for (size_t i = 0; i < host; i++) {
        if (dest[i] == '.')
            dot = dest + i;
        else if (!isalnum((unsigned char)dest[i]) && dest[i] != '-')
            return false;
    }
    if (!dot || dot == dest)
        return false;
    size_t tl = host - (size_t)(dot + 1 - dest);
    for (size_t i = 0; i < sizeof tlds / sizeof *tlds; i++)
        if (strlen(tlds[i]) == tl && !strncasecmp(dot + 1, tlds[i], tl))
            return true;
    return false;
}

static const char *suggest_file(const site *s, const page *p, const char *missing)
{
    const char *want = strncmp(missing, "content/", 8) ? missing : missing + 8;
    text_near near = TEXT_NEAR(want);
    for (size_t i = 0; i < s->npages; i++)
        text_near_try(&near, s->pages[i].rel);
    for (size_t i = 0; i < s->nfiles; i++)
        if (s->files[i].content_rel)
            text_near_try(&near, s->files[i].content_rel);
    const char *best = text_near_best(&near);
    if (!best)
        return NULL;
    /* say it relative to the page's folder when it is in the same one */
    size_t dl = strlen(p->dir);
    if (dl && !strncmp(best, p->dir, dl) && best[dl] == '/')
        return best + dl + 1;
    if (!dl)
        return best;
    return best;
}

/* Is `anchor` (the fragment decoded) or the fragment of l as written one
 * of the target's ids (headings, footnotes, raw HTML)? A browser tries both. */
static bool has_id(const page *t, const char *anchor, const link_rec *l)
{
    const char *raw = strchr(l->dest, '#');
    raw = raw ? raw + 1 : anchor;
    for (size_t i = 0; i < t->md.nanchors; i++)
        if (!strcmp(t->md.anchors[i], anchor) || !strcmp(t->md.anchors[i], raw))
            return true;
    return false;
}

/* The `anchors_warn:` pattern a missing #fragment matches, or NULL: an id
 * a script makes (a comment widget's #comment-12) is no heading sheaf can
 * see, so a link to one is a warning, whichever way it is written. */
static const char *anchor_by_script(const site *s, const char *anchor)
{
    for (size_t i = 0; i < s->cfg.nanchors_warn; i++)
        if (!fnmatch(s->cfg.anchors_warn[i], anchor, 0))
            return s->cfg.anchors_warn[i];
    return NULL;
}

/* A #fragment that is no id of page t: an error (a warning with `links:
 * warn`), or a warning when it matches `anchors_warn:` (always a warning
 * with warn: a root-relative link's). */
static void missing_anchor(const site *s, diag_list *d, const page *p, const link_rec *l, const page *t,
                           const char *anchor, bool warn)
{
    const char *by = anchor_by_script(s, anchor);
    const char *sug = by ? NULL : suggest_id(t, anchor);
    buf why = BUF_INIT;
    if (sug)
        buf_printf(&why, " (did you mean '%s'?)", sug);
    if (by)
        buf_printf(&why, " (anchors_warn: '%s': an id a script makes, not checked)", by);
    bool label = md_label_kind_of(anchor, strlen(anchor)) >= 0;
    /* about: "#" and a heading's id the page lacks (an equation label is
     * no id a script could make); `sheaf import` reads it */
    buf about = BUF_INIT;
    if (!label)
        buf_printf(&about, "#%s", anchor);
    diag_add_about(d, label ? NULL : about.data, warn || by || s->cfg.links_warn ? DIAG_WARNING : DIAG_ERROR, p->src,
                   l->line, l->col, "link to '%s': no %s '%s' %s%s%s", l->dest, label ? "label" : "heading",
                   anchor, t == p ? "on this page" : "in ", t == p ? "" : t->src, why.data);
    buf_release(&about);
    buf_release(&why);
}

void site_check_root_links(const site *s, const strmap *produced, diag_list *d)
{
    arena *a = arena_new();
    strmap *page_at = NULL; /* output file → page, for the anchors */
    for (size_t i = 0; i < s->npages; i++) {
        const page *p = &s->pages[i];
        if (p->failed || p->excluded || !p->path)
            continue;
        for (size_t k = 0; k < p->nlinks; k++) {
            const link_rec *l = &p->links[k];
            if (l->kind != LINK_ABSOLUTE)
                continue;
            size_t n = strcspn(l->dest, "?#");
            const char *path = pct_decode(a, l->dest, n);
            while (*path == '/')
                path++;
            size_t pl = strlen(path);
            const char *file = !pl || path[pl - 1] == '/' ? arena_printf(a, "%sindex.html", path) : path;
            if (strmap_get(produced, file) < 0) {
                file = arena_printf(a, "%s/index.html", path);
                if (!pl || path[pl - 1] == '/' || strmap_get(produced, file) < 0) {
                    diag_warning(d, p->src, l->line, l->col,
                                 "link to '%s': the site has no page or file there (a "
                                 "root-relative link is a path of the output, below the base "
                                 "path; a link to a page's source file, [text](other.md), is "
                                 "checked by every build)",
                                 l->dest);
                    continue;
                }
            }
            const char *hash = strchr(l->dest, '#');
            if (!hash || !hash[1])
                continue;
            if (!page_at) {
                page_at = strmap_new(s->npages + 1);
                for (size_t j = 0; j < s->npages; j++)
                    if (s->pages[j].path && !s->pages[j].failed && !s->pages[j].excluded)
                        strmap_put(page_at, site_output_file(a, s->pages[j].path), (long)j);
            }
            long t = strmap_get(page_at, file);
            const char *want = pct_decode(a, hash + 1, strlen(hash + 1));
            if (t >= 0 && !has_id(&s->pages[t], want, l))
                missing_anchor(s, d, p, l, &s->pages[t], want, true);
        }
    }
    strmap_free(page_at);
    arena_free(a);
}

/* The `targets_warn:` pattern `target` matches, or NULL. */
static const char *target_listed(const site *s, const char *target)
{
    for (size_t i = 0; i < s->cfg.ntargets_warn; i++)
        if (!fnmatch(s->cfg.targets_warn[i], target, 0))
            return s->cfg.targets_warn[i];
    return NULL;
}

/* A link whose target does not exist or is left out of the build
 * (`target`: the source path of the page, the path looked for, an
 * `image:` as written): an error (a warning with `links: warn`), or a
 * warning when `targets_warn:` lists the target — a link known to be
 * broken (the old site shipped it so), kept in sight on every build.
 * diag.about is the target, for `sheaf import`. */
static void report_target(const site *s, diag_list *d, const page *p, const link_rec *l, const char *target,
                          const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void report_target(const site *s, diag_list *d, const page *p, const link_rec *l, const char *target,
                          const char *fmt, ...)
{
    const char *by = target_listed(s, target);
    buf m = BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&m, fmt, ap);
    va_end(ap);
    if (by)
        buf_printf(&m, " (targets_warn: '%s': known to be broken)", by);
    diag_add_about(d, target, by || s->cfg.links_warn ? DIAG_WARNING : DIAG_ERROR, p->src, l->line, l->col, "%s",
                   m.data);
    buf_release(&m);
}

/* What a LINK_MISSING link looked for, as `targets_warn:` matches it:
 * content/posts/x.png, or the path as written when it climbs out of
 * content/ (missing_path then says so in words). */
static const char *missing_target(arena *a, const link_rec *l)
{
    static const char outside[] = " (outside content/)";
    size_t n = strlen(l->missing_path), k = sizeof outside - 1;
    if (n > k && !strcmp(l->missing_path + n - k, outside))
        return arena_strndup(a, l->missing_path, n - k);
    return l->missing_path;
}

static int cmp_backlink_date(const site *s, int a, int b)
{
    const page *x = &s->pages[a], *y = &s->pages[b];
    if (x->has_date != y->has_date)
        return x->has_date ? -1 : 1;
    if (x->has_date && x->date.t != y->date.t)
        return x->date.t > y->date.t ? -1 : 1;
    return strcmp(x->src, y->src);
}

/* A link to a page the build leaves out: an error like any broken link
 * (report_target's rule), saying why it is out and how to build it. */
static void report_held(const site *s, diag_list *d, const page *p, const link_rec *l, const page *t)
{
    buf when = BUF_INIT;
    if (t->held == SITE_SCHEDULED) {
        date_format(&when, &t->date, "%Y-%m-%d %H:%M %z");
        report_target(s, d, p, l, t->src, "link to '%s': %s is scheduled for %s, after this build's clock (build with "
               "--future to include it)", l->dest, t->src, when.data);
    } else if (t->held == SITE_EXPIRED) {
        date_format(&when, &t->expiry, "%Y-%m-%d %H:%M %z");
        report_target(s, d, p, l, t->src, "link to '%s': %s expired on %s ('expiry:' in its front matter)", l->dest,
               t->src, when.data);
    } else {
        report_target(s, d, p, l, t->src, "link to '%s': %s is a draft (build with --drafts, or publish it)", l->dest,
               t->src);
    }
    buf_release(&when);
}

/* What page p's Markdown and links say — the problems its Markdown
 * stage saw, broken links and fragments, links to pages left out — to d;
 * with d NULL, only whether it says anything (then it returns at the first
 * thing it would say, having made nothing: safe on any thread). */
static bool page_says(const site *s, const page *p, diag_list *d)
{
    /* what the Markdown stage saw in the source (duplicate ids, …) */
    for (size_t k = 0; k < p->md.nproblems; k++) {
        const md_problem *m = &p->md.problems[k];
        if (!d)
            return true;
        diag_add(d, m->error ? DIAG_ERROR : DIAG_WARNING, p->src, m->line, m->col, "%s", m->message);
    }
    bool said = p->md.nproblems > 0;
    for (size_t k = 0; k < p->nlinks; k++) {
        const link_rec *l = &p->links[k];
        if (l->image_error) {
            if (!d)
                return true;
            diag_error(d, p->src, l->line, l->col, "image '%s': %s", l->dest, l->image_error);
            said = true;
        }
        if (l->image_key && l->kind == LINK_ABSOLUTE && l->image < 0) {
            if (!d)
                return true;
            report_target(s, d, p, l, l->dest, "image: '%s': no file of the site is at that path (static/%s?)",
                          l->dest, l->dest + 1);
            said = true;
        }
        switch (l->kind) {
        case LINK_MISSING: {
            if (!d)
                return true;
            const char *sug = suggest_file(s, p, l->missing_path);
            const char *target = missing_target(s->a, l);
            if (l->image_key)
                report_target(s, d, p, l, target, "image: '%s': no such file %s (looked for beside the "
                              "page's file, then from the site's root)%s%s%s", l->dest, l->missing_path,
                              sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "");
            else if (!sug && looks_like_host(l->dest))
                report_target(s, d, p, l, target, "link to '%s': no such file %s (a web address needs its "
                              "scheme: https://%s)", l->dest, l->missing_path, l->dest);
            else
                report_target(s, d, p, l, target, "link to '%s': no such file %s%s%s%s", l->dest,
                              l->missing_path, sug ? " (did you mean '" : "", sug ? sug : "",
                              sug ? "'?)" : "");
            said = true;
            break;
        }
        case LINK_SELF:
            /* `#` alone is the top of the page */
            if (*l->anchor && !has_id(p, l->anchor, l)) {
                if (!d)
                    return true;
                missing_anchor(s, d, p, l, p, l->anchor, false);
                said = true;
            }
            break;
        case LINK_PAGE: {
            const page *t = &s->pages[l->target];
            if (t->failed)
                break;
            if (t->excluded) {
                if (!d)
                    return true;
                report_held(s, d, p, l, t);
                said = true;
                break;
            }
            if (l->anchor && *l->anchor && !has_id(t, l->anchor, l)) {
                if (!d)
                    return true;
                missing_anchor(s, d, p, l, t, l->anchor, false);
                said = true;
            }
            break;
        }
        default:
            break;
        }
    }
    return said;
}

/* Whether page i's link l makes i a backlink of the page it leads to:
 * the first link of i to another page that is built (last[target], the
 * last page a worker took a link to target from, notes it). */
static bool backlink(const site *s, size_t i, const link_rec *l, int *last)
{
    if (l->kind != LINK_PAGE || l->target == (int)i || s->pages[l->target].failed ||
        s->pages[l->target].excluded || last[l->target] == (int)i)
        return false;
    last[l->target] = (int)i;
    return true;
}

/* The first pass over the pages' links, on every worker: which pages say
 * something (said again, in page order, on one thread after), and how
 * many pages link to each page (a worker's own counts, added after). */
typedef struct links_pass {
    site *s;
    uint8_t *says;
    size_t **counts; /* a worker's each */
    int **last;      /* the last page whose link to a page a worker counted */
} links_pass;

static void links_job(void *ctx, size_t i, int worker)
{
    links_pass *c = ctx;
    const site *s = c->s;
    const page *p = &s->pages[i];
    if (p->failed || p->excluded || !p->path)
        return;
    c->says[i] = page_says(s, p, NULL);
    size_t *counts = c->counts[worker];
    int *last = c->last[worker];
    for (size_t k = 0; k < p->nlinks; k++) {
        const link_rec *l = &p->links[k];
        if (backlink(s, i, l, last))
            counts[l->target]++;
    }
}

/* The second and third passes, on every worker: each page's backlinks
 * put in its list a slot at a time (fill, by page: whichever worker comes
 * first takes the next), then each list put in its order, newest first —
 * a total order (the source path last), so the lists are the same however
 * the workers went. A page is counted once in each list it is in, with the
 * words of its first link there. */
typedef struct backlinks_pass {
    site *s;
    atomic_size_t *fill;
    int **last; /* a worker's each: the last page whose link to a page it put */
} backlinks_pass;

static void fill_job(void *ctx, size_t i, int worker)
{
    backlinks_pass *c = ctx;
    site *s = c->s;
    const page *p = &s->pages[i];
    if (p->failed || p->excluded || !p->path)
        return;
    int *last = c->last[worker];
    for (size_t k = 0; k < p->nlinks; k++) {
        const link_rec *l = &p->links[k];
        if (!backlink(s, i, l, last))
            continue;
        page *t = &s->pages[l->target];
        size_t at = atomic_fetch_add_explicit(&c->fill[l->target], 1, memory_order_relaxed);
        t->backlinks[at] = (int)i;
        /* `[](t.md#fig-a)`: which figure it cites, "Figure 2" */
        const md_label *lab = !*l->text ? site_page_label(t, l->anchor) : NULL;
        t->backlink_text[at] = lab ? site_label_words(s, s->wa[worker], p, lab) : l->text;
    }
}

static void order_job(void *ctx, size_t i, int worker)
{
    (void)worker;
    backlinks_pass *c = ctx;
    const site *s = c->s;
    page *t = &s->pages[i];
    t->nbacklinks = atomic_load_explicit(&c->fill[i], memory_order_relaxed);
    /* insertion sort: backlink lists are short */
    for (size_t a = 1; a < t->nbacklinks; a++) {
        int x = t->backlinks[a];
        const char *xt = t->backlink_text[a];
        size_t b = a;
        while (b > 0 && cmp_backlink_date(s, t->backlinks[b - 1], x) > 0) {
            t->backlinks[b] = t->backlinks[b - 1];
            t->backlink_text[b] = t->backlink_text[b - 1];
            b--;
        }
        t->backlinks[b] = x;
        t->backlink_text[b] = xt;
    }
}

void site_check_links(site *s, diag_list *d)
{
    /* backlink counts first, then fill */
    int nw = site_jobs(s->nwa);
    links_pass lp = { s, xcalloc(s->npages + 1, 1), xcalloc((size_t)nw, sizeof(size_t *)),
                      xcalloc((size_t)nw, sizeof(int *)) };
    for (int w = 0; w < nw; w++) {
        lp.counts[w] = xcalloc(s->npages + 1, sizeof **lp.counts);
        lp.last[w] = xmalloc((s->npages + 1) * sizeof **lp.last);
        memset(lp.last[w], 0xff, (s->npages + 1) * sizeof **lp.last); /* -1: none */
    }
    site_parallel(s->npages, nw, links_job, &lp);
    for (size_t i = 0; i < s->npages; i++)
        if (lp.says[i])
            page_says(s, &s->pages[i], d);
    size_t *counts = lp.counts[0];
    for (int w = 1; w < nw; w++) {
        for (size_t i = 0; i < s->npages; i++)
            counts[i] += lp.counts[w][i];
        free(lp.counts[w]);
    }
    free(lp.counts);
    free(lp.says);
    for (size_t i = 0; i < s->npages; i++) {
        s->pages[i].backlinks = counts[i] ? arena_alloc(s->a, counts[i] * sizeof(int)) : NULL;
        s->pages[i].backlink_text = counts[i] ? arena_alloc(s->a, counts[i] * sizeof(char *)) : NULL;
        s->pages[i].nbacklinks = 0;
    }
    backlinks_pass bp = { s, xcalloc(s->npages + 1, sizeof *bp.fill), lp.last };
    for (int w = 0; w < nw; w++)
        memset(lp.last[w], 0xff, (s->npages + 1) * sizeof **lp.last);
    site_parallel(s->npages, nw, fill_job, &bp);
    site_parallel(s->npages, nw, order_job, &bp);
    free(bp.fill);
    free(counts);
    for (int w = 0; w < nw; w++)
        free(lp.last[w]);
    free(lp.last);
}

/* The words of a link to label `l` of page t: "Figure 2 in <em>T</em>". */
static void put_label_ref(const md_words *w, const page *t, const md_label *l, buf *out)
{
    buf ref = BUF_INIT, title = BUF_INIT;
    if (l->kind == MD_LABEL_SEC && !*l->number) {
        md_escape_html(&ref, l->text, strlen(l->text));
    } else {
        buf num = BUF_INIT;
        md_escape_html(&num, l->number, strlen(l->number));
        const char *f = w ? w->one[l->kind] : NULL;
        md_label_form(&ref, f ? f : "{n}", num.data, num.len, true);
        buf_release(&num);
    }
    buf_puts(&title, "<em>");
    md_escape_html(&title, t->title ? t->title : t->rel, strlen(t->title ? t->title : t->rel));
    buf_puts(&title, "</em>");
    const char *in = w ? w->in : NULL;
    in = in ? in : "{ref} in {title}";
    /* {ref} and {title}, in either order */
    const char *r = strstr(in, "{ref}"), *ti = strstr(in, "{title}");
    if (!r || !ti) {
        buf_put(out, ref.data, ref.len);
    } else {
        bool ref_first = r < ti;
        const char *first = ref_first ? r : ti, *second = ref_first ? ti : r;
        md_escape_html(out, in, (size_t)(first - in));
        buf *a = ref_first ? &ref : &title, *b = ref_first ? &title : &ref;
        buf_put(out, a->data, a->len);
        const char *mid = first + (ref_first ? 5 : 7);
        md_escape_html(out, mid, (size_t)(second - mid));
        buf_put(out, b->data, b->len);
        const char *end = second + (ref_first ? 7 : 5);
        md_escape_html(out, end, strlen(end));
    }
    buf_release(&ref);
    buf_release(&title);
}

const char *site_label_words(const site *s, arena *a, const page *p, const md_label *l)
{
    const md_words *w = p->words ? p->words : s->cfg.markdown.words;
    if (l->kind == MD_LABEL_SEC && !*l->number)
        return l->text;
    const char *f = w && w->one[l->kind] ? w->one[l->kind] : "{n}";
    buf b = BUF_INIT;
    md_label_form(&b, f, l->number, strlen(l->number), false);
    const char *words = arena_strndup(a, b.data, b.len);
    buf_release(&b);
    return words;
}

const md_label *site_page_label(const page *t, const char *id)
{
    for (size_t i = 0; id && i < t->md.nlabels; i++)
        if (!strcmp(t->md.labels[i].id, id))
            return &t->md.labels[i];
    return NULL;
}

const char *site_xlink_html(const site *s, const page *p, bool summary, arena *a, size_t *len)
{
    size_t n;
    const char *src = summary ? site_page_summary(s, p, &n) : site_page_body(s, p, &n);
    *len = n;
    if (!p->md.nxlinks || !src)
        return src;
    buf b = BUF_INIT;
    size_t at = 0;
    for (size_t i = 0; i < p->md.nxlinks; i++) {
        const md_xlink *x = &p->md.xlinks[i];
        size_t off = summary ? x->summary_at : x->at;
        if (off == SIZE_MAX || off > n || off < at || x->link >= p->nlinks)
            continue;
        buf_put(&b, src + at, off - at);
        at = off;
        const link_rec *l = &p->links[x->link];
        const page *t = l->kind == LINK_PAGE && l->target >= 0 ? &s->pages[l->target] : NULL;
        const md_label *lab = t ? site_page_label(t, l->anchor) : NULL;
        if (lab)
            put_label_ref(p->words ? p->words : s->cfg.markdown.words, t, lab, &b);
        else if (l->anchor) /* reported by the link check */
            md_escape_html(&b, l->anchor, strlen(l->anchor));
    }
    buf_put(&b, src + at, n - at);
    const char *r = arena_strndup(a, b.data, b.len);
    *len = b.len;
    buf_release(&b);
    return r;
}

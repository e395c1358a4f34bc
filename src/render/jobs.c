/* jobs: the render jobs — one per output (a page, an index page, a tag
 * page, the feed, an alias, a copied file, …) — run in parallel over the
 * finished, immutable model, each worker with its own scratch arena and
 * diagnostics list, merged in job order after. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "img/img.h"
#include "render/internal.h"
#include "site/imgrec.h"
#include "util/fs.h"
#include "util/outpath.h"
#include "util/strmap.h"
#include "util/text.h"
#include "util/vec.h"
#include "util/xalloc.h"
#include "util/xmlchar.h"

static tpl_map *list_page(render_ctx *c, arena *a, const char *kind, const char *title, const char *path)
{
    tpl_map *m = tpl_map_new(a, 4);
    tpl_map_set_str(a, m, "kind", tpl_str(kind));
    tpl_map_set_str(a, m, "title", tpl_str(title));
    tpl_map_set_str(a, m, "url", tpl_str(site_url_in(c->s, a, path)));
    tpl_map_set_str(a, m, "permalink", tpl_str(site_permalink_in(c->s, a, path)));
    return m;
}

/* A notebook's image (site_file.nbf): decoded from the notebook's file
 * when it is written, a piece at a time (nb_file_decode_fd), never from a
 * copy held since the notebook was read. The notebook must still hold the
 * bytes nb_convert saw; if it was saved again meanwhile, the build says
 * so, and the next one (serve's, on that save) writes the new image. */
typedef struct nb_source {
    const site_file *f;
    const char *path; /* the notebook, from the working directory */
} nb_source;

static bool nb_fill(void *ctx, output_put_fn put, void *pc, diag_list *d)
{
    const nb_source *ns = ctx;
    int fd = open(ns->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    int r = NB_UNREADABLE;
    if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode))
        errno = FS_ENOTREG;
    else if (fd >= 0)
        r = nb_file_decode_fd(fd, ns->f->nbf, put, pc);
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (r == NB_UNREADABLE)
        diag_error(d, ns->f->src, 0, 0, "cannot read it again to write %s: %s", ns->f->nbf->name, fs_strerror(e));
    else if (r == NB_CHANGED)
        diag_error(d, ns->f->src, 0, 0,
                   "changed while the site was built: %s is not what the notebook held when it was read "
                   "(build again)", ns->f->nbf->name);
    return r == NB_DECODED;
}

static bool put_buf(void *pc, const void *p, size_t n)
{
    buf_put(pc, p, n);
    return true;
}

/* The whole of a notebook's image in out (libvips and the in-memory sink
 * take it whole). */
static bool nb_bytes(const site_file *f, const char *path, buf *out, diag_list *d)
{
    nb_source ns = { f, path };
    buf_reset(out);
    return nb_fill(&ns, put_buf, out, d);
}

/* The maps a job's template reads (a page's, the posts of a list) were
 * built long before, spread over the site arena, and are cold: read by
 * the template one lookup at a time, each cache miss waits for the one
 * before. Asking for them here in stages — the maps, then their entries,
 * then the strings and the maps they hold — lets the misses of one stage
 * overlap. Only a hint to the processor: these reads change nothing and
 * are not recorded as reads (tpl_map_touch). The maps found inside (up to
 * `room`) go to `inner`; returns how many. */
static size_t prefetch_maps(const tpl_value *v, size_t n, const tpl_map **inner, size_t room)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].kind == TPL_MAP)
            __builtin_prefetch(v[i].u.map);
    for (size_t i = 0; i < n; i++)
        if (v[i].kind == TPL_MAP && tpl_map_made(v[i].u.map)) {
            const char *e = (const char *)v[i].u.map->entries;
            for (size_t k = 0; k < v[i].u.map->len * sizeof(tpl_map_entry); k += 64)
                __builtin_prefetch(e + k);
        }
    size_t found = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].kind != TPL_MAP || !tpl_map_made(v[i].u.map))
            continue; /* a map not made yet (value.h): nothing to fetch */
        const tpl_map *m = v[i].u.map;
        for (size_t k = 0; k < m->len; k++) {
            tpl_value x = m->entries[k].value;
            if (x.kind == TPL_STRING)
                __builtin_prefetch(x.u.s);
            else if (x.kind == TPL_MAP && found < room)
                inner[found++] = x.u.map;
            else if (x.kind == TPL_LIST && found < room) /* not read past the page's own map: */
                for (size_t j = 0; j < x.u.list->len && found < room; j++) /* another's toc may be let go */
                    if (x.u.list->items[j].kind == TPL_MAP)
                        inner[found++] = x.u.list->items[j].u.map;
        }
    }
    return found;
}

/* prefetch_maps for the maps of v[0..n), and in each further round (up
 * to `rounds`) for the maps the last round found inside: a post's
 * prev/next, related posts, terms, bibliography entries. */
static void prefetch_values(const tpl_value *v, size_t n, int rounds)
{
    enum { ROOM = 64 };
    const tpl_map *inner[ROOM];
    tpl_value iv[2][ROOM];
    for (int round = 0; round < rounds && n; round++) {
        size_t ni = prefetch_maps(v, n, inner, round + 1 < rounds ? ROOM : 0);
        for (size_t i = 0; i < ni; i++)
            iv[round & 1][i] = tpl_map_value(inner[i]);
        v = iv[round & 1];
        n = ni;
    }
}

/* What the template of a job that renders will read first, asked for
 * only once the job is known to render (a kept one reads none of it): a
 * page's own fields and its prev/next, related posts, terms…; a list's
 * posts (a list shows few fields of each). */
static void prefetch_job(const render_ctx *c, const job *j, const tpl_map *vars)
{
    if (j->kind == J_PAGE && c->s->pages[j->a].value) {
        tpl_value pv = tpl_map_value(c->s->pages[j->a].value);
        prefetch_values(&pv, 1, 2);
        return;
    }
    tpl_value pg = tpl_map_get_cstr(vars, "paginator");
    tpl_value l = pg.kind == TPL_MAP ? tpl_map_get_cstr(pg.u.map, "pages") : tpl_undefined();
    if (l.kind == TPL_LIST)
        prefetch_values(l.u.list->items, l.u.list->len, 1);
}

/* The `paginator` of page k (1-based) of a list of posts at `base` ("" for
 * the home page, "notes/" for a section): that page's posts, its number,
 * the count of pages and the URLs of the others. */
static tpl_value paginator(render_ctx *c, arena *a, const int *posts, size_t n, const char *base, size_t k)
{
    site *s = c->s;
    size_t per = (size_t)s->cfg.paginate, total = site_list_pages(s, n);
    size_t from = (k - 1) * per, to = from + per < n ? from + per : n;
    tpl_list *pl = tpl_list_new(a, to - from);
    for (size_t i = from; i < to; i++)
        pl->items[i - from] = tpl_map_value(s->pages[posts[i]].value);
    tpl_map *pg = tpl_map_new(a, 8);
    tpl_map_set_str(a, pg, "pages", tpl_list_value(pl));
    tpl_map_set_str(a, pg, "current", tpl_int((int64_t)k));
    tpl_map_set_str(a, pg, "total", tpl_int((int64_t)total));
    if (k > 1)
        tpl_map_set_str(a, pg, "prev_url", tpl_str(site_url_in(s, a, site_list_path(s, a, base, k - 1))));
    if (k < total)
        tpl_map_set_str(a, pg, "next_url", tpl_str(site_url_in(s, a, site_list_path(s, a, base, k + 1))));
    tpl_map_set_str(a, pg, "first_url", tpl_str(site_url_in(s, a, base)));
    tpl_map_set_str(a, pg, "last_url", tpl_str(site_url_in(s, a, site_list_path(s, a, base, total))));
    return tpl_map_value(pg);
}

/* A feed's `feed` map (docs/variables.md): its title, the URL of the feed
 * itself and of its HTML page, and its entries under `key`. base: the
 * feed's folder, "" for the site's. */
static tpl_value feed_of(render_ctx *c, arena *a, const char *title, const char *base, const char *key,
                         tpl_value entries)
{
    tpl_map *m = tpl_map_new(a, 5);
    tpl_map_set_str(a, m, "title", tpl_str(title ? title : ""));
    tpl_map_set_str(a, m, "url", tpl_str(site_permalink_in(c->s, a, site_feed_file(a, base))));
    tpl_map_set_str(a, m, "alternate", tpl_str(site_permalink_in(c->s, a, base)));
    tpl_map_set_str(a, m, key, entries);
    return tpl_map_value(m);
}

/* The `feed` an atom.xml renders: its posts, newest first (the template
 * takes the first 20). */
static tpl_value feed(render_ctx *c, arena *a, const char *title, const char *base, tpl_value posts)
{
    return feed_of(c, a, title, base, "posts", posts);
}

/* The last guard before a write: every output path was checked when it
 * was claimed (site/paths.c), so this fails only if a producer skipped that
 * check; even then nothing is written outside the output folder. */
static bool writable(const char *rel, diag_list *d)
{
    const char *why = outpath_problem(rel, strlen(rel));
    if (!why)
        return true;
    buf q = BUF_INIT;
    outpath_quote(&q, rel, strlen(rel));
    diag_error(d, NULL, 0, 0, "refusing to write '%s': an output path that %s", q.data, why);
    buf_release(&q);
    return false;
}

/* One output's bytes: to the run's sink, or to the output folder. Every
 * generated file passes here, so this is where each is made valid for its
 * format (text_format_fix: invalid UTF-8 and the characters HTML, XML or
 * JSON cannot hold become U+FFFD) — whatever wrote them: cmark-gfm's
 * entity decoder (it turns &#xFFFE; into a lone 0xFE byte), a template,
 * the search index. */
static void emit_checked(render_ctx *c, const char *rel, const void *data, size_t len, diag_list *d,
                         bool checked)
{
    if (!writable(rel, d))
        return;
    text_format f = text_format_of(rel);
    buf fixed = BUF_INIT;
    if (!checked && text_format_bad(data, len, f) != len) {
        text_format_fix(&fixed, data, len, f);
        data = fixed.data;
        len = fixed.len;
    }
    if (c->sink) {
        c->sink(c->sink_ctx, rel, data, len);
    } else if (c->rec && render_record_collecting()) {
        /* recorded with who the file is, so the next build may keep it */
        output_file_id id;
        bool known = output_put_id(c->out, rel, data, len, d, &id);
        render_record_output(rel, &id, known);
    } else {
        output_put(c->out, rel, data, len, d);
    }
    buf_release(&fixed);
}

static void emit(render_ctx *c, const char *rel, const void *data, size_t len, diag_list *d)
{
    emit_checked(c, rel, data, len, d, false);
}

bool render_emit_id(render_ctx *c, const char *rel, const void *data, size_t len, diag_list *d,
                    output_file_id *id)
{
    memset(id, 0, sizeof *id);
    if (!writable(rel, d))
        return false;
    text_format f = text_format_of(rel);
    buf fixed = BUF_INIT;
    if (text_format_bad(data, len, f) != len) {
        text_format_fix(&fixed, data, len, f);
        data = fixed.data;
        len = fixed.len;
    }
    bool ok = false;
    if (c->sink)
        c->sink(c->sink_ctx, rel, data, len);
    else
        ok = output_put_id(c->out, rel, data, len, d, id);
    buf_release(&fixed);
    return ok;
}

/* A redirect page at rel to the absolute url: an alias, a list's page/1/. */
static void redirect(render_ctx *c, const char *rel, const char *url, diag_list *d)
{
    buf b = BUF_INIT;
    buf_printf(&b, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<title>Redirecting…</title>\n<link rel=\"canonical\" href=\"%s\">\n"
                   "<meta http-equiv=\"refresh\" content=\"0; url=%s\">\n</head>\n<body>\n"
                   "<p>This page has moved to <a href=\"%s\">%s</a>.</p>\n</body>\n</html>\n",
               c->s->cfg.language, url, url, url, url);
    emit(c, rel, b.data, b.len, d);
    buf_release(&b);
}

/* the citation styles' templates (render_references) */
#define REFERENCE "partials/reference.html"
#define REFERENCE_NUMERIC "partials/reference-numeric.html"

/* Runs one job: picks the template, the output path and the variables of
 * its kind (a page, a home page, a tag page, a generated output, an alias),
 * renders into the worker's scratch arena a and writes the result (or
 * hands it to the sink); a file job copies its file instead, and a
 * reference job keeps its result in the entry (render_references).
 * Problems go to the worker's list d. */
/* ---- files already in the output folder ----
 * A warm build found each variant in the cache, read it (and checked its
 * MAC, a SHA-256 over it), then read the old output's copy to compare: all
 * of the variants' bytes read twice a build, for nothing. So each variant
 * written leaves a record, kind "img-out": (its cache key, the output
 * folder, its path) → who the output file is (output_file_id: device,
 * inode, size, modification time to the nanosecond). A later build that
 * finds that very file there keeps it unread. Anything else — another
 * file, the folder made afresh, no record — falls back to the cache.
 * A copied file (a photo of a bundle, a file of static/) leaves the same
 * record, kind "copy-out", keyed by who its source is (device, inode,
 * size, modification and change times): an unchanged photo is neither read
 * nor compared again. */
static void kept_key(buf *k, const render_ctx *c, const buf *vkey, const char *rel)
{
    buf_printf(k, "img-out 1\n%s\noutput %s\npath %s", vkey->data, c->out->target, rel);
}

/* The file the record (kind, k) names, if the old output still holds it
 * at rel: kept (true, *len its size). */
/* An output file's id as a record writes it, and back: the length read,
 * or 0 when p does not start with one. */
static void put_file_id(buf *v, const output_file_id *id)
{
    buf_printf(v, "%llu %llu %llu %lld %lld %llx", (unsigned long long)id->dev, (unsigned long long)id->ino,
               (unsigned long long)id->size, (long long)id->mtime_s, (long long)id->mtime_ns,
               (unsigned long long)id->hash);
}

static size_t get_file_id(const char *p, output_file_id *id)
{
    unsigned long long dev, ino, size, hash;
    long long ms, mns;
    int end = 0;
    if (sscanf(p, "%llu %llu %llu %lld %lld %llx%n", &dev, &ino, &size, &ms, &mns, &hash, &end) != 6)
        return 0;
    *id = (output_file_id){ dev, ino, size, ms, mns, hash };
    return (size_t)end;
}

static bool record_kept(render_ctx *c, const char *kind, const buf *k, const char *rel, output_file_id *id)
{
    buf v = BUF_INIT;
    bool ok = cache_get(c->s->cache, kind, k->data, k->len, &v) && get_file_id(v.data, id) == v.len
              && output_keep(c->out, rel, id);
    buf_release(&v);
    return ok;
}

static void record_put(render_ctx *c, const char *kind, const buf *k, const output_file_id *id)
{
    buf v = BUF_INIT;
    put_file_id(&v, id);
    cache_put(c->s->cache, kind, k->data, k->len, v.data, v.len);
    buf_release(&v);
}

/* The record of rel's variant whose cache key is vkey, if the old output
 * still holds it: kept (true, *id the file). */
static bool variant_kept(render_ctx *c, const buf *vkey, const char *rel, output_file_id *id)
{
    buf k = BUF_INIT;
    kept_key(&k, c, vkey, rel);
    bool ok = record_kept(c, "img-out", &k, rel, id);
    if (ok)
        cache_touch(c->s->cache, "img", vkey->data, vkey->len); /* in use: trims keep it */
    buf_release(&k);
    return ok;
}

/* Writes the variant's bytes and records who the file is (*id; false
 * when nothing was staged). */
static bool variant_put(render_ctx *c, const buf *vkey, const char *rel, const buf *webp, diag_list *d,
                        output_file_id *id)
{
    if (!output_put_id(c->out, rel, webp->data, webp->len, d, id))
        return false;
    if (!vkey->len)
        return true;
    buf k = BUF_INIT;
    kept_key(&k, c, vkey, rel);
    record_put(c, "img-out", &k, id);
    buf_release(&k);
    return true;
}

/* Copies file fi (src) to rel, unread when a record says the old output's
 * rel is the copy of this very source file: an image's in the images'
 * record (site/imgrec.c, which stat-ed it this build), else — any other
 * file, or an image whose record is of another output folder (a `sheaf
 * deploy`'s) — in the file's own record (kind "copy-out", one per output
 * folder), which an image's copy also leaves when the images' record
 * could not keep it. */
static void copy_kept(render_ctx *c, size_t fi, const char *rel, const char *src, diag_list *d)
{
    site_img_records *rec = site_image_records(c->s);
    char hex[65];
    bool image = rec && site_img_records_known(rec, fi, hex);
    site_img_out was;
    output_file_id id;
    if (image && site_img_records_copy(rec, fi, c->out->target, rel, &was)) {
        id = was;
        if (output_keep(c->out, rel, &id)) {
            site_img_records_set_copy(rec, fi, rel, &was);
            return;
        }
    }
    struct stat st;
    if (!c->s->cache || stat(src, &st) != 0 || !S_ISREG(st.st_mode)) {
        output_copy(c->out, rel, src, NULL, 0, d);
        return;
    }
    buf k = BUF_INIT;
    buf_printf(&k, "copy-out 1\nsource %s ", src);
    fs_put_who(&k, &st);
    buf_printf(&k, "\noutput %s\npath %s", c->out->target, rel);
    bool staged = record_kept(c, "copy-out", &k, rel, &id);
    if (!staged && output_copy_id(c->out, rel, src, d, &id)) {
        record_put(c, "copy-out", &k, &id);
        staged = true;
    }
    if (staged && image) {
        was = id;
        site_img_records_set_copy(rec, fi, rel, &was);
    }
    buf_release(&k);
}

/* Keeps the variants [a, b) of file fi that the images' record names, in
 * order, while the old output holds each as recorded: how many (from a);
 * ids[] and use[] (their cache entries) of those. */
static size_t variants_kept(render_ctx *c, site_img_records *rec, size_t fi, const char *vips, size_t a, size_t b,
                            output_file_id *ids, uint64_t *use)
{
    site *s = c->s;
    site_img_out *was = xcalloc(b - a + 1, sizeof *was);
    size_t n = site_img_records_variants(rec, fi, c->out->target, vips, s->cfg.images_quality, &s->variants[a],
                                         b - a, was, use);
    size_t k = 0;
    for (; k < n; k++) {
        ids[k] = was[k];
        if (!output_keep(c->out, s->variants[a + k].path, &ids[k]))
            break;
        cache_touch_id(s->cache, use[k]); /* in use: trims keep it */
        atomic_fetch_add(&s->variant_bytes, (size_t)ids[k].size + 1024);
    }
    free(was);
    return k;
}

/* Every width of one image: the variants s->variants[j->a …] of one file. */
static void render_variants(render_ctx *c, const job *j, diag_list *d)
{
    site *s = c->s;
    const site_variant *v0 = &s->variants[j->a];
    const site_file *f = &s->files[v0->file];
    size_t a = (size_t)j->a, b = a;
    while (b < s->nvariants && s->variants[b].file == v0->file)
        b++;
    char *path = f->data ? NULL : fs_join(s->dir, f->src);
    char hex[65] = "";
    buf src = BUF_INIT, webp = BUF_INIT, vkey = BUF_INIT;
    output_file_id *ids = xcalloc(b - a, sizeof *ids);
    uint64_t *use = xcalloc(b - a, sizeof *use); /* their cache entries' ids */
    size_t known = 0; /* variants a … a + known staged, ids[] their files */
    const char *vips = NULL;
    /* a photo of the site's the images' record knows (stat-ed and hashed
     * this build), with every variant's path one the output may hold */
    site_img_records *rec = c->sink || f->data || f->nbf ? NULL : site_image_records(s);
    size_t fi = (size_t)v0->file;
    bool whole = rec && site_img_records_known(rec, fi, hex) && (vips = img_vips_version(s->cache));
    for (size_t k = a; whole && k < b; k++)
        whole = !outpath_problem(s->variants[k].path, strlen(s->variants[k].path));
    if (whole)
        known = variants_kept(c, rec, fi, vips, a, b, ids, use);
    bool hashed = true;
    if (a + known == b || hex[0]) {
        /* all kept, or the record's stat and hash of this build */
    } else if (f->nbf) { /* libvips reads the whole image: decoded here, once */
        hashed = nb_bytes(f, path, &src, d);
        if (hashed)
            img_data_hash((const unsigned char *)src.data, src.len, hex);
    } else if (f->data) {
        img_data_hash(f->data, f->len, hex);
    } else if (!(hashed = img_file_hash(s->cache, path, hex, &src))) {
        diag_error(d, f->src, 0, 0, "cannot read: %s", fs_strerror(errno));
    }
    for (size_t k = a + known; hashed && k < b; k++) {
        const site_variant *v = &s->variants[k];
        output_file_id *id = &ids[k - a];
        if (!writable(v->path, d))
            continue;
        buf_reset(&webp);
        char *why = NULL;
        int q = (int)s->cfg.images_quality;
        buf_reset(&vkey);
        if (!c->sink && img_variant_key(s->cache, &vkey, hex, v->width, q))
            use[k - a] = cache_use_id("img", vkey.data, vkey.len);
        if (vkey.len && variant_kept(c, &vkey, v->path, id)) {
            atomic_fetch_add(&s->variant_bytes, (size_t)id->size + 1024);
            if (k == a + known)
                known++;
            continue;
        }
        bool ok = img_variant_cached(s->cache, hex, v->width, q, &webp);
        if (!ok && !f->data && !f->nbf && !src.len) {
            if (!fs_read_file(path, &src)) {
                diag_error(d, f->src, 0, 0, "cannot read: %s", fs_strerror(errno));
                break;
            }
            /* the hash was taken before (the record's, or this build's
             * stat): a variant is cached under the hash of its bytes */
            char now[65];
            img_data_hash((const unsigned char *)src.data, src.len, now);
            if (strcmp(now, hex)) {
                diag_error(d, f->src, 0, 0, "changed while sheaf was building the site: build again");
                break;
            }
        }
        if (!ok)
            ok = img_make_variant(s->cache, hex, f->data ? f->data : (const unsigned char *)src.data,
                                  f->data ? f->len : src.len, v->width, q,
                                  (uint64_t)s->cfg.images_max_pixels, &webp, &why);
        if (!ok) {
            diag_error(d, v->ref->src, v->at->line, v->at->col, "image '%s': %s", v->at->dest, why);
            free(why);
            break; /* the other widths would say the same */
        }
        atomic_fetch_add(&s->variant_bytes, webp.len + 1024); /* the entry's key and header */
        if (c->sink)
            c->sink(c->sink_ctx, v->path, webp.data, webp.len);
        else if (variant_put(c, &vkey, v->path, &webp, d, id) && k == a + known)
            known++;
    }
    /* every variant staged and known: the record of them for the next build */
    if (whole && a + known == b) {
        site_img_out *now = xcalloc(b - a, sizeof *now);
        for (size_t k = 0; k < b - a; k++)
            now[k] = ids[k];
        site_img_records_set_variants(rec, fi, vips, s->cfg.images_quality, &s->variants[a], b - a, now, use);
        free(now);
    }
    free(ids);
    free(use);
    free(path);
    buf_release(&src);
    buf_release(&webp);
    buf_release(&vkey);
}

static void render_one(render_ctx *c, const job *j, arena *a, diag_list *d)
{
    site *s = c->s;
    tpl_map *vars = tpl_map_new(a, 6);
    tpl_map_set_str(a, vars, "site", s->site_value);
    const char *tname = NULL, *out_rel = NULL, *context = NULL;
    const char *feed_dir = NULL; /* a feed's folder: its copies are written too */
    const char *list_dir = NULL; /* a list's first page: its page/1/ alias too */
    switch (j->kind) {
    case J_PAGE: {
        page *p = &s->pages[j->a];
        tname = p->template_name ? p->template_name : p->is_post ? "post.html" : "page.html";
        if (!p->template_name && p->layout) {
            /* Jekyll's and Hugo's `layout: post`: post.html, when there is one */
            const char *want = strchr(p->layout, '.') ? p->layout : arena_printf(a, "%s.html", p->layout);
            if (tpl_loader_exists(c->l, want)) {
                tname = want;
            } else {
                int line, col;
                site_page_key_place(p, "layout", &line, &col);
                diag_warning(d, p->src, line, col, "'layout: %s' names no template here (no %s): using %s",
                             p->layout, want, tname);
            }
        }
        out_rel = site_output_file(a, p->path);
        context = p->src;
        tpl_map_set_str(a, vars, "page", tpl_map_value(p->value));
        if (p->template_name && !tpl_loader_exists(c->l, p->template_name)) {
            int line, col;
            site_page_key_place(p, "template", &line, &col);
            diag_error(d, p->src, line, col, "template '%s' (from 'template:' in the front matter) not found",
                       p->template_name);
            return;
        }
        break;
    }
    case J_INDEX: {
        size_t k = (size_t)j->a;
        tpl_map_set_str(a, vars, "paginator", paginator(c, a, s->posts, s->nposts, "", k));
        const site_generated *g = &site_generated_outputs[SITE_GEN_INDEX];
        const char *path = site_index_path(s, a, k);
        const char *title = s->home_index >= 0 ? s->pages[s->home_index].title : s->cfg.title;
        tpl_map *pg = list_page(c, a, g->kind, title, path);
        site_index_fields(s, s->home_index, a, pg);
        tpl_map_set_str(a, vars, "page", tpl_map_value(pg));
        tname = g->template;
        out_rel = arena_printf(a, "%sindex.html", path);
        context = k > 1 ? arena_printf(a, "%s, page %zu", g->context, k) : g->context;
        list_dir = k == 1 ? path : NULL;
        break;
    }
    case J_SECTION: {
        const section_info *sec = &s->sections[j->a];
        size_t k = (size_t)j->b;
        const char *path = site_list_path(s, a, sec->path, k);
        tpl_map_set_str(a, vars, "paginator", paginator(c, a, sec->posts, sec->nposts, sec->path, k));
        tpl_map_set_str(a, vars, "section", tpl_map_value(sec->value));
        tpl_map *pg = list_page(c, a, "section", sec->title, path);
        tpl_map_set_str(a, pg, "section", tpl_str(sec->name));
        site_index_fields(s, sec->index_page, a, pg);
        tpl_map_set_str(a, vars, "page", tpl_map_value(pg));
        tname = "section.html";
        out_rel = arena_printf(a, "%sindex.html", path);
        list_dir = k == 1 ? path : NULL;
        context = k > 1 ? arena_printf(a, "the list of section '%s', page %zu", sec->name, k)
                        : arena_printf(a, "the list of section '%s'", sec->name);
        break;
    }
    case J_SECTION_FEED: {
        const section_info *sec = &s->sections[j->a];
        tpl_map_set_str(a, vars, "feed", feed(c, a, sec->title, sec->path, tpl_map_get_cstr(sec->value, "posts")));
        tpl_map_set_str(a, vars, "section", tpl_map_value(sec->value));
        tpl_map_set_str(a, vars, "page", tpl_map_value(list_page(c, a, "feed", sec->title, sec->path)));
        tname = "atom.xml";
        out_rel = site_feed_file(a, sec->path);
        context = out_rel;
        feed_dir = sec->path;
        break;
    }
    case J_TAG: {
        const tag_info *t = &s->terms[j->a];
        const taxonomy_info *x = &s->taxonomies[t->tax];
        bool tag = !strcmp(x->name, "tags");
        size_t k = (size_t)j->b;
        const char *path = site_list_path(s, a, t->path, k);
        tpl_map_set_str(a, vars, "tag", tpl_map_value(t->value));
        tpl_map_set_str(a, vars, "term", tpl_map_value(t->value));
        tpl_map_set_str(a, vars, "taxonomy", tpl_map_value(x->value));
        tpl_map_set_str(a, vars, "paginator", paginator(c, a, t->posts, t->nposts, t->path, k));
        tpl_map *pg = list_page(c, a, tag ? "tag" : "term", t->name, path);
        tpl_map_set_str(a, pg, "taxonomy", tpl_str(x->name));
        tpl_map_set_str(a, vars, "page", tpl_map_value(pg));
        tname = tag ? "tag.html" : "term.html";
        out_rel = arena_printf(a, "%sindex.html", path);
        list_dir = k == 1 ? path : NULL;
        context = tag ? arena_printf(a, "the page of tag '%s'", t->name)
                      : arena_printf(a, "the page of %s term '%s'", x->name, t->name);
        if (k > 1)
            context = arena_printf(a, "%s, page %zu", context, k);
        break;
    }
    case J_TERM_FEED: {
        const tag_info *t = &s->terms[j->a];
        const taxonomy_info *x = &s->taxonomies[t->tax];
        const char *title = !strcmp(x->name, "tags") ? t->name : arena_printf(a, "%s: %s", x->title, t->name);
        tpl_map_set_str(a, vars, "feed", feed(c, a, title, t->path, tpl_map_get_cstr(t->value, "posts")));
        tpl_map_set_str(a, vars, "term", tpl_map_value(t->value));
        tpl_map_set_str(a, vars, "page", tpl_map_value(list_page(c, a, "feed", title, t->path)));
        tname = "atom.xml";
        out_rel = site_feed_file(a, t->path);
        context = out_rel;
        feed_dir = t->path;
        break;
    }
    case J_TERMS: {
        const taxonomy_info *x = &s->taxonomies[j->a];
        tpl_map_set_str(a, vars, "taxonomy", tpl_map_value(x->value));
        tpl_map *pg = list_page(c, a, "terms", x->title, x->path);
        tpl_map_set_str(a, pg, "taxonomy", tpl_str(x->name));
        tpl_map_set_str(a, vars, "page", tpl_map_value(pg));
        tname = "terms.html";
        out_rel = arena_printf(a, "%sindex.html", x->path);
        context = arena_printf(a, "the index of %s", x->name);
        break;
    }
    case J_TERMS_FEED: {
        const taxonomy_info *x = &s->taxonomies[j->a];
        tpl_map_set_str(a, vars, "feed", feed_of(c, a, x->title, x->path, "terms", x->recent));
        tpl_map_set_str(a, vars, "taxonomy", tpl_map_value(x->value));
        tpl_map *pg = list_page(c, a, "feed", x->title, x->path);
        tpl_map_set_str(a, pg, "taxonomy", tpl_str(x->name));
        tpl_map_set_str(a, vars, "page", tpl_map_value(pg));
        tname = "terms.xml";
        out_rel = site_feed_file(a, x->path);
        context = out_rel;
        feed_dir = x->path;
        break;
    }
    case J_PAPER: {
        const paper_info *pp = &s->papers[j->a];
        tpl_value title = tpl_map_get_cstr(pp->value, "title");
        tpl_map *pg = list_page(c, a, "paper", title.kind == TPL_STRING && title.len ? title.u.s : pp->e->key,
                                pp->path);
        tpl_map_set_str(a, vars, "paper", tpl_map_value(pp->value));
        tpl_map_set_str(a, vars, "cited_by", site_paper_cited_by(s, pp, a));
        tpl_map_set_str(a, vars, "bibtex", tpl_str(site_paper_bibtex(pp->e, a)));
        tpl_map_set_str(a, vars, "page", tpl_map_value(pg));
        tname = "paper.html";
        out_rel = arena_printf(a, "%sindex.html", pp->path);
        context = arena_printf(a, "the page of paper '%s'", pp->e->key);
        break;
    }
    case J_GENERATED: {
        const site_generated *g = &site_generated_outputs[j->a];
        if (j->a == SITE_GEN_SEARCH_INDEX) { /* not a template: search.c */
            render_search_index(c, d);
            return;
        }
        const char *title = g->title ? g->title : s->cfg.title;
        tpl_map_set_str(a, vars, "page", tpl_map_value(list_page(c, a, g->kind, title, g->path)));
        if (j->a == SITE_GEN_ARCHIVE)
            tpl_map_set_str(a, vars, "years", c->years);
        if (j->a == SITE_GEN_TAGS)
            tpl_map_set_str(a, vars, "taxonomy", tpl_map_get_cstr(tpl_map_get_cstr(s->site_value.u.map, "taxonomies").u.map, "tags"));
        if (j->a == SITE_GEN_FEED) {
            tpl_map_set_str(a, vars, "feed", feed(c, a, s->cfg.title, "", tpl_map_get_cstr(s->site_value.u.map, "posts")));
            feed_dir = "";
        }
        tname = g->template;
        out_rel = g->output;
        context = g->context;
        break;
    }
    case J_OUTPUT: {
        const site_output *o = &s->cfg.outputs[j->a];
        if (!tpl_loader_exists(c->l, o->template)) {
            diag_error(d, "site.yaml", o->line, o->col,
                       "'outputs': no template '%s' for /%s (in templates/, the theme's or the "
                       "built-in theme)",
                       o->template, o->path);
            return;
        }
        tpl_map_set_str(a, vars, "page", tpl_map_value(list_page(c, a, "output", s->cfg.title, o->path)));
        tpl_map_set_str(a, vars, "feed", feed(c, a, s->cfg.title, "", tpl_map_get_cstr(s->site_value.u.map, "posts")));
        tname = o->template;
        out_rel = o->output;
        context = arena_printf(a, "the output '%s' (site.yaml outputs)", o->output);
        break;
    }
    case J_ALIAS: {
        page *p = &s->pages[j->a];
        out_rel = site_alias_output(a, p->aliases[j->b]);
        redirect(c, out_rel, site_permalink_in(s, a, p->path), d); /* not s->a: other threads */
        return;
    }
    case J_REFERENCE: {
        tpl_map *e = s->entry_values[j->a];
        tpl_map_set_str(a, vars, "entry", tpl_map_value(e));
        tpl_map_seal(a, vars);
        diag_list *td = diag_list_new();
        tname = s->cfg.citations_numeric ? REFERENCE_NUMERIC : REFERENCE;
        const tpl_template *t = tpl_load(c->l, tname, td);
        const char *key = tpl_map_get_cstr(e, "key").u.s;
        buf out = BUF_INIT;
        if (t && tpl_render(t, c->l, vars, &c->opt, arena_printf(a, "the reference of '%s'", key), a,
                            &out, td)) {
            tpl_value trimmed = tpl_trim(tpl_strn(out.data ? out.data : "", out.len));
            /* the model's: the worker's arena of the site (s->a is not
             * for other threads) */
            const char *html = arena_strndup(s->wa[j->worker], trimmed.u.s, trimmed.len);
            tpl_map_update(e, (size_t)tpl_map_find(e, "reference"), tpl_safe_strn(html, trimmed.len));
        }
        diag_move(d, td);
        diag_list_free(td);
        buf_release(&out);
        return;
    }
    case J_VARIANT:
        render_variants(c, j, d);
        return;
    case J_FILE: {
        const site_file *f = &s->files[j->a];
        if (!writable(f->path, d))
            return;
        char *src = f->data ? NULL : fs_join(s->dir, f->src);
        buf bytes = BUF_INIT;
        if (f->nbf && !c->sink) {
            nb_source ns = { f, src };
            output_fill(c->out, f->path, f->len, f->nbf->hash, nb_fill, &ns, d);
        } else if (f->nbf) {
            if (nb_bytes(f, src, &bytes, d))
                c->sink(c->sink_ctx, f->path, bytes.data, bytes.len);
        } else if (!c->sink && !f->data)
            copy_kept(c, (size_t)j->a, f->path, src, d);
        else if (!c->sink)
            output_copy(c->out, f->path, src, f->data, f->len, d);
        else if (f->data)
            c->sink(c->sink_ctx, f->path, f->data, f->len);
        else if (fs_read_file(src, &bytes))
            c->sink(c->sink_ctx, f->path, bytes.data, bytes.len);
        else
            diag_error(d, f->src, 0, 0, "cannot read: %s", fs_strerror(errno));
        buf_release(&bytes);
        free(src);
        return;
    }
    }
    tpl_map_seal(a, vars);
    /* a build with the cache: done when nothing the job read last time
     * changed and its files are still the ones it wrote (record.c); a job
     * that said something is never skipped */
    if (c->rec && diag_count(d) == j->d0 &&
        render_record_frame(c, (size_t)(j - c->jobs), vars, tname, out_rel, context))
        return;
    prefetch_job(c, j, vars);
    diag_list *td = diag_list_new();
    const tpl_template *t = tpl_load(c->l, tname, td);
    buf out = BUF_INIT;
    if (t && tpl_render(t, c->l, vars, &c->opt, context, a, &out, td)) {
        size_t n = strlen(out_rel);
        /* an XML output without a character its check refuses (which
         * takes every one XML 1.0 cannot hold) has none to strip, and is
         * written as it is: one pass over it, not two */
        bool checked = false;
        if (n >= 4 && !strcmp(out_rel + n - 4, ".xml")) { /* text_format_of: TEXT_XML */
            checked = text_format_bad(out.data, out.len, TEXT_XML) == out.len;
            if (!checked)
                xml_forbidden_strip(&out); /* what XML 1.0 cannot hold: util/xmlchar.h */
        }
        emit_checked(c, out_rel, out.data, out.len, d, checked);
        const char *files[1 + SITE_MAX_FEED_COPIES];
        size_t nfiles = feed_dir ? site_feed_files(s, a, feed_dir, files) : 0;
        for (size_t i = 1; i < nfiles; i++) /* files[0] is out_rel */
            emit(c, files[i], out.data, out.len, d);
        const char *first = list_dir ? site_first_page_alias(s, a, list_dir) : NULL;
        if (first)
            redirect(c, first, site_permalink_in(s, a, list_dir), d);
    }
    diag_move(d, td);
    diag_list_free(td);
    buf_release(&out);
}

void render_job(void *vctx, size_t i, int worker)
{
    render_ctx *c = vctx;
    if (c->progress)
        atomic_fetch_add(&c->progress->done, 1);
    if (c->pick)
        i = c->pick[i];
    job *j = &c->jobs[i];
    j->worker = worker;
    j->d0 = diag_count(c->diags[worker]);
    tpl_deps *old = NULL;
    if (c->deps) {
        c->deps[i].n = 0;
        old = tpl_deps_use(&c->deps[i]);
    }
    if (c->rec)
        render_record_begin(c->rec, i);
    site_bulk_job_begin(c->s, j->kind == J_PAGE ? j->a : -1);
    render_one(c, j, c->scratch[worker], c->diags[worker]);
    site_bulk_job_end(c->s); /* the page's own toc is let go (site/bulk.h) */
    if (c->deps) {
        tpl_deps_use(old);
        tpl_deps_finish(&c->deps[i]);
    }
    j->d1 = diag_count(c->diags[worker]);
    if (c->rec) { /* a one-shot build: what the job read is the record's now */
        render_record_end(c->rec, i, c->deps ? &c->deps[i] : NULL, j->d1 == j->d0);
        if (c->deps)
            tpl_deps_release(&c->deps[i]);
    }
    arena_reset(c->scratch[worker]);
    if (c->s->spill && atomic_fetch_add(&c->ran, 1) % RENDER_TRIM_EVERY == RENDER_TRIM_EVERY - 1)
        site_spill_trim(c->s);
}

/* ---- each bibliography entry's reference, once a build ----
 *
 * entry.reference is the entry as the citation style's template formats it
 * (partials/reference.html, or partials/reference-numeric.html with
 * `citation_style: numeric`), rendered once with `entry` and `site`, the
 * white space around it removed. Every bibliography and paper page that
 * shows the work shows these bytes: the default theme's rendered the
 * template again for each citing page, 30,000 times for the 2,000 works of
 * bench/cite.sh. A theme without the template gets "". */
void render_references(render_ctx *c, int jobs, diag_list *d)
{
    site *s = c->s;
    if (s->csl) { /* a CSL style writes them (site/cite_csl.c) */
        site_csl_references(s, jobs, d);
        return;
    }
    size_t n = s->bib ? s->bib->n : 0;
    const char *tname = s->cfg.citations_numeric ? REFERENCE_NUMERIC : REFERENCE;
    if (!n || !tpl_loader_exists(c->l, tname))
        return;
    /* loaded here, once: a problem in it is reported once, where it is */
    diag_list *td = diag_list_new();
    bool loaded = tpl_load(c->l, tname, td) != NULL;
    diag_move(d, td);
    diag_list_free(td);
    if (!loaded)
        return;
    job *rj = xcalloc(n, sizeof *rj);
    for (size_t i = 0; i < n; i++)
        rj[i] = (job){ .kind = J_REFERENCE, .a = (int)i };
    render_ctx rc = *c;
    rc.jobs = rj;
    rc.njobs = n;
    rc.deps = NULL;
    rc.pick = NULL;
    rc.rec = NULL;
    render_workers_new(&rc, jobs);
    site_parallel(n, jobs, render_job, &rc);
    render_merge_diags(d, rc.diags, rj, n);
    render_workers_free(&rc, jobs);
    free(rj);
}

/* Each worker's scratch arena and diagnostics list, for one round of jobs. */
void render_workers_new(render_ctx *c, int jobs)
{
    atomic_store(&c->budget.steps, 0); /* one budget a run (tpl_options.budget) */
    c->opt.budget = &c->budget;
    c->scratch = xcalloc((size_t)jobs, sizeof *c->scratch);
    c->diags = xcalloc((size_t)jobs, sizeof *c->diags);
    for (int w = 0; w < jobs; w++) {
        c->scratch[w] = arena_new();
        c->diags[w] = diag_list_new();
    }
}

/* Frees them; returns how many diagnostics they held. */
size_t render_workers_free(render_ctx *c, int jobs)
{
    size_t n = 0;
    for (int w = 0; w < jobs; w++) {
        n += diag_count(c->diags[w]);
        arena_free(c->scratch[w]);
        diag_list_free(c->diags[w]);
    }
    free(c->scratch);
    free(c->diags);
    c->scratch = NULL;
    c->diags = NULL;
    return n;
}

void render_add_job(job **v, size_t *n, size_t *cap, job_kind k, int a, int b)
{
    VEC_PUSH(*v, *n, *cap, 256, ((job){ k, a, b, 0, 0, 0 }));
}

/* Diagnostics in job order (not in the order threads happened to finish),
 * so the output is the same for any -j. The same template error on many
 * pages is reported once, for the first page, with a note counting the
 * others. */
void render_merge_diags(diag_list *d, diag_list **parts, const job *jobs, size_t njobs)
{
    /* pass 1: how often each error (formatted) came up */
    strmap *seen = strmap_new(64);
    struct seen_error {
        char *key;   /* diag_format'ted */
        size_t dups; /* how many more times */
        bool done;   /* reported */
    } *errs = NULL;
    size_t nerrs = 0, caperrs = 0;
    for (size_t ji = 0; ji < njobs; ji++)
        for (size_t i = jobs[ji].d0; i < jobs[ji].d1; i++) {
            const diag *e = diag_get(parts[jobs[ji].worker], i);
            if (e->level == DIAG_NOTE)
                continue;
            buf k = BUF_INIT;
            diag_format(e, &k);
            char *key = buf_detach(&k, NULL);
            long idx = strmap_put(seen, key, (long)nerrs);
            if (idx != (long)nerrs) {
                free(key);
                errs[idx].dups++;
                continue;
            }
            VEC_PUSH(errs, nerrs, caperrs, 16, ((struct seen_error){ key, 0, false }));
        }
    /* pass 2: each error once, with its notes, then the count */
    for (size_t ji = 0; ji < njobs; ji++) {
        const job *jb = &jobs[ji];
        for (size_t i = jb->d0; i < jb->d1; i++) {
            const diag *e = diag_get(parts[jb->worker], i);
            if (e->level == DIAG_NOTE)
                continue; /* emitted with its error */
            buf k = BUF_INIT;
            diag_format(e, &k);
            long idx = strmap_get(seen, k.data);
            buf_release(&k);
            if (idx < 0 || errs[idx].done)
                continue;
            errs[idx].done = true;
            diag_add_about(d, e->about, e->level, e->path, e->line, e->col, "%s", e->message);
            size_t n = i + 1;
            for (; n < jb->d1; n++) {
                const diag *note = diag_get(parts[jb->worker], n);
                if (note->level != DIAG_NOTE)
                    break;
                diag_add(d, note->level, note->path, note->line, note->col, "%s", note->message);
            }
            size_t dups = errs[idx].dups;
            if (dups)
                diag_note(d, e->path, e->line, e->col, "the same error came up %zu more time%s, on other pages",
                          dups, dups == 1 ? "" : "s");
        }
    }
    for (size_t i = 0; i < nerrs; i++)
        free(errs[i].key);
    free(errs);
    strmap_free(seen);
}

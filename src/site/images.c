/* images: what a page's images get from their files. While the Markdown
 * renders, every <img> whose src names a file of the site (content/,
 * static/, the theme's static/) is sized from the file's header (img/),
 * gets loading="lazy" decoding="async" unless it is the page's first
 * image (the likely Largest Contentful Paint, which must not wait), and,
 * when it is a raster image wider than the smallest of `images.widths`,
 * a srcset of WebP variants at the widths below its own plus the
 * original. Each file's header is read once a build, whichever page
 * asks first; the variants themselves are made by render/ (one job
 * each, so twice the same image on two pages is one job), from the list
 * site_image_variants draws from the pages' link records — which a build
 * session keeps with a page's Markdown, so a kept page's images count. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "img/img.h"
#include "site/imgrec.h"
#include "site/media.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/strmap.h"
#include "util/url.h"
#include "util/vec.h"
#include "util/xalloc.h"

typedef struct site_images {
    pthread_mutex_t mu;
    unsigned char *state; /* per file: 0 not read, else 1 + img_status */
    img_info *info;
    char **why;           /* IMG_BAD: the reason (heap) */
    strmap *by_path;      /* output path → file, for root-relative srcs */
    site_img_records *rec; /* a one-shot build's record of the images (imgrec.c), or NULL */
} site_images;

void site_images_begin(site *s)
{
    if (s->images)
        return;
    site_images *m = xcalloc(1, sizeof *m);
    pthread_mutex_init(&m->mu, NULL);
    m->state = xcalloc(s->nfiles + 1, 1);
    m->info = xcalloc(s->nfiles + 1, sizeof *m->info);
    m->why = xcalloc(s->nfiles + 1, sizeof *m->why);
    m->by_path = strmap_new(s->nfiles + 1);
    for (size_t i = 0; i < s->nfiles; i++)
        strmap_put(m->by_path, s->files[i].path, (long)i);
    s->images = m;
}

site_img_records *site_image_records(const site *s) { return s->images ? s->images->rec : NULL; }

int site_file_at(const site *s, const char *path)
{
    return s->images ? (int)strmap_get(s->images->by_path, path) : -1;
}

void site_images_free(site *s)
{
    site_images *m = s->images;
    if (!m)
        return;
    for (size_t i = 0; i < s->nfiles; i++)
        free(m->why[i]);
    free(m->why);
    free(m->info);
    free(m->state);
    strmap_free(m->by_path);
    site_img_records_free(m->rec);
    pthread_mutex_destroy(&m->mu);
    free(m);
    s->images = NULL;
    free(s->variants);
    s->variants = NULL;
    s->nvariants = 0;
}

/* The header of file i, read once (under the lock: a header is at most
 * 64 KiB read, and the rare JPEG whose frame header is further). */
static img_status file_header(site *s, int i, img_info *info, const char **why)
{
    site_images *m = s->images;
    pthread_mutex_lock(&m->mu);
    if (!m->state[i]) {
        const site_file *f = &s->files[i];
        img_status st;
        buf w = BUF_INIT;
        if (f->nbf) {
            /* a notebook's output or attachment, sized when it was read
             * (nb_convert); never the author's error */
            st = IMG_UNKNOWN;
            if (f->nbf->width && f->nbf->height) {
                m->info[i] = f->nbf->info;
                st = IMG_OK;
            }
        } else if (f->data) {
            const char *sw = NULL;
            /* bytes sheaf made (the theme's): sized when they can be,
             * never the author's error */
            st = img_read_header(f->data, f->len, f->path, &m->info[i], &sw);
            if (st == IMG_SHORT || st == IMG_BAD)
                st = IMG_UNKNOWN;
        } else {
            char *path = fs_join(s->dir, f->src);
            st = img_read_file(path, &m->info[i], &w);
            free(path);
        }
        if (st == IMG_BAD)
            m->why[i] = buf_detach(&w, NULL);
        buf_release(&w);
        m->state[i] = (unsigned char)(1 + st);
    }
    img_status st = (img_status)(m->state[i] - 1);
    *info = m->info[i];
    *why = m->why[i];
    pthread_mutex_unlock(&m->mu);
    return st;
}

const char *site_variant_path(arena *a, const char *file_path, unsigned w)
{
    const char *slash = strrchr(file_path, '/');
    const char *base = slash ? slash + 1 : file_path;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - file_path) : strlen(file_path);
    /* "<stem>.<w>w.webp", without printf: one a variant a build */
    char num[16];
    size_t n = 0;
    do
        num[sizeof num - ++n] = (char)('0' + w % 10);
    while ((w /= 10) && n < sizeof num);
    char *out = arena_alloc(a, stem + n + sizeof ".w.webp");
    memcpy(out, file_path, stem);
    out[stem] = '.';
    memcpy(out + stem + 1, num + sizeof num - n, n);
    memcpy(out + stem + 1 + n, "w.webp", sizeof "w.webp");
    return out;
}

/* A URL in a srcset: a space or comma would end it there */
static void put_srcset_url(buf *b, const char *base, const char *path)
{
    buf_puts(b, base);
    for (const char *p = path; *p; p++) {
        if (*p == ',')
            buf_puts(b, "%2C");
        else
            url_path_escape(b, p, 1);
    }
}

/* Whether an image of this size would have variants if libvips is there. */
static bool would_have_variants(const site *s, const img_info *info)
{
    return s->cfg.images_process && img_resizable(info) && s->cfg.nimages_widths
           && info->width > (unsigned)s->cfg.images_widths[0];
}

/* Whether file i gets variants, and so a srcset. libvips is asked last:
 * the question loads it (a hundred libraries), which a site without such
 * an image must not pay for. */
static bool wants_variants(const site *s, const img_info *info)
{
    return would_have_variants(s, info) && img_vips_available(s->cache);
}

void site_image_attrs(site *s, arena *a, int file, bool first, md_img_attrs *out, const char **error)
{
    *error = NULL;
    out->lazy = !first;
    if (!s->images)
        return;
    img_info info;
    const char *why;
    img_status st = file_header(s, file, &info, &why);
    if (st == IMG_BAD) {
        *error = why;
        return;
    }
    if (st != IMG_OK)
        return;
    if (info.format != IMG_SVG && (uint64_t)info.width * info.height > (uint64_t)s->cfg.images_max_pixels) {
        *error = arena_printf(a, "%u × %u is %llu pixels, more than images.max_pixels (%ld): sheaf does "
                              "not decode it (a decompression bomb, or a picture to scale down first)",
                              info.width, info.height, (unsigned long long)info.width * info.height,
                              s->cfg.images_max_pixels);
        return;
    }
    out->width = info.width;
    out->height = info.height;
    if (!wants_variants(s, &info))
        return;
    const site_file *f = &s->files[file];
    buf b = BUF_INIT;
    for (size_t k = 0; k < s->cfg.nimages_widths; k++) {
        unsigned w = (unsigned)s->cfg.images_widths[k];
        if (w >= info.width)
            break;
        put_srcset_url(&b, s->cfg.base_path, site_variant_path(a, f->path, w));
        buf_printf(&b, " %uw, ", w);
    }
    put_srcset_url(&b, s->cfg.base_path, f->path);
    buf_printf(&b, " %uw", info.width);
    out->srcset = arena_strndup(a, b.data, b.len);
    out->sizes = s->cfg.images_sizes;
    buf_release(&b);
}

void site_image_variants(site *s, diag_list *d)
{
    free(s->variants);
    s->variants = NULL;
    s->nvariants = 0;
    if (!s->images || !s->cfg.images_process)
        return;
    /* libvips only when an image would have variants (asking loads it) */
    bool any = false;
    for (size_t i = 0; i < s->npages && !any; i++)
        for (size_t k = 0; k < s->pages[i].nlinks && !any; k++) {
            int fi = s->pages[i].links[k].image;
            img_info info;
            const char *why;
            /* the header read here when the page's Markdown came from the
             * build cache and nothing read it yet */
            any = fi >= 0 && !s->pages[i].links[k].image_error && file_header(s, fi, &info, &why) == IMG_OK
                  && would_have_variants(s, &info);
        }
    if (!any)
        return;
    if (!img_vips_available(s->cache)) {
        diag_warning(d, "site.yaml", 0, 0, "images: no WebP variants (%s); the images keep their "
                     "sizes (images: {process: false} says this is meant)", img_vips_problem());
        return;
    }
    size_t cap = 0;
    unsigned char *seen = xcalloc(s->nfiles + 1, 1);
    for (size_t i = 0; i < s->npages; i++) {
        const page *p = &s->pages[i];
        if (p->failed || p->excluded || !p->path)
            continue;
        for (size_t k = 0; k < p->nlinks; k++) {
            int fi = p->links[k].image;
            if (fi < 0 || p->links[k].image_error || seen[fi])
                continue;
            seen[fi] = 1;
            img_info info;
            const char *why;
            if (file_header(s, fi, &info, &why) != IMG_OK || !wants_variants(s, &info)
                || (uint64_t)info.width * info.height > (uint64_t)s->cfg.images_max_pixels)
                continue;
            for (size_t w = 0; w < s->cfg.nimages_widths; w++) {
                unsigned width = (unsigned)s->cfg.images_widths[w];
                if (width >= info.width)
                    break;
                site_variant *v = VEC_ADD(s->variants, s->nvariants, cap, 16);
                v->file = fi;
                v->width = width;
                v->path = site_variant_path(s->a, s->files[fi].path, width);
                v->ref = p;
                v->at = &p->links[k];
            }
        }
    }
    free(seen);
}

void site_images_env(const site *s, bool contents, uint64_t *h)
{
    static const char *const exts[] = { ".png", ".jpg", ".jpeg", ".webp", ".gif", ".avif", ".svg" };
    bool raster = false; /* one that could have variants: whether libvips is there counts */
    site_img_records *rec = NULL;
    if (contents && s->cache && s->images) {
        if (!s->images->rec) /* its clock before any image is stat-ed */
            s->images->rec = site_img_records_open(s->cache, s->dir, s->nfiles);
        rec = s->images->rec;
    }
    for (size_t i = 0; i < s->nfiles; i++) {
        const site_file *f = &s->files[i];
        const char *dot = strrchr(f->path, '.');
        size_t kind = sizeof exts / sizeof *exts; /* which of exts, or this */
        for (size_t k = 0; dot && k < sizeof exts / sizeof *exts && kind == sizeof exts / sizeof *exts; k++)
            if (!strcasecmp(dot, exts[k]))
                kind = k;
        bool image = kind < sizeof exts / sizeof *exts;
        raster |= kind < 4; /* .png … .webp */
        if (!image || f->data || f->nbf)
            continue;
        char *path = fs_join(s->dir, f->src);
        struct stat st;
        char hex[65];
        /* its bytes' SHA-256, from the images' record when the file is
         * unchanged (imgrec.c: the one stat of it this build, which the
         * copy and the variants take too): not every image read whole
         * every build */
        if (rec && site_img_records_hash(rec, i, f->src, path, hex)) {
            *h = hash_add(*h, hex, 64);
        } else if (!stat(path, &st)) {
            int64_t v[3] = { (int64_t)st.st_size, (int64_t)st.st_mtim.tv_sec, (int64_t)st.st_mtim.tv_nsec };
            *h = hash_add(*h, v, sizeof v);
        }
        free(path);
    }
    /* A session asks libvips once and keeps it loaded. A one-shot build's
     * key (contents) does not: asking loads a hundred libraries a site
     * that makes no variant must not pay for. So a libvips installed or
     * removed between two builds whose images did not change is not seen
     * by the build cache (docs/internals.md); --no-cache is. */
    if (!contents && raster && s->cfg.images_process)
        *h = hash_add(*h, img_vips_available(NULL) ? "vips" : "none", 4);
}

bool site_page_image(site *s, const page *p, const char **url, unsigned *w, unsigned *h)
{
    const link_rec *pick = NULL;
    for (size_t i = 0; i < p->nlinks && !pick; i++)
        if (p->links[i].image_key)
            pick = &p->links[i];
    for (size_t i = 0; i < p->nlinks && !pick; i++) {
        const link_rec *l = &p->links[i];
        if (l->img_tag && !l->image_error
            && (l->image >= 0 || !strncmp(l->dest, "https://", 8) || !strncmp(l->dest, "http://", 7)))
            pick = l;
    }
    if (!pick || pick->image_error || !pick->url)
        return false;
    *url = pick->url;
    *w = *h = 0;
    img_info info;
    const char *why;
    if (pick->image >= 0 && s->images && file_header(s, pick->image, &info, &why) == IMG_OK
        && info.format != IMG_SVG) {
        *w = info.width;
        *h = info.height;
    }
    return true;
}

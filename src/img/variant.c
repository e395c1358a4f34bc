/* variant: a raster image resized to a smaller width and encoded as WebP
 * with libvips, through the build cache.
 *
 * Bounds: the source's width × height is read from its header (imghdr.c)
 * and refused past max_pixels before libvips sees a byte, so a
 * decompression bomb (a small file that claims 40,000 × 40,000) costs
 * nothing; libvips then reads the image once, sequentially, shrinking
 * while it decodes where the format allows (JPEG's DCT scaling), so the
 * memory of one variant is a few strips of the source and the output, not
 * the whole decoded picture. libvips's own operation cache is off (every
 * variant is made once a build) and its thread pool is one thread: the
 * build's workers already run one variant each in parallel. */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <nettle/sha2.h>
#if SHEAF_HAVE_VIPS
#include <vips/vips.h>
#endif

#include "cache/cache.h"
#include "img/img.h"
#include "util/fs.h"
#include "util/xalloc.h"

#if SHEAF_HAVE_VIPS
/* libvips is opened on the first variant a build needs, not linked: it
 * brings about a hundred shared libraries (its codecs), whose loading cost
 * every run of sheaf a quarter of a second and 17 MB before — sites
 * without images, `sheaf --version`, each test — for nothing. Its
 * headers give the types; these pointers, the functions. */
static pthread_once_t started = PTHREAD_ONCE_INIT;
static atomic_bool start_done; /* start ran: vips_ok and version are final */
static bool vips_ok;
static char version[32];
static char start_error[256];
static char loaded_path[4096]; /* the file dlopen found, "" unknown */

static int (*v_init)(const char *);
static int (*v_version)(int);
static void (*v_cache_set_max)(int);
static void (*v_cache_set_max_mem)(size_t);
static void (*v_cache_set_max_files)(int);
static void (*v_concurrency_set)(int);
static VipsImage *(*v_new_from_buffer)(const void *, size_t, const char *, ...);
static int (*v_thumbnail_image)(VipsImage *, VipsImage **, int, ...);
static int (*v_webpsave_buffer)(VipsImage *, void **, size_t *, ...);
static int (*v_image_get_width)(const VipsImage *);
static char *(*v_error_buffer_copy)(void);
static void (*v_g_free)(void *);
static void (*v_g_object_unref)(void *);
static guint (*v_g_log_set_handler)(const gchar *, GLogLevelFlags, GLogFunc, gpointer);

/* libvips's warnings (a PNG's bad CRC, …) would go to stderr from a
 * library: sheaf reports what fails, as errors at the image */
static void quiet(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data)
{
    (void)domain, (void)level, (void)message, (void)data;
}

static void load(void)
{
    void *h = dlopen(SHEAF_VIPS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(start_error, sizeof start_error, "cannot load %s: %s", SHEAF_VIPS_SONAME, dlerror());
        return;
    }
    struct link_map *lm = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0] == '/'
        && strlen(lm->l_name) < sizeof loaded_path)
        strcpy(loaded_path, lm->l_name);
    static const struct {
        const char *name;
        void **at;
    } fns[] = {
        { "vips_init", (void **)&v_init },
        { "vips_version", (void **)&v_version },
        { "vips_cache_set_max", (void **)&v_cache_set_max },
        { "vips_cache_set_max_mem", (void **)&v_cache_set_max_mem },
        { "vips_cache_set_max_files", (void **)&v_cache_set_max_files },
        { "vips_concurrency_set", (void **)&v_concurrency_set },
        { "vips_image_new_from_buffer", (void **)&v_new_from_buffer },
        { "vips_thumbnail_image", (void **)&v_thumbnail_image },
        { "vips_webpsave_buffer", (void **)&v_webpsave_buffer },
        { "vips_image_get_width", (void **)&v_image_get_width },
        { "vips_error_buffer_copy", (void **)&v_error_buffer_copy },
        { "g_free", (void **)&v_g_free },
        { "g_object_unref", (void **)&v_g_object_unref },
        { "g_log_set_handler", (void **)&v_g_log_set_handler },
    };
    for (size_t i = 0; i < sizeof fns / sizeof *fns; i++) {
        *fns[i].at = dlsym(h, fns[i].name); /* POSIX: a function's address as void * */
        if (!*fns[i].at) {
            snprintf(start_error, sizeof start_error, "%s has no %s", SHEAF_VIPS_SONAME, fns[i].name);
            return;
        }
    }
    if (v_version(0) != 8 || v_version(1) < 12) { /* fail_on came with 8.12 */
        snprintf(start_error, sizeof start_error, "libvips %d.%d is too old: sheaf needs 8.12 or later",
                 v_version(0), v_version(1));
        return;
    }
    snprintf(version, sizeof version, "%d.%d.%d", v_version(0), v_version(1), v_version(2));
    vips_ok = true;
}

static void start(void)
{
    load();
    atomic_store(&start_done, true);
}

/* ---- libvips's version without loading it ----
 * A warm build whose variants are all kept needs libvips's version (part
 * of every variant's key) and none of its functions; loading it costs a
 * hundred libraries' relocations, 0.05 s of CPU, per build. So once
 * loaded, the cache keeps a record (kind "vips"), keyed by what decides
 * which file dlopen finds — the soname, LD_LIBRARY_PATH and who
 * /etc/ld.so.cache is (ldconfig rewrites it when a library is installed
 * or removed) — of the file it found, who that file is (device, inode,
 * size, modification and change times) and its version. A build that
 * finds that same file takes the version from the record, and loads the
 * library only when it has a variant to make. */
static pthread_mutex_t known_mu = PTHREAD_MUTEX_INITIALIZER;
static bool looked;     /* under known_mu: the record was asked for */
static char known[32];  /* under known_mu until set: the record's version, "" none */
static atomic_bool recorded;

static void who(buf *b, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        buf_puts(b, "none");
        return;
    }
    fs_put_who(b, &st);
}

void img_vips_record_key(buf *k)
{
    const char *lp = getenv("LD_LIBRARY_PATH");
    buf_printf(k, "vips 1\nsoname %s\nLD_LIBRARY_PATH %s\nld.so.cache ", SHEAF_VIPS_SONAME, lp ? lp : "");
    who(k, "/etc/ld.so.cache");
}

/* The version the record gives, if the file it names is still that file. */
static const char *remembered(struct cache *c)
{
    pthread_mutex_lock(&known_mu);
    if (!looked) {
        looked = true;
        buf k = BUF_INIT, v = BUF_INIT, now = BUF_INIT;
        img_vips_record_key(&k);
        if (cache_get(c, "vips", k.data, k.len, &v)) {
            /* path \n who \n version */
            char *nl1 = memchr(v.data, '\n', v.len);
            char *nl2 = nl1 ? memchr(nl1 + 1, '\n', v.len - (size_t)(nl1 + 1 - v.data)) : NULL;
            if (nl2) {
                *nl1 = *nl2 = 0;
                who(&now, v.data);
                size_t vl = strlen(nl2 + 1);
                if (!strcmp(now.data, nl1 + 1) && vl && vl < sizeof known)
                    memcpy(known, nl2 + 1, vl + 1);
            }
        }
        buf_release(&k);
        buf_release(&v);
        buf_release(&now);
    }
    const char *r = known[0] ? known : NULL;
    pthread_mutex_unlock(&known_mu);
    return r;
}

static void remember(struct cache *c)
{
    if (!loaded_path[0] || atomic_exchange(&recorded, true))
        return;
    buf k = BUF_INIT, v = BUF_INIT;
    img_vips_record_key(&k);
    buf_printf(&v, "%s\n", loaded_path);
    who(&v, loaded_path);
    buf_printf(&v, "\n%s", version);
    cache_put(c, "vips", k.data, k.len, v.data, v.len);
    buf_release(&k);
    buf_release(&v);
}

/* vips_init and the settings, only before the first variant libvips makes
 * (a build whose variants all come from the cache needs only the version:
 * starting libvips costs another 0.1 s) */
static pthread_once_t inited = PTHREAD_ONCE_INIT;
static bool init_ok;

static void init(void)
{
    v_g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE, quiet, NULL);
    if (v_init("sheaf"))
        return;
    v_cache_set_max(0);
    v_cache_set_max_mem(0);
    v_cache_set_max_files(0);
    v_concurrency_set(1);
    init_ok = true;
}

void img_vips_init(void) { pthread_once(&started, start); }

const char *img_vips_version(struct cache *c)
{
    if (c && !atomic_load(&start_done)) {
        const char *v = remembered(c);
        if (v)
            return v;
    }
    img_vips_init();
    if (vips_ok && c)
        remember(c);
    return vips_ok ? version : NULL;
}

bool img_vips_loaded(void) { return atomic_load(&start_done) && vips_ok; }

/* Loads libvips to make a variant: false with *why when it cannot, or
 * when it is not the version the record gave (the key already says it). */
static bool loaded(char **why)
{
    img_vips_init();
    if (!vips_ok) {
        *why = xstrdup(start_error);
        return false;
    }
    pthread_mutex_lock(&known_mu);
    bool same = !known[0] || !strcmp(known, version);
    pthread_mutex_unlock(&known_mu);
    if (!same) {
        buf b = BUF_INIT;
        buf_printf(&b, "libvips changed while sheaf ran (%s, not %s): build again", version, known);
        *why = buf_detach(&b, NULL);
    }
    return same;
}

const char *img_vips_problem(void)
{
    img_vips_init();
    return vips_ok ? NULL : start_error;
}

#else
void img_vips_init(void) {}
void img_vips_record_key(buf *k) { (void)k; }
bool img_vips_loaded(void) { return false; }
const char *img_vips_version(struct cache *c)
{
    (void)c;
    return NULL;
}
const char *img_vips_problem(void) { return "this sheaf was built without libvips (SHEAF_VIPS=OFF)"; }
#endif

bool img_vips_available(struct cache *c) { return img_vips_version(c) != NULL; }

static void hex_of(const uint8_t *d, size_t n, char *hex)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
    }
    hex[2 * n] = 0;
}

void img_data_hash(const unsigned char *data, size_t len, char hex[65])
{
    struct sha256_ctx h;
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_init(&h);
    sha256_update(&h, len, data);
    sha256_digest(&h, sizeof digest, digest);
    hex_of(digest, sizeof digest, hex);
}

bool img_file_hash(struct cache *c, const char *path, char hex[65], buf *bytes)
{
    struct stat st;
    if (stat(path, &st) || !S_ISREG(st.st_mode))
        return false;
    buf key = BUF_INIT, v = BUF_INIT;
    /* git's rule for its index: a file whose size, modification and
     * change times (to the nanosecond), device and inode are those of the
     * record has the recorded bytes. Writing a file changes its change
     * time, even when a tool then sets the modification time back (cp -p,
     * touch -r), so only a rewrite within the same tick of the kernel's
     * clock (a few milliseconds) that also restores the modification time
     * goes unseen. */
    buf_printf(&key, "source 2\npath %s\nsize %lld\nmtime %lld.%09ld\nctime %lld.%09ld\ninode %llu:%llu", path,
               (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
               (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec, (unsigned long long)st.st_dev,
               (unsigned long long)st.st_ino);
    bool ok = cache_get(c, "img-src", key.data, key.len, &v) && v.len == 64 && strspn(v.data, "0123456789abcdef") == 64;
    if (ok) {
        memcpy(hex, v.data, 65);
    } else if (fs_read_file(path, bytes)) {
        img_data_hash((const unsigned char *)bytes->data, bytes->len, hex);
        cache_put(c, "img-src", key.data, key.len, hex, 64);
        ok = true;
    }
    buf_release(&key);
    buf_release(&v);
    return ok;
}

/* The cache key: everything the bytes depend on. */
static void variant_key(buf *key, const char *vips, const char *hex, unsigned width, int quality)
{
    buf_printf(key, "variant 1\nformat webp\nwidth %u\nquality %d\nlibvips %s\nsource %s", width, quality,
               vips, hex);
}

bool img_variant_key(struct cache *c, buf *key, const char *hex, unsigned width, int quality)
{
    const char *vips = img_vips_version(c);
    if (!vips)
        return false;
    variant_key(key, vips, hex, width, quality);
    return true;
}

/* A cached value is a WebP whose header says `width` wide. */
static bool webp_ok(const buf *v, unsigned width)
{
    img_info info;
    const char *why;
    return img_read_header((const unsigned char *)v->data, v->len, "v.webp", &info, &why) == IMG_OK
           && info.format == IMG_WEBP && info.width == width;
}

bool img_variant_cached(struct cache *c, const char *hex, unsigned width, int quality, buf *out)
{
    buf key = BUF_INIT;
    if (!img_variant_key(c, &key, hex, width, quality))
        return false;
    size_t at = out->len;
    bool ok = cache_get(c, "img", key.data, key.len, out);
    if (ok) {
        buf v = { .data = out->data + at, .len = out->len - at };
        ok = webp_ok(&v, width);
        if (!ok) {
            out->len = at;
            out->data[at] = 0;
        }
    }
    buf_release(&key);
    return ok;
}

#if SHEAF_HAVE_VIPS
/* libvips's message, on one line, for the caller to free. */
static char *vips_why(const char *what)
{
    char *e = v_error_buffer_copy();
    size_t n = e ? strlen(e) : 0;
    while (n && (e[n - 1] == '\n' || e[n - 1] == ' '))
        e[--n] = 0;
    for (size_t i = 0; i < n; i++)
        if (e[i] == '\n')
            e[i] = ' ';
    buf b = BUF_INIT;
    buf_printf(&b, "%s: %s", what, n ? e : "libvips gave no reason");
    v_g_free(e);
    return buf_detach(&b, NULL);
}
#endif

bool img_make_variant(struct cache *c, const char *hex, const unsigned char *data, size_t len,
                      unsigned width, int quality, uint64_t max_pixels, buf *out, char **why)
{
    *why = NULL;
    img_info info;
    const char *hw;
    if (img_read_header(data, len, "", &info, &hw) != IMG_OK || !img_resizable(&info)) {
        *why = xstrdup(hw ? hw : "not a PNG, JPEG or still WebP image");
        return false;
    }
    if ((uint64_t)info.width * info.height > max_pixels) {
        buf b = BUF_INIT;
        buf_printf(&b, "%u × %u pixels is more than the %llu an image may have", info.width, info.height,
                   (unsigned long long)max_pixels);
        *why = buf_detach(&b, NULL);
        return false;
    }
    if (img_variant_cached(c, hex, width, quality, out))
        return true;
#if !SHEAF_HAVE_VIPS
    *why = xstrdup("this sheaf was built without libvips (SHEAF_VIPS=OFF)");
    return false;
#else
    buf key = BUF_INIT;
    if (!loaded(why)) {
        buf_release(&key);
        return false;
    }
    variant_key(&key, version, hex, width, quality);
    pthread_once(&inited, init);
    if (!init_ok) {
        buf_release(&key);
        *why = xstrdup("libvips could not start (vips_init failed)");
        return false;
    }
    /* JPEG shrinks while it decodes (DCT scaling by 2, 4 or 8): the
     * largest factor that keeps the decoded image at least `width` wide */
    char opts[32] = "";
    if (info.format == IMG_JPEG) {
        int shrink = 1;
        while (shrink < 8 && info.width / (unsigned)(shrink * 2) >= width)
            shrink *= 2;
        snprintf(opts, sizeof opts, "shrink=%d", shrink);
    }
    /* the loader itself, not vips_thumbnail_buffer: only a loader's
     * fail_on makes a truncated or corrupt body an error (thumbnail's
     * shrink-on-load ignores it and pads the missing rows) */
    VipsImage *in = v_new_from_buffer(data, len, opts, "access", VIPS_ACCESS_SEQUENTIAL,
                                               "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    if (!in) {
        buf_release(&key);
        *why = vips_why("libvips could not read it");
        return false;
    }
    VipsImage *im = NULL;
    int tr = v_thumbnail_image(in, &im, (int)width, "height", VIPS_MAX_COORD, "size", VIPS_SIZE_DOWN, NULL);
    v_g_object_unref(in);
    if (tr) {
        buf_release(&key);
        *why = vips_why("libvips could not resize it");
        return false;
    }
    void *enc = NULL;
    size_t elen = 0;
    int r = v_webpsave_buffer(im, &enc, &elen, "Q", quality, "strip", TRUE, NULL);
    unsigned got = (unsigned)v_image_get_width(im);
    v_g_object_unref(im);
    if (r) {
        buf_release(&key);
        *why = vips_why("libvips could not read it whole");
        return false;
    }
    if (got != width) { /* the ratio rounded: keep what srcset says true */
        v_g_free(enc);
        buf_release(&key);
        buf b = BUF_INIT;
        buf_printf(&b, "libvips made a variant %u pixels wide, not %u", got, width);
        *why = buf_detach(&b, NULL);
        return false;
    }
    buf_put(out, enc, elen);
    cache_put(c, "img", key.data, key.len, enc, elen);
    v_g_free(enc);
    buf_release(&key);
    return true;
#endif
}

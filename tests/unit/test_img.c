/* test_img: the image header reader (src/img/imghdr.c) on each format,
 * every truncation of each header, corrupt headers and absurd sizes; and
 * the variant maker (src/img/variant.c): its width, the pixel limit checked
 * before decoding, and the cache. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache/cache.h"
#include "harness.h"
#include "img/img.h"
#include "render/build.h"
#include "site/imgrec.h"
#include "util/fs.h"
#if SHEAF_HAVE_VIPS
#include <vips/vips.h>
#endif

static void be32(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8),
    p[3] = (unsigned char)v;
}

static size_t png(unsigned char *b, unsigned w, unsigned h)
{
    static const unsigned char sig[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R' };
    memcpy(b, sig, sizeof sig);
    be32(b + 16, w);
    be32(b + 20, h);
    memset(b + 24, 0, 9); /* depth, colour type, …, CRC */
    b[24] = 8;
    b[25] = 2;
    return 33;
}

static size_t jpeg(unsigned char *b, unsigned w, unsigned h, size_t exif)
{
    size_t n = 0;
    b[n++] = 0xFF, b[n++] = 0xD8;
    b[n++] = 0xFF, b[n++] = 0xE1; /* APP1 of `exif` bytes */
    b[n++] = (unsigned char)((exif + 2) >> 8), b[n++] = (unsigned char)(exif + 2);
    memset(b + n, 'x', exif);
    n += exif;
    b[n++] = 0xFF, b[n++] = 0xFF, b[n++] = 0xC0; /* a fill byte, then SOF0 */
    b[n++] = 0, b[n++] = 17, b[n++] = 8;
    b[n++] = (unsigned char)(h >> 8), b[n++] = (unsigned char)h;
    b[n++] = (unsigned char)(w >> 8), b[n++] = (unsigned char)w;
    b[n++] = 3;
    memset(b + n, 1, 9);
    return n + 9;
}

/* A JPEG header whose APP1 is EXIF: a TIFF header in either byte order
 * and IFD0 with two entries, ImageWidth (a LONG, which a reader must step
 * over) and Orientation (`type` 3, SHORT, for a valid one). */
static size_t jpeg_oriented(unsigned char *b, unsigned w, unsigned h, unsigned orientation, bool le,
                            unsigned type)
{
    unsigned char t[6 + 8 + 2 + 24 + 4];
    size_t k = 0;
    memcpy(t, "Exif\0\0", 6), k = 6;
#define P16(v) (le ? (t[k] = (unsigned char)(v), t[k + 1] = (unsigned char)((v) >> 8))                      \
                   : (t[k] = (unsigned char)((v) >> 8), t[k + 1] = (unsigned char)(v)), k += 2)
#define P32(v) (le ? (P16((v) & 0xFFFF), P16((v) >> 16)) : (P16((v) >> 16), P16((v) & 0xFFFF)))
    memcpy(t + k, le ? "II*\0" : "MM\0*", 4), k += 4;
    P32(8u);         /* IFD0 right after the header */
    P16(2u);         /* two entries */
    P16(0x0100u), P16(4u), P32(1u), P32(w);               /* ImageWidth, LONG */
    P16(0x0112u), P16(type), P32(1u), P16(orientation), P16(0u); /* Orientation */
    P32(0u);         /* no next IFD */
#undef P16
#undef P32
    size_t n = jpeg(b, w, h, k);
    memcpy(b + 6, t, k);
    return n;
}

static img_status rd(const unsigned char *b, size_t n, const char *name, img_info *i)
{
    const char *why;
    return img_read_header(b, n, name, i, &why);
}

/* Every proper prefix of a header is SHORT or BAD, never OK with a size
 * read from bytes past the end (ASan watches the reads). */
static void every_prefix(const unsigned char *b, size_t n, const char *name)
{
    /* a JPEG's frame header holds its size before its components */
    size_t need = name[strlen(name) - 1] == 'g' && name[strlen(name) - 2] == 'p' ? n - 10 : n;
    for (size_t k = 0; k < need; k++) {
        unsigned char *copy = malloc(k + 1);
        memcpy(copy, b, k);
        img_info i;
        const char *why = NULL;
        img_status st = img_read_header(copy, k, name, &i, &why);
        if (st == IMG_OK)
            FAILF("%s cut to %zu bytes read as OK", name, k);
        if ((st == IMG_SHORT || st == IMG_BAD) && !why)
            FAILF("%s cut to %zu bytes: no reason", name, k);
        free(copy);
    }
}

#if SHEAF_HAVE_VIPS
/* ---- libvips's version from the cache's record, not loaded ----
 * Whether libvips is loaded is a process's state: each case runs in a
 * child of this process, which has not asked for libvips yet. */
static void in_child(void (*fn)(cache *), cache *c)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        harness_cur_failed = 0;
        fn(c);
        _exit(harness_cur_failed ? 1 : 0);
    }
    int st = 0;
    OK(pid > 0 && waitpid(pid, &st, 0) == pid);
    OK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static char linked_version[32];

/* Replaces line n (0 the library's path, 1 who it is, 2 its version) of
 * the record. */
static void rewrite_record(cache *c, int n, const char *text)
{
    buf k = BUF_INIT, v = BUF_INIT, nv = BUF_INIT;
    img_vips_record_key(&k);
    OK(cache_get(c, "vips", k.data, k.len, &v));
    char *line[3] = { v.data, NULL, NULL };
    for (int i = 1; i < 3 && line[i - 1]; i++) {
        line[i] = strchr(line[i - 1], '\n');
        if (line[i])
            *line[i]++ = 0;
    }
    OK(line[2] != NULL);
    for (int i = 0; i < 3 && line[2]; i++)
        buf_printf(&nv, "%s%s", i ? "\n" : "", i == n ? text : line[i]);
    cache_put(c, "vips", k.data, k.len, nv.data, nv.len);
    buf_release(&k);
    buf_release(&v);
    buf_release(&nv);
}

static void vips_first(cache *c) /* no record: loaded, and recorded */
{
    OK(!img_vips_loaded());
    EQ_STR(img_vips_version(c), linked_version);
    OK(img_vips_loaded());
}

static void vips_recorded(cache *c) /* the record, the same file: not loaded */
{
    EQ_STR(img_vips_version(c), linked_version);
    OK(img_vips_available(c));
    OK(!img_vips_loaded());
}

static void vips_other_env(cache *c) /* another LD_LIBRARY_PATH: another key */
{
    setenv("LD_LIBRARY_PATH", "/nonexistent-sheaf-test", 1);
    EQ_STR(img_vips_version(c), linked_version);
    OK(img_vips_loaded());
}

static void vips_other_file(cache *c) /* the file is not the one recorded */
{
    rewrite_record(c, 1, "0 0 0 0.000000000 0.000000000");
    EQ_STR(img_vips_version(c), linked_version);
    OK(img_vips_loaded());
}

static void vips_changed(cache *c) /* the record's version, until a variant is made */
{
    rewrite_record(c, 2, "8.99.0");
    EQ_STR(img_vips_version(c), "8.99.0");
    OK(!img_vips_loaded());
    unsigned char b[64];
    size_t n = png(b, 1000, 500);
    char hex[65], *why = NULL;
    buf out = BUF_INIT;
    img_data_hash(b, n, hex);
    OK(!img_make_variant(c, hex, b, n, 480, 80, 100000000, &out, &why));
    OK(why && strstr(why, "libvips changed while sheaf ran (") != NULL);
    free(why);
    buf_release(&out);
}
#endif

TEST(vips_record)
{
#if SHEAF_HAVE_VIPS
    snprintf(linked_version, sizeof linked_version, "%d.%d.%d", vips_version(0), vips_version(1), vips_version(2));
    char dir[] = "/tmp/sheaf-imgvips-XXXXXX";
    OK(mkdtemp(dir) != NULL);
    cache *c = cache_open(dir, 0);
    in_child(vips_first, c);
    in_child(vips_recorded, c);
    in_child(vips_other_env, c);
    in_child(vips_recorded, c);
    in_child(vips_other_file, c);
    in_child(vips_recorded, c);
    in_child(vips_changed, c);
    cache_free(c);
    char cmd[100];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    OK(system(cmd) == 0);
#endif
}

TEST(png_size)
{
    unsigned char b[64];
    size_t n = png(b, 640, 480);
    img_info i;
    EQ_INT(rd(b, n, "a.png", &i), IMG_OK);
    EQ_INT(i.format, IMG_PNG);
    EQ_INT(i.width, 640);
    EQ_INT(i.height, 480);
    every_prefix(b, n, "a.png");
    const char *why;
    EQ_INT(img_read_header(b, 20, "a.png", &i, &why), IMG_SHORT);
    EQ_STR(why, "truncated PNG header (the file ends before its IHDR chunk)");
    b[12] = 'X';
    EQ_INT(img_read_header(b, n, "a.png", &i, &why), IMG_BAD);
    EQ_STR(why, "corrupt PNG header (no IHDR chunk after the signature)");
    /* a bomb reads as what it claims: the caller weighs it */
    n = png(b, 40000, 40000);
    EQ_INT(rd(b, n, "bomb.png", &i), IMG_OK);
    EQ_INT(i.width, 40000);
}

TEST(jpeg_size)
{
    static unsigned char b[70000];
    size_t n = jpeg(b, 1024, 768, 100);
    img_info i;
    EQ_INT(rd(b, n, "a.jpg", &i), IMG_OK);
    EQ_INT(i.format, IMG_JPEG);
    EQ_INT(i.width, 1024);
    EQ_INT(i.height, 768);
    every_prefix(b, n, "a.jpg");
    /* the frame header after 64 KiB of EXIF: SHORT from the head alone */
    n = jpeg(b, 300, 200, 65530);
    EQ_INT(rd(b, IMG_HEAD_BYTES, "a.jpg", &i), IMG_SHORT);
    EQ_INT(rd(b, n, "a.jpg", &i), IMG_OK);
    EQ_INT(i.width, 300);
    /* img_read_file then reads the whole file */
    char path[] = "/tmp/sheaf-img-XXXXXX";
    int fd = mkstemp(path);
    OK(fd >= 0 && write(fd, b, n) == (ssize_t)n);
    close(fd);
    buf why = BUF_INIT;
    EQ_INT(img_read_file(path, &i, &why), IMG_OK);
    EQ_INT(i.height, 200);
    /* and a truncated one is BAD with the reason */
    OK(truncate(path, 1000) == 0);
    EQ_INT(img_read_file(path, &i, &why), IMG_BAD);
    EQ_STR(why.data, "truncated JPEG (the file ends inside a segment)");
    unlink(path);
    buf_release(&why);
    const char *w;
    n = jpeg(b, 10, 10, 4);
    b[2] = 0xFF, b[3] = 0xDA; /* scan data before any frame header */
    EQ_INT(img_read_header(b, n, "a.jpg", &i, &w), IMG_BAD);
    EQ_STR(w, "corrupt JPEG (no frame header before the image data)");
}

/* A photo taken with the camera turned: EXIF's Orientation 5..8 swaps
 * width and height (the size it is shown at), 1..4 do not, in either
 * byte order; one that is not a SHORT from 1 to 8 is none. */
TEST(jpeg_orientation)
{
    unsigned char b[256];
    img_info i;
    for (int le = 0; le < 2; le++)
        for (unsigned o = 1; o <= 8; o++) {
            size_t n = jpeg_oriented(b, 640, 480, o, le, 3);
            EQ_INT(rd(b, n, "a.jpg", &i), IMG_OK);
            EQ_INT(i.orientation, o);
            EQ_INT(i.width, o >= 5 ? 480 : 640);
            EQ_INT(i.height, o >= 5 ? 640 : 480);
            every_prefix(b, n, "a.jpg");
        }
    size_t n = jpeg_oriented(b, 640, 480, 9, true, 3);
    EQ_INT(rd(b, n, "a.jpg", &i), IMG_OK);
    EQ_INT(i.orientation, 0);
    EQ_INT(i.width, 640);
    n = jpeg_oriented(b, 640, 480, 6, false, 4); /* a LONG: not an Orientation */
    EQ_INT(rd(b, n, "a.jpg", &i), IMG_OK);
    EQ_INT(i.orientation, 0);
    EQ_INT(i.width, 640);
    /* IFD0 said to lie past the segment: ignored, not read */
    n = jpeg_oriented(b, 640, 480, 6, true, 3);
    b[6 + 6 + 4] = 0xF0;
    EQ_INT(rd(b, n, "a.jpg", &i), IMG_OK);
    EQ_INT(i.orientation, 0);
    /* an entry count past the segment's end: ignored */
    n = jpeg_oriented(b, 640, 480, 6, true, 3);
    b[6 + 6 + 8] = 0xFF, b[6 + 6 + 9] = 0x7F;
    EQ_INT(rd(b, n, "a.jpg", &i), IMG_OK);
    EQ_INT(i.width, 480); /* Orientation is still the second entry */
    b[6 + 6 + 10 + 12] = 0x13; /* and now it is not: the walk stops at the end */
    EQ_INT(rd(b, n, "a.jpg", &i), IMG_OK);
    EQ_INT(i.orientation, 0);
    EQ_INT(i.width, 640);
}

TEST(gif_size)
{
    unsigned char b[64] = "GIF89a";
    b[6] = 0x2C, b[7] = 0x01; /* 300 */
    b[8] = 0xC8, b[9] = 0;    /* 200 */
    b[10] = 0, b[11] = 0, b[12] = 0;
    size_t n = 13;
    /* two image descriptors, each with an empty LZW stream: animated */
    for (int f = 0; f < 2; f++) {
        b[n++] = 0x2C;
        memset(b + n, 0, 9);
        n += 9;
        b[n++] = 2;
        b[n++] = 0;
    }
    b[n++] = 0x3B;
    img_info i;
    EQ_INT(rd(b, n, "a.gif", &i), IMG_OK);
    EQ_INT(i.format, IMG_GIF);
    EQ_INT(i.width, 300);
    EQ_INT(i.height, 200);
    OK(i.animated);
    OK(!img_resizable(&i));
    every_prefix(b, 13, "a.gif");
}

TEST(webp_size)
{
    unsigned char b[64] = { 0 };
    memcpy(b, "RIFF", 4);
    memcpy(b + 8, "WEBPVP8 ", 8);
    b[23] = 0x9D, b[24] = 0x01, b[25] = 0x2A;
    b[26] = 0x20, b[27] = 0x03; /* 800 */
    b[28] = 0x58, b[29] = 0x02; /* 600 */
    img_info i;
    EQ_INT(rd(b, 30, "a.webp", &i), IMG_OK);
    EQ_INT(i.format, IMG_WEBP);
    EQ_INT(i.width, 800);
    EQ_INT(i.height, 600);
    every_prefix(b, 30, "a.webp");
    /* lossless: 14 bits each, minus one */
    memcpy(b + 12, "VP8L", 4);
    b[20] = 0x2F;
    unsigned v = (99u) | (49u << 14);
    b[21] = (unsigned char)v, b[22] = (unsigned char)(v >> 8), b[23] = (unsigned char)(v >> 16),
    b[24] = (unsigned char)(v >> 24);
    EQ_INT(rd(b, 30, "a.webp", &i), IMG_OK);
    EQ_INT(i.width, 100);
    EQ_INT(i.height, 50);
    /* extended, animated */
    memset(b + 12, 0, 18);
    memcpy(b + 12, "VP8X", 4);
    b[20] = 0x02;
    b[24] = 199, b[27] = 99;
    EQ_INT(rd(b, 30, "a.webp", &i), IMG_OK);
    EQ_INT(i.width, 200);
    EQ_INT(i.height, 100);
    OK(i.animated);
}

TEST(avif_size)
{
    unsigned char b[128] = { 0 };
    size_t n = 0;
    be32(b, 20), memcpy(b + 4, "ftypavif", 8), n = 20;
    size_t meta = n;
    memcpy(b + meta + 4, "meta", 4), n += 12; /* + version/flags */
    size_t iprp = n;
    memcpy(b + iprp + 4, "iprp", 4), n += 8;
    size_t ipco = n;
    memcpy(b + ipco + 4, "ipco", 4), n += 8;
    be32(b + n, 20), memcpy(b + n + 4, "ispe", 4);
    be32(b + n + 12, 1920), be32(b + n + 16, 1080);
    n += 20;
    be32(b + meta, (unsigned)(n - meta)), be32(b + iprp, (unsigned)(n - iprp)), be32(b + ipco, (unsigned)(n - ipco));
    img_info i;
    EQ_INT(rd(b, n, "a.avif", &i), IMG_OK);
    EQ_INT(i.format, IMG_AVIF);
    EQ_INT(i.width, 1920);
    EQ_INT(i.height, 1080);
    every_prefix(b, n, "a.avif");
}

TEST(svg_size)
{
    img_info i;
    const char *s1 = "<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE svg [ <!ENTITY x \"y\"> ]>\n"
                     "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 120.5 60\"><g/></svg>";
    EQ_INT(rd((const unsigned char *)s1, strlen(s1), "d.svg", &i), IMG_OK);
    EQ_INT(i.format, IMG_SVG);
    EQ_INT(i.width, 121);
    EQ_INT(i.height, 60);
    every_prefix((const unsigned char *)s1, strlen(s1) - 10, "d.svg");
    const char *s2 = "<svg width='200px' viewBox='0,0,100,50'>";
    EQ_INT(rd((const unsigned char *)s2, strlen(s2), "d.svg", &i), IMG_OK);
    EQ_INT(i.width, 200);
    EQ_INT(i.height, 100);
    const char *s3 = "<svg width=\"1in\" height=\"72pt\">";
    EQ_INT(rd((const unsigned char *)s3, strlen(s3), "d.svg", &i), IMG_OK);
    EQ_INT(i.width, 96);
    EQ_INT(i.height, 96);
    const char *s4 = "<svg width=\"100%\">"; /* no size: nothing to write, no error */
    EQ_INT(rd((const unsigned char *)s4, strlen(s4), "d.svg", &i), IMG_UNKNOWN);
    /* an SVG named .png (a notebook's attachment) is read as one */
    const char *s6 = "<svg width=\"44\" height=\"22\">";
    EQ_INT(rd((const unsigned char *)s6, strlen(s6), "image.png", &i), IMG_OK);
    EQ_INT(i.format, IMG_SVG);
    EQ_INT(i.width, 44);
    const char *s5 = "<html>";
    const char *why;
    EQ_INT(img_read_header((const unsigned char *)s5, strlen(s5), "d.svg", &i, &why), IMG_BAD);
    EQ_STR(why, "not an SVG document (its root element is not <svg>)");
}

TEST(names_and_unknowns)
{
    img_info i;
    const char *why;
    EQ_INT(img_read_header((const unsigned char *)"hello", 5, "a.txt", &i, &why), IMG_UNKNOWN);
    EQ_INT(img_read_header((const unsigned char *)"hello there, world", 18, "a.png", &i, &why), IMG_BAD);
    EQ_STR(why, "not an image its name says (no PNG, JPEG, GIF, WebP or AVIF signature)");
    EQ_INT(img_read_header((const unsigned char *)"", 0, "a.jpg", &i, &why), IMG_BAD);
    EQ_STR(why, "truncated image (too short for any image header)");
}

TEST(variants)
{
#if SHEAF_HAVE_VIPS
    /* a real JPEG from libvips itself */
    VipsImage *im = NULL, *j = NULL;
    OK(!vips_gaussnoise(&im, 1000, 500, NULL));
    void *data = NULL;
    size_t len = 0;
    OK(!vips_jpegsave_buffer(im, &data, &len, "Q", 80, NULL));
    g_object_unref(im);
    (void)j;
    char dir[] = "/tmp/sheaf-imgcache-XXXXXX";
    OK(mkdtemp(dir) != NULL);
    cache *c = cache_open(dir, 0);
    buf out = BUF_INIT;
    char *why = NULL;
    char hex[65];
    img_data_hash(data, len, hex);
    OK(!img_variant_cached(c, hex, 480, 80, &out));
    OK(img_make_variant(c, hex, data, len, 480, 80, 100000000, &out, &why));
    img_info i;
    const char *w;
    EQ_INT(img_read_header((unsigned char *)out.data, out.len, "v.webp", &i, &w), IMG_OK);
    EQ_INT(i.format, IMG_WEBP);
    EQ_INT(i.width, 480);
    EQ_INT(i.height, 240);
    /* the second time from the cache: the same bytes */
    buf again = BUF_INIT;
    OK(img_variant_cached(c, hex, 480, 80, &again));
    OK(again.len == out.len && !memcmp(again.data, out.data, out.len));
    EQ_INT(cache_get_stats(c).hits, 1);
    /* a file's hash is remembered by its place, size and time */
    char path[128];
    snprintf(path, sizeof path, "%s/photo.jpg", dir);
    FILE *fp = fopen(path, "wb");
    OK(fp && fwrite(data, 1, len, fp) == len);
    fclose(fp);
    char h1[65], h2[65];
    buf bytes = BUF_INIT;
    OK(img_file_hash(c, path, h1, &bytes));
    EQ_STR(h1, hex);
    EQ_INT(bytes.len, len); /* read the first time */
    buf_reset(&bytes);
    OK(img_file_hash(c, path, h2, &bytes));
    EQ_STR(h2, hex);
    EQ_INT(bytes.len, 0); /* not the second */
    buf_release(&bytes);
    /* the pixel limit, before libvips decodes */
    buf_reset(&out);
    OK(!img_make_variant(c, hex, data, len, 480, 80, 400000, &out, &why));
    EQ_STR(why, "1000 × 500 pixels is more than the 400000 an image may have");
    free(why);
    why = NULL;
    /* a bomb: a PNG header claiming 40,000 × 40,000 */
    unsigned char b[64];
    size_t n = png(b, 40000, 40000);
    img_data_hash(b, n, hex);
    OK(!img_make_variant(c, hex, b, n, 480, 80, 100000000, &out, &why));
    EQ_STR(why, "40000 × 40000 pixels is more than the 100000000 an image may have");
    free(why);
    why = NULL;
    /* a corrupt body behind a good header: libvips's reason */
    n = png(b, 1000, 1000);
    img_data_hash(b, n, hex);
    OK(!img_make_variant(c, hex, b, n, 480, 80, 100000000, &out, &why));
    OK(why && !strncmp(why, "libvips could not read it: ", 27));
    free(why);
    cache_free(c);
    g_free(data);
    buf_release(&out);
    buf_release(&again);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    OK(system(cmd) == 0);
#endif
}

/* Real JPEGs from libvips with an EXIF Orientation: the header gives the
 * size as shown, and the variant is turned upright at that width (libvips
 * applies the orientation; shrink-on-load is chosen from the width as
 * shown, so a tall photo still decodes wide enough). */
TEST(orientation_variants)
{
#if SHEAF_HAVE_VIPS
    static const struct { int w, h, orientation; unsigned vw, want_w, want_h; } cases[] = {
        { 600, 400, 6, 200, 400, 600 },   /* 90° clockwise: 400 × 600 shown */
        { 2000, 1000, 8, 200, 1000, 2000 }, /* 270°, decoded at a quarter */
        { 600, 400, 5, 300, 400, 600 },   /* mirrored and turned */
        { 600, 400, 3, 300, 600, 400 },   /* 180°: no swap */
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        VipsImage *im = NULL;
        OK(!vips_gaussnoise(&im, cases[k].w, cases[k].h, NULL));
        vips_image_set_int(im, "orientation", cases[k].orientation);
        void *data = NULL;
        size_t len = 0;
        OK(!vips_jpegsave_buffer(im, &data, &len, "Q", 70, NULL));
        g_object_unref(im);
        img_info i;
        const char *why;
        EQ_INT(img_read_header(data, len, "a.jpg", &i, &why), IMG_OK);
        EQ_INT(i.orientation, cases[k].orientation);
        EQ_INT(i.width, cases[k].want_w);
        EQ_INT(i.height, cases[k].want_h);
        char hex[65];
        img_data_hash(data, len, hex);
        buf out = BUF_INIT;
        char *err = NULL;
        OK(img_make_variant(NULL, hex, data, len, cases[k].vw, 80, 100000000, &out, &err));
        OK(!err);
        free(err);
        img_info v;
        EQ_INT(img_read_header((unsigned char *)out.data, out.len, "v.webp", &v, &why), IMG_OK);
        EQ_INT(v.width, cases[k].vw);
        EQ_INT(v.height, cases[k].vw * cases[k].want_h / cases[k].want_w);
        buf_release(&out);
        g_free(data);
    }
#endif
}

static bool write_file(const char *path, const void *data, size_t len)
{
    FILE *fp = fopen(path, "wb");
    bool ok = fp && fwrite(data, 1, len, fp) == len;
    if (fp)
        ok = fclose(fp) == 0 && ok;
    return ok;
}

/* A file rewritten in place with bytes of the same size, its modification
 * time then set back to the nanosecond (cp -p, touch -r do so): the change
 * time still tells, and the remembered hash is not used. */
TEST(file_hash_rule)
{
    char dir[] = "/tmp/sheaf-imghash-XXXXXX";
    OK(mkdtemp(dir) != NULL);
    cache *c = cache_open(dir, 0);
    char path[128];
    snprintf(path, sizeof path, "%s/a.png", dir);
    OK(write_file(path, "first version of the bytes", 26));
    char h1[65], h2[65], want[65];
    buf bytes = BUF_INIT;
    OK(img_file_hash(c, path, h1, &bytes));
    img_data_hash((const unsigned char *)"first version of the bytes", 26, want);
    EQ_STR(h1, want);
    struct stat st;
    OK(stat(path, &st) == 0);
    usleep(20000); /* past a tick of the kernel's coarse clock */
    int fd = open(path, O_WRONLY);
    OK(fd >= 0 && pwrite(fd, "other", 5, 0) == 5);
    struct timespec times[2] = { st.st_atim, st.st_mtim };
    OK(futimens(fd, times) == 0);
    close(fd);
    struct stat st2;
    OK(stat(path, &st2) == 0);
    OK(st2.st_size == st.st_size && st2.st_mtim.tv_sec == st.st_mtim.tv_sec &&
       st2.st_mtim.tv_nsec == st.st_mtim.tv_nsec && st2.st_ino == st.st_ino);
    buf_reset(&bytes);
    OK(img_file_hash(c, path, h2, &bytes));
    img_data_hash((const unsigned char *)"other version of the bytes", 26, want);
    EQ_STR(h2, want);
    EQ_INT(bytes.len, 26); /* read again */
    buf_release(&bytes);
    cache_free(c);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    OK(system(cmd) == 0);
}

/* The images' record (site/imgrec.c): trusted only once the file is older
 * than the racy margin before the record's clock; then it gives the hash,
 * the copy's file and the variants' files, for the same output folder,
 * libvips, quality, widths and paths only; an edit with the mtime put
 * back is seen (the ctime). */
TEST(image_records)
{
    char dir[] = "/tmp/sheaf-imgrec-XXXXXX";
    OK(mkdtemp(dir) != NULL);
    char path[128], cmd[160], hex[65], want[65];
    snprintf(path, sizeof path, "%s/a.png", dir);
    OK(write_file(path, "first version of the bytes", 26));
    img_data_hash((const unsigned char *)"first version of the bytes", 26, want);
    cache *c = cache_open(dir, 0);
    site s;
    memset(&s, 0, sizeof s);
    site_file f = { .src = "a.png", .path = "a.png" };
    s.files = &f;
    s.nfiles = 1;
    site_variant v[2] = { { .file = 0, .width = 480, .path = "a.480w.webp" },
                          { .file = 0, .width = 960, .path = "a.960w.webp" } };
    site_img_out copy = { 1, 2, 26, 3, 4, 0 }, got, ids[2] = { { 5, 6, 7, 8, 9, 10 }, { 11, 12, 13, 14, 15, 16 } };
    site_img_out back[2];
    uint64_t use[2] = { 17, 18 }, useback[2];
    for (int round = 0; round < 3; round++) {
        if (round == 1)
            usleep(2200000); /* past the margin: the next record is trusted */
        site_img_records *r = site_img_records_open(c, dir, 1);
        OK(site_img_records_hash(r, 0, "a.png", path, hex));
        EQ_STR(hex, want);
        OK(site_img_records_known(r, 0, hex));
        /* rounds 0 and 1: no record, then one taken within the margin */
        EQ_INT(site_img_records_copy(r, 0, "out", "a.png", &got), round == 2);
        EQ_INT(site_img_records_variants(r, 0, "out", "8.14.1", 80, v, 2, back, useback), round == 2 ? 2 : 0);
        if (round == 2) {
            OK(!memcmp(&got, &copy, sizeof got));
            OK(!memcmp(back, ids, sizeof ids));
            OK(useback[0] == 17 && useback[1] == 18);
            OK(!site_img_records_copy(r, 0, "elsewhere", "a.png", &got));
            OK(!site_img_records_copy(r, 0, "out", "b.png", &got));
            EQ_INT(site_img_records_variants(r, 0, "elsewhere", "8.14.1", 80, v, 2, back, useback), 0);
            EQ_INT(site_img_records_variants(r, 0, "out", "8.15.0", 80, v, 2, back, useback), 0);
            EQ_INT(site_img_records_variants(r, 0, "out", "8.14.1", 75, v, 2, back, useback), 0);
            EQ_INT(site_img_records_variants(r, 0, "out", "8.14.1", 80, v, 1, back, useback), 0);
            v[1].width = 1000;
            EQ_INT(site_img_records_variants(r, 0, "out", "8.14.1", 80, v, 2, back, useback), 0);
            v[1].width = 960;
            v[1].path = "a.960w.png";
            EQ_INT(site_img_records_variants(r, 0, "out", "8.14.1", 80, v, 2, back, useback), 0);
            v[1].path = "a.960w.webp";
        }
        site_img_records_set_copy(r, 0, "a.png", &copy);
        site_img_records_set_variants(r, 0, "8.14.1", 80, v, 2, ids, use);
        site_img_records_save(r, &s, "out");
        site_img_records_free(r);
    }
    /* rewritten in place, the same size, its mtime put back */
    struct stat st;
    OK(stat(path, &st) == 0);
    usleep(20000);
    int fd = open(path, O_WRONLY);
    OK(fd >= 0 && pwrite(fd, "other", 5, 0) == 5);
    struct timespec times[2] = { st.st_atim, st.st_mtim };
    OK(futimens(fd, times) == 0);
    close(fd);
    site_img_records *r = site_img_records_open(c, dir, 1);
    OK(site_img_records_hash(r, 0, "a.png", path, hex));
    img_data_hash((const unsigned char *)"other version of the bytes", 26, want);
    EQ_STR(hex, want);
    OK(!site_img_records_copy(r, 0, "out", "a.png", &got));
    EQ_INT(site_img_records_variants(r, 0, "out", "8.14.1", 80, v, 2, back, useback), 0);
    site_img_records_free(r);
    cache_free(c);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    OK(system(cmd) == 0);
}

#if SHEAF_HAVE_VIPS
/* Overwrites every entry of one kind of the cache with bytes no read
 * accepts; returns how many. */
static int spoil_kind(const char *cachedir, const char *kind)
{
    char top[400];
    snprintf(top, sizeof top, "%s/v1/%s", cachedir, kind);
    int n = 0;
    DIR *d = opendir(top);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char shard[700];
        snprintf(shard, sizeof shard, "%s/%s", top, e->d_name);
        DIR *sd = opendir(shard);
        struct dirent *f;
        while (sd && (f = readdir(sd)) != NULL) {
            if (f->d_name[0] == '.')
                continue;
            char file[1000];
            snprintf(file, sizeof file, "%s/%s", shard, f->d_name);
            n += write_file(file, "spoilt", 6);
        }
        if (sd)
            closedir(sd);
    }
    if (d)
        closedir(d);
    return n;
}

static bool spoilt(const char *path)
{
    buf b = BUF_INIT;
    bool yes = fs_read_file(path, &b) && b.len == 6 && !memcmp(b.data, "spoilt", 6);
    buf_release(&b);
    return yes;
}

static int first_entry(const char *cachedir, const char *kind, char *out, size_t room)
{
    char top[400];
    snprintf(top, sizeof top, "%s/v1/%s", cachedir, kind);
    DIR *d = opendir(top);
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char shard[700];
        snprintf(shard, sizeof shard, "%s/%s", top, e->d_name);
        DIR *sd = opendir(shard);
        struct dirent *f;
        while (sd && !found && (f = readdir(sd)) != NULL)
            if (f->d_name[0] != '.')
                found = snprintf(out, room, "%s/%s", shard, f->d_name) > 0;
        if (sd)
            closedir(sd);
    }
    if (d)
        closedir(d);
    return found;
}

static bool build(const char *dir, build_stats *st)
{
    char site[200], out[200];
    snprintf(site, sizeof site, "%s/site", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    build_options o = { .site_dir = site, .out_dir = out, .write = true, .jobs = 2 };
    diag_list *d = diag_list_new();
    bool ok = build_site(&o, d, st);
    diag_list_free(d);
    return ok;
}

static bool webp_of_width(const char *path, unsigned width)
{
    buf b = BUF_INIT;
    img_info i;
    const char *why;
    bool ok = fs_read_file(path, &b)
              && img_read_header((const unsigned char *)b.data, b.len, path, &i, &why) == IMG_OK
              && i.format == IMG_WEBP && i.width == width;
    buf_release(&b);
    return ok;
}
#endif

/* A warm build keeps the variants already in the output folder without
 * reading them back from the cache; one replaced there, or a photo
 * changed, is made again. */
TEST(warm_build)
{
#if SHEAF_HAVE_VIPS
    VipsImage *im = NULL;
    OK(!vips_gaussnoise(&im, 1000, 500, NULL));
    void *data = NULL;
    size_t len = 0;
    OK(!vips_jpegsave_buffer(im, &data, &len, "Q", 80, NULL));
    g_object_unref(im);
    char dir[] = "/tmp/sheaf-imgwarm-XXXXXX";
    OK(mkdtemp(dir) != NULL);
    char path[300], cmd[400], webp[300], cachedir[300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/site/content/posts/a", dir);
    OK(system(cmd) == 0);
    snprintf(path, sizeof path, "%s/site/site.yaml", dir);
    OK(write_file(path, "title: T\nbase_url: https://example.org/\n", 40));
    snprintf(path, sizeof path, "%s/site/content/posts/a/index.md", dir);
    const char *md = "---\ntitle: A\ndate: 2024-01-01\n---\n![a photo](photo.jpg)\n";
    OK(write_file(path, md, strlen(md)));
    snprintf(path, sizeof path, "%s/site/content/posts/a/photo.jpg", dir);
    OK(write_file(path, data, len));
    /* older than the records' racy margin (site/imgrec.c): trusted from
     * the first build's record on */
    usleep(2200000);
    snprintf(webp, sizeof webp, "%s/out/posts/a/photo.480w.webp", dir);
    snprintf(cachedir, sizeof cachedir, "%s/site/.sheaf-cache", dir);
    build_stats st;
    OK(build(dir, &st));
    OK(webp_of_width(webp, 480));
    struct stat w1, w2;
    OK(stat(webp, &w1) == 0);
    /* warm: the cache's variants spoilt, so a build that read one would
     * make it again and store it whole */
    OK(spoil_kind(cachedir, "img") == 2); /* 480 and 960 */
    char entry[1000];
    OK(first_entry(cachedir, "img", entry, sizeof entry));
    OK(build(dir, &st));
    OK(spoilt(entry));
    OK(stat(webp, &w2) == 0);
    OK(w1.st_ino == w2.st_ino); /* the same file, carried */
    EQ_INT(st.written, 0);
    /* the images' record (site/imgrec.c) keeps the photo's hash and all
     * its variants: each variant's own record is not needed, and the
     * photo's hash is not asked of the cache on its own */
    OK(spoil_kind(cachedir, "img-out") == 2);
    EQ_INT(spoil_kind(cachedir, "img-src"), 0);
    OK(build(dir, &st));
    OK(spoilt(entry)); /* not made again */
    OK(stat(webp, &w2) == 0);
    OK(w1.st_ino == w2.st_ino);
    EQ_INT(st.written, 0);
    /* a variant replaced in the output folder (its own bytes, a new
     * inode): made again, from libvips since the cache is spoilt */
    unlink(webp);
    OK(write_file(webp, "not a webp", 10));
    OK(build(dir, &st));
    OK(webp_of_width(webp, 480));
    /* a variant deleted from the output folder: written again */
    OK(unlink(webp) == 0);
    OK(build(dir, &st));
    OK(webp_of_width(webp, 480));
    EQ_INT(st.written, 1);
    /* another quality: every variant made again, none kept by the record */
    buf q1 = BUF_INIT, q2 = BUF_INIT;
    OK(fs_read_file(webp, &q1));
    char yaml[300];
    snprintf(yaml, sizeof yaml, "%s/site/site.yaml", dir);
    const char *lowq = "title: T\nbase_url: https://example.org/\nimages:\n  quality: 40\n";
    OK(write_file(yaml, lowq, strlen(lowq)));
    OK(build(dir, &st));
    OK(fs_read_file(webp, &q2));
    OK(webp_of_width(webp, 480));
    OK(q2.len < q1.len); /* noise at quality 40 is smaller */
    buf_release(&q1);
    buf_release(&q2);
    /* the photo changed (other noise, the same name): new variants */
    buf before = BUF_INIT, after = BUF_INIT;
    OK(fs_read_file(webp, &before));
    g_free(data);
    OK(!vips_gaussnoise(&im, 1000, 500, "mean", 60.0, NULL));
    OK(!vips_jpegsave_buffer(im, &data, &len, "Q", 80, NULL));
    g_object_unref(im);
    OK(write_file(path, data, len));
    OK(build(dir, &st));
    OK(fs_read_file(webp, &after));
    OK(webp_of_width(webp, 480));
    OK(before.len != after.len || memcmp(before.data, after.data, before.len));
    buf_release(&before);
    buf_release(&after);
    g_free(data);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    OK(system(cmd) == 0);
#endif
}

/* A copied file (a bundle's photo, a file of static/) is kept unread by a
 * warm build when the "copy-out" record says the output's file is the copy
 * of this very source (device, inode, size, mtime and ctime), as variants
 * are. Seen from outside: an output copy changed behind the build's back,
 * its inode, size and mtime kept, stays as it is — nothing read it to
 * compare — until the source itself changes. */
TEST(warm_copy)
{
    char dir[] = "/tmp/sheaf-copywarm-XXXXXX";
    OK(mkdtemp(dir) != NULL);
    char path[300], cmd[400], src[300], dst[300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/site/content/posts %s/site/static", dir, dir);
    OK(system(cmd) == 0);
    snprintf(path, sizeof path, "%s/site/site.yaml", dir);
    OK(write_file(path, "title: T\nbase_url: https://example.org/\n", 40));
    snprintf(path, sizeof path, "%s/site/content/posts/2024-01-01-a.md", dir);
    OK(write_file(path, "---\ntitle: A\n---\nText.\n", 23));
    static char bytes[100000];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (char)('a' + i % 26);
    snprintf(src, sizeof src, "%s/site/static/data.bin", dir);
    OK(write_file(src, bytes, sizeof bytes));
    snprintf(dst, sizeof dst, "%s/out/data.bin", dir);
    build_stats st;
    OK(build(dir, &st));
    /* the output's copy altered in place, its mtime set back */
    struct stat before, after;
    OK(stat(dst, &before) == 0);
    int fd = open(dst, O_WRONLY);
    OK(fd >= 0 && pwrite(fd, "Z", 1, 500) == 1);
    struct timespec ts[2] = { before.st_atim, before.st_mtim };
    OK(futimens(fd, ts) == 0);
    close(fd);
    OK(build(dir, &st));
    buf b = BUF_INIT;
    OK(fs_read_file(dst, &b) && b.len == sizeof bytes && b.data[500] == 'Z'); /* kept, unread */
    OK(stat(dst, &after) == 0);
    OK(before.st_ino == after.st_ino);
    /* the source changed (its mtime and ctime move): compared, copied */
    bytes[7] = '!';
    OK(write_file(src, bytes, sizeof bytes));
    OK(build(dir, &st));
    buf_reset(&b);
    OK(fs_read_file(dst, &b) && b.len == sizeof bytes && !memcmp(b.data, bytes, sizeof bytes));
    buf_release(&b);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    OK(system(cmd) == 0);
}

int main(void)
{
    RUN(vips_record); /* first: in a process that has not loaded libvips */
    RUN(png_size);
    RUN(jpeg_size);
    RUN(jpeg_orientation);
    RUN(gif_size);
    RUN(webp_size);
    RUN(avif_size);
    RUN(svg_size);
    RUN(names_and_unknowns);
    RUN(variants);
    RUN(orientation_variants);
    RUN(file_hash_rule);
    RUN(image_records);
    RUN(warm_build);
    RUN(warm_copy);
    return harness_done();
}

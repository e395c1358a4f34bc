/* imghdr: an image's format and size from its header, without decoding.
 * Each reader looks only at data[0..len), never past it, with no loop
 * that is not bounded by len, and allocates nothing (the fuzz target
 * fuzz_imghdr runs it on arbitrary bytes). Formats:
 *   PNG   the IHDR chunk right after the signature;
 *   JPEG  the segments up to the first SOFn frame header, and the EXIF
 *         Orientation in an APP1 segment before it (a photo taken with
 *         the camera turned: width and height as it is shown);
 *   GIF   the logical screen descriptor (and whether a second image
 *         follows: animated);
 *   WebP  the RIFF chunk VP8 (lossy), VP8L (lossless) or VP8X (extended:
 *         canvas size, animation flag);
 *   AVIF  the ISO-BMFF boxes ftyp → meta → iprp → ipco → ispe;
 *   SVG   the root element's width, height and viewBox. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "img/img.h"
#include "util/fs.h"
#include "util/xalloc.h"

static unsigned be16(const unsigned char *p) { return (unsigned)p[0] << 8 | p[1]; }
static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static unsigned le16(const unsigned char *p) { return p[0] | (unsigned)p[1] << 8; }
static uint32_t le24(const unsigned char *p) { return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16; }
static uint32_t le32(const unsigned char *p) { return le24(p) | (uint32_t)p[3] << 24; }

#define FAIL(st, msg)                                                                              \
    do {                                                                                           \
        *why = (msg);                                                                              \
        return (st);                                                                               \
    } while (0)

static img_status png(const unsigned char *d, size_t n, img_info *o, const char **why)
{
    if (n < 33)
        FAIL(IMG_SHORT, "truncated PNG header (the file ends before its IHDR chunk)");
    if (be32(d + 8) != 13 || memcmp(d + 12, "IHDR", 4))
        FAIL(IMG_BAD, "corrupt PNG header (no IHDR chunk after the signature)");
    uint32_t w = be32(d + 16), h = be32(d + 20);
    if (!w || !h || w > 0x7fffffffu || h > 0x7fffffffu)
        FAIL(IMG_BAD, "corrupt PNG header (a width or height of 0 or above 2^31)");
    o->format = IMG_PNG;
    o->width = w;
    o->height = h;
    return IMG_OK;
}

/* The Orientation (TIFF tag 0x0112) in IFD0 of an APP1 segment's body
 * p[0..n) when it is EXIF ("Exif\0\0", then a TIFF header, either byte
 * order): 1..8, or 0 when there is none or it is no valid one (a reader
 * that shows the image, libvips's or a browser's, ignores it then too). */
static unsigned exif_orientation(const unsigned char *p, size_t n)
{
    if (n < 6 + 8 || memcmp(p, "Exif\0\0", 6))
        return 0;
    p += 6, n -= 6;
    bool le;
    if (!memcmp(p, "II*\0", 4))
        le = true;
    else if (!memcmp(p, "MM\0*", 4))
        le = false;
    else
        return 0;
#define RD16(q) (le ? le16(q) : be16(q))
#define RD32(q) (le ? le32(q) : be32(q))
    uint32_t ifd = RD32(p + 4);
    if (ifd > n || n - ifd < 2)
        return 0;
    unsigned count = RD16(p + ifd);
    for (unsigned k = 0; k < count; k++) {
        size_t e = ifd + 2 + 12 * (size_t)k;
        if (e > n || n - e < 12)
            return 0;
        if (RD16(p + e) != 0x0112)
            continue;
        unsigned v = RD16(p + e + 8);
        return RD16(p + e + 2) == 3 && RD32(p + e + 4) == 1 && v >= 1 && v <= 8 ? v : 0;
    }
    return 0;
#undef RD16
#undef RD32
}

static img_status jpeg(const unsigned char *d, size_t n, img_info *o, const char **why)
{
    size_t i = 2;
    unsigned orientation = 0;
    for (;;) {
        if (i >= n)
            FAIL(IMG_SHORT, "truncated JPEG (the file ends before its frame header)");
        if (d[i] != 0xFF)
            FAIL(IMG_BAD, "corrupt JPEG (a segment does not start with a marker)");
        while (i < n && d[i] == 0xFF) /* fill bytes */
            i++;
        if (i >= n)
            FAIL(IMG_SHORT, "truncated JPEG (the file ends before its frame header)");
        unsigned m = d[i++];
        if ((m >= 0xD0 && m <= 0xD7) || m == 0x01)
            continue; /* no length */
        if (m == 0xD9 || m == 0xDA || m == 0xD8)
            FAIL(IMG_BAD, "corrupt JPEG (no frame header before the image data)");
        if (i + 2 > n)
            FAIL(IMG_SHORT, "truncated JPEG (the file ends inside a segment)");
        size_t len = be16(d + i);
        if (len < 2)
            FAIL(IMG_BAD, "corrupt JPEG (a segment length below 2)");
        bool sof = m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
        if (sof) {
            if (len < 8)
                FAIL(IMG_BAD, "corrupt JPEG (a frame header shorter than 8 bytes)");
            if (i + 7 > n)
                FAIL(IMG_SHORT, "truncated JPEG (the file ends inside its frame header)");
            unsigned h = be16(d + i + 3), w = be16(d + i + 5);
            if (!w || !h)
                FAIL(IMG_BAD, "corrupt JPEG (a width or height of 0 in the frame header)");
            o->format = IMG_JPEG;
            o->orientation = orientation;
            bool turned = orientation >= 5; /* 5..8: a quarter turn, mirrored or not */
            o->width = turned ? h : w;
            o->height = turned ? w : h;
            return IMG_OK;
        }
        if (len > n - i)
            FAIL(IMG_SHORT, "truncated JPEG (the file ends inside a segment)");
        if (m == 0xE1 && !orientation) /* APP1: EXIF (or XMP, which says 0) */
            orientation = exif_orientation(d + i + 2, len - 2);
        i += len;
    }
}

/* Skips a GIF's sub-blocks from *i; false when they run past n. */
static bool gif_skip_blocks(const unsigned char *d, size_t n, size_t *i)
{
    while (*i < n) {
        unsigned b = d[(*i)++];
        if (!b)
            return true;
        if (b > n - *i)
            return false;
        *i += b;
    }
    return false;
}

static img_status gif(const unsigned char *d, size_t n, img_info *o, const char **why)
{
    if (n < 13)
        FAIL(IMG_SHORT, "truncated GIF header");
    unsigned w = le16(d + 6), h = le16(d + 8);
    if (!w || !h)
        FAIL(IMG_BAD, "corrupt GIF header (a width or height of 0)");
    o->format = IMG_GIF;
    o->width = w;
    o->height = h;
    /* animated: a second image descriptor; look for it in what was given
     * (a truncated tail is not an error here: libvips never reads GIFs) */
    size_t i = 13;
    if (d[10] & 0x80)
        i += 3u * (2u << (d[10] & 7));
    int frames = 0;
    while (i < n && frames < 2) {
        unsigned c = d[i++];
        if (c == 0x21) { /* extension */
            if (i >= n)
                break;
            i++;
            if (!gif_skip_blocks(d, n, &i))
                break;
        } else if (c == 0x2C) { /* image */
            frames++;
            if (i + 9 > n)
                break;
            unsigned f = d[i + 8];
            i += 9;
            if (f & 0x80)
                i += 3u * (2u << (f & 7));
            if (i >= n)
                break;
            i++; /* LZW minimum code size */
            if (!gif_skip_blocks(d, n, &i))
                break;
        } else {
            break; /* trailer or junk */
        }
    }
    o->animated = frames > 1;
    return IMG_OK;
}

static img_status webp(const unsigned char *d, size_t n, img_info *o, const char **why)
{
    if (n < 30)
        FAIL(IMG_SHORT, "truncated WebP header");
    const unsigned char *c = d + 12;
    o->format = IMG_WEBP;
    if (!memcmp(c, "VP8 ", 4)) {
        if (c[11] != 0x9D || c[12] != 0x01 || c[13] != 0x2A)
            FAIL(IMG_BAD, "corrupt WebP header (no VP8 start code)");
        o->width = le16(c + 14) & 0x3FFF;
        o->height = le16(c + 16) & 0x3FFF;
    } else if (!memcmp(c, "VP8L", 4)) {
        if (c[8] != 0x2F)
            FAIL(IMG_BAD, "corrupt WebP header (no VP8L signature)");
        uint32_t b = le32(c + 9);
        o->width = (b & 0x3FFF) + 1;
        o->height = ((b >> 14) & 0x3FFF) + 1;
    } else if (!memcmp(c, "VP8X", 4)) {
        o->animated = (c[8] & 0x02) != 0;
        o->width = le24(c + 12) + 1;
        o->height = le24(c + 15) + 1;
    } else {
        FAIL(IMG_BAD, "corrupt WebP header (its first chunk is not VP8, VP8L or VP8X)");
    }
    if (!o->width || !o->height)
        FAIL(IMG_BAD, "corrupt WebP header (a width or height of 0)");
    return IMG_OK;
}

/* ---- AVIF: boxes ---- */

typedef struct box {
    size_t body, end; /* offsets into the data */
    char type[4];
} box;

/* The box at *at inside [.., lim): false when it is cut or malformed
 * (*short_ set when the data ends, not the parent). */
static bool next_box(const unsigned char *d, size_t n, size_t *at, size_t lim, box *b, bool *short_)
{
    *short_ = false;
    if (*at + 8 > lim) {
        *short_ = *at + 8 > n;
        return false;
    }
    uint64_t size = be32(d + *at);
    size_t head = 8;
    if (size == 1) {
        if (*at + 16 > lim) {
            *short_ = *at + 16 > n;
            return false;
        }
        size = (uint64_t)be32(d + *at + 8) << 32 | be32(d + *at + 12);
        head = 16;
    } else if (size == 0) {
        size = lim - *at;
    }
    if (size < head)
        return false;
    memcpy(b->type, d + *at + 4, 4);
    b->body = *at + head;
    if (size > lim - *at) {
        /* cut by the end of the data we have: the rest may follow */
        *short_ = lim == n;
        b->end = lim;
        *at = lim;
        return lim == n;
    }
    b->end = *at + (size_t)size;
    *at = b->end;
    return true;
}

/* Finds the child box `type` of [from, lim); full: skip version+flags. */
static int find_box(const unsigned char *d, size_t n, size_t from, size_t lim, const char *type, box *out)
{
    size_t at = from;
    for (int k = 0; k < 4096; k++) {
        bool sh;
        box b;
        if (!next_box(d, n, &at, lim, &b, &sh))
            return sh ? -1 : 0;
        if (!memcmp(b.type, type, 4)) {
            *out = b;
            return 1;
        }
        if (b.end >= lim)
            return lim == n ? -1 : 0;
    }
    return 0;
}

static img_status avif(const unsigned char *d, size_t n, img_info *o, const char **why)
{
    box meta, iprp, ipco, ispe;
    int r = find_box(d, n, 0, n, "meta", &meta);
    if (r < 0)
        FAIL(IMG_SHORT, "truncated AVIF (the file ends before its image properties)");
    if (!r || meta.body + 4 > meta.end)
        FAIL(IMG_BAD, "corrupt AVIF (no meta box)");
    r = find_box(d, n, meta.body + 4, meta.end, "iprp", &iprp);
    if (r > 0)
        r = find_box(d, n, iprp.body, iprp.end, "ipco", &ipco);
    if (r > 0)
        r = find_box(d, n, ipco.body, ipco.end, "ispe", &ispe);
    if (r < 0)
        FAIL(IMG_SHORT, "truncated AVIF (the file ends before its image properties)");
    if (!r)
        FAIL(IMG_BAD, "corrupt AVIF (no ispe property with its size)");
    if (ispe.body + 12 > ispe.end)
        FAIL(ispe.end == n ? IMG_SHORT : IMG_BAD, "corrupt AVIF (an ispe property too short)");
    uint32_t w = be32(d + ispe.body + 4), h = be32(d + ispe.body + 8);
    if (!w || !h || w > 0x7fffffffu || h > 0x7fffffffu)
        FAIL(IMG_BAD, "corrupt AVIF (a width or height of 0 or above 2^31)");
    o->format = IMG_AVIF;
    o->width = w;
    o->height = h;
    return IMG_OK;
}

/* ---- SVG: the root element's attributes ---- */

static size_t skip_ws(const unsigned char *d, size_t n, size_t i)
{
    while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r'))
        i++;
    return i;
}

/* d[i..n) starts with s */
static bool at_str(const unsigned char *d, size_t n, size_t i, const char *s)
{
    size_t k = strlen(s);
    return k <= n - i && !memcmp(d + i, s, k);
}

static size_t find_str(const unsigned char *d, size_t n, size_t i, const char *s)
{
    size_t k = strlen(s);
    for (; i + k <= n; i++)
        if (!memcmp(d + i, s, k))
            return i;
    return n;
}

/* A length in CSS pixels: a number with no unit or px (pt, pc, in, cm, mm
 * too); a percentage or a font-relative unit is no size (-1). */
static double svg_length(const char *s)
{
    char *e;
    errno = 0;
    double v = strtod(s, &e);
    if (e == s || errno || !isfinite(v) || v <= 0)
        return -1;
    while (*e == ' ')
        e++;
    static const struct { const char *u; double k; } units[] = {
        { "", 1 }, { "px", 1 }, { "pt", 4.0 / 3 }, { "pc", 16 }, { "in", 96 }, { "cm", 96 / 2.54 },
        { "mm", 96 / 25.4 },
    };
    for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
        size_t k = strlen(units[i].u);
        if (!strncmp(e, units[i].u, k) && !e[k + strspn(e + k, " ")])
            return v * units[i].k;
    }
    return -1;
}

static unsigned round_px(double v) { return v < 1 ? 1 : v > 1e6 ? 1000000u : (unsigned)lround(v); }

static img_status svg(const unsigned char *d, size_t n, img_info *o, const char **why)
{
    size_t i = 0;
    if (n >= 3 && !memcmp(d, "\xEF\xBB\xBF", 3))
        i = 3;
    for (;;) { /* prolog: declarations, comments, doctype */
        i = skip_ws(d, n, i);
        if (i >= n)
            FAIL(IMG_SHORT, "truncated SVG (the file ends before its <svg> element)");
        if (at_str(d, n, i, "<?")) {
            i = find_str(d, n, i, "?>");
            if (i >= n)
                FAIL(IMG_SHORT, "truncated SVG (the file ends inside its XML declaration)");
            i += 2;
        } else if (at_str(d, n, i, "<!--")) {
            i = find_str(d, n, i + 4, "-->");
            if (i >= n)
                FAIL(IMG_SHORT, "truncated SVG (the file ends inside a comment)");
            i += 3;
        } else if (at_str(d, n, i, "<!")) {
            int depth = 0;
            for (i += 2; i < n && (d[i] != '>' || depth); i++)
                depth += d[i] == '[' ? 1 : d[i] == ']' ? -1 : 0;
            if (i >= n)
                FAIL(IMG_SHORT, "truncated SVG (the file ends inside its doctype)");
            i++;
        } else {
            break;
        }
    }
    if (!at_str(d, n, i, "<svg") || (i + 4 < n && !isspace(d[i + 4]) && d[i + 4] != '>' && d[i + 4] != '/'))
        FAIL(IMG_BAD, "not an SVG document (its root element is not <svg>)");
    i += 4;
    char width[64] = "", height[64] = "", vb[256] = "";
    for (;;) {
        i = skip_ws(d, n, i);
        if (i >= n)
            FAIL(IMG_SHORT, "truncated SVG (the file ends inside its <svg> tag)");
        if (d[i] == '>' || d[i] == '/')
            break;
        size_t ns = i;
        while (i < n && !isspace(d[i]) && d[i] != '=' && d[i] != '>' && d[i] != '/')
            i++;
        size_t nl = i - ns;
        i = skip_ws(d, n, i);
        if (i >= n)
            FAIL(IMG_SHORT, "truncated SVG (the file ends inside its <svg> tag)");
        if (d[i] != '=') {
            if (!nl)
                FAIL(IMG_BAD, "corrupt SVG (a malformed attribute in its <svg> tag)");
            continue;
        }
        i = skip_ws(d, n, i + 1);
        if (i >= n)
            FAIL(IMG_SHORT, "truncated SVG (the file ends inside its <svg> tag)");
        unsigned char q = d[i];
        if (q != '"' && q != '\'')
            FAIL(IMG_BAD, "corrupt SVG (an attribute value of its <svg> tag without quotes)");
        size_t vs = ++i;
        while (i < n && d[i] != q)
            i++;
        if (i >= n)
            FAIL(IMG_SHORT, "truncated SVG (the file ends inside its <svg> tag)");
        size_t vl = i++ - vs;
        char *dst = NULL;
        size_t cap = 0;
        if (nl == 5 && !memcmp(d + ns, "width", 5))
            dst = width, cap = sizeof width;
        else if (nl == 6 && !memcmp(d + ns, "height", 6))
            dst = height, cap = sizeof height;
        else if (nl == 7 && !memcmp(d + ns, "viewBox", 7))
            dst = vb, cap = sizeof vb;
        if (dst) {
            size_t k = vl < cap - 1 ? vl : cap - 1;
            memcpy(dst, d + vs, k);
            dst[k] = 0;
        }
    }
    double w = width[0] ? svg_length(width) : -1, h = height[0] ? svg_length(height) : -1;
    double vw = -1, vh = -1;
    if (vb[0]) {
        double v[4];
        char *p = vb;
        int k = 0;
        for (; k < 4; k++) {
            while (*p == ' ' || *p == ',' || *p == '\t' || *p == '\n' || *p == '\r')
                p++;
            char *e;
            v[k] = strtod(p, &e);
            if (e == p || !isfinite(v[k]))
                break;
            p = e;
        }
        if (k == 4 && v[2] > 0 && v[3] > 0)
            vw = v[2], vh = v[3];
    }
    if (w < 0 && h < 0) {
        w = vw;
        h = vh;
    } else if (w < 0) {
        w = vw > 0 ? h * vw / vh : -1;
    } else if (h < 0) {
        h = vw > 0 ? w * vh / vw : -1;
    }
    o->format = IMG_SVG;
    if (w <= 0 || h <= 0)
        return IMG_UNKNOWN; /* the browser's 300 × 150: nothing to write */
    o->width = round_px(w);
    o->height = round_px(h);
    return IMG_OK;
}

/* Text that starts like an XML document or an <svg> element. */
static bool looks_like_xml(const unsigned char *d, size_t n)
{
    size_t i = n >= 3 && !memcmp(d, "\xEF\xBB\xBF", 3) ? 3 : 0;
    i = skip_ws(d, n, i);
    return at_str(d, n, i, "<?xml") || at_str(d, n, i, "<svg") || at_str(d, n, i, "<!--");
}

static bool has_ext(const char *name, const char *ext)
{
    size_t n = name ? strlen(name) : 0, k = strlen(ext);
    return n >= k && !strcasecmp(name + n - k, ext);
}

img_status img_read_header(const unsigned char *d, size_t n, const char *name, img_info *o,
                           const char **why)
{
    memset(o, 0, sizeof *o);
    *why = NULL;
    static const unsigned char png_sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n' };
    if (n >= 8 && !memcmp(d, png_sig, 8))
        return png(d, n, o, why);
    if (n >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF)
        return jpeg(d, n, o, why);
    if (n >= 6 && (!memcmp(d, "GIF87a", 6) || !memcmp(d, "GIF89a", 6)))
        return gif(d, n, o, why);
    if (n >= 12 && !memcmp(d, "RIFF", 4) && !memcmp(d + 8, "WEBP", 4))
        return webp(d, n, o, why);
    if (n >= 12 && !memcmp(d + 4, "ftyp", 4) && (!memcmp(d + 8, "avif", 4) || !memcmp(d + 8, "avis", 4)))
        return avif(d, n, o, why);
    if (has_ext(name, ".svg") || looks_like_xml(d, n))
        return svg(d, n, o, why); /* an SVG under another name too, as browsers sniff it
                                     (a notebook's attachment "image.png" of type image/svg+xml) */
    /* a file named like an image whose bytes are none of these */
    static const char *const raster[] = { ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif" };
    for (size_t i = 0; i < sizeof raster / sizeof *raster; i++)
        if (has_ext(name, raster[i])) {
            if (n < 12)
                FAIL(IMG_BAD, "truncated image (too short for any image header)");
            FAIL(IMG_BAD, "not an image its name says (no PNG, JPEG, GIF, WebP or AVIF signature)");
        }
    return IMG_UNKNOWN;
}

img_status img_read_file(const char *path, img_info *o, buf *why_buf)
{
    memset(o, 0, sizeof *o);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        buf_printf(why_buf, "cannot read it: %s", fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        return IMG_BAD;
    }
    size_t want = IMG_HEAD_BYTES;
    unsigned char *b = NULL;
    size_t have = 0;
    img_status r;
    for (;;) {
        b = xrealloc(b, want);
        while (have < want) {
            ssize_t k = pread(fd, b + have, want - have, (off_t)have);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                break;
            have += (size_t)k;
        }
        const char *why = NULL;
        r = img_read_header(b, have, path, o, &why);
        if (r == IMG_SHORT && have == want && want < IMG_READ_MAX
            && (off_t)have < st.st_size) {
            want = (size_t)st.st_size < IMG_READ_MAX ? (size_t)st.st_size : IMG_READ_MAX;
            continue;
        }
        if (r == IMG_SHORT || r == IMG_BAD)
            buf_puts(why_buf, why);
        if (r == IMG_SHORT)
            r = IMG_BAD;
        break;
    }
    free(b);
    close(fd);
    return r;
}

const char *img_format_name(img_format f)
{
    static const char *const names[] = { "none", "PNG", "JPEG", "GIF", "WebP", "AVIF", "SVG" };
    return (unsigned)f < sizeof names / sizeof *names ? names[f] : "none";
}

bool img_resizable(const img_info *i)
{
    return (i->format == IMG_PNG || i->format == IMG_JPEG || i->format == IMG_WEBP) && !i->animated;
}

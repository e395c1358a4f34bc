/* img: the images a page shows. Two parts with one owner:
 *
 * - the header reader (imghdr.c): the width and height of a PNG, JPEG, GIF,
 *   WebP, AVIF or SVG from its first bytes, without decoding it. It is
 *   bounded (it reads at most what it is given, never loops past it, and
 *   allocates nothing) and says what is wrong with a truncated or corrupt
 *   header, so a bad image is an error at the reference that names it;
 * - the variant maker (variant.c): a raster image resized to a smaller
 *   width and encoded as WebP with libvips, under a pixel limit checked
 *   before anything is decoded, and cached in the build cache by
 *   (content hash, width, format, quality, libvips version).
 *
 * Nothing here knows about pages or output paths: site/ asks for sizes
 * while the Markdown renders, render/ asks for variants while it writes. */
#ifndef SHEAF_IMG_H
#define SHEAF_IMG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

struct cache;

typedef enum img_format {
    IMG_NONE,
    IMG_PNG,
    IMG_JPEG,
    IMG_GIF,
    IMG_WEBP,
    IMG_AVIF,
    IMG_SVG,
} img_format;

typedef struct img_info {
    img_format format;
    unsigned width, height; /* as shown: CSS pixels for SVG (rounded), else
                             * pixels, turned by a JPEG's orientation */
    unsigned orientation;   /* a JPEG's EXIF Orientation, 1..8, or 0 (none);
                             * 5..8 turn it a quarter: width and height are
                             * the stored ones swapped */
    bool animated;          /* an animated GIF or WebP: no variants */
} img_info;

typedef enum img_status {
    IMG_OK,
    IMG_UNKNOWN,   /* not an image format sheaf reads (no error) */
    IMG_SHORT,     /* the header goes past the bytes given: read more */
    IMG_BAD,       /* a corrupt header: *why says how */
} img_status;

/* How many bytes img_read_header wants first; when it answers IMG_SHORT
 * the caller gives it more (the whole file, within IMG_READ_MAX). */
#define IMG_HEAD_BYTES ((size_t)64 << 10)
#define IMG_READ_MAX ((size_t)64 << 20)

/* Reads the format and size of the image in data[0..len). `name` (the
 * file's name) only decides whether text is read as SVG (".svg").
 * Returns IMG_OK with *out filled, or another status; for IMG_BAD and
 * IMG_SHORT *why is a static phrase ("truncated PNG header"). */
img_status img_read_header(const unsigned char *data, size_t len, const char *name, img_info *out,
                           const char **why);

/* The size of the file at path: reads its head, and the whole file when
 * the header lies further (a JPEG after a large EXIF block). Returns
 * IMG_OK, IMG_UNKNOWN, or IMG_BAD with *why in `why_buf` (or static):
 * truncated, corrupt, unreadable. */
img_status img_read_file(const char *path, img_info *out, buf *why_buf);

/* "PNG", "JPEG", … */
const char *img_format_name(img_format f);

/* A raster format whose variants sheaf makes (PNG, JPEG, still WebP). */
bool img_resizable(const img_info *info);

/* ---- variants (libvips) ---- */

/* Loads and starts libvips once (thread-safe; cheap when already done),
 * with its operation cache off and one thread per operation. */
void img_vips_init(void);

/* libvips's version, "8.14.1": part of every variant's cache key; NULL
 * in a sheaf built without libvips (SHEAF_VIPS=OFF: sizes, no variants).
 * With a cache c, taken from the cache's record of the library file when
 * that file is unchanged, without loading it (variant.c); NULL c loads. */
const char *img_vips_version(struct cache *c);
bool img_vips_available(struct cache *c);
/* Whether this process has loaded libvips (and it started). */
bool img_vips_loaded(void);
/* The cache key of that record (kind "vips"): the soname, LD_LIBRARY_PATH
 * and who /etc/ld.so.cache is. */
void img_vips_record_key(buf *k);
/* Why libvips is not available (it could not be loaded, is too old, or
 * sheaf was built without it), or NULL. Static. */
const char *img_vips_problem(void);

/* The SHA-256 of an image's bytes, as 64 hex digits and a NUL, in hex. */
void img_data_hash(const unsigned char *data, size_t len, char hex[65]);

/* The same of the file at path, remembered in the cache under the file's
 * (path, size, modification and change times to the nanosecond, device
 * and inode): a build that finds it there does not read the file. When it reads it, its bytes are left
 * in `bytes` (for a variant to be made). False: it cannot be read. */
bool img_file_hash(struct cache *c, const char *path, char hex[65], buf *bytes);

/* Appends to key the build cache's key of the WebP variant (kind "img")
 * of the image whose hash is hex, at `width` and `quality`: everything its
 * bytes depend on, libvips's version included. False (nothing appended)
 * without libvips. */
bool img_variant_key(struct cache *c, buf *key, const char *hex, unsigned width, int quality);

/* Appends the cached WebP variant of the image whose hash is hex, at
 * `width` and `quality`, to out; false when the cache lacks it (or libvips,
 * whose version is part of the key, is not available). */
bool img_variant_cached(struct cache *c, const char *hex, unsigned width, int quality, buf *out);

/* Makes the WebP variant of the image data[0..len) (hash: hex) at `width`
 * pixels wide (height by the ratio), at `quality` (1..100): from the cache
 * when it holds it (c may be NULL), else with libvips, then stored there.
 * max_pixels bounds width × height of the source, checked from the header
 * before libvips decodes anything. Appends the WebP bytes to out and
 * returns true; false with *why (caller frees). */
bool img_make_variant(struct cache *c, const char *hex, const unsigned char *data, size_t len,
                      unsigned width, int quality, uint64_t max_pixels, buf *out, char **why);

#endif

/* imgrec: the images' record, kept in the build cache between `sheaf
 * build` processes, so that a warm build does for a photo no more than
 * stat it once: who each image file of the site is, the SHA-256 of its
 * bytes (the Markdown cache's key, site_images_env; every variant's key),
 * the file its copy became in the output folder, and the files its WebP
 * variants became (libvips's version, the quality, each width and path).
 * A few entries for the whole site, read whole — not one or four an image.
 * imgrec.c says when a record is trusted (the sources' rule, srcrec.c).
 * Used by a one-shot build with the cache; a build session keeps its own
 * memory of the output (render/output.c) and goes without. */
#ifndef SHEAF_SITE_IMGREC_H
#define SHEAF_SITE_IMGREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "site/model.h"
#include "util/fileid.h"

struct cache;

/* An output file as a later build may find it again: render/output.h's
 * output_file_id (both util/fileid.h's). */
typedef file_id site_img_out;

typedef struct site_img_records site_img_records;

/* Reads the records of the site in site_dir from cache c (not NULL) for
 * a site of nfiles files, and takes the clock that decides which files
 * are too recent to trust next time: before any of them is stat-ed.
 * Freed by site_img_records_free. */
site_img_records *site_img_records_open(struct cache *c, const char *site_dir, size_t nfiles);
/* File i (src: its path in the site, path: where to stat and read it):
 * stats it (following links, as a copy reads it) and gives its bytes'
 * SHA-256 as 64 hex digits in hex: from its record when that is trusted,
 * else read and hashed now. False when it cannot be read. Thread safe for
 * distinct i; once per file a build. */
bool site_img_records_hash(site_img_records *r, size_t i, const char *src, const char *path, char hex[65]);
/* File i's hash, when site_img_records_hash gave it this build. */
bool site_img_records_known(const site_img_records *r, size_t i, char hex[65]);
/* The file file i's copy became at rel in the output folder target, when
 * its trusted record says so (the caller checks the file is still there:
 * output_keep). */
bool site_img_records_copy(const site_img_records *r, size_t i, const char *target, const char *rel,
                           site_img_out *out);
/* Records the file the copy of file i became at rel this build. */
void site_img_records_set_copy(site_img_records *r, size_t i, const char *rel, const site_img_out *id);
/* The files the n variants v[] of file i became in target, made by libvips
 * `vips` at `quality`, when its trusted record holds exactly those widths
 * and paths: n, with ids[] filled, and use[] with their cache entries' ids
 * (cache_use_id: a build that keeps a variant still counts its entry as
 * used); else 0. */
size_t site_img_records_variants(const site_img_records *r, size_t i, const char *target, const char *vips,
                                 long quality, const site_variant *v, size_t n, site_img_out *ids,
                                 uint64_t *use);
/* Records the files the n variants v[] of file i became this build, and
 * their cache entries' ids. */
void site_img_records_set_variants(site_img_records *r, size_t i, const char *vips, long quality,
                                   const site_variant *v, size_t n, const site_img_out *ids,
                                   const uint64_t *use);
/* After a build committed its output to target: writes the entries whose
 * records changed (nothing in a build that changed nothing). s gives the
 * files' paths. */
void site_img_records_save(site_img_records *r, const site *s, const char *target);
/* site_img_records_free(NULL) does nothing. */
void site_img_records_free(site_img_records *r);
/* Reads every record of one entry's value (as the cache gives it back):
 * how many read back whole, -1 when the value is not one. For the fuzz
 * target (tests/fuzz/fuzz_imgrec.c). */
int site_img_records_check(const void *value, size_t n);

#endif

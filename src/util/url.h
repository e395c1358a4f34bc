/* url: the URL rules more than one stage needs — %-decoding (link
 * destinations in Markdown, request paths in the preview server) and where
 * a base URL's origin ends (site.yaml's base_url, the url filters). */
#ifndef SHEAF_URL_H
#define SHEAF_URL_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* Appends s[0..n) to out with each %XX escape decoded (either case of hex
 * digit; "%00" gives a NUL byte). A '%' not followed by two hex digits is
 * copied as written, or, when `strict`, makes it return false (out then
 * holds the part before it). */
bool url_percent_decode(buf *out, const char *s, size_t n, bool strict);

/* How many bytes of url are its origin: "https://x.io/notes/" → 12
 * ("https://x.io"), "https://x.io" → 12, "/notes/" or "notes" → 0. The
 * rest, when not empty, is the path. */
size_t url_origin_len(const char *url);

#endif

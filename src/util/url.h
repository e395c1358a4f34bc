/* url: the URL rules more than one stage needs — %-decoding (link
 * destinations in Markdown, request paths in the preview server), where
 * a base URL's origin ends (site.yaml's base_url, the url filters), and
 * which URLs that come from data may be written at all. */
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

/* Appends the output path s[0..n) ("machine learning/x/", a file's
 * "files/100%.pdf") to out as a URL path: each byte a URL path cannot
 * hold as written — C0 controls, space, DEL and " # % < > ? \\ ^ ` { | } —
 * as %XX (upper-case hex); UTF-8 and the rest as they are (an IRI, as
 * browsers show it). The one rule for every URL sheaf makes of a path. */
void url_path_escape(buf *out, const char *s, size_t n);

/* How many bytes of url are its origin: "https://x.io/notes/" → 12
 * ("https://x.io"), "https://x.io" → 12, "/notes/" or "notes" → 0. The
 * rest, when not empty, is the path. */
size_t url_origin_len(const char *url);

/* The URL policy for every URL that comes from data — a bibliography's
 * url fields, front matter's image: and link:, what a shortcode's template
 * writes into href or src from its arguments: only http:, https: and
 * mailto: URLs, relative URLs (no scheme, "//host/…" included) and
 * #fragments may be written. The scheme is found as a browser finds it
 * (WHATWG URL): leading C0 controls and spaces skipped, tabs and line
 * breaks anywhere ignored, letters in any case, so " Java\tScript:" is
 * javascript:. Returns true when u[0..n) may be written; else false with
 * the scheme, lower-cased and without the ':', in scheme[0..32) (cut
 * there when longer). */
bool url_allowed(const char *u, size_t n, char scheme[32]);

#endif
